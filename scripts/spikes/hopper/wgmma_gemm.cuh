// Hopper GEMM spike (issue #45, sm_90a only): C = A * B^T, C FP32 row-major M x N (leading
// dimension ldc), A M x K and B N x K both K-major (row-major with K contiguous: the "TN" of
// cuBLAS's column-major terms), read through TMA tensor maps the host encodes.
// TYPE 0: bf16 in, FP32 accumulation (wgmma k16); TYPE 1: tf32 (FP32 in memory; the tensor core
// reads the top 19 bits, or the TMA rounds when the host's map says TFLOAT32), FP32 accumulation
// (wgmma k8); TYPE 2: fp16 in, FP32 accumulation (k16).
//
// Structure (the end state of fast.cu's ladder, written anew):
// - warpgroup 0 is the producer: one thread issues the TMA loads of A and B k-tiles into a ring of
//   STAGES shared-memory stages (128-byte swizzle, as wgmma's descriptors expect), each stage
//   guarded by a "full" mbarrier (TMA bytes arrived) and an "empty" one (consumers done with it);
// - warpgroups 1..CONSUMERS each own BM / CONSUMERS rows of the BM x BN tile and issue
//   wgmma.mma_async from shared-memory descriptors, keeping one k-tile's group in flight: the stage
//   of k-tile t is released when the wait for t+1's predecessor returns;
// - setmaxnreg moves registers from the producer (24) to the consumers (accumulators: BM/CONSUMERS
//   * BN / 128 floats a thread);
// - tiles are handed out persistently: CTA b takes tiles b, b + gridDim.x, ...; a grid of one CTA
//   per tile is the non-persistent kernel. Tile order: groups of group_m tile rows, walked column
//   by column (L2 reuse of B).
// - CLUSTER_N = 2 (or CLUSTER_M = 2): clusters of 2 CTAs (launched with cluster dimension 2 x 1 x
//   1) take pairs of tiles side by side in N (in M), which share their A (B) tile: each CTA loads
//   half of its rows and the TMA multicasts it into both CTAs; the other operand stays per CTA. A
//   stage is free again only when both CTAs' consumers are done with it, so consumers arrive on
//   the "empty" barriers of both. A pair's second tile past N (M) computes on zeros and stores
//   nothing.
// - epilogue: registers straight to global memory (float2 per thread, 32-byte row pieces), masked
//   at the edges; TMA zero-fills out-of-range rows and K, so any M, N, K work; K's row pitch must
//   be a multiple of 16 bytes (tensor-map rule).
// NVRTC-style: no standard headers; the name expression is e.g.
// gemmtune::wgmma_gemm<0,128,256,4,2>.

// clang-format off
#include "ptx_sm90.cuh"
#include "wgmma_ops.cuh"
// clang-format on

namespace gemmtune {
namespace hopper {

template <int TYPE, int BM, int BN, int STAGES, int CONSUMERS>
struct WgmmaShape {
  static_assert(TYPE >= 0 && TYPE <= 2, "TYPE: 0 bf16, 1 tf32, 2 fp16");
  static constexpr int kElemBytes = TYPE == 1 ? 4 : 2;
  static constexpr int kBK = 128 / kElemBytes;  // one 128-byte swizzle row per tile row
  static constexpr int kThreads = 128 * (CONSUMERS + 1);
  static constexpr int kWgM = BM / CONSUMERS;  // rows of the tile per consumer warpgroup
  static constexpr int kMI = kWgM / 64;        // m64 wgmma blocks per consumer
  static constexpr int kAccRegs = BN / 2;      // per m64 block
  static constexpr int kKSteps = 4;            // 128 bytes of K / 32 bytes per wgmma
  static constexpr int kTileABytes = BM * 128;
  static constexpr int kTileBBytes = BN * 128;
  static constexpr int kStageBytes = kTileABytes + kTileBBytes;
  static constexpr int kSmemBytes = STAGES * kStageBytes + 16 * STAGES + 1024;  // + barriers + alignment slack
  // Registers a thread after setmaxnreg: 64K in all, the producer warpgroup keeps 24 a thread, the
  // rest is split among the consumers (multiple of 8, at most 240). One consumer needs no move.
  static constexpr int kConsumerRegs = CONSUMERS == 1 ? 0 : CONSUMERS == 2 ? 240 : 160;
  static_assert(kWgM % 64 == 0 && kWgM * CONSUMERS == BM, "BM: a multiple of 64 per consumer warpgroup");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "BN: one wgmma N");
  static_assert(BM <= 256 && BN <= 256, "TMA boxes are at most 256 rows");
  static_assert(STAGES >= 2, "STAGES >= 2");
};

__device__ __forceinline__ void tile_coords(int tile, int tiles_m, int tiles_n, int group_m, int& tm, int& tn) {
  if (group_m < 1) group_m = 1;
  const int group_tiles = group_m * tiles_n;
  const int g = tile / group_tiles;
  const int first_m = g * group_m;
  const int rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  const int r = tile - g * group_tiles;
  tm = first_m + r % rows;
  tn = r / rows;
}

}  // namespace hopper

template <int TYPE, int BM, int BN, int STAGES, int CONSUMERS, int CLUSTER_N = 1, int CLUSTER_M = 1>
__global__ void __launch_bounds__(hopper::WgmmaShape<TYPE, BM, BN, STAGES, CONSUMERS>::kThreads, 1)
    wgmma_gemm(const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b,
               float* __restrict__ C, int M, int N, int K, int ldc, int group_m) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using S = hopper::WgmmaShape<TYPE, BM, BN, STAGES, CONSUMERS>;
  using Mma = wgmma::Mma<TYPE, BN>;
  extern __shared__ unsigned char smem_raw[];
  // 128-byte swizzled tiles want 1024-byte aligned bases.
  const unsigned base = (sm90::smem_u32(smem_raw) + 1023u) & ~1023u;
  const unsigned smem_a = base;
  const unsigned smem_b = base + STAGES * S::kTileABytes;
  const unsigned full_bar = smem_b + STAGES * S::kTileBBytes;
  const unsigned empty_bar = full_bar + 8 * STAGES;

  constexpr int CLUSTER = CLUSTER_N * CLUSTER_M;
  static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of 1 or 2 CTAs, along N or M");
  static_assert(CLUSTER_N == 1 || (BM / 2) % 8 == 0, "half of A's tile: whole 8-row swizzle groups");
  static_assert(CLUSTER_M == 1 || (BN / 2) % 8 == 0, "half of B's tile: whole 8-row swizzle groups");
  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  // With clusters, the unit handed out is a pair of tiles; CTA `rank` takes the pair's tile
  // 2 * pair + rank in the paired dimension.
  const int units_m = (tiles_m + CLUSTER_M - 1) / CLUSTER_M;
  const int units_n = (tiles_n + CLUSTER_N - 1) / CLUSTER_N;
  const int num_units = units_m * units_n;
  const int unit0 = blockIdx.x / CLUSTER;
  const int unit_step = gridDim.x / CLUSTER;
  const unsigned rank = CLUSTER == 1 ? 0 : sm90::cluster_rank();
  const int k_tiles = (K + S::kBK - 1) / S::kBK;
  const int wg = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbar_init(full_bar + 8 * s, 1);
      // lane 0 of every consumer warp, of every CTA that writes into this stage
      sm90::mbar_init(empty_bar + 8 * s, CONSUMERS * 4 * CLUSTER);
    }
    sm90::mbar_init_fence();
  }
  if constexpr (CLUSTER > 1)
    sm90::cluster_sync();
  else
    __syncthreads();

  if (wg == 0) {
    // Producer.
    if constexpr (S::kConsumerRegs > 0) sm90::setmaxnreg_dec<24>();
    if (threadIdx.x == 0) {
      sm90::tma_prefetch_map(&tma_a);
      sm90::tma_prefetch_map(&tma_b);
      int s = 0;
      unsigned phase = 0;
      for (int unit = unit0; unit < num_units; unit += unit_step) {
        int tm, tn;
        hopper::tile_coords(unit, units_m, units_n, group_m, tm, tn);
        if constexpr (CLUSTER_M == 2) tm = tm * 2 + rank;
        if constexpr (CLUSTER_N == 2) tn = tn * 2 + rank;
        for (int kt = 0; kt < k_tiles; ++kt) {
          sm90::mbar_wait(empty_bar + 8 * s, phase ^ 1);
          // The full barrier counts the shared operand's two halves (one from each CTA of a
          // cluster) and the other operand.
          sm90::mbar_arrive_expect_tx(full_bar + 8 * s, S::kStageBytes);
          if constexpr (CLUSTER_N == 1) {
            sm90::tma_load_2d(smem_a + s * S::kTileABytes, &tma_a, kt * S::kBK, tm * BM, full_bar + 8 * s);
          } else {
            // The host's A map has boxes of BM / 2 rows.
            sm90::tma_load_2d_multicast(smem_a + s * S::kTileABytes + rank * (BM / 2) * 128, &tma_a, kt * S::kBK,
                                        tm * BM + rank * (BM / 2), full_bar + 8 * s, 0x3);
          }
          if constexpr (CLUSTER_M == 1) {
            sm90::tma_load_2d(smem_b + s * S::kTileBBytes, &tma_b, kt * S::kBK, tn * BN, full_bar + 8 * s);
          } else {
            // The host's B map has boxes of BN / 2 rows.
            sm90::tma_load_2d_multicast(smem_b + s * S::kTileBBytes + rank * (BN / 2) * 128, &tma_b, kt * S::kBK,
                                        tn * BN + rank * (BN / 2), full_bar + 8 * s, 0x3);
          }
          if (++s == STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    }
  } else {
    // Consumers.
    if constexpr (S::kConsumerRegs > 0) sm90::setmaxnreg_inc<S::kConsumerRegs>();
    const int c = wg - 1;
    const int t = threadIdx.x % 128;
    const int warp = t / 32;
    const int lane = t % 32;
    float acc[S::kMI][S::kAccRegs];
    const bool pairs = (ldc & 1) == 0 && (reinterpret_cast<unsigned long long>(C) & 7) == 0;
    int s = 0;
    unsigned phase = 0;
    auto release = [&](int st) {
      sm90::mbar_arrive(empty_bar + 8 * st);
      if constexpr (CLUSTER == 2) sm90::mbar_arrive_cluster(empty_bar + 8 * st, rank ^ 1);
    };
    for (int unit = unit0; unit < num_units; unit += unit_step) {
      int tm, tn;
      hopper::tile_coords(unit, units_m, units_n, group_m, tm, tn);
      if constexpr (CLUSTER_M == 2) tm = tm * 2 + rank;
      if constexpr (CLUSTER_N == 2) tn = tn * 2 + rank;
      int prev = 0;
      for (int kt = 0; kt < k_tiles; ++kt) {
        sm90::mbar_wait(full_bar + 8 * s, phase);
        const unsigned long long da = sm90::smem_desc_sw128(smem_a + s * S::kTileABytes + c * S::kWgM * 128);
        const unsigned long long db = sm90::smem_desc_sw128(smem_b + s * S::kTileBBytes);
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < S::kKSteps; ++kk) {
#pragma unroll
          for (int mi = 0; mi < S::kMI; ++mi) {
            // +32 bytes per k step (>> 4: +2); +64 rows * 128 bytes per m64 block (>> 4: +512).
            Mma::run(acc[mi], da + 2 * kk + 512 * mi, db + 2 * kk, (kt > 0 || kk > 0) ? 1 : 0);
          }
        }
        sm90::wgmma_commit();
        sm90::wgmma_wait<1>();  // the previous k-tile's wgmmas are done with their stage
        if (kt > 0 && lane == 0) release(prev);
        prev = s;
        if (++s == STAGES) {
          s = 0;
          phase ^= 1;
        }
      }
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int mi = 0; mi < S::kMI; ++mi) sm90::fence_registers(acc[mi]);
      if (k_tiles > 0 && lane == 0) release(prev);
      if (k_tiles == 0) {  // K = 0: C = 0 (no wgmma wrote the accumulators)
#pragma unroll
        for (int mi = 0; mi < S::kMI; ++mi)
#pragma unroll
          for (int i = 0; i < S::kAccRegs; ++i) acc[mi][i] = 0.f;
      }

      // Epilogue. Accumulator layout of m64nN: warp w holds rows 16w..16w+15; lane l holds rows
      // l/4 and l/4 + 8 of those, columns 8j + 2(l%4) + {0, 1} in registers 4j + {0, 1} and
      // 4j + {2, 3}.
      const int row0 = tm * BM + c * S::kWgM + warp * 16 + lane / 4;
      const int col0 = tn * BN + 2 * (lane % 4);
      const bool interior = pairs && tm * BM + BM <= M && tn * BN + BN <= N;
#pragma unroll
      for (int mi = 0; mi < S::kMI; ++mi) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = row0 + mi * 64 + 8 * h;
          float* crow = C + static_cast<long long>(row) * ldc;
          if (interior) {
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) {
              *reinterpret_cast<float2*>(crow + col0 + 8 * j) =
                  make_float2(acc[mi][4 * j + 2 * h], acc[mi][4 * j + 2 * h + 1]);
            }
          } else if (row < M) {
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) {
              const int col = col0 + 8 * j;
              if (pairs && col + 1 < N) {
                *reinterpret_cast<float2*>(crow + col) = make_float2(acc[mi][4 * j + 2 * h], acc[mi][4 * j + 2 * h + 1]);
              } else {
                if (col < N) crow[col] = acc[mi][4 * j + 2 * h];
                if (col + 1 < N) crow[col + 1] = acc[mi][4 * j + 2 * h + 1];
              }
            }
          }
        }
      }
    }
  }
  // No CTA of a cluster may exit while the other can still multicast into it or arrive on its
  // barriers.
  if constexpr (CLUSTER > 1) sm90::cluster_sync();
#else
  __trap();
#endif
}

// ---------------------------------------------------------------------------------------------
// 3xtf32 (FP32 in and out, FP32-level accuracy): x = big + small, big = tf32_rn(x), small =
// tf32_rn(x - big); a*b ~ small_a*big_b + big_a*small_b + big_a*big_b, three tf32 wgmmas per k step.
// TMA brings the FP32 tiles; the producer warpgroup's warps 1-3 (the "splitters") rewrite each A and
// B tile in place as big and write small into a second buffer of the same (swizzled) layout, since
// the split is element-wise; then they fence the async proxy and arrive on a "ready" barrier that
// the consumers wait for. The tensor core's FP32 accumulation truncates, so a long sum in it is
// biased (tensor-core spike, v1): each k tile is summed in a temporary (scale_d = 0 at its first
// step) and added into the accumulator with FADDs, once per k tile (32 products).
// A_REGS = 1 (2: the next k tile's fragments loaded while this one's wgmmas run): only B is split in shared memory; each consumer thread loads its A fragments (FP32,
// from the swizzled tile) and splits them in registers, and the wgmmas take A from registers. That
// halves the splitters' shared-memory traffic and drops the A parts' wgmma reads (measured v2:
// with both operands split in shared memory the kernel is bound by shared-memory bandwidth).
namespace hopper {
template <int BM, int BN, int STAGES, int CONSUMERS, int A_REGS>
struct Split3Shape {
  static constexpr int kBK = 32;
  static constexpr int kThreads = 128 * (CONSUMERS + 1);
  static constexpr int kWgM = BM / CONSUMERS;
  static constexpr int kMI = kWgM / 64;
  static constexpr int kAccRegs = BN / 2;
  static constexpr int kKSteps = 4;
  static constexpr int kTileABytes = BM * 128;
  static constexpr int kTileBBytes = BN * 128;
  static constexpr int kLoadBytes = kTileABytes + kTileBBytes;      // what TMA brings per stage
  static constexpr int kStageBytes = kLoadBytes + kTileBBytes + (A_REGS ? 0 : kTileABytes);  // + small parts
  static constexpr int kSmemBytes = STAGES * kStageBytes + 24 * STAGES + 1024;
  static constexpr int kSplitters = 96;                             // warps 1-3 of warpgroup 0
  static constexpr int kConsumerRegs = CONSUMERS == 2 ? 232 : 152;  // producer warpgroup keeps 40
  static_assert(CONSUMERS == 2 || CONSUMERS == 3, "2 or 3 consumer warpgroups");
  static_assert(!A_REGS || kMI == 1, "A in registers: one m64 block per consumer");
  static_assert(A_REGS >= 0 && A_REGS <= 2, "A_REGS: 0 split in shared memory, 1 in registers, 2 in registers one k tile ahead");
  static_assert(kWgM % 64 == 0 && kWgM * CONSUMERS == BM, "BM: a multiple of 64 per consumer warpgroup");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "BN: one wgmma N");
  static_assert(BM <= 256 && BN <= 256, "TMA boxes are at most 256 rows");
};
}  // namespace hopper

template <int BM, int BN, int STAGES, int CONSUMERS, int A_REGS>
__global__ void __launch_bounds__(hopper::Split3Shape<BM, BN, STAGES, CONSUMERS, A_REGS>::kThreads, 1)
    wgmma_gemm_3xtf32(const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b,
                      float* __restrict__ C, int M, int N, int K, int ldc, int group_m) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using S = hopper::Split3Shape<BM, BN, STAGES, CONSUMERS, A_REGS>;
  using Mma = wgmma::Mma<1, BN>;
  using MmaRegA = wgmma::MmaRegA<BN>;
  extern __shared__ unsigned char smem_raw[];
  const unsigned base = (sm90::smem_u32(smem_raw) + 1023u) & ~1023u;
  // Per stage: [A big][B big][B small][A small (A_REGS = 0)]; A + B is one TMA landing zone.
  auto a_big = [&](int s) { return base + s * S::kStageBytes; };
  auto b_big = [&](int s) { return base + s * S::kStageBytes + S::kTileABytes; };
  auto b_small = [&](int s) { return base + s * S::kStageBytes + S::kLoadBytes; };
  auto a_small = [&](int s) { return base + s * S::kStageBytes + S::kLoadBytes + S::kTileBBytes; };
  const unsigned full_bar = base + STAGES * S::kStageBytes;
  const unsigned ready_bar = full_bar + 8 * STAGES;
  const unsigned empty_bar = ready_bar + 8 * STAGES;

  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  const int num_tiles = tiles_m * tiles_n;
  const int k_tiles = (K + S::kBK - 1) / S::kBK;
  const int wg = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbar_init(full_bar + 8 * s, 1);
      sm90::mbar_init(ready_bar + 8 * s, S::kSplitters);
      sm90::mbar_init(empty_bar + 8 * s, CONSUMERS * 4);
    }
    sm90::mbar_init_fence();
  }
  __syncthreads();

  if (wg == 0) {
    sm90::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      // Producer.
      sm90::tma_prefetch_map(&tma_a);
      sm90::tma_prefetch_map(&tma_b);
      int s = 0;
      unsigned phase = 0;
      for (int tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
        int tm, tn;
        hopper::tile_coords(tile, tiles_m, tiles_n, group_m, tm, tn);
        for (int kt = 0; kt < k_tiles; ++kt) {
          sm90::mbar_wait(empty_bar + 8 * s, phase ^ 1);
          sm90::mbar_arrive_expect_tx(full_bar + 8 * s, S::kLoadBytes);
          sm90::tma_load_2d(a_big(s), &tma_a, kt * S::kBK, tm * BM, full_bar + 8 * s);
          sm90::tma_load_2d(b_big(s), &tma_b, kt * S::kBK, tn * BN, full_bar + 8 * s);
          if (++s == STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    } else if (threadIdx.x >= 32) {
      // Splitters: B's chunks, then (A_REGS = 0) A's.
      const int t = threadIdx.x - 32;
      int s = 0;
      unsigned phase = 0;
      const int total = num_tiles > (int)blockIdx.x ? ((num_tiles - 1 - (int)blockIdx.x) / (int)gridDim.x + 1) * k_tiles : 0;
      for (int it = 0; it < total; ++it) {
        sm90::mbar_wait(full_bar + 8 * s, phase);
        constexpr int kChunksB = S::kTileBBytes / 16;
        constexpr int kChunks = A_REGS ? kChunksB : S::kLoadBytes / 16;
#pragma unroll 4
        for (int c = t; c < kChunks; c += S::kSplitters) {
          const unsigned src = c < kChunksB ? b_big(s) + 16 * c : a_big(s) + 16 * (c - kChunksB);
          const unsigned dst = c < kChunksB ? b_small(s) + 16 * c : a_small(s) + 16 * (c - kChunksB);
          float4 x;
          asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                       : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w)
                       : "r"(src));
          float4 b, r;
          b.x = sm90::round_tf32(x.x);
          b.y = sm90::round_tf32(x.y);
          b.z = sm90::round_tf32(x.z);
          b.w = sm90::round_tf32(x.w);
          r.x = sm90::round_tf32(x.x - b.x);
          r.y = sm90::round_tf32(x.y - b.y);
          r.z = sm90::round_tf32(x.z - b.z);
          r.w = sm90::round_tf32(x.w - b.w);
          asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(src), "f"(b.x), "f"(b.y), "f"(b.z),
                       "f"(b.w)
                       : "memory");
          asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "f"(r.x), "f"(r.y), "f"(r.z),
                       "f"(r.w)
                       : "memory");
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
    float acc[S::kMI][S::kAccRegs];
    float part[S::kMI][S::kAccRegs];
    const unsigned row_off = c * S::kWgM * 128;
    // A_REGS: fragment of m64k8 block kk: rows r = 16 warp + lane/4 (+8), columns 8 kk + lane%4
    // (+4); in the swizzled tile, element (r, k) sits at r*128 + ((k/4) ^ (r%8))*16 + (k%4)*4.
    unsigned abig[S::kKSteps][4], asml[S::kKSteps][4], nbig[S::kKSteps][4], nsml[S::kKSteps][4];
    auto load_a = [&](int st, unsigned(&big)[S::kKSteps][4], unsigned(&sml)[S::kKSteps][4]) {
      const int g = lane / 4;
      const unsigned arow = a_big(st) + row_off + (warp * 16 + g) * 128 + (lane % 4) * 4;
#pragma unroll
      for (int kk = 0; kk < S::kKSteps; ++kk) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const unsigned addr = arow + (q & 1) * 8 * 128 + (((2 * kk + (q >> 1)) ^ g) * 16);
          float x;
          asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(x) : "r"(addr) : "memory");
          const float bx = sm90::round_tf32(x);
          big[kk][q] = __float_as_uint(bx);
          sml[kk][q] = __float_as_uint(sm90::round_tf32(x - bx));
        }
      }
    };
    const bool pairs = (ldc & 1) == 0 && (reinterpret_cast<unsigned long long>(C) & 7) == 0;
    int s = 0;
    unsigned phase = 0;
    for (int tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
      int tm, tn;
      hopper::tile_coords(tile, tiles_m, tiles_n, group_m, tm, tn);
#pragma unroll
      for (int mi = 0; mi < S::kMI; ++mi)
#pragma unroll
        for (int i = 0; i < S::kAccRegs; ++i) acc[mi][i] = 0.f;
      for (int kt = 0; kt < k_tiles; ++kt) {
        sm90::mbar_wait(full_bar + 8 * s, phase);
        sm90::mbar_wait(ready_bar + 8 * s, phase);
        const unsigned long long dbb = sm90::smem_desc_sw128(b_big(s));
        const unsigned long long dbs = sm90::smem_desc_sw128(b_small(s));
        if constexpr (A_REGS) {
          if (A_REGS == 1 || kt == 0) load_a(s, abig, asml);
          sm90::wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < S::kKSteps; ++kk) {
            MmaRegA::run(part[0], asml[kk], dbb + 2 * kk, kk > 0 ? 1 : 0);
            MmaRegA::run(part[0], abig[kk], dbs + 2 * kk, 1);
            MmaRegA::run(part[0], abig[kk], dbb + 2 * kk, 1);
          }
        } else {
          const unsigned long long dab = sm90::smem_desc_sw128(a_big(s) + row_off);
          const unsigned long long das = sm90::smem_desc_sw128(a_small(s) + row_off);
          sm90::wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < S::kKSteps; ++kk) {
#pragma unroll
            for (int mi = 0; mi < S::kMI; ++mi) {
              Mma::run(part[mi], das + 2 * kk + 512 * mi, dbb + 2 * kk, kk > 0 ? 1 : 0);
              Mma::run(part[mi], dab + 2 * kk + 512 * mi, dbs + 2 * kk, 1);
              Mma::run(part[mi], dab + 2 * kk + 512 * mi, dbb + 2 * kk, 1);
            }
          }
        }
        sm90::wgmma_commit();
        if constexpr (A_REGS == 2) {
          // Next k tile's A fragments while this one's wgmmas run (into other registers: the
          // wgmmas read abig/asml until the wait below).
          if (kt + 1 < k_tiles) {
            const int s1 = s + 1 == STAGES ? 0 : s + 1;
            const unsigned p1 = s + 1 == STAGES ? phase ^ 1 : phase;
            sm90::mbar_wait(full_bar + 8 * s1, p1);
            sm90::mbar_wait(ready_bar + 8 * s1, p1);
            load_a(s1, nbig, nsml);
          }
        }
        sm90::wgmma_wait<0>();
#pragma unroll
        for (int mi = 0; mi < S::kMI; ++mi) sm90::fence_registers(part[mi]);
        if constexpr (A_REGS) {
          // The wgmmas read A's registers asynchronously: keep them alive up to the wait.
#pragma unroll
          for (int kk = 0; kk < S::kKSteps; ++kk)
#pragma unroll
            for (int q = 0; q < 4; ++q) asm volatile("" ::"r"(abig[kk][q]), "r"(asml[kk][q]));
        }
        if constexpr (A_REGS == 2) {
#pragma unroll
          for (int kk = 0; kk < S::kKSteps; ++kk)
#pragma unroll
            for (int q = 0; q < 4; ++q) {
              abig[kk][q] = nbig[kk][q];
              asml[kk][q] = nsml[kk][q];
            }
        }
        if (lane == 0) sm90::mbar_arrive(empty_bar + 8 * s);
#pragma unroll
        for (int mi = 0; mi < S::kMI; ++mi)
#pragma unroll
          for (int i = 0; i < S::kAccRegs; ++i) acc[mi][i] += part[mi][i];
        if (++s == STAGES) {
          s = 0;
          phase ^= 1;
        }
      }
      const int row0 = tm * BM + c * S::kWgM + warp * 16 + lane / 4;
      const int col0 = tn * BN + 2 * (lane % 4);
      const bool interior = pairs && tm * BM + BM <= M && tn * BN + BN <= N;
#pragma unroll
      for (int mi = 0; mi < S::kMI; ++mi) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = row0 + mi * 64 + 8 * h;
          float* crow = C + static_cast<long long>(row) * ldc;
          if (interior) {
#pragma unroll
            for (int j = 0; j < BN / 8; ++j)
              *reinterpret_cast<float2*>(crow + col0 + 8 * j) =
                  make_float2(acc[mi][4 * j + 2 * h], acc[mi][4 * j + 2 * h + 1]);
          } else if (row < M) {
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) {
              const int col = col0 + 8 * j;
              if (pairs && col + 1 < N) {
                *reinterpret_cast<float2*>(crow + col) = make_float2(acc[mi][4 * j + 2 * h], acc[mi][4 * j + 2 * h + 1]);
              } else {
                if (col < N) crow[col] = acc[mi][4 * j + 2 * h];
                if (col + 1 < N) crow[col + 1] = acc[mi][4 * j + 2 * h + 1];
              }
            }
          }
        }
      }
    }
  }
#else
  __trap();
#endif
}

}  // namespace gemmtune
