// The PTX the tensor-core family uses that CUDA C++ has no portable spelling for: cp.async with
// zero fill, ldmatrix, the mma.sync shapes of each precision, TF32 rounding, fire-and-forget
// reductions (split-K) and a 16-bit C's conversions. Architectures without an instruction get a
// fallback or a trap: fp16 runs from sm_75 (Turing: ldmatrix and mma m16n8k8, no cp.async), tf32
// and bf16 from sm_80, and the host never gives a kernel a GPU it traps on (core/kernel_config.cpp,
// min_compute_capability).

namespace gemmtune {
namespace mma {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void sts_u32x4(unsigned addr, unsigned a, unsigned b, unsigned c, unsigned d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d));
}

// The first n (0..8) 16-bit elements at p into the 16-byte shared chunk at dst, the rest zeroed,
// through registers and element by element: the elements past n may lie outside the allocation, and
// p need not be 4-byte aligned (the unaligned 16-bit path in mma/copy_global_to_shared.cuh does the
// same, written out).
__device__ __forceinline__ void copy_halves_zero_filled(unsigned dst, const unsigned short* p, int n) {
  unsigned w[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const unsigned lo = 2 * e < n ? p[2 * e] : 0u;
    const unsigned hi = 2 * e + 1 < n ? p[2 * e + 1] : 0u;
    w[e] = lo | (hi << 16);
  }
  sts_u32x4(dst, w[0], w[1], w[2], w[3]);
}

// cp.async of 16 bytes of which the first src_bytes are read and the rest zero-filled: src_bytes = 0
// reads nothing, so the source address of an out-of-range chunk is never dereferenced. .cg: the
// tile is read once per block, L1 allocation would only evict.
// sm_75 has no cp.async: the same bytes go through registers, synchronously (a whole chunk as one
// 16-byte load, a partial one at the matrix's edge element by element; only the 16-bit operands run
// there, so src_bytes is even). A store that has landed is stronger than one awaited with
// cp_async_wait, so the kernel's barriers alone keep the pipeline correct, and commit and wait are
// no-ops there. The load stalls the warp instead of overlapping the mma, so stages beyond 2 only
// cost shared memory on sm_75 (the search space prunes them: tuner/search/search_space.cpp).
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#else
  if (src_bytes == 16) {
    const uint4 v = __ldcg(static_cast<const uint4*>(src));
    sts_u32x4(dst, v.x, v.y, v.z, v.w);
  } else {
    copy_halves_zero_filled(dst, static_cast<const unsigned short*>(src), src_bytes / 2);
  }
#endif
}

// 4-byte variant for FP32 operands whose rows are not 16-byte aligned (odd leading dimensions). FP32
// operands (tf32, 3xtf32) need sm_80, so no fallback.
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

// sm_75 has f16 mma only as m16n8k8: the k16 product is two of them, k 0-7 then k 8-15. In the
// m16n8k16 fragments a0, a1 (rows g, g + 8) and b0 hold k 0-7 (2t, 2t + 1), a2, a3 and b1 k 8-15;
// m16n8k8's a0, a1, b0 hold the same rows and columns of its 8 k, so the registers pass unchanged.
__device__ __forceinline__ void mma_f16_16x8x16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b0));
  asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
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
