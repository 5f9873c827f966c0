// Skinny family, part 1: the memory instructions both kernels use (kernel_templates/skinny.cuh),
// and programmatic dependent launch (sm_90: the runtime launches every kernel as a dependent of the
// stream's previous one; it must wait for that kernel's writes before its first access).

namespace gemmtune {
namespace skinny {

// B is read exactly once: keep it out of L1 (no_allocate) so that A, which every warp re-reads,
// stays there. (An L2 prefetch hint of 128 or 256 bytes measured the same on the H100.)
__device__ __forceinline__ float4 ld_stream4(const float* p) {
  float4 v;
  asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p));
  return v;
}

__device__ __forceinline__ float ld_stream1(const float* p) {
  float v;
  asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

// A: small and re-read by every warp of the block (and the lanes along n): cached in L1.
__device__ __forceinline__ float4 ld_cached4(const float* p) {
  float4 v;
  asm("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

__device__ __forceinline__ float ld_cached1(const float* p) {
  float v;
  asm("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
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
