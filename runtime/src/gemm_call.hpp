// One call as the library receives it, row-major (gemmtune/gemmtune.hpp's GemmProblem and the
// operands), its validation, and the column-major calls turned into it: a column-major C = op(A) op(B)
// is the row-major C^T = op(B)^T op(A)^T over the same memory, so m and n, and A and B, swap.
#pragma once

#include <gemmtune/gemmtune.hpp>

#include "core/gemm_launch.hpp"

namespace gemmtune {

struct GemmCall {
  GemmProblem problem;
  float alpha = 1.0f, beta = 0.0f;
  const void* a = nullptr;  // elements of problem.precision's type
  const void* b = nullptr;
  void* c = nullptr;  // float, or problem.precision's 16-bit type where problem.c16
  const void* bias = nullptr;  // n elements of C's type added to every row (Handle::gemm_bias), or none
};

// Why the call cannot be run (sizes, leading dimensions for its layout, batch and strides, null
// pointers), or nullptr.
const char* gemm_call_error(const GemmCall& call);

// True when the call does nothing: an empty C or an empty batch.
inline bool gemm_call_is_empty(const GemmCall& call) {
  return call.problem.m == 0 || call.problem.n == 0 || call.problem.batch == 0;
}

// cublasSgemmStridedBatched's arguments as the row-major call they describe.
GemmCall from_column_major(Op transa, Op transb, int m, int n, int k, float alpha, const float* a, int lda,
                           long long stride_a, const float* b, int ldb, long long stride_b, float beta, float* c,
                           int ldc, long long stride_c, int batch_count);

// The kernel's arguments for a call (the layout is the kernel's own).
inline GemmArguments kernel_arguments(const GemmCall& c) {
  const GemmProblem& p = c.problem;
  // GemmArguments types A and B as float; a tensor-core kernel reads them as its precision's type.
  return {p.m,    p.n, p.k,   c.alpha, static_cast<const float*>(c.a), p.lda,      static_cast<const float*>(c.b),
          p.ldb,  c.beta, c.c, p.ldc, p.batch, p.stride_a, p.stride_b, p.stride_c, c.bias};
}

}  // namespace gemmtune
