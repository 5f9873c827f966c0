// FP32 SIMT GEMM template: C = alpha * A * B + beta * C, all matrices row-major.
//
// Compiled at run time by NVRTC; one instantiation per tuning candidate, selected with an NVRTC
// name expression such as `gemmtune::sgemm<128,128,8,8,8,4,4,4,3,1,1,4,2,1,0>`. The host side
// (runtime/src/kernel_config.cpp) owns the meaning and valid ranges of every parameter and the
// shared-memory size formula; this file must agree with it.
//
// Why it is shaped like this:
// - Every thread owns a TM x TN micro-tile of C. Threads of a warp form a WARP_ROWS x (32/WARP_ROWS)
//   grid and their micro-tiles are interleaved in chunks of 4, so one warp reads a contiguous run of
//   shared memory per k step (float4 reads, broadcast across the warp, no bank conflicts).
// - Out-of-range tile elements are zero-filled at load time, so the inner loop never branches; only
//   loads and the epilogue know about edges. Vector loads are used only where the vector is in
//   bounds and aligned, which makes every M, N, K and leading dimension correct.
// - Without ASYNC the next tile is fetched into registers while the current one is computed, then
//   stored to shared memory: STAGES == 2 alternates two buffers (one barrier per tile), STAGES == 1
//   reuses one (two barriers). ASYNC: cp.async (sm_80+) with STAGES shared-memory buffers in flight.
// - Fragments are double-buffered in registers, across tile boundaries too (see the main loop).
// - Split-K (gridDim.z > 1) has two reductions:
//   - By default each slice writes its partial sums to a workspace and splitk_reduce then applies
//     alpha/beta in a fixed order, so results are deterministic.
//   - SPLIT_ATOMIC: C is first scaled by beta, then every slice adds its alpha-scaled partial into
//     C with fire-and-forget atomics (red.global.add; 4 floats per instruction on sm_90). No
//     partials travel through memory and no kernel follows, but the order of the additions, and
//     so the last bits of C, can change from run to run. The tile's first slice scales C while its
//     first tiles load and counts itself in on a counter per tile (the workspace); the other
//     slices wait for that count before adding. Without a workspace, splitk_reduce scales C
//     first and this kernel, its programmatic dependent on sm_90, waits for it only before its
//     first atomic. A compile-time choice: compiled into every kernel, the atomic epilogue changed
//     how ptxas scheduled the main loop and cost the large tiles 5% on an H100
//     (docs/kernel-notes.md).
// - On sm_90 every kernel is a programmatic dependent of the stream's previous kernel, so back-to-
//   back launches do not leave the GPU idle in between; each waits for its predecessor's memory
//   before its first access (griddepcontrol.wait).
// No standard headers: NVRTC compiles this without a host toolchain.

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

// The piece (VEC floats, PER_ROW pieces to a tile row) that a thread copies in its i-th load, as
// (row, piece in the row): pieces are numbered along rows, THREADS of them per load. Where THREADS
// is a multiple of PER_ROW, piece i lies a constant number of rows below piece 0, so every load
// after the first addresses shared memory at an immediate offset from it.
template <int PER_ROW, int THREADS>
__device__ __forceinline__ int2 piece_of(int tid, int i) {
  if constexpr (THREADS % PER_ROW == 0) {
    return make_int2(tid / PER_ROW + i * (THREADS / PER_ROW), tid % PER_ROW);
  } else {
    const int v = tid + i * THREADS;
    return make_int2(v / PER_ROW, v % PER_ROW);
  }
}

// A compile-time bool passed to generic lambdas (NVRTC has no <type_traits>).
template <bool B>
struct Flag {
  static constexpr bool value = B;
};

template <int W>
struct VecOf;
template <>
struct VecOf<1> {
  using type = float;
};
template <>
struct VecOf<2> {
  using type = float2;
};
template <>
struct VecOf<4> {
  using type = float4;
};

// Copies W consecutive floats from shared memory into registers with one access where aligned.
template <int W, bool ALIGNED>
__device__ __forceinline__ void load_run(float* dst, const float* src) {
  if constexpr (ALIGNED && W > 1) {
    typename VecOf<W>::type v = *reinterpret_cast<const typename VecOf<W>::type*>(src);
    const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
    for (int i = 0; i < W; ++i) dst[i] = f[i];
  } else {
#pragma unroll
    for (int i = 0; i < W; ++i) dst[i] = src[i];
  }
}

__device__ __forceinline__ bool aligned_to(const void* p, unsigned bytes) {
  return (reinterpret_cast<unsigned long long>(p) % bytes) == 0;
}

// Largest of 4, 2, 1 that divides x: the width of the contiguous runs a micro-tile is made of.
__host__ __device__ constexpr int run_width(int x) { return x % 4 == 0 ? 4 : (x % 2 == 0 ? 2 : 1); }

// Atomic split-K scaling C inside the GEMM: the tile's first slice sets C = beta * C over the whole
// tile while the pipeline's first tiles are in flight (H100: 1 to 2% faster there than before the
// first loads are issued; as fast as every slice scaling a share). beta 0 writes zeros without
// reading C, which may hold NaN.
template <int BM, int BN, int THREADS>
__device__ __forceinline__ void scale_tile(float* C, int ldc, int M, int N, int m0, int n0, float beta) {
  static_assert(BN % 4 == 0, "the tile's rows are scaled 4 floats at a time");
  if (blockIdx.z != 0) return;
  const int r0 = m0;
  const int r1 = min(M, m0 + BM);  // rows [r0, r1) of C
  const int cols = min(BN, N - n0);
  const bool vec = ldc % 4 == 0 && aligned_to(C, 16);
  for (int e = threadIdx.x * 4; e < (r1 - r0) * BN; e += THREADS * 4) {
    const int c = e % BN;
    float* p = C + static_cast<long long>(r0 + e / BN) * ldc + n0 + c;
    if (vec && c + 4 <= cols) {
      float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (beta != 0.0f) {
        v = *reinterpret_cast<const float4*>(p);
        v.x *= beta, v.y *= beta, v.z *= beta, v.w *= beta;
      }
      *reinterpret_cast<float4*>(p) = v;
    } else {
      for (int j = 0; j < 4 && c + j < cols; ++j) p[j] = beta != 0.0f ? beta * p[j] : 0.0f;
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
__device__ constexpr unsigned long long count_per_launch() { return 1ull << 32; }

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
      asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(counted) : "l"(counter) : "memory");
    } while (counted - before < count_per_launch() - (gridDim.z - 1));
  }
  __syncthreads();
}

}  // namespace detail

template <int BM, int BN, int BK, int TM, int TN, int WARP_ROWS, int PAD_A, int PAD_B, int STAGES,
          int ASYNC, int TRANSPOSE_A, int VEC>
struct SgemmShape {
  static constexpr int kWarpCols = 32 / WARP_ROWS;
  static constexpr int kWarpsM = BM / (TM * WARP_ROWS);
  static constexpr int kWarpsN = BN / (TN * kWarpCols);
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  // Shared-memory tiles. A is [BK][BM + PAD_A] when transposed, else [BM][BK + PAD_A].
  static constexpr int kStrideA = TRANSPOSE_A ? BM + PAD_A : BK + PAD_A;
  static constexpr int kTileA = TRANSPOSE_A ? BK * kStrideA : BM * kStrideA;
  static constexpr int kStrideB = BN + PAD_B;
  static constexpr int kTileB = BK * kStrideB;
  static constexpr int kRunM = detail::run_width(TM);
  static constexpr int kRunN = detail::run_width(TN);
  static constexpr int kLoadsA = BM * BK / (kThreads * VEC);
  static constexpr int kLoadsB = BK * BN / (kThreads * VEC);
  static_assert(32 % WARP_ROWS == 0, "WARP_ROWS must divide 32");
  static_assert(kWarpsM * TM * WARP_ROWS == BM && kWarpsN * TN * kWarpCols == BN, "tile/warp mismatch");
  static_assert(kLoadsA * kThreads * VEC == BM * BK && kLoadsB * kThreads * VEC == BK * BN,
                "tile loads must divide evenly among threads");
  static_assert(BK % VEC == 0 && BN % VEC == 0, "vector width must divide BK and BN");
  static_assert(ASYNC ? STAGES >= 2 : (STAGES == 1 || STAGES == 2), "1-2 stages, or 2+ with cp.async");
};

template <int BM, int BN, int BK, int TM, int TN, int WARP_ROWS, int PAD_A, int PAD_B, int STAGES,
          int ASYNC, int TRANSPOSE_A, int VEC, int MIN_BLOCKS, int FMA_ORDER, int SPLIT_ATOMIC>
__global__ void __launch_bounds__(
    SgemmShape<BM, BN, BK, TM, TN, WARP_ROWS, PAD_A, PAD_B, STAGES, ASYNC, TRANSPOSE_A, VEC>::kThreads,
    MIN_BLOCKS)
    sgemm(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
          const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc,
          float* __restrict__ workspace, int swizzle) {
  using S = SgemmShape<BM, BN, BK, TM, TN, WARP_ROWS, PAD_A, PAD_B, STAGES, ASYNC, TRANSPOSE_A, VEC>;
  extern __shared__ float4 smem_raw[];  // float4: 16-byte alignment for vector accesses
  float* smem = reinterpret_cast<float*>(smem_raw);

  // Atomic split-K adds into C, so C must be scaled by beta first (unless beta is 1). Given a
  // workspace (of per-tile counters), each tile's first slice does it; otherwise splitk_reduce did
  // it before this kernel.
  const bool atomic = SPLIT_ATOMIC && gridDim.z > 1;
  const bool scales_c = atomic && beta != 1.0f && workspace != nullptr;
  const bool after_scaling = atomic && beta != 1.0f && workspace == nullptr;
  // Launched as a programmatic dependent on sm_90 (runtime/src/gemm_launch.cpp), so this grid may
  // start while the stream's previous kernel still runs: wait for it before the first access to
  // memory. Atomic split-K behind its scaling kernel waits later, before its first addition: that
  // kernel itself waited for everything before it, and the main loop overlaps the scaling.
  if (!after_scaling) detail::wait_for_prior_grid();

  // Block swizzle: walk `swizzle` block rows at a time so neighbouring blocks share A and B in L2.
  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  const int pid = blockIdx.x;
  const int per_group = swizzle * tiles_n;
  const int first_m = (pid / per_group) * swizzle;
  const int group_rows = min(tiles_m - first_m, swizzle);
  const int tile_m = first_m + (pid % per_group) % group_rows;
  const int tile_n = (pid % per_group) / group_rows;
  const int m0 = tile_m * BM;
  const int n0 = tile_n * BN;
  unsigned long long* const counter = reinterpret_cast<unsigned long long*>(workspace) + pid;  // if scales_c
  unsigned long long ticket = 0;  // thread 0's, from count_in

  // This block's share of K (split-K), rounded to whole BK tiles.
  const int k_tiles_total = (K + BK - 1) / BK;
  const int k_tiles_per_split = (k_tiles_total + gridDim.z - 1) / gridDim.z;
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles_total, kt_begin + k_tiles_per_split);
  const int k_tiles = max(0, kt_end - kt_begin);

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int warp_m = warp / S::kWarpsN;
  const int warp_n = warp % S::kWarpsN;
  const int lane_r = lane / S::kWarpCols;
  const int lane_c = lane % S::kWarpCols;
  // First row/column of this thread's runs inside the block tile; runs repeat every stride_m/n.
  const int row_base = warp_m * TM * WARP_ROWS + lane_r * S::kRunM;
  const int col_base = warp_n * TN * S::kWarpCols + lane_c * S::kRunN;
  constexpr int kStrideRunM = WARP_ROWS * S::kRunM;
  constexpr int kStrideRunN = S::kWarpCols * S::kRunN;

  // Vector loads need the whole vector in bounds and 16-byte (or 8-byte) alignment; checked once.
  const bool a_vec_ok = VEC > 1 && lda % VEC == 0 && detail::aligned_to(A, 4 * VEC);
  const bool b_vec_ok = VEC > 1 && ldb % VEC == 0 && detail::aligned_to(B, 4 * VEC);
  // Whole-vector mode (the common case): K and N are multiples of VEC too, so every VEC-float piece
  // of a tile is entirely inside or entirely outside the matrix. Each load is then one predicated
  // vector access, and the main loop has no branches: branches are walls the instruction scheduler
  // cannot move loads across, and a block of loads that cannot be spread among the FMAs stalls
  // the few warps an SM holds. Otherwise a general path checks every element.
  const bool whole_vectors = a_vec_ok && b_vec_ok && K % VEC == 0 && N % VEC == 0;
  // Whole-vector cp.async: where this thread's pieces of the first tile start, and whether their
  // rows (A) or columns (B) lie inside the matrix, worked out once; per tile only k moves, so the
  // main loop spends two instructions per copy on its address instead of a 64-bit multiply-add.
  const float* a_from[ASYNC ? S::kLoadsA : 1];
  const float* b_from[ASYNC ? S::kLoadsB : 1];
  bool a_row_in[ASYNC ? S::kLoadsA : 1];
  bool b_col_in[ASYNC ? S::kLoadsB : 1];
  if constexpr (ASYNC) {
#pragma unroll
    for (int i = 0; i < S::kLoadsA; ++i) {
      const int2 p = detail::piece_of<BK / VEC, S::kThreads>(tid, i);
      a_from[i] = A + static_cast<long long>(m0 + p.x) * lda + p.y * VEC;
      a_row_in[i] = m0 + p.x < M;
    }
#pragma unroll
    for (int i = 0; i < S::kLoadsB; ++i) {
      const int2 p = detail::piece_of<BN / VEC, S::kThreads>(tid, i);
      b_from[i] = B + static_cast<long long>(p.x) * ldb + n0 + p.y * VEC;
      b_col_in[i] = n0 + p.y * VEC < N;
    }
  }

  // ---- global -> shared loads -------------------------------------------------------------
  // Element (r, c) of the A tile is A[m0 + r][k + c]; stored at As[c][r] when transposed.
  auto a_index = [](int r, int c) { return TRANSPOSE_A ? c * S::kStrideA + r : r * S::kStrideA + c; };

  float a_regs[ASYNC ? 1 : S::kLoadsA * VEC];
  float b_regs[ASYNC ? 1 : S::kLoadsB * VEC];

  // A vector load that yields zeros where `ok` is false: a predicated load, no branch.
  auto load_vector_or_zero = [](float* dst, const float* src, bool ok) {
    using Vec = typename detail::VecOf<VEC>::type;
    Vec v;
    const float zero = 0.0f;
    float* f = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int j = 0; j < VEC; ++j) f[j] = zero;
    if (ok) v = *reinterpret_cast<const Vec*>(src);
#pragma unroll
    for (int j = 0; j < VEC; ++j) dst[j] = f[j];
  };

  // Synchronous path: fetch tile kt of A and B into registers, zero outside the matrix and
  // everywhere when `live` is false (past the last tile), so callers need no branch.
  auto fetch_regs = [&](int kt, bool live, auto whole) {
    constexpr bool kWhole = decltype(whole)::value;
    const int k0 = kt * BK;
    const int k_end = live ? K : 0;  // a dead fetch is out of range everywhere
#pragma unroll
    for (int i = 0; i < S::kLoadsA; ++i) {
      const int v = tid + i * S::kThreads;
      const int r = v / (BK / VEC), c = (v % (BK / VEC)) * VEC;
      const int gm = m0 + r, gk = k0 + c;
      const float* src = A + static_cast<long long>(gm) * lda + gk;
      if constexpr (kWhole) {
        load_vector_or_zero(&a_regs[i * VEC], src, gm < M && gk < k_end);
      } else if (VEC > 1 && a_vec_ok && gm < M && gk + VEC <= k_end) {
        detail::load_run<VEC, true>(&a_regs[i * VEC], src);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) a_regs[i * VEC + j] = (gm < M && gk + j < k_end) ? src[j] : 0.0f;
      }
    }
#pragma unroll
    for (int i = 0; i < S::kLoadsB; ++i) {
      const int v = tid + i * S::kThreads;
      const int r = v / (BN / VEC), c = (v % (BN / VEC)) * VEC;
      const int gk = k0 + r, gn = n0 + c;
      const float* src = B + static_cast<long long>(gk) * ldb + gn;
      if constexpr (kWhole) {
        load_vector_or_zero(&b_regs[i * VEC], src, gk < k_end && gn < N);
      } else if (VEC > 1 && b_vec_ok && gk < k_end && gn + VEC <= N) {
        detail::load_run<VEC, true>(&b_regs[i * VEC], src);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) b_regs[i * VEC + j] = (gk < k_end && gn + j < N) ? src[j] : 0.0f;
      }
    }
  };
  auto store_regs = [&](int stage) {
    float* As = smem + stage * (S::kTileA + S::kTileB);
    float* Bs = As + S::kTileA;
#pragma unroll
    for (int i = 0; i < S::kLoadsA; ++i) {
      const int v = tid + i * S::kThreads;
      const int r = v / (BK / VEC), c = (v % (BK / VEC)) * VEC;
      if constexpr (!TRANSPOSE_A && VEC == 4 && S::kStrideA % 4 == 0) {
        *reinterpret_cast<float4*>(&As[a_index(r, c)]) =
            make_float4(a_regs[i * 4], a_regs[i * 4 + 1], a_regs[i * 4 + 2], a_regs[i * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) As[a_index(r, c + j)] = a_regs[i * VEC + j];
      }
    }
#pragma unroll
    for (int i = 0; i < S::kLoadsB; ++i) {
      const int v = tid + i * S::kThreads;
      const int r = v / (BN / VEC), c = (v % (BN / VEC)) * VEC;
      float* dst = &Bs[r * S::kStrideB + c];
      if constexpr (VEC == 4 && S::kStrideB % 4 == 0) {
        *reinterpret_cast<float4*>(dst) = make_float4(b_regs[i * 4], b_regs[i * 4 + 1], b_regs[i * 4 + 2],
                                                      b_regs[i * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) dst[j] = b_regs[i * VEC + j];
      }
    }
  };
  // Asynchronous path (sm_80+): copies land in shared memory without passing through registers.
  // A transposed is copied element by element (4-byte cp.async), everything else in 16-byte
  // pieces. Out-of-range pieces are zero-filled. Whole-vector mode: one predicated copy per piece
  // from the pointers worked out above. Otherwise every piece is checked for bounds and alignment.
  auto issue_async = [&](int kt, int stage, bool live, auto whole) {
    constexpr bool kWhole = decltype(whole)::value;
    const int k0 = kt * BK;
    const int k_end = live ? K : 0;  // a dead copy is out of range everywhere (zero-filled)
    float* As = smem + stage * (S::kTileA + S::kTileB);
    float* Bs = As + S::kTileA;
    constexpr bool kA16 = !TRANSPOSE_A && VEC == 4 && S::kStrideA % 4 == 0;
    constexpr bool kB16 = VEC == 4 && S::kStrideB % 4 == 0;
    if constexpr (kWhole && kB16) {
      const int k_left = k_end - k0;  // pieces this far into the tile along k are in the matrix
      const long long b_step = static_cast<long long>(k0) * ldb;
#pragma unroll
      for (int i = 0; i < S::kLoadsA; ++i) {
        const int2 p = detail::piece_of<BK / VEC, S::kThreads>(tid, i);
        const int r = p.x, c = p.y * VEC;
        const bool ok = a_row_in[i] && c < k_left;
        if constexpr (kA16) {
          detail::cp_async_f32x4(&As[a_index(r, c)], a_from[i] + k0, ok);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) detail::cp_async_f32(&As[a_index(r, c + j)], a_from[i] + k0 + j, ok);
        }
      }
#pragma unroll
      for (int i = 0; i < S::kLoadsB; ++i) {
        const int2 p = detail::piece_of<BN / VEC, S::kThreads>(tid, i);
        const bool ok = b_col_in[i] && p.x < k_left;
        detail::cp_async_f32x4(&Bs[p.x * S::kStrideB + p.y * VEC], b_from[i] + b_step, ok);
      }
    } else {
#pragma unroll
      for (int i = 0; i < S::kLoadsA; ++i) {
        const int v = tid + i * S::kThreads;
        const int r = v / (BK / VEC), c = (v % (BK / VEC)) * VEC;
        const int gm = m0 + r, gk = k0 + c;
        const float* src = A + static_cast<long long>(gm) * lda + gk;
        if (kA16 && a_vec_ok && gm < M && gk + 4 <= k_end) {
          detail::cp_async_f32x4(&As[a_index(r, c)], src, true);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) {
            const bool ok = gm < M && gk + j < k_end;
            detail::cp_async_f32(&As[a_index(r, c + j)], src + j, ok);
          }
        }
      }
#pragma unroll
      for (int i = 0; i < S::kLoadsB; ++i) {
        const int v = tid + i * S::kThreads;
        const int r = v / (BN / VEC), c = (v % (BN / VEC)) * VEC;
        const int gk = k0 + r, gn = n0 + c;
        const float* src = B + static_cast<long long>(gk) * ldb + gn;
        float* dst = &Bs[r * S::kStrideB + c];
        if (kB16 && b_vec_ok && gk < k_end && gn + 4 <= N) {
          detail::cp_async_f32x4(dst, src, true);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) {
            const bool ok = gk < k_end && gn + j < N;
            detail::cp_async_f32(dst + j, src + j, ok);
          }
        }
      }
    }
  };

  // ---- compute: fragments and FMAs ---------------------------------------------------------
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // One step of the inner loop covers KRUN k values. A k-major (transposed): KRUN is 1 and each
  // step reads the thread's TM rows as runs of up to 4 floats. A row-major: each step reads a run of
  // KRUN consecutive k values of each of the thread's rows (one 16-byte load per row where aligned).
  constexpr int KRUN = TRANSPOSE_A ? 1 : detail::run_width(BK);
  constexpr int kSteps = BK / KRUN;
  struct Fragments {
    float a[TM][KRUN];
    float b[KRUN][TN];
  };
  auto load_fragments = [&](int stage, int k0, Fragments& f) {
    const float* As = smem + stage * (S::kTileA + S::kTileB);
    const float* Bs = As + S::kTileA;
#pragma unroll
    for (int run = 0; run < TM / S::kRunM; ++run) {
      const int r = row_base + run * kStrideRunM;
      if constexpr (TRANSPOSE_A) {  // f.a is [TM][1]: the run lands contiguously
        detail::load_run<S::kRunM, S::kStrideA % S::kRunM == 0>(&f.a[run * S::kRunM][0],
                                                                 &As[k0 * S::kStrideA + r]);
      } else {
#pragma unroll
        for (int j = 0; j < S::kRunM; ++j)
          detail::load_run<KRUN, S::kStrideA % KRUN == 0>(f.a[run * S::kRunM + j], &As[(r + j) * S::kStrideA + k0]);
      }
    }
#pragma unroll
    for (int kk = 0; kk < KRUN; ++kk)
#pragma unroll
      for (int run = 0; run < TN / S::kRunN; ++run) {
        const int c = col_base + run * kStrideRunN;
        detail::load_run<S::kRunN, S::kStrideB % S::kRunN == 0>(&f.b[kk][run * S::kRunN],
                                                                 &Bs[(k0 + kk) * S::kStrideB + c]);
      }
  };
  // FMA_ORDER (runtime/src/kernel_config.hpp): 0 row by row; 1 rows, odd ones reversed; 2 columns,
  // odd ones reversed. Serpentine orders start each row (column) on the operand the last one ended
  // on, which the register reuse cache can then serve. The fastest order depends on the tile.
  auto multiply_fragments = [&](const Fragments& f) {
#pragma unroll
    for (int kk = 0; kk < KRUN; ++kk) {
      if constexpr (FMA_ORDER == 2) {
#pragma unroll
        for (int j = 0; j < TN; ++j)
#pragma unroll
          for (int r = 0; r < TM; ++r) {
            const int i = j % 2 ? TM - 1 - r : r;
            acc[i][j] = fmaf(f.a[i][kk], f.b[kk][j], acc[i][j]);
          }
      } else {
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int c = 0; c < TN; ++c) {
            const int j = FMA_ORDER == 1 && i % 2 ? TN - 1 - c : c;
            acc[i][j] = fmaf(f.a[i][kk], f.b[kk][j], acc[i][j]);
          }
      }
    }
  };

  // ---- main loop ----------------------------------------------------------------------------
  // Software-pipelined at two levels. Tiles: tile t + 1 (cp.async: t + STAGES - 1) is in flight
  // from global memory while tile t is computed. Fragments: step s + 1's fragments are read from
  // shared memory while step s's FMAs run, and across the tile boundary too: the next tile is
  // made visible (store + barrier, or wait + barrier) before the last step's FMAs, so the barrier
  // and the first shared-memory reads of the next tile hide behind those FMAs.
  // Stage reuse is safe with one barrier per tile (two with one stage): a stage's last reads are
  // the fragments of its last step, issued before the barrier that precedes any write to it.
  auto stage_of = [](int t) { return t % STAGES; };
  auto publish_tile = [&](int t) {  // make tile t visible in shared memory to the whole block
    if constexpr (ASYNC) {
      detail::cp_async_wait<STAGES - 2>();
    } else {
      if constexpr (STAGES == 1) __syncthreads();  // the only stage is still being read
      store_regs(stage_of(t));
    }
    __syncthreads();
  };
  // The loop body has no data-dependent branches: past the last tile, fetches are dead (zeros)
  // and the extra publish is harmless, which lets the scheduler spread loads among the FMAs.
  Fragments frag[2];
  // Atomic split-K: slice 0's C = beta * C over the tile, then, after a barrier that follows it,
  // every slice's count. Called once the pipeline's first tiles are in flight and have arrived, so
  // the stores hide behind the loads and the fence finds them long done.
  auto scale_c_tile = [&] {
    if constexpr (SPLIT_ATOMIC) {
      if (scales_c) detail::scale_tile<BM, BN, S::kThreads>(C, ldc, M, N, m0, n0, beta);
    }
  };
  auto count_in = [&] {
    if constexpr (SPLIT_ATOMIC) {
      if (scales_c && tid == 0) ticket = detail::count_in(counter);
    }
  };
  auto main_loop = [&](auto whole) {
    auto prefetch_tile = [&](int t) {  // start bringing the tile the pipeline needs next
      if constexpr (ASYNC) {
        const int next = t + STAGES - 1;
        issue_async(kt_begin + next, stage_of(next), next < k_tiles, whole);
        detail::cp_async_commit();  // even when empty, so wait_group counts stay fixed
      } else {
        fetch_regs(kt_begin + t + 1, t + 1 < k_tiles, whole);
      }
    };
    if (k_tiles <= 0) {
      // Atomic kernels only: a barrier here, even one never reached, reschedules the main loop
      // (H100: 2.5% slower at 4096 without split-K; 1.7% faster at 4096x64x4096 with atomic
      // split-K than with the barrier under `if (scales_c)`).
      if constexpr (SPLIT_ATOMIC) {
        scale_c_tile();
        __syncthreads();
        count_in();
      }
      return;
    }
    if constexpr (ASYNC) {
#pragma unroll
      for (int s = 0; s < STAGES - 1; ++s) {
        issue_async(kt_begin + s, s, s < k_tiles, whole);
        detail::cp_async_commit();
      }
      scale_c_tile();
      detail::cp_async_wait<STAGES - 2>();
      __syncthreads();
    } else {
      fetch_regs(kt_begin, true, whole);
      scale_c_tile();
      store_regs(0);
      __syncthreads();
    }
    count_in();
    load_fragments(0, 0, frag[0]);
    for (int t = 0; t < k_tiles; ++t) {
      prefetch_tile(t);
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        if (s + 1 < kSteps) {
          load_fragments(stage_of(t), (s + 1) * KRUN, frag[(s + 1) % 2]);
        } else {
          publish_tile(t + 1);
          load_fragments(stage_of(t + 1), 0, frag[(s + 1) % 2]);
        }
        multiply_fragments(frag[s % 2]);
      }
      if constexpr (kSteps % 2 == 1) frag[0] = frag[1];  // the next tile's first step reads frag[0]
    }
  };
  if (whole_vectors) {
    main_loop(detail::Flag<(VEC > 1)>{});
  } else {
    main_loop(detail::Flag<false>{});
  }
  if constexpr (ASYNC) detail::cp_async_wait<0>();

  // ---- epilogue -----------------------------------------------------------------------------
  detail::allow_dependent_launch();  // the next kernel may be scheduled now; it waits for our writes
  // Split-K: raw partial sums to workspace[z][M][N], and splitk_reduce applies alpha and beta; or,
  // SPLIT_ATOMIC, alpha * partial added atomically to C once C is scaled by beta.
  const bool partial = !SPLIT_ATOMIC && gridDim.z > 1;
  if constexpr (SPLIT_ATOMIC) {
    if (scales_c) detail::wait_for_scaled_tile(counter, ticket);
    if (after_scaling) detail::wait_for_prior_grid();
  }
  float* out = partial ? workspace + static_cast<long long>(blockIdx.z) * M * N : C;
  const int ldo = partial ? N : ldc;
  const bool out_vec_ok = ldo % 4 == 0 && detail::aligned_to(out, 16);
  const float scale = partial ? 1.0f : alpha;
  const bool read_c = !partial && !atomic && beta != 0.0f;  // beta == 0 must not read C: it may hold NaN
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int gm = m0 + row_base + (i / S::kRunM) * kStrideRunM + i % S::kRunM;
    if (gm >= M) continue;
    float* row = out + static_cast<long long>(gm) * ldo;
#pragma unroll
    for (int run = 0; run < TN / S::kRunN; ++run) {
      const int gn = n0 + col_base + run * kStrideRunN;
      const int j0 = run * S::kRunN;
      if (S::kRunN == 4 && out_vec_ok && gn + 4 <= N) {
        float4 r = make_float4(scale * acc[i][j0], scale * acc[i][j0 + 1], scale * acc[i][j0 + 2],
                               scale * acc[i][j0 + 3]);
        if (read_c) {
          const float4 c = *reinterpret_cast<const float4*>(row + gn);
          r.x += beta * c.x, r.y += beta * c.y, r.z += beta * c.z, r.w += beta * c.w;
        }
        if (atomic) {
          detail::atomic_add_f32x4(row + gn, r);
        } else {
          *reinterpret_cast<float4*>(row + gn) = r;
        }
      } else {
#pragma unroll
        for (int j = 0; j < S::kRunN; ++j) {
          if (gn + j < N) {
            const float r = scale * acc[i][j0 + j];
            if (atomic) {
              detail::atomic_add_f32(row + gn + j, r);
            } else {
              row[gn + j] = read_c ? r + beta * row[gn + j] : r;
            }
          }
        }
      }
    }
  }
}

// Sums the split-K partials in a fixed order: C = alpha * sum_z W[z] + beta * C. A template only so
// that NVRTC compiles it when asked for by name, like the GEMM itself. With splits == 0 (and no
// workspace) it is the atomic split-K's first step, C = beta * C: that GEMM is then its
// programmatic dependent, so it lets that GEMM launch at once (a no-op for anything else).
// One float per thread: a float4 version with a quarter of the threads measured 2% slower at 16
// slices (64x4096x4096) and 1% faster at 4 (1000, 1024) on an H100; the simpler one stays.
template <int THREADS>
__global__ void __launch_bounds__(THREADS) splitk_reduce(int M, int N, int splits, const float* __restrict__ workspace,
                                                         float alpha, float beta, float* __restrict__ C, int ldc) {
  // Launched early on sm_90: wait for the previous kernel (the GEMM's partials, or whatever came
  // before atomic split-K) and only then let the dependent GEMM start, which reads A and B at once.
  detail::wait_for_prior_grid();
  detail::allow_dependent_launch();
  const long long total = static_cast<long long>(M) * N;
  for (long long idx = blockIdx.x * static_cast<long long>(THREADS) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * THREADS) {
    float sum = 0.0f;
    for (int z = 0; z < splits; ++z) sum += workspace[z * total + idx];
    const int m = static_cast<int>(idx / N), n = static_cast<int>(idx % N);
    float* c = C + static_cast<long long>(m) * ldc + n;
    *c = beta != 0.0f ? alpha * sum + beta * *c : alpha * sum;
  }
}

}  // namespace gemmtune
