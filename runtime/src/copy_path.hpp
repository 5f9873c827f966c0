// Which copy path (CopyPath, kernel_config.hpp) a call runs: whole vectors where the operands allow
// it, general elsewhere. The runtime, the tuner and the launch check all ask here, so a binary
// compiled for whole vectors is only ever launched where the template's condition holds.
#pragma once

#include "kernel_config.hpp"

namespace gemmtune {

// The widest vector (4, 2 or 1 floats) that every row of A and B starts aligned to, as the
// kernel's own test decides it: leading dimension a multiple of the width, pointer aligned to its
// bytes, and in a batch every entry's rows too (the strides count). nullptr pointers count as
// aligned (as from cudaMalloc).
int aligned_width(int lda, int ldb, const void* a, const void* b, int batch = 1, long long stride_a = 0,
                  long long stride_b = 0);

// Whole vectors when the config loads vectors, every row of A and B starts aligned to one
// (aligned_width) and the rows as stored (k or m floats of A, n or k of B) are whole vectors:
// then every vector of a tile lies entirely inside or outside the matrix.
CopyPath copy_path_for(const KernelConfig& config, int m, int n, int k, int aligned_width);

}  // namespace gemmtune
