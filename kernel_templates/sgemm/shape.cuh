// The block's geometry, worked out at compile time from the template parameters: how the threads
// of a block and of a warp share the C tile, the shared-memory tile layouts, and how many copies
// each thread makes per tile. Every other part takes it as its parameter S.
//
// Every thread owns a TM x TN micro-tile of C. Threads of a warp form a WARP_ROWS x (32/WARP_ROWS)
// grid and their micro-tiles are interleaved in runs of up to 4, so one warp reads a contiguous
// run of shared memory per k step (float4 reads, broadcast across the warp, no bank conflicts).

namespace gemmtune {
namespace detail {

// Largest of 4, 2, 1 that divides x: the width of the contiguous runs a micro-tile is made of.
__host__ __device__ constexpr int run_width(int x) {
  return x % 4 == 0 ? 4 : (x % 2 == 0 ? 2 : 1);
}

// A compile-time bool passed to generic lambdas (NVRTC has no <type_traits>).
template <bool B>
struct Flag {
  static constexpr bool value = B;
};

}  // namespace detail

template <int BM, int BN, int BK, int TM, int TN, int WARP_ROWS, int PAD_A, int PAD_B, int STAGES, int ASYNC,
          int TRANSPOSE_A, int VEC, int OP_A, int OP_B, int TRANSPOSE_B>
struct SgemmShape {
  static constexpr int kWarpCols = 32 / WARP_ROWS;
  static constexpr int kWarpsM = BM / (TM * WARP_ROWS);
  static constexpr int kWarpsN = BN / (TN * kWarpCols);
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  // Shared-memory tiles. A is [BK][BM + PAD_A] when transposed (k-major), else [BM][BK + PAD_A]; B is
  // [BK][BN + PAD_B], or [BN][BK + PAD_B] with TRANSPOSE_B (n-major: the layout of a B stored
  // transposed in global memory, so its copies need not transpose it).
  static constexpr int kStrideA = TRANSPOSE_A ? BM + PAD_A : BK + PAD_A;
  static constexpr int kTileA = TRANSPOSE_A ? BK * kStrideA : BM * kStrideA;
  static constexpr int kStrideB = TRANSPOSE_B ? BK + PAD_B : BN + PAD_B;
  static constexpr int kTileB = TRANSPOSE_B ? BN * kStrideB : BK * kStrideB;
  // A thread's micro-tile rows (columns) come in runs of kRunM (kRunN) that repeat every
  // kStrideRunM (kStrideRunN) rows (columns) of the block tile (the enum below). B n-major
  // (TRANSPOSE_B) takes runs of 1: a quarter-warp's 16-byte reads of k runs then come from 8
  // consecutive rows of B's tile, in 8 different banks where (BK + PAD_B) / 4 is odd; runs of 4
  // put them 4 rows apart, 4 to a bank (the H100 tuning log: every transpose_b kernel 1.3-2.5x slower
  // than copies that transpose B, at m = 32 in nt). C's stores are then float by float.
  static constexpr int kRunM = detail::run_width(TM);
  static constexpr int kRunN = TRANSPOSE_B ? 1 : detail::run_width(TN);
  // Global -> shared copies per thread and tile, VEC floats each.
  static constexpr int kLoadsA = BM * BK / (kThreads * VEC);
  static constexpr int kLoadsB = BK * BN / (kThreads * VEC);
  // The template's parameters and more derived constants for the parts. Enumerators, not static
  // data members like those above: NVRTC writes every static data member of an instantiated class
  // into the PTX as a global, so each new one would change every kernel's PTX. `: int` keeps the
  // arithmetic signed, as with the members.
  enum : int {
    kBM = BM,
    kBN = BN,
    kBK = BK,
    kTM = TM,
    kTN = TN,
    kStages = STAGES,
    kAsync = ASYNC,
    kTransposeA = TRANSPOSE_A,
    kVec = VEC,
    kOpA = OP_A,  // 1: A is stored transposed in global memory (k x m), op(A) = A^T
    kOpB = OP_B,  // 1: B is stored transposed in global memory (n x k), op(B) = B^T
    kTransposeB = TRANSPOSE_B,
    kStrideRunM = WARP_ROWS * kRunM,
    kStrideRunN = kWarpCols * kRunN,
    // One step of the inner loop covers kRunK k values. A k-major (transposed) and B k-major: kRunK
    // is 1 and each step reads the thread's TM rows and TN columns as runs of up to 4 floats. An
    // operand stored m- (n-) major in shared memory is read as runs of kRunK consecutive k values
    // of each of the thread's rows (columns), one 16-byte load each where aligned; the other
    // operand then reads kRunK runs per step.
    kRunK = TRANSPOSE_A && !TRANSPOSE_B ? 1 : detail::run_width(BK),
    kSteps = BK / kRunK,
  };
  static_assert(32 % WARP_ROWS == 0, "WARP_ROWS must divide 32");
  static_assert(kWarpsM * TM * WARP_ROWS == BM && kWarpsN * TN * kWarpCols == BN, "tile/warp mismatch");
  static_assert(kLoadsA * kThreads * VEC == BM * BK && kLoadsB * kThreads * VEC == BK * BN,
                "tile loads must divide evenly among threads");
  // Global loads run along each operand's contiguous dimension as stored.
  static_assert((OP_A ? BM : BK) % VEC == 0 && (OP_B ? BK : BN) % VEC == 0,
                "vector width must divide the tiles' contiguous dimensions");
  static_assert(ASYNC ? STAGES >= 2 : (STAGES == 1 || STAGES == 2), "1-2 stages, or 2+ with cp.async");
};

}  // namespace gemmtune
