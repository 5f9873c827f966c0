// The sm_90a PTX the Hopper family needs and CUDA C++ has no portable spelling for: mbarriers (the
// producer/consumer hand-off), TMA tile loads (cp.async.bulk.tensor, completing on an mbarrier;
// 3-D for strided batches, multicast for clusters), wgmma fences and groups, shared-memory matrix
// descriptors, setmaxnreg, the dependent-launch wait, split-K's vector reductions, the K pair's
// stores into the other CTA's shared memory and 3xtf32's TF32 rounding. Everything is guarded by
// __CUDA_ARCH_FEAT_SM90_ALL (defined for sm_90a only; CCCL's NV_HAS_FEATURE_SM_90a is not honoured
// under NVRTC) and does nothing elsewhere; the kernels trap there, and the host never compiles the
// family for another arch (compile_arch in core/kernel_config.cpp). From the spike of
// scripts/spikes/hopper/ (ptx_sm90.cuh; NOTES.md has the measurements).

namespace gemmtune {

// A CUtensorMap as the kernel sees it: 128 opaque bytes, 64-byte aligned. The host encodes it with
// cuTensorMapEncodeTiled and passes it by value as a __grid_constant__ parameter; <cuda.h> is not
// available under NVRTC, and the device never looks inside.
struct alignas(64) TensorMap {
  char bytes[128];
};

namespace sm90 {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMMTUNE_SM90A 1
#else
#define GEMMTUNE_SM90A 0
#endif

// --- mbarrier --------------------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
#if GEMMTUNE_SM90A
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#endif
}

// Makes the initialised barriers visible to the other threads and to the async (TMA) proxy.
__device__ __forceinline__ void mbar_init_fence() {
#if GEMMTUNE_SM90A
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// The producer announces the bytes the TMA will deliver in this phase; the TMA's complete_tx
// counts them down, and the phase completes when they and the arrival are in.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
#if GEMMTUNE_SM90A
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
#endif
}

__device__ __forceinline__ void mbar_arrive(unsigned bar) {
#if GEMMTUNE_SM90A
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#endif
}

// Waits until the phase of the given parity has completed. A fresh barrier counts its (virtual)
// preceding phase, parity 1, as completed: that is how the producer's first pass over the stages
// goes through without waiting. CLUSTER_ACQUIRE: the wait acquires at cluster scope what another
// CTA's arrival released (the K pair's sums in distributed shared memory).
template <bool CLUSTER_ACQUIRE = false>
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
#if GEMMTUNE_SM90A
  unsigned done;
  do {
    if constexpr (CLUSTER_ACQUIRE)
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
          "selp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity)
          : "memory");
    else
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity)
          : "memory");
  } while (!done);
#endif
}

// --- TMA -------------------------------------------------------------------------------------
__device__ __forceinline__ void tma_prefetch_map(const TensorMap* map) {
#if GEMMTUNE_SM90A
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");
#endif
}

// One box of a 2-D tensor map (x = innermost coordinate, in elements) into shared memory at dst,
// completing on bar. Out-of-range elements arrive as zeros and still count as bytes.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, int x, int y, unsigned bar) {
#if GEMMTUNE_SM90A
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar)
      : "memory");
#endif
}

// One box of a 3-D tensor map (x innermost, z the batch entry): the strided-batch operands.
__device__ __forceinline__ void tma_load_3d(unsigned dst, const TensorMap* map, int x, int y, int z, unsigned bar) {
#if GEMMTUNE_SM90A
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(z), "r"(bar)
      : "memory");
#endif
}

// --- clusters (2-CTA, TMA multicast) -----------------------------------------------------------
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r = 0;
#if GEMMTUNE_SM90A
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#endif
  return r;
}

// Every thread of every CTA of the cluster: release this CTA's shared-memory writes (barrier
// inits) to the others, and wait for theirs.
__device__ __forceinline__ void cluster_sync() {
#if GEMMTUNE_SM90A
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}

// Arrive on the mbarrier at the same offset in CTA `cta` of the cluster; RELEASE: releasing this
// thread's earlier shared-memory accesses to that CTA at cluster scope.
template <bool RELEASE = false>
__device__ __forceinline__ void mbar_arrive_cluster(unsigned bar, unsigned cta) {
#if GEMMTUNE_SM90A
  if constexpr (RELEASE)
    asm volatile(
        "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
        "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
        "r"(cta)
        : "memory");
  else
    asm volatile(
        "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
        "r"(cta)
        : "memory");
#endif
}

// A pair splitting a tile's K (CLUSTER_K 2) hands one CTA's accumulators to the other through
// distributed shared memory: 16 bytes stored at the same offset in CTA `cta`; then an arrival on
// its mbarrier that releases those stores (mbar_arrive_cluster<true>), and mbar_wait<true> acquires them.
__device__ __forceinline__ void st_cluster_quad(unsigned addr, unsigned cta, float a, float b, float c, float d) {
#if GEMMTUNE_SM90A
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "st.shared::cluster.v4.f32 [remote], {%2, %3, %4, %5};\n}\n" ::"r"(addr),
      "r"(cta), "f"(a), "f"(b), "f"(c), "f"(d)
      : "memory");
#endif
}

__device__ __forceinline__ float4 ld_shared_quad(unsigned addr) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
#if GEMMTUNE_SM90A
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr)
               : "memory");
#endif
  return v;
}

// tma_load_2d, written to the same shared-memory offset of every CTA in cta_mask, each completing
// on its own mbarrier at offset bar.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap* map, int x, int y, unsigned bar,
                                                      unsigned short cta_mask) {
#if GEMMTUNE_SM90A
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar), "h"(cta_mask)
      : "memory");
#endif
}

// tma_load_3d, multicast like tma_load_2d_multicast.
__device__ __forceinline__ void tma_load_3d_multicast(unsigned dst, const TensorMap* map, int x, int y, int z,
                                                      unsigned bar, unsigned short cta_mask) {
#if GEMMTUNE_SM90A
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3, %4}], [%5], %6;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(z), "r"(bar), "h"(cta_mask)
      : "memory");
#endif
}

// Split-K's fire-and-forget additions into C: one float, or a pair at an 8-byte aligned p.
__device__ __forceinline__ void red_add(float* p, float v) {
#if GEMMTUNE_SM90A
  asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(p), "f"(v) : "memory");
#endif
}

__device__ __forceinline__ void red_add_pair(float* p, float a, float b) {
#if GEMMTUNE_SM90A
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(p), "f"(a), "f"(b) : "memory");
#endif
}

__device__ __forceinline__ void red_add_quad(float* p, float4 v) {
#if GEMMTUNE_SM90A
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
#endif
}

// Named barriers (1 to 15; 0 is __syncthreads) between warpgroups: `threads` in all take part, the
// arriving ones go on at once, the syncing ones wait until all have come.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Launched as a programmatic dependent of the stream's previous kernel (core/gemm_launch.cpp):
// nothing in global memory may be read or written before that kernel is done; the set-up in shared
// memory (barriers) and the tensor maps' prefetch, which are the kernel's own, may run before.
__device__ __forceinline__ void wait_for_previous_grid() {
#if GEMMTUNE_SM90A
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Lets the stream's next kernel be scheduled (its blocks then wait for this grid to finish before
// touching memory): issued when a CTA's last load is on its way, so the next launch overlaps the
// last tiles' math and stores rather than following them.
__device__ __forceinline__ void allow_next_grid() {
#if GEMMTUNE_SM90A
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// --- wgmma -----------------------------------------------------------------------------------
__device__ __forceinline__ void wgmma_fence() {
#if GEMMTUNE_SM90A
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void wgmma_commit() {
#if GEMMTUNE_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

template <int PENDING>
__device__ __forceinline__ void wgmma_wait() {
#if GEMMTUNE_SM90A
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
#endif
}

// Keeps the compiler from moving reads or writes of accumulator registers across wgmma waits:
// the asynchronous wgmma writes them behind its back.
template <int N>
__device__ __forceinline__ void fence_registers(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

// Shared-memory matrix descriptor of a K-major tile stored as TMA writes it with the 128-byte
// swizzle: rows of 128 bytes, 8-row groups of 1024 bytes (the stride byte offset), the group's base
// 1024-byte aligned. Fields: start address >> 4 (bits 0-13), leading byte offset >> 4 (16-29; unused
// by swizzled K-major layouts, 1 by convention), stride byte offset >> 4 (32-45), swizzle mode
// (62-63; 1 = 128 bytes). Moving along K inside the 128-byte row adds bytes to the start address;
// the hardware applies the swizzle to the final address, which is why the base must stay aligned.
__device__ __forceinline__ unsigned long long smem_desc_sw128(unsigned addr) {
  return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

// The same for an MN-major 16-bit tile (wgmma's transpose immediate set) as TMA writes it in boxes
// of 64 columns x 64 k: each box is 64 rows of 128 bytes, one k a row. With the transpose the
// leading byte offset steps along M or N (from one 64-column box to the next: 8192 bytes) and the
// stride byte offset along K (from one 8-row group to the next: 1024 bytes). Moving along K adds
// whole rows (16 k: 2048 bytes) to the start address, which stays 1024-byte aligned.
__device__ __forceinline__ unsigned long long smem_desc_mn_sw128(unsigned addr) {
  return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) | (512ull << 16) | (64ull << 32) | (1ull << 62);
}

// Orders this thread's generic shared-memory writes before later async-proxy reads (wgmma, TMA).
__device__ __forceinline__ void fence_proxy_async() {
#if GEMMTUNE_SM90A
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// FP32 -> TF32 (3xtf32's split), round to nearest (ties away), result in FP32 bits with the low 13 bits zero.
__device__ __forceinline__ float round_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

// --- registers -------------------------------------------------------------------------------
// Producer warpgroups give registers back, consumers take them (the kernel needs a register cap at
// entry: __launch_bounds__(threads, 1)). Every thread of the warpgroup executes it.
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
#if GEMMTUNE_SM90A
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
#endif
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
#if GEMMTUNE_SM90A
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
#endif
}

}  // namespace sm90
}  // namespace gemmtune
