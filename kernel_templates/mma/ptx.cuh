// The PTX the tensor-core family uses that CUDA C++ has no portable spelling for: cp.async with
// zero fill, ldmatrix, the mma.sync shapes of each precision, TF32 rounding and fire-and-forget
// reductions (split-K). Architectures without an instruction get a trap or a fallback: the host never
// gives those kernels such a GPU.

namespace gemmtune {
namespace mma {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// cp.async of 16 bytes of which the first src_bytes are read and the rest zero-filled: src_bytes = 0
// reads nothing, so the source address of an out-of-range chunk is never dereferenced. .cg: the
// tile is read once per block, L1 allocation would only evict.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#else
  __trap();
#endif
}

// 4-byte variant for FP32 operands whose rows are not 16-byte aligned (odd leading dimensions).
__device__ __forceinline__ void cp_async_4(unsigned dst, const void* src, int src_bytes) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#else
  __trap();
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}

// Four 8x8 matrices of 16-bit elements (or 8x4 of 32-bit ones: ldmatrix does not look inside the 16
// bytes of a row); lanes 8i..8i+7 give the row addresses of matrix i, and register i holds, in lane l,
// row l/4, elements 2(l%4) and 2(l%4)+1 of matrix i (.trans: column l/4, rows 2(l%4), 2(l%4)+1).
__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

__device__ __forceinline__ void ldsm_x4_trans(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2,
                                              unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

__device__ __forceinline__ unsigned lds_u32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}

__device__ __forceinline__ void lds_u32x4(unsigned addr, unsigned& a, unsigned& b, unsigned& c, unsigned& d) {
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
}

__device__ __forceinline__ void sts_u32x4(unsigned addr, unsigned a, unsigned b, unsigned c, unsigned d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d));
}

// FP32 -> TF32, round to nearest (ties away from zero); the low 13 bits of the result are zero.
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// The same rounding in integer arithmetic: adding half a TF32 ulp to the bit pattern and clearing the
// low 13 bits rounds the magnitude half away from zero, carrying into the exponent where it must.
// On an H100, one cvt.rna per mma cut the register-only mma.sync rate by 23%, these two integer
// operations by 6% (bench.cu, peak_kernel). Exact for every finite x and for infinities; a NaN whose
// payload has its top 11 bits set (CUDA's canonical 0x7fffffff, say) carries into the sign bit and
// comes out as -0: use to_tf32_int_safe unless something else carries the NaN (3xtf32: x - big).
__device__ __forceinline__ unsigned to_tf32_int(float x) {
  return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}

// NaN-safe: infinities and NaNs (exponent all ones) pass through unchanged; the tensor core reads a
// NaN as a NaN whatever its low bits. Three more integer operations than to_tf32_int.
__device__ __forceinline__ unsigned to_tf32_int_safe(float x) {
  const unsigned u = __float_as_uint(x);
  return (u & 0x7f800000u) == 0x7f800000u ? u : (u + 0x1000u) & 0xffffe000u;
}

// HOW: 0 cvt.rna, 1 integer NaN-safe, 2 integer (a carrying NaN payload vanishes; see to_tf32_int),
// 3 none: the FP32 bits as they are (the tensor core ignores the low 13).
template <int HOW>
__device__ __forceinline__ unsigned round_tf32(float x) {
  if constexpr (HOW == 0) return to_tf32(x);
  if constexpr (HOW == 1) return to_tf32_int_safe(x);
  if constexpr (HOW == 2) return to_tf32_int(x);
  return __float_as_uint(x);
}

// D = A * B + D on one 16x8 tile of C (fragment layouts: PTX ISA, "Matrix Fragments for mma.m16n8k8"
// and "mma.m16n8k16"). Not volatile: nothing but the registers depends on them, so the compiler may
// interleave them with the fragment loads.
__device__ __forceinline__ void mma_tf32_16x8x8(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void mma_bf16_16x8x16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void mma_f16_16x8x16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Fire-and-forget addition (split-K): no value comes back, so nothing waits for it.
__device__ __forceinline__ void red_add_f32(float* p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(p), "f"(v) : "memory");
}

// Vector forms (sm_90: one reduction for 2 or 4 floats, 8- or 16-byte aligned p); scalar before.
__device__ __forceinline__ void red_add_f32x2(float* p, float a, float b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(p), "f"(a), "f"(b) : "memory");
#else
  red_add_f32(p, a), red_add_f32(p + 1, b);
#endif
}

__device__ __forceinline__ void red_add_f32x4(float* p, float a, float b, float c, float d) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
#else
  red_add_f32(p, a), red_add_f32(p + 1, b), red_add_f32(p + 2, c), red_add_f32(p + 3, d);
#endif
}


}  // namespace mma
}  // namespace gemmtune
