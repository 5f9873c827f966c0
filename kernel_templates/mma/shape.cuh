// The block's geometry: each precision's element type and mma K, C's element, the XOR-swizzled
// shared-memory tiles and the sizes every other part derives from (MmaShape).

namespace gemmtune {
namespace mma {

template <int MODE>
struct Precision {
  static_assert(MODE >= 0 && MODE <= 3, "MODE: 0 tf32, 1 3xtf32, 2 bf16, 3 fp16");
  using Elem = float;          // element type in global and shared memory
  static constexpr int kK = 8;  // K of one mma instruction
};
template <>
struct Precision<2> {
  using Elem = unsigned short;  // bf16 bits
  static constexpr int kK = 16;
};
template <>
struct Precision<3> {
  using Elem = unsigned short;  // fp16 bits
  static constexpr int kK = 16;
};

// C's element: FP32, or with C16 the operands' own 16-bit type (bf16 or fp16 bits, MODE 2 or 3).
// (No static data members: NVRTC would emit them as globals into every kernel's PTX.)
template <int MODE, int C16>
struct OutputC {
  using Elem = float;
};
template <int MODE>
struct OutputC<MODE, 1> {
  static_assert(MODE == 2 || MODE == 3, "a 16-bit C needs bf16 or fp16 operands");
  using Elem = unsigned short;
};

// ---------------------------------------------------------------------------------------------
// Shared-memory tiles: XOR swizzle of 16-byte chunks
// ---------------------------------------------------------------------------------------------
// A tile is ROWS rows of COLS elements, in 16-byte chunks (4 floats or 8 halves). Its readers:
// (a) ldmatrix: 8 lanes read one chunk column of 8 consecutive rows (aligned to 8);
// (b) 32-bit loads of FP32 k-major A tiles ([k][m], OP_A = 1): 4 consecutive rows (aligned to 4) x
//     8 consecutive floats, i.e. one pair of chunks (2p, 2p+1) per row;
// (c) 16-byte loads of FP32 k-major B tiles ([k][n], OP_B = 0; see FragmentLoader): a phase of 8
//     lanes reads 4 consecutive rows (aligned to 4) x chunks {p, p + D} (D = WN / 32).
// Rows of >= 128 bytes (8+ chunks, one full pass over the 32 banks): chunk c of row r goes to
// c ^ key(r) inside its group of 8. KEY = 0 (readers a, b): key(r) = ((r & 3) << 1) | ((r >> 2) & 1),
// a permutation of 0..7 over any 8 aligned rows (no conflict for a) whose high two bits differ over
// any 4 aligned rows (pairs (2p, 2p+1) of 4 rows land on 4 different pairs of bank groups: no
// conflict for b; a plain c ^ (r & 7) would put rows 0 and 1 on the same pair). KEY = D (reader c):
// key(r) over 4 aligned rows runs through representatives of the cosets of {0, D}, so {p, p + D} ^
// key(r) covers all 8 bank groups once.
// Rows of 64 bytes (4 chunks; k-major tiles read by ldmatrix, e.g. BK = 32 halves): the chunk's
// linear index in the tile is XORed with its 128-byte line number (mod 8), which spreads the 8 rows
// an ldmatrix reads over the 8 bank groups.
template <int ROWS, int CPR, int KEY = 0>
struct SwizzledTile {
  static_assert(CPR == 4 || CPR % 8 == 0, "rows of 64 or a multiple of 128 bytes");
  static_assert(KEY == 0 || KEY == 1 || KEY == 2 || KEY == 4, "swizzle key");
  static constexpr int kChunks = ROWS * CPR;
  static constexpr int kBytes = kChunks * 16;
  static constexpr int kRowBytes = CPR * 16;
  __device__ __forceinline__ static int key(int r) {
    if constexpr (KEY == 0) return ((r & 3) << 1) | ((r >> 2) & 1);
    if constexpr (KEY == 1) return (r & 3) << 1;
    if constexpr (KEY == 2) return (r & 1) | ((r & 2) << 1);
    return r & 3;
  }
  // Chunk index of chunk column c in row r. For CPR >= 8 the key depends on r & 7 only, and for
  // CPR == 4 on (r >> 1) & 7, so moving 16 rows down adds exactly 16 rows' worth of chunks: the
  // fragment loader relies on that to turn most addresses into compile-time offsets.
  __device__ __forceinline__ static int chunk(int r, int c) {
    if constexpr (CPR >= 8) {
      return r * CPR + (c ^ key(r));
    } else {
      const int lin = r * CPR + c;
      return lin ^ ((lin >> 3) & 7);
    }
  }
  // Byte offset of 4-byte word w (0..3) of chunk c in row r.
  __device__ __forceinline__ static int word(int r, int c, int w) { return chunk(r, c) * 16 + w * 4; }
};

// ---------------------------------------------------------------------------------------------
// Block geometry
// ---------------------------------------------------------------------------------------------

template <int MODE, int BM, int BN, int BK, int WM, int WN, int STAGES, int OP_A, int OP_B>
struct MmaShape {
  using Elem = typename Precision<MODE>::Elem;
  static constexpr int kElemBytes = static_cast<int>(sizeof(Elem));
  static constexpr int kVec = 16 / kElemBytes;  // elements per 16-byte chunk
  static constexpr int kKStep = Precision<MODE>::kK;
  static constexpr int kKSteps = BK / kKStep;  // mma k steps per k tile
  static constexpr int kWarpsM = BM / WM;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kTilesM = WM / 16;  // mma tiles per warp
  static constexpr int kTilesN = WN / 8;
  // FP32 B stored [k][n]: ldmatrix cannot transpose 32-bit elements, so lanes load B themselves. The
  // warp's columns are permuted so that each lane's 8-wide n-tile columns are contiguous (16-byte
  // loads): mma column g of n-tile j is warp column g * kTilesN + j (undone by the epilogue).
  static constexpr bool kPermuteN = kElemBytes == 4 && OP_B == 0;
  static constexpr int kKeyB = kPermuteN ? kTilesN / 4 : 0;
  // A: [BM][BK] (OP_A = 0) or [BK][BM]; B: [BK][BN] (OP_B = 0) or [BN][BK].
  static constexpr int kRowsA = OP_A ? BK : BM;
  static constexpr int kColsA = OP_A ? BM : BK;
  static constexpr int kRowsB = OP_B ? BN : BK;
  static constexpr int kColsB = OP_B ? BK : BN;
  using TileA = SwizzledTile<kRowsA, kColsA / kVec>;
  using TileB = SwizzledTile<kRowsB, kColsB / kVec, kKeyB>;
  static constexpr int kStageBytes = TileA::kBytes + TileB::kBytes;
  // Dynamic shared memory per block: STAGES * (BM * BK + BK * BN) * sizeof(Elem).
  static constexpr int kSmemBytes = STAGES * kStageBytes;

  static_assert(BM % WM == 0 && BN % WN == 0, "block tile must be a whole number of warp tiles");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile: multiples of 16 (B fragments load 2 n-tiles at once)");
  static_assert(!kPermuteN || WN % 32 == 0, "FP32 [k][n] B: WN multiple of 32 (16-byte fragment loads)");
  static_assert(!kPermuteN || kTilesN <= 16, "FP32 [k][n] B: WN <= 128");
  static_assert(BK % kKStep == 0 && BK % kVec == 0, "BK: multiple of the mma K and of a 16-byte chunk");
  static_assert(kColsA % kVec == 0 && kColsB % kVec == 0, "tile rows must be whole chunks");
  static_assert(TileA::kChunks % kThreads == 0 && TileB::kChunks % kThreads == 0,
                "every thread copies the same number of chunks");
  static_assert(!(OP_A && kElemBytes == 4) || (kColsA / kVec) % 8 == 0, "FP32 [k][m] tile: BM >= 32");
  static_assert(STAGES >= 2, "at least double buffering");
};


}  // namespace mma
}  // namespace gemmtune
