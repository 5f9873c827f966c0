// The arithmetic of a GEMM: what A and B hold, how the products are formed, how accurate C must be.
// Part of every problem key (results entries, record files, the runtime's lookup) and of the public
// API (gemmtune/gemmtune.hpp), defined here once; core/precision.hpp has its names and properties.
// C is FP32, or for bf16 and fp16 optionally their own type (GemmProblem::c16); alpha, beta and the
// sums are FP32.
#pragma once

namespace gemmtune {

enum class Precision : int {
  fp32 = 0,    // FP32 operands, FP32 products on the CUDA cores: cublasSgemm's contract
  tf32x3 = 1,  // "3xtf32": FP32 operands, each split into two TF32 parts on the tensor cores, held
               // to FP32's accuracy (at least as accurate as cublasSgemm on the same data)
  tf32 = 2,    // FP32 operands rounded to TF32 (10 mantissa bits) on the tensor cores
  bf16 = 3,    // bfloat16 operands (__nv_bfloat16), FP32 accumulation
  fp16 = 4,    // half operands (__half), FP32 accumulation
};

}  // namespace gemmtune
