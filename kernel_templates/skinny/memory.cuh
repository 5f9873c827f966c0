// Skinny family, part 1: what both kernels use (kernel_templates/skinny.cuh): the memory
// instructions, where a block works and split-K's meeting point, and programmatic dependent launch
// (sm_90: the runtime launches every kernel as a dependent of the stream's previous one; it must wait
// for that kernel's writes before its first access).

namespace gemmtune {
namespace skinny {

// The operands' elements: ELEM 0 FP32, 1 bf16, 2 fp16 (the 16-bit ones held as their bits: NVRTC
// compiles these templates without headers). The sums are FP32 whatever the operands.
template <int ELEM>
struct Element {
  static_assert(ELEM >= 0 && ELEM <= 2, "ELEM: 0 fp32, 1 bf16, 2 fp16");
  using T = unsigned short;
};
template <>
struct Element<0> {
  using T = float;
};

// Loads BYTES (16, 8, 4 or 2) as 32-bit words (2 bytes: the low half of w[0]). STREAM: B, read
// exactly once, kept out of L1 (no_allocate) so that A, which every warp re-reads, stays there. (An
// L2 prefetch hint of 128 or 256 bytes measured the same on the H100.)
template <int BYTES, bool STREAM>
__device__ __forceinline__ void ld_bits(const void* p, unsigned* w) {
  static_assert(BYTES == 16 || BYTES == 8 || BYTES == 4 || BYTES == 2, "BYTES: 16, 8, 4 or 2");
  if constexpr (BYTES == 16 && STREAM) {
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
  } else if constexpr (BYTES == 16) {
    asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
  } else if constexpr (BYTES == 8 && STREAM) {
    asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p));
  } else if constexpr (BYTES == 8) {
    asm("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p));
  } else if constexpr (BYTES == 4 && STREAM) {
    asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
  } else if constexpr (BYTES == 4) {
    asm("ld.global.nc.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
  } else {
    unsigned short h;
    if constexpr (STREAM)
      asm("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(h) : "l"(p));
    else
      asm("ld.global.nc.u16 %0, [%1];" : "=h"(h) : "l"(p));
    w[0] = h;
  }
}

// Element e of words holding packed elements, as FP32 (exact for every precision).
template <int ELEM>
__device__ __forceinline__ float element_to_float(const unsigned* w, int e) {
  if constexpr (ELEM == 0) {
    return __uint_as_float(w[e]);
  } else {
    const unsigned bits = e % 2 ? w[e / 2] >> 16 : w[e / 2] & 0xffffu;
    if constexpr (ELEM == 1) {
      return __uint_as_float(bits << 16);  // bf16 is FP32's upper half
    } else {
      float f;
      asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<unsigned short>(bits)));
      return f;
    }
  }
}

// N elements at p (one load of N * sizeof(T) bytes, aligned to it) as FP32.
template <int ELEM, int N, bool STREAM>
__device__ __forceinline__ void load_floats(const typename Element<ELEM>::T* p, float (&out)[N]) {
  constexpr int BYTES = N * static_cast<int>(sizeof(typename Element<ELEM>::T));
  unsigned w[(BYTES + 3) / 4];
  ld_bits<BYTES, STREAM>(p, w);
#pragma unroll
  for (int e = 0; e < N; ++e) out[e] = element_to_float<ELEM>(w, e);
}

// Partial sums written by other blocks of this launch: read from L2 (cg), never from a stale L1 line.
__device__ __forceinline__ float ld_l2(const float* p) {
  float v;
  asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void cp_async16(float* smem, const float* gmem, bool in_bounds) {
#if __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(in_bounds ? 16 : 0));
#else
  // No cp.async before sm_80: a synchronous copy (the barrier before the reads orders it).
  float4 v = in_bounds ? *reinterpret_cast<const float4*>(gmem) : make_float4(0.f, 0.f, 0.f, 0.f);
  *reinterpret_cast<float4*>(smem) = v;
#endif
}

__device__ __forceinline__ void cp_async4(float* smem, const float* gmem, bool in_bounds) {
#if __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem), "r"(in_bounds ? 4 : 0));
#else
  *smem = in_bounds ? *gmem : 0.0f;
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

__device__ __forceinline__ void red_add_f32x4(float* p, float4 v) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
#else
  atomicAdd(p, v.x), atomicAdd(p + 1, v.y), atomicAdd(p + 2, v.z), atomicAdd(p + 3, v.w);
#endif
}

// ---- where a block works, and split-K's meeting point -----------------------------------------

// gridDim.x holds the tiles of C (tiles_m * tiles_n, row-major), each as `splits` neighbouring blocks
// (so a tile's slices of K run together).
struct BlockTile {
  int tiles;   // tiles of C in one batch entry
  int tile;    // this block's
  int split;   // its slice of K
  int m0, n0;  // its first row and column of C
};

template <int BM, int BN>
__device__ __forceinline__ BlockTile block_tile(int M, int N, int splits) {
  const int tiles_n = (N + BN - 1) / BN;
  BlockTile t;
  t.tiles = tiles_n * ((M + BM - 1) / BM);
  t.split = blockIdx.x % splits;
  t.tile = blockIdx.x / splits;
  t.m0 = (t.tile / tiles_n) * BM;
  t.n0 = (t.tile % tiles_n) * BN;
  return t;
}

// Called by every thread of a block once its share of the tile's sums is in the workspace: true,
// in every thread, for the tile's last block to arrive, which then reads them all. The tile's
// counter is left zero for the next launch.
__device__ __forceinline__ bool last_to_arrive(unsigned* counter, int splits) {
  __shared__ unsigned is_last;
  __threadfence();  // this thread's sums are visible GPU-wide before the count says so
  __syncthreads();
  if (threadIdx.x == 0) {
    is_last = atomicAdd(counter, 1u) == static_cast<unsigned>(splits - 1);
    if (is_last) *counter = 0;
  }
  __syncthreads();
  if (is_last) __threadfence();  // and the others' are visible to this block
  return is_last;
}

__device__ __forceinline__ void wait_for_prior_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_dependent_launch() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

}  // namespace skinny
}  // namespace gemmtune
