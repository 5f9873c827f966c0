// Which binary (KernelPath, kernel_config.hpp) a call runs: the most specialised its operands
// allow. The runtime, the tuner and the launch check all ask here, so a binary is only ever
// launched where the template's assumptions hold.
#pragma once

#include "core/kernel_config.hpp"

namespace gemmtune {

// The widest vector (4, 2 or 1 floats) that every row of A, B and C starts aligned to, as the
// kernel's own test decides it: leading dimension a multiple of the width, pointer aligned to its
// bytes, and in a batch every entry's rows too (the strides count). nullptr pointers count as
// aligned (as from cudaMalloc).
int aligned_width(int lda, int ldb, int ldc, const void* a, const void* b, const void* c, int batch = 1,
                  long long stride_a = 0, long long stride_b = 0, long long stride_c = 0);

// The same in 4-byte units for A and B of a precision's elements: 16-bit ones count two elements as
// one, and an odd leading dimension or stride of theirs aligns to nothing wider than 1 (C is FP32).
int aligned_width(Precision precision, int lda, int ldb, int ldc, const void* a, const void* b, const void* c,
                  int batch, long long stride_a, long long stride_b, long long stride_c);

// Whether config has a whole-tile binary (KernelPath::whole_tiles): an sgemm kernel with vector
// loads whose C columns come in runs of 4 (thread_n a multiple of 4, no transpose_b), stored as float4s.
bool has_whole_tiles_path(const KernelConfig& config);

// Whole tiles, whole vectors or general: see KernelPath. aligned_width as above.
KernelPath kernel_path_for(const KernelConfig& config, int m, int n, int k, int aligned_width);

}  // namespace gemmtune
