// The rules are cuBLAS's, in row-major terms, plus one cuBLAS leaves to the caller: batch entries of
// C must not overlap, or two entries would race on the same elements.
#include "gemm_call.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace gemmtune {

const char* gemm_call_error(const GemmCall& call) {
  const GemmProblem& p = call.problem;
  if (p.m < 0 || p.n < 0 || p.k < 0) return "m, n and k must not be negative";
  if (p.batch < 0) return "the batch count must not be negative";
  if ((p.op_a != Op::n && p.op_a != Op::t) || (p.op_b != Op::n && p.op_b != Op::t))
    return "op_a and op_b must be Op::n or Op::t";
  if (static_cast<int>(p.precision) < 0 || static_cast<int>(p.precision) > static_cast<int>(Precision::fp16))
    return "precision is not one of fp32, 3xtf32, tf32, bf16, fp16";
  if (p.c16 && p.precision != Precision::bf16 && p.precision != Precision::fp16)
    return "a 16-bit C (c16) needs bf16 or fp16 operands";
  if (p.lda < std::max(1, p.op_a == Op::n ? p.k : p.m)) return "lda is smaller than a row of A as stored";
  if (p.ldb < std::max(1, p.op_b == Op::n ? p.n : p.k)) return "ldb is smaller than a row of B as stored";
  if (p.ldc < std::max(1, p.n)) return "ldc must be at least max(1, n)";
  if (p.batch > 1 && p.m > 0 && p.n > 0 &&
      std::llabs(p.stride_c) < static_cast<long long>(p.m - 1) * p.ldc + p.n)
    return "stride_c makes the batch's entries of C overlap";
  if (gemm_call_is_empty(call)) return nullptr;
  if (call.c == nullptr) return "c must not be null";
  if (p.k > 0 && (call.a == nullptr || call.b == nullptr)) return "a and b must not be null";
  if (reinterpret_cast<std::uintptr_t>(call.bias) % (p.c16 ? 2 : 4) != 0) return "bias is not aligned to its element";
  return nullptr;
}

GemmCall from_column_major(Op transa, Op transb, int m, int n, int k, float alpha, const float* a, int lda,
                           long long stride_a, const float* b, int ldb, long long stride_b, float beta, float* c,
                           int ldc, long long stride_c, int batch_count) {
  GemmCall call;
  GemmProblem& p = call.problem;
  p.m = n, p.n = m, p.k = k;
  p.lda = ldb, p.ldb = lda, p.ldc = ldc;
  p.op_a = transb, p.op_b = transa;
  p.batch = batch_count;
  p.stride_a = stride_b, p.stride_b = stride_a, p.stride_c = stride_c;
  call.alpha = alpha, call.beta = beta;
  call.a = b, call.b = a, call.c = c;
  return call;
}

}  // namespace gemmtune
