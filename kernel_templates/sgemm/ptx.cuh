// The PTX instructions the SGEMM uses that CUDA C++ has no portable spelling for: cp.async,
// programmatic dependent launch (griddepcontrol), fire-and-forget reductions (red.global) and an
// acquire load. Where an architecture lacks one, the wrapper compiles to nothing or to a fallback
// (the cp.async copies to a trap: the host never gives those kernels such a GPU), so the other
// parts call them unconditionally.

namespace gemmtune {
namespace detail {

// cp.async with a source size of 0 reads nothing and zero-fills the destination, so the source
// address of an out-of-range piece is never dereferenced and needs no clamping (no select of a
// safe pointer in the hot loop).
__device__ __forceinline__ void cp_async_f32(float* smem, const float* gmem, bool in_bounds) {
#if __CUDA_ARCH__ >= 800
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  int src_bytes = in_bounds ? 4 : 0;  // 0 bytes read: the destination is zero-filled
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
#else
  __trap();
#endif
}

__device__ __forceinline__ void cp_async_f32x4(float* smem, const float* gmem, bool in_bounds) {
#if __CUDA_ARCH__ >= 800
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  int src_bytes = in_bounds ? 16 : 0;  // 0 bytes read: the destination is zero-filled
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
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

// Programmatic dependent launch (sm_90+): every kernel here is launched so that it may start
// before the stream's previous kernel has finished; it waits for that kernel's memory before its
// own first access, and lets the next kernel launch once its own remaining work is the epilogue.
// Both are no-ops when the launch did not ask for it, and compile to nothing before sm_90.
__device__ __forceinline__ void allow_dependent_launch() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_for_prior_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Adds v to *p with one reduction (no result returned, so nothing waits for it).
__device__ __forceinline__ void atomic_add_f32(float* p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(p), "f"(v) : "memory");
}

// Adds 4 floats to 16-byte-aligned p: one vector reduction on sm_90, four scalar ones before it.
__device__ __forceinline__ void atomic_add_f32x4(float* p, float4 v) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z),
               "f"(v.w)
               : "memory");
#else
  atomic_add_f32(p, v.x), atomic_add_f32(p + 1, v.y), atomic_add_f32(p + 2, v.z), atomic_add_f32(p + 3, v.w);
#endif
}

// A load that later loads cannot be moved before, and that sees every write the writer released
// (here: made visible with __threadfence before its atomic) anywhere on the GPU.
__device__ __forceinline__ unsigned long long load_acquire_u64(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(v) : "l"(p) : "memory");
  return v;
}

}  // namespace detail
}  // namespace gemmtune
