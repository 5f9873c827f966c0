// Global -> shared: one operand's k tile into its swizzled stage through cp.async (sm_75: its
// synchronous stand-in, mma/ptx.cuh).

namespace gemmtune {
namespace mma {

// One operand's tile copy into a TILE (SwizzledTile) of the stored (row-major) matrix; K runs along
// the tile's columns (K_ALONG_COLS: A with OP_A = 0, B with OP_B = 1) or along its rows.
// ALIGNED = 1: the stored rows start on 16-byte boundaries (pointer and leading dimension, and the
// batch stride, multiples of 16 bytes): one cp.async of 16 bytes per chunk, partially read (zero
// filled) at the matrix's edge. ALIGNED = 0 serves any leading dimension: FP32 chunks as four
// 4-byte cp.async, 16-bit chunks through registers (no 2-byte cp.async exists), element by element.
template <typename Elem, class TILE, int THREADS, bool K_ALONG_COLS, int ALIGNED>
struct TileCopy {
  static constexpr int kVec = 16 / static_cast<int>(sizeof(Elem));
  static constexpr int kCpr = TILE::kRowBytes / 16;
  static constexpr int kIters = TILE::kChunks / THREADS;
  // A thread's chunks share one chunk column and sit kRowStep rows apart, so one address, one row
  // and one bound describe them all (arrays of per-chunk addresses cost 40 registers a tile).
  static_assert(THREADS % kCpr == 0, "a row of the tile must not straddle two copy passes");
  static constexpr int kRowStep = THREADS / kCpr;

  const Elem* src;  // first chunk's address at k = 0
  long long step;   // elements between the thread's successive chunks (kRowStep rows)
  int ld;
  int r0, c0;       // first chunk's row and chunk column in the tile
  int fixed_left;   // elements left in the fixed dimension at the first chunk: rows (K along the
                    // columns) or columns of the chunk (K along the rows)

  __device__ __forceinline__ TileCopy(const Elem* g, int ld_, int fixed0, int fixed_lim, int tid)
      : step(static_cast<long long>(kRowStep) * ld_), ld(ld_), r0(tid / kCpr), c0(tid % kCpr) {
    if constexpr (K_ALONG_COLS) {  // rows are m (or n), columns k
      src = g + static_cast<long long>(fixed0 + r0) * ld + c0 * kVec;
      fixed_left = fixed_lim - (fixed0 + r0);
    } else {  // rows are k, columns m (or n)
      src = g + static_cast<long long>(r0) * ld + fixed0 + c0 * kVec;
      fixed_left = fixed_lim - (fixed0 + c0 * kVec);
    }
  }

  // Copies the tile at k0 (k0 .. k0 + BK - 1) into the tile at shared address base.
  __device__ __forceinline__ void operator()(unsigned base, int k0, int K) const {
    const Elem* p0 = K_ALONG_COLS ? src + k0 : src + static_cast<long long>(k0) * ld;
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      const int r = r0 + i * kRowStep;
      const Elem* p = p0 + i * step;
      // Elements of the chunk inside the matrix (0..kVec).
      int n;
      if constexpr (K_ALONG_COLS) {
        n = fixed_left > i * kRowStep ? min(max(K - (k0 + c0 * kVec), 0), kVec) : 0;
      } else {
        n = k0 + r < K ? min(max(fixed_left, 0), kVec) : 0;
      }
      const unsigned d = base + TILE::chunk(r, c0) * 16;
      if constexpr (ALIGNED) {
        cp_async_16(d, p, n * static_cast<int>(sizeof(Elem)));
      } else if constexpr (sizeof(Elem) == 4) {
#pragma unroll
        for (int e = 0; e < 4; ++e) cp_async_4(d + 4 * e, p + e, e < n ? 4 : 0);
      } else {
        // Written out here, not as copy_halves_zero_filled (mma/ptx.cuh, sm_75's partial chunks): the
        // same steps through that function compiled to other PTX for sm_80 and sm_90, and the shipped
        // kernels' binaries stay as measured.
        unsigned w[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const unsigned lo = 2 * e < n ? p[2 * e] : 0u;
          const unsigned hi = 2 * e + 1 < n ? p[2 * e + 1] : 0u;
          w[e] = lo | (hi << 16);
        }
        sts_u32x4(d, w[0], w[1], w[2], w[3]);
      }
    }
  }
};


}  // namespace mma
}  // namespace gemmtune
