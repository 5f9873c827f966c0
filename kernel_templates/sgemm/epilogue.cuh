// The epilogue's split-K machinery (gridDim.z > 1 slices of K, each computing a partial product of
// the same C tile); the kernel's last lines (sgemm.cuh) store the accumulators. Two reductions:
// - By default each slice writes its partial sums to a workspace and splitk_reduce then applies
//   alpha/beta in a fixed order, so results are deterministic.
// - SPLIT_ATOMIC: C is first set to beta * C + bias, then every slice adds its alpha-scaled partial into C
//   with fire-and-forget atomics (red.global.add; 4 floats per instruction on sm_90). No partials
//   travel through memory and no kernel follows, but the order of the additions, and so the last
//   bits of C, can change from run to run. The tile's first slice scales C while its first tiles
//   load and counts itself in on a counter per tile (the workspace); the other slices wait for that
//   count before adding. Without a workspace, splitk_reduce scales C first and the GEMM, its
//   programmatic dependent on sm_90, waits for it only before its first atomic. A compile-time
//   choice: compiled into every kernel, the atomic epilogue changed how ptxas scheduled the main
//   loop and cost the large tiles 5% on an H100 (docs/kernel-notes.md).

namespace gemmtune {
namespace detail {

// Atomic split-K scaling C inside the GEMM: the tile's first slice sets C = beta * C + bias over the
// whole tile while the pipeline's first tiles are in flight (H100: 1 to 2% faster there than before
// the first loads are issued; as fast as every slice scaling a share). beta 0 does not read C, which
// may hold NaN. The bias (null: none) is added here and never by the slices' additions: a kernel
// over C before the GEMM for it made 64x1024x4096 28% slower (H200, 2026-11-30, one config: 33.0 us
// against 25.8 with no bias).
template <int BM, int BN, int THREADS>
__device__ __forceinline__ void scale_tile(float* C, int ldc, int M, int N, int m0, int n0, float beta,
                                           const float* bias) {
  static_assert(BN % 4 == 0, "the tile's rows are scaled 4 floats at a time");
  if (blockIdx.z != 0) return;
  const int r0 = m0;
  const int r1 = min(M, m0 + BM);  // rows [r0, r1) of C
  const int cols = min(BN, N - n0);
  const bool vec = ldc % 4 == 0 && aligned_to(C, 16);
  // When THREADS * 4 is a multiple of BN (so far, every config), a thread's 4 columns are the same in
  // every row it scales: their bias is read once, before the loop. Read in the loop, each row's
  // stores waited for its loads: the bias then cost 64x1024x4096 5.9 us more than none, not 0.8-1.1
  // (H200, 2026-11-30).
  constexpr bool kOneColumn = (THREADS * 4) % BN == 0;
  float column_bias[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (kOneColumn) {
    const int c = threadIdx.x * 4 % BN;
    for (int j = 0; j < 4; ++j)
      if (c + j < cols) column_bias[j] = c16::bias_at<false>(bias, n0 + c + j);
  }
  for (int e = threadIdx.x * 4; e < (r1 - r0) * BN; e += THREADS * 4) {
    const int c = e % BN;
    float* p = C + static_cast<long long>(r0 + e / BN) * ldc + n0 + c;
    float b[4];
    for (int j = 0; j < 4; ++j)
      b[j] = kOneColumn ? column_bias[j] : c + j < cols ? c16::bias_at<false>(bias, n0 + c + j) : 0.0f;
    if (vec && c + 4 <= cols) {
      float4 v = make_float4(b[0], b[1], b[2], b[3]);
      if (beta != 0.0f) {
        const float4 old = *reinterpret_cast<const float4*>(p);
        v.x += beta * old.x, v.y += beta * old.y, v.z += beta * old.z, v.w += beta * old.w;
      }
      *reinterpret_cast<float4*>(p) = v;
    } else {
      for (int j = 0; j < 4 && c + j < cols; ++j) p[j] = (beta != 0.0f ? beta * p[j] : 0.0f) + b[j];
    }
  }
}

// Where the GEMM scales C itself, no slice may add into a tile before its first slice has scaled it.
// A counter per tile in the workspace orders them, without ever being reset: each launch adds
// exactly 2^32 to it (slice 0 adds 2^32 - (slices - 1), the others 1 each), so a slice's ticket,
// the value it found, rounded down to a multiple of 2^32 is the count before this launch, and
// slice 0 has counted in once the count has grown by 2^32 - (slices - 1). Every slice counts in
// early (only slice 0's count matters to the wait; the others' keep the total per launch fixed)
// and waits before its first addition, by then long since. Only the one atomic's result travels
// back, and it is not needed until the end. No deadlock: a slice waits only for slice 0 of its
// tile, which waits for nothing and, blocks being dispatched in order of their linear index (z
// slowest), is running or done before any slice that waits for it starts.
// (A function, not a namespace-scope constant: NVRTC gives those a per-compilation symbol name,
// so the same kernel would not compile to the same cubin twice.)
__device__ constexpr unsigned long long count_per_launch() {
  return 1ull << 32;
}

// Thread 0, after a block barrier that follows the block's scaling stores (slice 0's).
__device__ __forceinline__ unsigned long long count_in(unsigned long long* counter) {
  __threadfence();  // the block's scaling stores (ordered before us by the barrier) reach the GPU first
  const unsigned long long slices = gridDim.z;
  return atomicAdd(counter, blockIdx.z == 0 ? count_per_launch() - (slices - 1) : 1ull);
}

__device__ __forceinline__ void wait_for_scaled_tile(const unsigned long long* counter,
                                                     unsigned long long ticket) {
  if (threadIdx.x == 0) {
    const unsigned long long before = ticket & ~(count_per_launch() - 1);
    unsigned long long counted = 0;
    do {
      counted = load_acquire_u64(counter);
    } while (counted - before < count_per_launch() - (gridDim.z - 1));
  }
  __syncthreads();
}

// Atomic split-K's share of the main loop's prologue (mainloop.cuh calls it): slice 0's C = beta *
// C over the tile, then, after a barrier that follows it, every slice's count. Called once the
// pipeline's first tiles are in flight and have arrived, so the stores hide behind the loads and
// the fence finds them long done. Does nothing unless SPLIT_ATOMIC. Holds references to the
// kernel's variables, as the lambdas it once was captured them (sgemm.cuh says why).
template <class S, int SPLIT_ATOMIC>
struct AtomicSplitKScaling {
  enum : int { BM = S::kBM, BN = S::kBN, kEnabled = SPLIT_ATOMIC };  // not static data: see SgemmShape
  const bool& scales_c;  // this kernel scales C (else splitk_reduce did, or beta is 1 and no bias, or no split-K)
  float* __restrict__& C;
  const int &ldc, &M, &N, &m0, &n0;
  float& beta;
  const float* __restrict__& bias;
  const int& tid;
  unsigned long long& ticket;          // thread 0's, from count_in
  unsigned long long* const& counter;  // the tile's, if scales_c

  __device__ void scale_c_tile() {
    if constexpr (SPLIT_ATOMIC) {
      if (scales_c) scale_tile<BM, BN, S::kThreads>(C, ldc, M, N, m0, n0, beta, bias);
    }
  }
  __device__ void count_in() {
    if constexpr (SPLIT_ATOMIC) {
      if (scales_c && tid == 0) ticket = detail::count_in(counter);
    }
  }
};

}  // namespace detail

namespace detail {

// C's element of splitk_reduce's CTYPE (0 FP32, 1 bf16, 2 fp16) as raw bits, read as a float and
// written rounded to nearest (common/sixteen_bit_c.cuh).
template <int CTYPE>
struct CElement {
  using Bits = unsigned short;
  static __device__ float load(const Bits* p) { return c16::widen_16<CTYPE == 1>(*p); }
  static __device__ void store(Bits* p, float v) { *p = c16::round_to_16<CTYPE == 1>(v); }
};
template <>
struct CElement<0> {
  using Bits = float;
  static __device__ float load(const float* p) { return *p; }
  static __device__ void store(float* p, float v) { *p = v; }
};

}  // namespace detail

// Sums the split-K partials in a fixed order: C = alpha * sum_z W[z] + beta * C + bias, for every
// entry of a strided batch (W is [splits][batch][M][N], C's entries stride_c apart; a null bias adds
// nothing). A template only so that NVRTC compiles it when asked for by name, like the GEMM itself.
// With splits == 0 (and no workspace) it is the atomic split-K's first step, and a call's before
// cuBLAS, C = beta * C + bias: that GEMM is then its programmatic dependent, so it lets that GEMM
// launch at once (a no-op for anything else).
// CTYPE: C's element, 0 FP32, 1 bf16, 2 fp16 (a 16-bit C is rounded once, from the FP32 sum).
// Grid: x over N's columns (THREADS a block), y over M's rows, z over the entries, each a loop with
// the grid's stride, so any grid covers C; a thread reads its column's bias once and walks down the
// rows, four at a time in flight. The host sizes the grid: one wave of full SMs for C = beta * C +
// bias, where a grid of one element a thread waited on each thread's one load (H200, 2026-11-30:
// C = bias, then cuBLAS with beta 1, at 4096x4096x1024 bf16: 135.8 us, with one wave 66.8; torch's
// copy of the bias and the same cuBLAS call 86.5); one element a thread for split-K's reduction, as
// measured before (a float4 version with a quarter of the threads measured 2% slower at 16 slices,
// 64x4096x4096, and 1% faster at 4, 1000 and 1024, on an H100).
template <int THREADS, int CTYPE>
__global__ void __launch_bounds__(THREADS)
    splitk_reduce(int M, int N, int splits, const float* __restrict__ workspace, float alpha, float beta,
                  typename detail::CElement<CTYPE>::Bits* __restrict__ C, int ldc, int batch, long long stride_c,
                  const typename detail::CElement<CTYPE>::Bits* __restrict__ bias) {
  using Element = detail::CElement<CTYPE>;
  // Launched early on sm_90: wait for the previous kernel (the GEMM's partials, or whatever came
  // before atomic split-K) and only then let the dependent GEMM start, which reads A and B at once.
  detail::wait_for_prior_grid();
  detail::allow_dependent_launch();
  const long long total = static_cast<long long>(M) * N * batch;  // a slice of the partial sums
  for (int entry = blockIdx.z; entry < batch; entry += gridDim.z) {
    for (int n = blockIdx.x * THREADS + threadIdx.x; n < N; n += gridDim.x * THREADS) {
      const float b = c16::bias_at<CTYPE == 1>(bias, n);
      typename Element::Bits* const column = C + entry * stride_c + n;
      const long long first = static_cast<long long>(entry) * M * N + n;  // element (entry, 0, n) of a slice
#pragma unroll 4
      for (int m = blockIdx.y; m < M; m += gridDim.y) {
        float sum = 0.0f;
        for (int z = 0; z < splits; ++z) sum += workspace[z * total + first + static_cast<long long>(m) * N];
        typename Element::Bits* const c = column + static_cast<long long>(m) * ldc;
        Element::store(c, (beta != 0.0f ? alpha * sum + beta * Element::load(c) : alpha * sum) + b);
      }
    }
  }
}

}  // namespace gemmtune
