// Hopper tensor-core GEMM family (wgmma + TMA, sm_90a only): C = alpha * op(A) * op(B) + beta * C over
// strided batches, C row-major (any ldc), FP32 or (C16) the 16-bit operands' own type, A and B
// K-major (layout nt: A stored M x K, B N x K) or MN-major (the other layouts), read through TMA
// tensor maps the host encodes per launch (core/tensor_map.cpp) and passes as __grid_constant__
// parameters. TYPE (the host's Precision):
//   0 bf16  bfloat16 in, FP32 accumulation (wgmma k16);
//   1 tf32  FP32 in memory; the host's map says TFLOAT32, so the TMA rounds to TF32 (nearest) on
//           the way in: cuBLAS TF32's error (truncating was 2.7x larger, spike v2); k8;
//   2 fp16  half in, FP32 accumulation (k16).
//
// Structure (scripts/spikes/hopper/: NOTES.md has the H100 measurements behind each choice):
// - warpgroup 0 is the producer: one thread issues the TMA loads of A and B k tiles into a ring of
//   STAGES shared-memory stages (128-byte swizzle, as wgmma's descriptors expect), each stage
//   guarded by a "full" mbarrier (the TMA's bytes arrived) and an "empty" one (consumers are done);
// - warpgroups 1..CONSUMERS each own BM / CONSUMERS rows of the BM x BN tile and issue
//   wgmma.mma_async from shared-memory descriptors, keeping one k tile's group in flight: the stage
//   of k tile t is released once the wait after t + 1's wgmmas returns. PINGPONG: each consumer
//   owns whole tiles instead, every CONSUMERS-th unit of the CTA's, and steps over the others'
//   stages; the producer fills the ring unit after unit, so one consumer's main loop runs while
//   the other stores its tile (the epilogue leaves the tensor cores idle otherwise);
// - setmaxnreg moves registers from the producer to the consumers;
// - the grid walks units (tiles, or with CLUSTER = 2 pairs of tiles side by side in N) of every
//   batch entry: CTA (cluster) b takes units b, b + grid, ...; a grid of one CTA per unit is the
//   non-persistent launch, one per SM the persistent one (the host's choice, same binary). Raster:
//   groups of group_m unit rows walked column by column (L2 reuse of B);
// - CLUSTER = 2: the pair's CTAs share their A tile: each loads half of its rows (the host's A map
//   has boxes of BM / 2 rows) and the TMA multicasts it into both; a stage is free only when both
//   CTAs' consumers are done with it. A pair's second tile past N computes on zeros, stores nothing;
// - CLUSTER_K = 2: the pair's CTAs take the same tile, each half of its k tiles; CTA 1 stores its
//   sums into a buffer in CTA 0's shared memory (st.shared::cluster) and CTA 0 adds them before its
//   epilogue: the reduction of split-K without the kernel over C or the additions in memory;
// - split-K (splits > 1, a launch-time argument: the same binary): every tile is `splits` units,
//   one a slice of its k tiles (wgmma::slice_k_tiles), walked slice by slice; each adds
//   alpha * its partial product into C with fire-and-forget reductions, after the host's kernel
//   over C scaled it by beta (the grid's griddepcontrol.wait orders the two). Few tiles (skinny
//   products) then still fill the GPU. A 16-bit C is never added into (each addition would round):
//   each slice stores its raw sums into its FP32 part of the workspace, an empty slice zeros, and the
//   host's splitk_reduce adds them, applies alpha and beta and rounds once;
// - epilogue from registers (wgmma/epilogue.cuh). The TMA zero-fills rows past M and N and K past
//   its end, so any M, N, K work; K = 0 gives C = beta * C.
// wgmma_gemm_tf32x (the host's 3xtf32, FP32 in and out at FP32-level accuracy, and tf32 outside nt)
// follows the same plan with A's fragments in registers; see its comment. wgmma_transpose
// (wgmma/transpose.cuh) copies MN-major tf32 operands K-major for the nt kernel instead.
// Rows of A and B must start on 16-byte boundaries (a tensor-map rule): the host serves only the
// whole-vector path (core/kernel_path.cpp).
// NVRTC-style: no standard headers; the name expression is e.g. gemmtune::wgmma_gemm<0,128,256,4,2,1,0,1,0>.

// Each part needs the ones before it: not to be sorted.
// clang-format off
#include "common/sixteen_bit_c.cuh"
#include "common/bias.cuh"
#include "wgmma/ptx.cuh"
#include "wgmma/mma_ops.cuh"
#include "wgmma/shape.cuh"
#include "wgmma/epilogue.cuh"
#include "wgmma/transpose.cuh"
// clang-format on

namespace gemmtune {

// TYPE       0 bf16, 1 tf32, 2 fp16 (see the top of the file)
// BM, BN     block tile: BM a multiple of 64 * CONSUMERS (PINGPONG: of 64) up to 256; BN 64, 128, 192
//            or 256
// STAGES     shared-memory ring depth (>= 2); dynamic shared memory = wgmma::Shape<...>::kSmemBytes
// CONSUMERS  consumer warpgroups (1 to 3); threads = 128 * (CONSUMERS + 1)
// CLUSTER    1, or 2: clusters of two CTAs along N sharing A (launched with cluster dimension 2)
// OP_A, OP_B the layout, as the mma family's (1: op(X) = X^T as stored): an A stored k x m (OP_A 1)
//            or a B stored k x n (OP_B 0) is MN-major, read in TMA boxes of 64 columns x 64 k and
//            handed to wgmma with its transpose immediate (bf16 and fp16 only: tf32 is K-major)
// C16        0: C is FP32; 1: C holds the operands' 16-bit type (TYPE 0 bf16, 2 fp16; not tf32), raw
//            bits, each element rounded to nearest even once from alpha * acc + beta * C in FP32
// PINGPONG   0: the consumers share each tile; 1: they take turns, a whole tile each (see above)
// CLUSTER_K  1, or 2: clusters of two CTAs computing the same tile, each half of its k tiles; CTA 1
//            hands its sums to CTA 0 through distributed shared memory (two barriers and BM x BN
//            floats beyond Shape::kSmemBytes, as KernelConfig::shared_bytes counts them), which adds
//            them and stores the tile. Skinny products fill the GPU this way
//            with no kernel over C first and no reductions in global memory (split-K's cost)
// Arguments: the tensor maps of A (3-D: K, M, batch entries) and B (K, N, entries); a_batched /
// b_batched 0 when every entry shares the operand (a batch stride of 0: the map has one entry);
// splits, K's slices (1: none; more: with an FP32 C, C already scaled by beta and each slice adds into
// it; with a 16-bit C, slice z stores its raw sums to workspace[z][entry][M][N], FP32, entries =
// batch, every element inside M x N, for the host's reduction kernel). workspace: unused otherwise.
// bias: a row of C's type added to every row (common/bias.cuh); null, as for split-K's slices: none.
template <int TYPE, int BM, int BN, int STAGES, int CONSUMERS, int CLUSTER, int OP_A, int OP_B, int C16,
          int PINGPONG = 0, int CLUSTER_K = 1>
__global__ void __launch_bounds__(wgmma::Shape<TYPE, BM, BN, STAGES, CONSUMERS, PINGPONG>::kThreads, 1)
    wgmma_gemm(const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b,
               typename wgmma::OutputC<C16 ? (TYPE == 0 ? 1 : 2) : 0>::Elem* __restrict__ C, int M, int N,
               int K, int ldc, float alpha, float beta, int group_m, int batch, long long stride_c,
               int a_batched, int b_batched, int splits, float* __restrict__ workspace,
               const typename wgmma::OutputC<C16 ? (TYPE == 0 ? 1 : 2) : 0>::Elem* __restrict__ bias) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using S = wgmma::Shape<TYPE, BM, BN, STAGES, CONSUMERS, PINGPONG>;
  constexpr int kCType = C16 ? (TYPE == 0 ? 1 : 2) : 0;  // C's element: 0 FP32, 1 bf16, 2 fp16
  static_assert(C16 == 0 || TYPE != 1, "a 16-bit C needs bf16 or fp16 operands");
  constexpr int kMnA = OP_A == 1, kMnB = OP_B == 0;  // MN-major operands
  using Mma = wgmma::Mma<TYPE, BN, kMnA, kMnB>;
  static_assert(TYPE != 1 || (!kMnA && !kMnB), "tf32 wgmma reads K-major operands only (layout nt)");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of 1 or 2 CTAs along N");
  static_assert(CLUSTER_K == 1 || (CLUSTER_K == 2 && CLUSTER == 1 && !PINGPONG),
                "a pair splitting K: CLUSTER_K 2, not with a pair along N or consumers in turn");
  constexpr int kClusterCtas = CLUSTER * CLUSTER_K;
  static_assert(CLUSTER == 1 || (BM / 2) % 8 == 0, "half of A's tile: whole 8-row swizzle groups");
  static_assert(CLUSTER == 1 || !kMnA || (BM / 2) % 64 == 0, "half of an MN-major A's tile: whole 64-row boxes");
  extern __shared__ unsigned char smem_raw[];
  // 128-byte swizzled tiles want 1024-byte aligned bases.
  const unsigned base = (sm90::smem_u32(smem_raw) + 1023u) & ~1023u;
  const unsigned smem_a = base;
  const unsigned smem_b = base + STAGES * S::kTileABytes;
  const unsigned full_bar = smem_b + STAGES * S::kTileBBytes;
  const unsigned empty_bar = full_bar + 8 * STAGES;
  // CLUSTER_K 2: CTA 1 of the pair stores its sums into CTA 0's buffer (BM x BN floats, each consumer
  // thread's in turn, 16 bytes at a time) and arrives on CTA 0's "reduce_full"; CTA 0 adds them,
  // then arrives on CTA 1's "reduce_free" before the buffer takes the next tile's.
  // The buffer's 16-byte accesses need it 16-byte aligned: the tiles are whole KB and the barriers
  // 16 bytes a stage.
  const unsigned reduce_full = empty_bar + 8 * STAGES, reduce_free = reduce_full + 8;
  const unsigned reduce_buffer = reduce_full + 16;

  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  const int units_m = tiles_m;
  const int units_n = (tiles_n + CLUSTER - 1) / CLUSTER;
  const int units_per_entry = units_m * units_n;
  const int units_per_slice = units_per_entry * batch;
  const int num_units = units_per_slice * splits;
  const int unit0 = blockIdx.x / kClusterCtas;
  const int unit_step = gridDim.x / kClusterCtas;
  const unsigned rank = CLUSTER == 1 ? 0 : sm90::cluster_rank();      // along N
  const unsigned k_rank = CLUSTER_K == 1 ? 0 : sm90::cluster_rank();  // which half of K
  const int k_tiles = (K + S::kBK - 1) / S::kBK;
  const int wg = threadIdx.x / 128;
  // Unit -> K slice (its k tiles [kb, ke)), batch entry and tile; CTA `rank` of a pair takes its
  // tile 2 * pair + rank along N. CLUSTER_K 2: CTA k_rank of the pair takes that half of the
  // slice's k tiles (the first the larger), and unit_has_k says whether the slice has any.
  auto locate = [&](int unit, int& entry, int& tm, int& tn, int& kb, int& ke, bool& unit_has_k) {
    const int slice = unit / units_per_slice;
    wgmma::slice_k_tiles(k_tiles, slice, splits, kb, ke);
    unit_has_k = ke > kb;
    if constexpr (CLUSTER_K == 2) {
      const int mid = kb + (ke - kb + 1) / 2;
      if (k_rank == 0)
        ke = mid;
      else
        kb = mid;
    }
    unit -= slice * units_per_slice;
    entry = unit / units_per_entry;
    wgmma::unit_coords(unit - entry * units_per_entry, units_m, units_n, group_m, tm, tn);
    tn = tn * CLUSTER + static_cast<int>(rank);
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbar_init(full_bar + 8 * s, 1);
      // lane 0 of every consumer warp that reads the stage (pingpong: one consumer's), of every CTA
      // that reads this stage's shared A
      sm90::mbar_init(empty_bar + 8 * s, (PINGPONG ? 1 : CONSUMERS) * 4 * CLUSTER);
    }
    if constexpr (CLUSTER_K == 2) {  // every consumer thread of the other CTA arrives
      sm90::mbar_init(reduce_full, CONSUMERS * 128);
      sm90::mbar_init(reduce_free, CONSUMERS * 128);
    }
    sm90::mbar_init_fence();
    if (k_tiles > 0) {  // K = 0: the host encoded no maps
      sm90::tma_prefetch_map(&tma_a);
      sm90::tma_prefetch_map(&tma_b);
    }
  }
  if constexpr (kClusterCtas > 1)
    sm90::cluster_sync();
  else
    __syncthreads();
  sm90::wait_for_previous_grid();

  if (wg == 0) {
    // Producer.
    if constexpr (S::kConsumerRegs > 0) sm90::setmaxnreg_dec<24>();
    if (threadIdx.x == 0 && k_tiles > 0) {
      int s = 0;
      unsigned phase = 0;
      for (int unit = unit0; unit < num_units; unit += unit_step) {
        int entry, tm, tn, kb, ke;
        bool unit_has_k;
        locate(unit, entry, tm, tn, kb, ke, unit_has_k);
        const int za = a_batched ? entry : 0, zb = b_batched ? entry : 0;
        for (int kt = kb; kt < ke; ++kt) {
          sm90::mbar_wait(empty_bar + 8 * s, phase ^ 1);
          // The full barrier counts both halves of the shared A (one from each CTA of a cluster)
          // and this CTA's B.
          sm90::mbar_arrive_expect_tx(full_bar + 8 * s, S::kStageBytes);
          // This CTA's rows of A: all, or its half of the pair's (multicast into both CTAs).
          const int a_rows = BM / CLUSTER, a_row0 = tm * BM + static_cast<int>(rank) * a_rows;
          const unsigned a_dst = smem_a + s * S::kTileABytes + rank * a_rows * 128;
          if constexpr (!kMnA) {
            if constexpr (CLUSTER == 1)
              sm90::tma_load_3d(a_dst, &tma_a, kt * S::kBK, a_row0, za, full_bar + 8 * s);
            else
              sm90::tma_load_3d_multicast(a_dst, &tma_a, kt * S::kBK, a_row0, za, full_bar + 8 * s, 0x3);
          } else {
#pragma unroll
            for (int j = 0; j < a_rows / 64; ++j) {  // boxes of 64 rows of A, 8192 bytes each
              if constexpr (CLUSTER == 1)
                sm90::tma_load_3d(a_dst + j * 8192, &tma_a, a_row0 + 64 * j, kt * S::kBK, za, full_bar + 8 * s);
              else
                sm90::tma_load_3d_multicast(a_dst + j * 8192, &tma_a, a_row0 + 64 * j, kt * S::kBK, za,
                                            full_bar + 8 * s, 0x3);
            }
          }
          if constexpr (!kMnB) {
            sm90::tma_load_3d(smem_b + s * S::kTileBBytes, &tma_b, kt * S::kBK, tn * BN, zb, full_bar + 8 * s);
          } else {
#pragma unroll
            for (int j = 0; j < BN / 64; ++j)
              sm90::tma_load_3d(smem_b + s * S::kTileBBytes + j * 8192, &tma_b, tn * BN + 64 * j, kt * S::kBK, zb,
                                full_bar + 8 * s);
          }
          if (++s == STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
      // Not under split-K: there the early launch cost 6-26% a call (H200, 2026-11-29: bf16 64x64
      // split 4 at 4096x64x4096 19.6 -> 15.6 us without it, 3xtf32 128x64 41.8 -> 38.1, tf32 with two
      // consumers 31.4 -> 28.9; one consumer's 64-row tiles lost 0-4% instead; unsplit grids the same;
      // scripts/spikes/small-tc/ab-wgmma-splitk-run.sh).
      if (splits == 1) sm90::allow_next_grid();
    }
  } else {
    // Consumers.
    if constexpr (S::kConsumerRegs > 0) sm90::setmaxnreg_inc<S::kConsumerRegs>();
    const int c = wg - 1;
    const int t = threadIdx.x % 128;
    const int warp = t / 32;
    const int lane = t % 32;
    float acc[S::kMI][S::kAccRegs];
    int s = 0;
    unsigned phase = 0;
    auto release = [&](int st) {
      sm90::mbar_arrive(empty_bar + 8 * st);
      if constexpr (CLUSTER == 2) sm90::mbar_arrive_cluster(empty_bar + 8 * st, rank ^ 1);
    };
    // Pingpong: this consumer's rows are the whole tile, and the first of them row 0.
    const int row_offset = PINGPONG ? 0 : c * S::kWgM;
    int handoffs = 0;  // CLUSTER_K 2: tiles whose sums went from CTA 1 to CTA 0 so far
    for (int unit = unit0, local = 0; unit < num_units; unit += unit_step, ++local) {
      int entry, tm, tn, kb, ke;
      bool unit_has_k;
      locate(unit, entry, tm, tn, kb, ke, unit_has_k);
      if (PINGPONG && local % CONSUMERS != c) {  // another consumer's tile: step over its stages
        s += ke - kb;
        phase ^= (s / STAGES) & 1;
        s %= STAGES;
        continue;
      }
      // Pingpong: a stage's full barrier tells phases apart by parity only, so a consumer may wait
      // on it at most one phase ahead: it starts its main loop once the consumer before it has
      // waited on every stage of its own (named barrier 1 + c, arrived on after that main loop).
      if (PINGPONG && local > 0) sm90::named_barrier_sync(1 + c, 256);
      int prev = 0;
      for (int kt = kb; kt < ke; ++kt) {
        sm90::mbar_wait(full_bar + 8 * s, phase);
        // A consumer's rows start kWgM * 128 bytes in, in either layout (64-row boxes of 8192 bytes).
        const unsigned a_at = smem_a + s * S::kTileABytes + row_offset * 128, b_at = smem_b + s * S::kTileBBytes;
        const unsigned long long da = kMnA ? sm90::smem_desc_mn_sw128(a_at) : sm90::smem_desc_sw128(a_at);
        const unsigned long long db = kMnB ? sm90::smem_desc_mn_sw128(b_at) : sm90::smem_desc_sw128(b_at);
        // A k step (16 k) is 32 bytes along a K-major row, 16 rows (2048 bytes) of an MN-major box.
        constexpr int kStepA = kMnA ? 128 : 2, kStepB = kMnB ? 128 : 2;
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < S::kKSteps; ++kk) {
#pragma unroll
          for (int mi = 0; mi < S::kMI; ++mi) {
            // + a k step; +64 rows * 128 bytes per m64 block (>> 4: +512) in either layout.
            Mma::run(acc[mi], da + kStepA * kk + 512 * mi, db + kStepB * kk, (kt > kb || kk > 0) ? 1 : 0);
          }
        }
        sm90::wgmma_commit();
        sm90::wgmma_wait<1>();  // the previous k tile's wgmmas are done with their stage
        if (kt > kb && lane == 0) release(prev);
        prev = s;
        if (++s == STAGES) {
          s = 0;
          phase ^= 1;
        }
      }
      if (PINGPONG) sm90::named_barrier_arrive(1 + (c + 1) % CONSUMERS, 256);  // the next consumer's turn
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int mi = 0; mi < S::kMI; ++mi) sm90::fence_registers(acc[mi]);
      if (ke > kb && lane == 0) release(prev);
      if constexpr (CLUSTER_K == 2) {
        if (!unit_has_k && k_rank == 1) continue;  // CTA 0 alone stores a tile without k tiles
        if (unit_has_k) {
          if (ke == kb) {  // this half had no k tile (a slice of one): it hands over zeros
#pragma unroll
            for (int mi = 0; mi < S::kMI; ++mi)
#pragma unroll
              for (int i = 0; i < S::kAccRegs; ++i) acc[mi][i] = 0.f;
          }
          // Consumer thread ct's 16-byte pieces lie kConsumerThreads * 16 bytes apart, so a warp's
          // stores and loads cover whole rows of the banks.
          constexpr int kConsumerThreads = CONSUMERS * 128;
          const unsigned mine = reduce_buffer + 16u * (c * 128 + t);
          if (k_rank == 1) {
            if (handoffs > 0) sm90::mbar_wait<true>(reduce_free, (handoffs - 1) & 1);
#pragma unroll
            for (int mi = 0; mi < S::kMI; ++mi)
#pragma unroll
              for (int q = 0; q < S::kAccRegs / 4; ++q)
                sm90::st_cluster_quad(mine + 16u * kConsumerThreads * (mi * S::kAccRegs / 4 + q), 0, acc[mi][4 * q],
                                      acc[mi][4 * q + 1], acc[mi][4 * q + 2], acc[mi][4 * q + 3]);
            sm90::mbar_arrive_cluster<true>(reduce_full, 0);
            ++handoffs;
            continue;
          }
          sm90::mbar_wait<true>(reduce_full, handoffs & 1);
#pragma unroll
          for (int mi = 0; mi < S::kMI; ++mi)
#pragma unroll
            for (int q = 0; q < S::kAccRegs / 4; ++q) {
              const float4 v = sm90::ld_shared_quad(mine + 16u * kConsumerThreads * (mi * S::kAccRegs / 4 + q));
              acc[mi][4 * q] += v.x, acc[mi][4 * q + 1] += v.y, acc[mi][4 * q + 2] += v.z, acc[mi][4 * q + 3] += v.w;
            }
          sm90::mbar_arrive_cluster<true>(reduce_free, 1);
          ++handoffs;
        }
      }
      // K = 0, or a slice without k tiles (CLUSTER_K 2: the pair's slice): no wgmma wrote the sums.
      if (CLUSTER_K == 2 ? !unit_has_k : ke == kb) {
        if (splits > 1 && !C16) continue;  // nothing to add (a 16-bit C's slice stores its zeros)
#pragma unroll
        for (int mi = 0; mi < S::kMI; ++mi)
#pragma unroll
          for (int i = 0; i < S::kAccRegs; ++i) acc[mi][i] = 0.f;
      }
      if (C16 && splits > 1) {
        // This slice's raw sums, FP32, to its [M][N] of the workspace (ld N): alpha 1, beta 0, no add.
        float* w_entry = workspace + (static_cast<long long>(unit / units_per_slice) * batch + entry) * M * N;
        const bool pairs = (N & 1) == 0 && (reinterpret_cast<unsigned long long>(w_entry) & 7) == 0;
        const bool interior = pairs && tm * BM + BM <= M && tn * BN + BN <= N;
        const bool wide = (N & 3) == 0 && (reinterpret_cast<unsigned long long>(w_entry) & 15) == 0;
        wgmma::store_tile<S::kMI, S::kAccRegs, BN, 0>(
            acc, w_entry, N, M, N, tm * BM + row_offset + warp * 16 + lane / 4, tn * BN + 2 * (lane % 4),
            interior, pairs, 1.0f, 0.0f, nullptr, false, wide);
      } else {
        typename wgmma::OutputC<kCType>::Elem* c_entry = C + static_cast<long long>(entry) * stride_c;
        // Pairs: an even ldc and C aligned to two elements.
        const bool pairs = (ldc & 1) == 0 &&
                           (reinterpret_cast<unsigned long long>(c_entry) & (2 * sizeof(*c_entry) - 1)) == 0;
        const bool interior = pairs && tm * BM + BM <= M && tn * BN + BN <= N;
        // Wide: rows that start 16-byte aligned (ldc a multiple of 8 16-bit or 4 FP32 elements).
        const bool wide = (ldc & (C16 ? 7 : 3)) == 0 && (reinterpret_cast<unsigned long long>(c_entry) & 15) == 0;
        wgmma::store_tile<S::kMI, S::kAccRegs, BN, kCType>(
            acc, c_entry, ldc, M, N, tm * BM + row_offset + warp * 16 + lane / 4, tn * BN + 2 * (lane % 4),
            interior, pairs, alpha, beta, bias, splits > 1, wide);
      }
    }
  }
  // No CTA of a cluster may exit while the other can still multicast into it, store into its
  // buffer or arrive on its barriers.
  if constexpr (kClusterCtas > 1) sm90::cluster_sync();
#else
  __trap();
#endif
}

// FP32 operands, A through registers (wgmma_gemm_tf32x).
// 3xtf32 (PASSES 3): x = big + small, big = tf32_rn(x), small = tf32_rn(x - big); a*b ~ small_a*big_b +
// big_a*small_b + big_a*big_b, three tf32 wgmmas per k step (spike v3, "A_REGS 1": 2.1x cuBLAS
// SGEMM at 4096 and 8192 on the H100 with a lower normwise error). The TMA brings FP32 tiles (the
// host's maps say FLOAT32: no rounding); warps 1-3 of the producer warpgroup (the "splitters")
// rewrite each B tile in place as big and write small into a second buffer of the same swizzled
// layout, fence the async proxy and arrive on a "ready" barrier; each consumer thread loads its A
// fragments from the swizzled FP32 tile, splits them in registers and feeds them to the wgmmas from
// registers (splitting A in shared memory too made the kernel shared-memory bound, spike v2). The
// tensor core's FP32 accumulation truncates, so each k tile is summed in a temporary (scale_d = 0
// at its first step) and added into the accumulator with FADDs.
// Every layout: OP_A / OP_B as the mma family's (1: op(X) = X^T as stored). A stored k x m (OP_A 1)
// or B stored k x n (OP_B 0) is MN-major: its map's rows are K and the TMA lands it in sub-tiles of
// 32 columns (wgmma::mn_major_offset); A's fragments are then gathered from there, and the
// splitters transpose B into the K-major big and small tiles the wgmma descriptors need (tf32
// wgmma reads K-major operands only).
// PASSES 1 is plain tf32 in the layouts the K-major kernel above cannot read: the host's maps say
// TFLOAT32, so the TMA rounds both operands; the splitters only transpose a staged B, and each
// consumer keeps one k tile's wgmmas in flight, its A fragments in two register buffers.
// Arguments as wgmma_gemm's; C is always FP32 (no C16), so `workspace` is never used: split-K adds
// into C.
template <int PASSES, int BM, int BN, int STAGES, int CONSUMERS, int OP_A, int OP_B>
__global__ void __launch_bounds__(wgmma::SplitShape<PASSES, BM, BN, STAGES, CONSUMERS, OP_B == 0>::kThreads, 1)
    wgmma_gemm_tf32x(const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b,
                     float* __restrict__ C, int M, int N, int K, int ldc, float alpha, float beta,
                     int group_m, int batch, long long stride_c, int a_batched, int b_batched, int splits,
                     float* workspace, const float* __restrict__ bias) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr bool kStaged = OP_B == 0, kSplit = PASSES == 3;
  using S = wgmma::SplitShape<PASSES, BM, BN, STAGES, CONSUMERS, kStaged>;
  using MmaRegA = wgmma::MmaRegA<BN>;
  extern __shared__ unsigned char smem_raw[];
  const unsigned base = (sm90::smem_u32(smem_raw) + 1023u) & ~1023u;
  // Per stage: [A][B as landed][B big when staged][B small]; A + B as landed is the TMA's zone.
  auto a_tile = [&](int s) { return base + s * S::kStageBytes; };
  auto b_landed = [&](int s) { return base + s * S::kStageBytes + S::kTileABytes; };
  auto b_big = [&](int s) { return b_landed(s) + (kStaged ? S::kTileBBytes : 0); };  // K-major
  auto b_small = [&](int s) { return b_big(s) + S::kTileBBytes; };
  const unsigned full_bar = base + STAGES * S::kStageBytes;
  const unsigned ready_bar = full_bar + 8 * STAGES;
  const unsigned empty_bar = ready_bar + 8 * STAGES;

  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  const int tiles_per_entry = tiles_m * tiles_n;
  const int units_per_slice = tiles_per_entry * batch;
  const int num_units = units_per_slice * splits;
  const int k_tiles = (K + S::kBK - 1) / S::kBK;
  const int wg = threadIdx.x / 128;
  // Unit -> K slice (its k tiles [kb, ke)), batch entry and tile.
  auto locate = [&](int unit, int& entry, int& tm, int& tn, int& kb, int& ke) {
    const int slice = unit / units_per_slice;
    wgmma::slice_k_tiles(k_tiles, slice, splits, kb, ke);
    unit -= slice * units_per_slice;
    entry = unit / tiles_per_entry;
    wgmma::unit_coords(unit - entry * tiles_per_entry, tiles_m, tiles_n, group_m, tm, tn);
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbar_init(full_bar + 8 * s, 1);
      sm90::mbar_init(ready_bar + 8 * s, S::kSplitters);
      sm90::mbar_init(empty_bar + 8 * s, CONSUMERS * 4);
    }
    sm90::mbar_init_fence();
    if (k_tiles > 0) {  // K = 0: the host encoded no maps
      sm90::tma_prefetch_map(&tma_a);
      sm90::tma_prefetch_map(&tma_b);
    }
  }
  __syncthreads();
  sm90::wait_for_previous_grid();

  if (wg == 0) {
    sm90::setmaxnreg_dec<40>();
    if (threadIdx.x == 0 && k_tiles > 0) {
      // Producer.
      int s = 0;
      unsigned phase = 0;
      for (int unit = blockIdx.x; unit < num_units; unit += gridDim.x) {
        int entry, tm, tn, kb, ke;
        locate(unit, entry, tm, tn, kb, ke);
        const int za = a_batched ? entry : 0, zb = b_batched ? entry : 0;
        for (int kt = kb; kt < ke; ++kt) {
          sm90::mbar_wait(empty_bar + 8 * s, phase ^ 1);
          sm90::mbar_arrive_expect_tx(full_bar + 8 * s, S::kLoadBytes);
          // MN-major operands come in boxes of 32 columns x 32 k (128-byte swizzle rows).
          if constexpr (OP_A == 0) {
            sm90::tma_load_3d(a_tile(s), &tma_a, kt * S::kBK, tm * BM, za, full_bar + 8 * s);
          } else {
#pragma unroll
            for (int j = 0; j < BM / 32; ++j)
              sm90::tma_load_3d(a_tile(s) + j * 4096, &tma_a, tm * BM + 32 * j, kt * S::kBK, za, full_bar + 8 * s);
          }
          if constexpr (OP_B == 1) {
            sm90::tma_load_3d(b_landed(s), &tma_b, kt * S::kBK, tn * BN, zb, full_bar + 8 * s);
          } else {
#pragma unroll
            for (int j = 0; j < BN / 32; ++j)
              sm90::tma_load_3d(b_landed(s) + j * 4096, &tma_b, tn * BN + 32 * j, kt * S::kBK, zb,
                                full_bar + 8 * s);
          }
          if (++s == STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
      if (splits == 1) sm90::allow_next_grid();  // as in wgmma_gemm
    } else if (threadIdx.x >= 32) {
      // Splitters: every stage the producer fills, in the same order.
      const int t = threadIdx.x - 32;
      // x as big (at big_at) and small (at small_at): x = big + small to FP32's precision.
      auto split_store = [](unsigned big_at, unsigned small_at, float4 x) {
        float4 b, r;
        b.x = sm90::round_tf32(x.x);
        b.y = sm90::round_tf32(x.y);
        b.z = sm90::round_tf32(x.z);
        b.w = sm90::round_tf32(x.w);
        r.x = sm90::round_tf32(x.x - b.x);
        r.y = sm90::round_tf32(x.y - b.y);
        r.z = sm90::round_tf32(x.z - b.z);
        r.w = sm90::round_tf32(x.w - b.w);
        asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(big_at), "f"(b.x), "f"(b.y), "f"(b.z),
                     "f"(b.w)
                     : "memory");
        asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(small_at), "f"(r.x), "f"(r.y), "f"(r.z),
                     "f"(r.w)
                     : "memory");
      };
      int s = 0;
      unsigned phase = 0;
      // The stages this CTA's units fill: their slices' k tiles.
      int total = 0;
      for (int unit = blockIdx.x; unit < num_units; unit += gridDim.x) {
        int kb, ke;
        wgmma::slice_k_tiles(k_tiles, unit / units_per_slice, splits, kb, ke);
        total += ke - kb;
      }
      for (int it = 0; it < total; ++it) {
        sm90::mbar_wait(full_bar + 8 * s, phase);
        if constexpr (!kStaged && kSplit) {
          constexpr int kChunks = S::kTileBBytes / 16;
#pragma unroll 4
          for (int c = t; c < kChunks; c += S::kSplitters) {
            const unsigned src = b_big(s) + 16 * c;
            float4 x;
            asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                         : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w)
                         : "r"(src));
            split_store(src, b_small(s) + 16 * c, x);
          }
        } else if constexpr (kStaged) {
          // Unit u of a stage: 4 columns n = 4 nq .. + 3 by 4 k = 4 kq .. + 3, read as four float4
          // rows of the landed tile, transposed in registers, written as four float4 rows of big and
          // of small. Lane l of an 8-lane phase takes kq = l and nq = 8 nb + (l ^ r) (phase q of the
          // stage: nb = q / 8, r = q % 8): both its reads and its writes then fall in 8 distinct
          // 16-byte chunks of a swizzle row (no bank conflict), and the 8 r cover every (kq, nq).
          constexpr unsigned kUnits = BN * 2;  // BN / 4 column quads x 8 k quads
#pragma unroll 1
          for (unsigned u = static_cast<unsigned>(t); u < kUnits; u += S::kSplitters) {
            const unsigned l = u % 8, q = u / 8, nb = q / 8, r = q % 8;
            const unsigned kq = l, nq8 = l ^ r, nq = 8 * nb + nq8;
            float4 v[4];
#pragma unroll
            for (unsigned i = 0; i < 4; ++i) {
              const unsigned src = b_landed(s) + wgmma::mn_major_offset(4 * nq, 4 * kq + i);
              asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                           : "=f"(v[i].x), "=f"(v[i].y), "=f"(v[i].z), "=f"(v[i].w)
                           : "r"(src));
            }
            const float4 col[4] = {make_float4(v[0].x, v[1].x, v[2].x, v[3].x),
                                   make_float4(v[0].y, v[1].y, v[2].y, v[3].y),
                                   make_float4(v[0].z, v[1].z, v[2].z, v[3].z),
                                   make_float4(v[0].w, v[1].w, v[2].w, v[3].w)};
#pragma unroll
            for (unsigned j = 0; j < 4; ++j) {
              const unsigned n = 4 * nq + j;
              const unsigned at = n * 128 + ((kq ^ (n % 8)) * 16);
              if constexpr (kSplit) {
                split_store(b_big(s) + at, b_small(s) + at, col[j]);
              } else {  // tf32: the TMA rounded it already
                asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(b_big(s) + at), "f"(col[j].x),
                             "f"(col[j].y), "f"(col[j].z), "f"(col[j].w)
                             : "memory");
              }
            }
          }
        }
        sm90::fence_proxy_async();
        sm90::mbar_arrive(ready_bar + 8 * s);
        if (++s == STAGES) {
          s = 0;
          phase ^= 1;
        }
      }
    }
  } else {
    sm90::setmaxnreg_inc<S::kConsumerRegs>();
    const int c = wg - 1;
    const int t = threadIdx.x % 128;
    const int warp = t / 32;
    const int lane = t % 32;
    float acc[1][S::kAccRegs];
    const unsigned row_off = c * 64 * 128;
    // A's fragment of m64k8 block kk: rows r = 16 warp + lane/4 (+8), columns 8 kk + lane%4 (+4). In
    // the K-major swizzled tile, element (r, k) sits at r*128 + ((k/4) ^ (r%8))*16 + (k%4)*4; in the
    // MN-major one at mn_major_offset(r, k), where k % 8 does not depend on kk: k tile kk is 1024
    // bytes on.
    using Fragments = unsigned[S::kKSteps][4];
    // Calls got(kk, q, x) with each element x of this thread's fragments of stage st.
    auto load_a = [&](int st, auto&& got) {
      const int g = lane / 4;
      const unsigned arow = a_tile(st) + row_off + (warp * 16 + g) * 128 + (lane % 4) * 4;
#pragma unroll
      for (int kk = 0; kk < S::kKSteps; ++kk) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const unsigned addr =
              OP_A == 0 ? arow + (q & 1) * 8 * 128 + (((2 * kk + (q >> 1)) ^ g) * 16)
                        : a_tile(st) +
                              wgmma::mn_major_offset(c * 64 + warp * 16 + g + (q & 1) * 8, lane % 4 + 4 * (q >> 1)) +
                              kk * 1024;
          float x;
          asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(x) : "r"(addr) : "memory");
          got(kk, q, x);
        }
      }
    };
    // The wgmmas read A's registers asynchronously: keep them alive up to the wait that ends them.
    auto keep_alive = [](const Fragments& a) {
#pragma unroll
      for (int kk = 0; kk < S::kKSteps; ++kk)
#pragma unroll
        for (int q = 0; q < 4; ++q) asm volatile("" ::"r"(a[kk][q]));
    };
    int s = 0;
    unsigned phase = 0;
    auto next_stage = [&] {
      if (++s == STAGES) {
        s = 0;
        phase ^= 1;
      }
    };
    for (int unit = blockIdx.x; unit < num_units; unit += gridDim.x) {
      int entry, tm, tn, kb, ke;
      locate(unit, entry, tm, tn, kb, ke);
      if (splits > 1 && ke == kb) continue;  // a slice without k tiles: nothing to add
      if constexpr (kSplit) {
        float part[S::kAccRegs];
        Fragments abig, asml;
#pragma unroll
        for (int i = 0; i < S::kAccRegs; ++i) acc[0][i] = 0.f;
        for (int kt = kb; kt < ke; ++kt) {
          sm90::mbar_wait(full_bar + 8 * s, phase);
          sm90::mbar_wait(ready_bar + 8 * s, phase);
          const unsigned long long dbb = sm90::smem_desc_sw128(b_big(s));
          const unsigned long long dbs = sm90::smem_desc_sw128(b_small(s));
          load_a(s, [&](int kk, int q, float x) {
            const float bx = sm90::round_tf32(x);
            abig[kk][q] = __float_as_uint(bx);
            asml[kk][q] = __float_as_uint(sm90::round_tf32(x - bx));
          });
          sm90::wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < S::kKSteps; ++kk) {
            MmaRegA::run(part, asml[kk], dbb + 2 * kk, kk > 0 ? 1 : 0);
            MmaRegA::run(part, abig[kk], dbs + 2 * kk, 1);
            MmaRegA::run(part, abig[kk], dbb + 2 * kk, 1);
          }
          sm90::wgmma_commit();
          sm90::wgmma_wait<0>();
          sm90::fence_registers(part);
          keep_alive(abig);
          keep_alive(asml);
          if (lane == 0) sm90::mbar_arrive(empty_bar + 8 * s);
#pragma unroll
          for (int i = 0; i < S::kAccRegs; ++i) acc[0][i] += part[i];
          next_stage();
        }
      } else {
        // One k tile's wgmmas in flight: tile t's fragments stay in their buffer until the wait
        // after tile t + 1's wgmmas, which also frees tile t's stage.
        Fragments a0, a1;
        int prev = 0;
        auto step = [&](int kt, Fragments& a, const Fragments& other) {
          sm90::mbar_wait(full_bar + 8 * s, phase);
          sm90::mbar_wait(ready_bar + 8 * s, phase);
          const unsigned long long db = sm90::smem_desc_sw128(b_big(s));
          load_a(s, [&](int kk, int q, float x) { a[kk][q] = __float_as_uint(x); });  // the TMA rounded it
          sm90::wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < S::kKSteps; ++kk) MmaRegA::run(acc[0], a[kk], db + 2 * kk, (kt > kb || kk > 0) ? 1 : 0);
          sm90::wgmma_commit();
          sm90::wgmma_wait<1>();
          if (kt > kb) {
            keep_alive(other);
            if (lane == 0) sm90::mbar_arrive(empty_bar + 8 * prev);
          }
          prev = s;
          next_stage();
        };
        for (int kt = kb; kt < ke; kt += 2) {
          step(kt, a0, a1);
          if (kt + 1 < ke) step(kt + 1, a1, a0);
        }
        sm90::wgmma_wait<0>();
        sm90::fence_registers(acc[0]);
        if (ke > kb) {
          keep_alive(a0);
          keep_alive(a1);
          if (lane == 0) sm90::mbar_arrive(empty_bar + 8 * prev);
        } else {  // K = 0: no wgmma wrote the accumulators
#pragma unroll
          for (int i = 0; i < S::kAccRegs; ++i) acc[0][i] = 0.f;
        }
      }
      float* c_entry = C + static_cast<long long>(entry) * stride_c;
      const bool pairs = (ldc & 1) == 0 && (reinterpret_cast<unsigned long long>(c_entry) & 7) == 0;
      const bool interior = pairs && tm * BM + BM <= M && tn * BN + BN <= N;
      const bool wide = (ldc & 3) == 0 && (reinterpret_cast<unsigned long long>(c_entry) & 15) == 0;
      wgmma::store_tile<1, S::kAccRegs, BN, 0>(
          acc, c_entry, ldc, M, N, tm * BM + c * 64 + warp * 16 + lane / 4, tn * BN + 2 * (lane % 4),
          interior, pairs, alpha, beta, bias, splits > 1, wide);
    }
  }
#else
  __trap();
#endif
}

}  // namespace gemmtune
