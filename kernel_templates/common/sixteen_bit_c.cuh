// A 16-bit C (bf16 or fp16, as raw bits), shared by every family that writes one: the FP32 value
// rounded to nearest even once, at the store, and a C read for beta widened exactly. BF16: bfloat16,
// else half. No standard headers (NVRTC), as the families that include it.

namespace gemmtune {
namespace c16 {

// cvt.rn.bf16.f32 is sm_80's, and the T4 (sm_75) runs bf16 stream kernels too: there the rounding is
// done in integer arithmetic (adding just under half an ulp, plus the kept bit's parity, rounds ties
// to even; a NaN stays a quiet NaN instead of carrying into the exponent).
template <bool BF16>
__device__ __forceinline__ unsigned short round_to_16(float x) {
  unsigned short h;
  if constexpr (BF16) {
#if __CUDA_ARCH__ >= 800
    asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
#else
    const unsigned u = __float_as_uint(x);
    h = static_cast<unsigned short>((u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u
                                                                     : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
  } else {
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
  }
  return h;
}

// Two values in one instruction where the GPU has it (sm_80's packed cvt), ready for one 4-byte
// store: lo in the low half (the lower address once stored), hi in the high half.
template <bool BF16>
__device__ __forceinline__ unsigned round_pair_to_16(float lo, float hi) {
#if __CUDA_ARCH__ >= 800
  unsigned r;
  if constexpr (BF16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
#else
  return static_cast<unsigned>(round_to_16<BF16>(lo)) | (static_cast<unsigned>(round_to_16<BF16>(hi)) << 16);
#endif
}

template <bool BF16>
__device__ __forceinline__ float widen_16(unsigned short h) {
  if constexpr (BF16) {
    return __uint_as_float(static_cast<unsigned>(h) << 16);  // bf16 is FP32's upper half
  } else {
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
    return f;
  }
}

}  // namespace c16
}  // namespace gemmtune
