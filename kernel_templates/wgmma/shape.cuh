// The block's geometry: the element size and K tile of each precision, the shared-memory layout of
// the stage ring (sizes the host mirrors in KernelConfig::shared_bytes), the register split between
// the producer and the consumer warpgroups, the raster order of the tiles and split-K's share of K.

namespace gemmtune {
namespace wgmma {

// TYPE 0 bf16, 1 tf32, 2 fp16. A k tile is one 128-byte row of the 128-byte swizzle (64 16-bit
// elements or 32 FP32), the widest K-major box the swizzle takes.
// PINGPONG: each consumer owns whole tiles, every CONSUMERS-th of the CTA's, rather than BM /
// CONSUMERS rows of each (kernel_templates/wgmma.cuh).
template <int TYPE, int BM, int BN, int STAGES, int CONSUMERS, int PINGPONG = 0>
struct Shape {
  static_assert(TYPE >= 0 && TYPE <= 2, "TYPE: 0 bf16, 1 tf32, 2 fp16");
  static constexpr int kElemBytes = TYPE == 1 ? 4 : 2;
  static constexpr int kBK = 128 / kElemBytes;
  static constexpr int kThreads = 128 * (CONSUMERS + 1);
  static constexpr int kWgM = PINGPONG ? BM : BM / CONSUMERS;  // rows of a tile a consumer warpgroup computes
  static constexpr int kMI = kWgM / 64;        // m64 wgmma blocks per consumer
  static constexpr int kAccRegs = BN / 2;      // accumulators a thread per m64 block
  static constexpr int kKSteps = 4;            // 128 bytes of K / 32 bytes per wgmma
  static constexpr int kTileABytes = BM * 128;
  static constexpr int kTileBBytes = BN * 128;
  static constexpr int kStageBytes = kTileABytes + kTileBBytes;
  // Stages, then a full and an empty barrier per stage, then slack for the 1024-byte alignment the
  // swizzled tiles need (dynamic shared memory starts only 16-byte aligned).
  static constexpr int kSmemBytes = STAGES * kStageBytes + 16 * STAGES + 1024;
  // Registers a thread after setmaxnreg: 64K in all, the producer warpgroup keeps 24 a thread, the
  // rest is split among the consumers (a multiple of 8, at most 240). One consumer needs no move
  // (the entry cap is then 255).
  static constexpr int kConsumerRegs = CONSUMERS == 1 ? 0 : CONSUMERS == 2 ? 240 : 160;
  static_assert(CONSUMERS >= 1 && CONSUMERS <= 3, "1 to 3 consumer warpgroups");
  static_assert(kWgM % 64 == 0 && (PINGPONG || kWgM * CONSUMERS == BM), "BM: a multiple of 64 per consumer warpgroup");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "BN: one wgmma N");
  static_assert(BM <= 256 && BN <= 256, "TMA boxes are at most 256 rows");
  static_assert(STAGES >= 2, "STAGES >= 2");
};

// wgmma_gemm_tf32x (FP32 operands, A through registers): FP32 tiles of 32 K; for 3xtf32 (PASSES 3)
// B's small parts in a second buffer of each stage. Each consumer warpgroup holds one m64 block
// (64 rows) of A's fragments. B_STAGED (B stored k x n, N-major): the TMA lands B in a staging tile
// of its own, which the splitters rewrite K-major; otherwise B is used (3xtf32: split) in place.
template <int PASSES, int BM, int BN, int STAGES, int CONSUMERS, bool B_STAGED>
struct SplitShape {
  static constexpr int kBK = 32;
  static constexpr int kThreads = 128 * (CONSUMERS + 1);
  static constexpr int kAccRegs = BN / 2;
  static constexpr int kKSteps = 4;
  static constexpr int kTileABytes = BM * 128;
  static constexpr int kTileBBytes = BN * 128;
  static constexpr int kLoadBytes = kTileABytes + kTileBBytes;  // what the TMA brings a stage
  // + B's small parts (3xtf32) and + B K-major apart from the landing zone (staged)
  static constexpr int kStageBytes = kLoadBytes + ((PASSES == 3 ? 1 : 0) + (B_STAGED ? 1 : 0)) * kTileBBytes;
  static constexpr int kSmemBytes = STAGES * kStageBytes + 24 * STAGES + 1024;  // + 3 barriers a stage
  static constexpr int kSplitters = 96;                             // warps 1-3 of the producer warpgroup
  static constexpr int kConsumerRegs = CONSUMERS == 2 ? 232 : 152;  // the producer warpgroup keeps 40
  static_assert(PASSES == 1 || PASSES == 3, "1 (tf32) or 3 (3xtf32) wgmmas a k step");
  static_assert(CONSUMERS == 2 || CONSUMERS == 3, "2 or 3 consumer warpgroups");
  static_assert(BM == 64 * CONSUMERS, "one m64 block per consumer warpgroup (A's fragments in registers)");
  static_assert(BN == 64 || BN == 128, "BN 64 or 128 (two accumulator sets a thread)");
  static_assert(STAGES >= 2, "STAGES >= 2");
};

// Byte offset of element (mn, k) in an MN-major FP32 tile as the TMA lands it with the 128-byte
// swizzle: sub-tiles of 32 rows/columns (one 128-byte swizzle row a k), each 32 k x 128 bytes.
// Unsigned: signed division and remainder cost the splitters a third of their speed (H100).
__device__ __forceinline__ unsigned mn_major_offset(unsigned mn, unsigned k) {
  return (mn / 32) * 4096 + k * 128 + ((((mn % 32) / 4) ^ (k % 8)) * 16) + (mn % 4) * 4;
}

// Split-K: the k tiles [begin, end) of slice `slice` of `splits`, as even as whole tiles allow (a
// slice may get none when K has fewer tiles than slices).
__device__ __forceinline__ void slice_k_tiles(int k_tiles, int slice, int splits, int& begin, int& end) {
  begin = k_tiles * slice / splits;
  end = k_tiles * (slice + 1) / splits;
}

// Unit `unit` of a units_m x units_n grid in raster order: groups of group_m unit rows walked
// column by column, so the group's rows share each B tile while it is in L2.
__device__ __forceinline__ void unit_coords(int unit, int units_m, int units_n, int group_m, int& um, int& un) {
  if (group_m < 1) group_m = 1;
  const int group_units = group_m * units_n;
  const int g = unit / group_units;
  const int first_m = g * group_m;
  const int rows = units_m - first_m < group_m ? units_m - first_m : group_m;
  const int r = unit - g * group_units;
  um = first_m + r % rows;
  un = r / rows;
}

}  // namespace wgmma
}  // namespace gemmtune
