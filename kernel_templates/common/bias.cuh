// A bias row added in the epilogue (a GEMM with a bias: C = alpha * A * B + beta * C + bias): one
// value per column of C, of C's element type (FP32, or a 16-bit C's raw bits, widened exactly), the
// same for every row and batch entry. Added once, where each element's final value is formed: the
// host gives split-K's slices none (its reduction adds it, or for atomic slices the kernel over C
// before them or sgemm's first slice, as it scales the tile). A null bias adds nothing. Needs
// common/sixteen_bit_c.cuh before it.

namespace gemmtune {
namespace c16 {

// bias[col], 0 for a null bias. BF16 picks the 16-bit format (bfloat16, else half); unused for FP32.
template <bool BF16>
__device__ __forceinline__ float bias_at(const float* bias, int col) {
  return bias != nullptr ? bias[col] : 0.0f;
}
template <bool BF16>
__device__ __forceinline__ float bias_at(const unsigned short* bias, int col) {
  return bias != nullptr ? widen_16<BF16>(bias[col]) : 0.0f;
}

}  // namespace c16
}  // namespace gemmtune
