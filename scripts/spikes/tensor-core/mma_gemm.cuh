// Tensor-core GEMM spike (mma.sync): C = alpha * op(A) * op(B) + beta * C, C FP32 row-major,
// over strided batches (gridDim.y entries; entry i at A + i * stride_a, ...; a stride of 0 shares one
// matrix) and optional split-K (gridDim.z slices, see the epilogue).
//
// One template covers four precisions (MODE):
//   0 tf32    FP32 in, each operand rounded (to nearest, ties away) to TF32 on the fly; FP32 accumulation.
//   1 3xtf32  FP32 in, each operand x split into big = tf32(x), small = x - big (rounded to TF32 or left
//             to the tensor core's truncation: CVT); the product is small*big + big*small + big*big
//             (small*small dropped), the long sums kept outside the tensor core (ACC): FP32-level
//             accuracy at three tensor-core products per FP32 product.
//   2 bf16    bf16 in (raw bits in unsigned short), FP32 accumulation.
//   3 fp16    fp16 in (raw bits), FP32 accumulation.
// The tiles stay in their input type in shared memory (FP32 tiles for modes 0 and 1): the rounding and
// the split happen in registers after the fragment load, so shared memory and the copies do not care
// about the mode, and 3xtf32 moves no more bytes than tf32.
//
// Layouts: OP_A = 0: A is M x K row-major (lda >= K); OP_A = 1: A is stored K x M row-major (lda >= M).
// OP_B = 0: B is K x N row-major (ldb >= N); OP_B = 1: B is stored N x K row-major (ldb >= K).
// In shared memory every tile keeps the global layout (rows of the stored matrix), so the copies are
// plain 16-byte row copies; the fragment loads choose ldmatrix, ldmatrix.trans or 32-bit loads to
// transpose where the tensor core's fragment layout needs it (see FragmentLoader).
// Checked with NVRTC 13.0 (--gpu-architecture=sm_90 and sm_80, name expressions such as
// gemmtune::mma_gemm<1,128,128,64,32,64,3,0,0,1,8,1,2,3>): nvrtc_check.cpp.
//
// No standard headers: NVRTC compiles this without a host toolchain. Needs sm_80+ (cp.async, bf16 and
// tf32 mma); sm_75 would need m16n8k8 fp16 and synchronous copies (not written).

namespace gemmtune {
namespace mma {

// ---------------------------------------------------------------------------------------------
// PTX wrappers
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// cp.async of 16 bytes of which the first src_bytes are read and the rest zero-filled: src_bytes = 0
// reads nothing, so the source address of an out-of-range chunk is never dereferenced. .cg: the
// tile is read once per block, L1 allocation would only evict.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#else
  __trap();
#endif
}

// 4-byte variant for FP32 operands whose rows are not 16-byte aligned (odd leading dimensions).
__device__ __forceinline__ void cp_async_4(unsigned dst, const void* src, int src_bytes) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
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

// Four 8x8 matrices of 16-bit elements (or 8x4 of 32-bit ones: ldmatrix does not look inside the 16
// bytes of a row); lanes 8i..8i+7 give the row addresses of matrix i, and register i holds, in lane l,
// row l/4, elements 2(l%4) and 2(l%4)+1 of matrix i (.trans: column l/4, rows 2(l%4), 2(l%4)+1).
__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

__device__ __forceinline__ void ldsm_x4_trans(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2,
                                              unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

__device__ __forceinline__ unsigned lds_u32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}

__device__ __forceinline__ void lds_u32x4(unsigned addr, unsigned& a, unsigned& b, unsigned& c, unsigned& d) {
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
}

__device__ __forceinline__ void sts_u32x4(unsigned addr, unsigned a, unsigned b, unsigned c, unsigned d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d));
}

// FP32 -> TF32, round to nearest (ties away from zero); the low 13 bits of the result are zero.
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// The same rounding in integer arithmetic: adding half a TF32 ulp to the bit pattern and clearing the
// low 13 bits rounds the magnitude half away from zero, carrying into the exponent where it must.
// On an H100, one cvt.rna per mma cut the register-only mma.sync rate by 23%, these two integer
// operations by 6% (bench.cu, peak_kernel). Exact for every finite x and for infinities; a NaN whose
// payload has its top 11 bits set (CUDA's canonical 0x7fffffff, say) carries into the sign bit and
// comes out as -0: use to_tf32_int_safe unless something else carries the NaN (3xtf32: x - big).
__device__ __forceinline__ unsigned to_tf32_int(float x) {
  return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}

// NaN-safe: infinities and NaNs (exponent all ones) pass through unchanged; the tensor core reads a
// NaN as a NaN whatever its low bits. Three more integer operations than to_tf32_int.
__device__ __forceinline__ unsigned to_tf32_int_safe(float x) {
  const unsigned u = __float_as_uint(x);
  return (u & 0x7f800000u) == 0x7f800000u ? u : (u + 0x1000u) & 0xffffe000u;
}

// HOW: 0 cvt.rna, 1 integer NaN-safe, 2 integer (a carrying NaN payload vanishes; see to_tf32_int),
// 3 none: the FP32 bits as they are (the tensor core ignores the low 13).
template <int HOW>
__device__ __forceinline__ unsigned round_tf32(float x) {
  if constexpr (HOW == 0) return to_tf32(x);
  if constexpr (HOW == 1) return to_tf32_int_safe(x);
  if constexpr (HOW == 2) return to_tf32_int(x);
  return __float_as_uint(x);
}

// D = A * B + D on one 16x8 tile of C (fragment layouts: PTX ISA, "Matrix Fragments for mma.m16n8k8"
// and "mma.m16n8k16"). Not volatile: nothing but the registers depends on them, so the compiler may
// interleave them with the fragment loads.
__device__ __forceinline__ void mma_tf32_16x8x8(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void mma_bf16_16x8x16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void mma_f16_16x8x16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Fire-and-forget addition (split-K): no value comes back, so nothing waits for it.
__device__ __forceinline__ void red_add_f32(float* p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(p), "f"(v) : "memory");
}

// Vector forms (sm_90: one reduction for 2 or 4 floats, 8- or 16-byte aligned p); scalar before.
__device__ __forceinline__ void red_add_f32x2(float* p, float a, float b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(p), "f"(a), "f"(b) : "memory");
#else
  red_add_f32(p, a), red_add_f32(p + 1, b);
#endif
}

__device__ __forceinline__ void red_add_f32x4(float* p, float a, float b, float c, float d) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
#else
  red_add_f32(p, a), red_add_f32(p + 1, b), red_add_f32(p + 2, c), red_add_f32(p + 3, d);
#endif
}

// ---------------------------------------------------------------------------------------------
// Precision modes
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Global -> shared copies
// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// Shared -> registers: a warp's fragments for one k step (kKStep)
// ---------------------------------------------------------------------------------------------
// a[i]: the 16 x kKStep A fragment of the warp's m-tile i; b[j]: the kKStep x 8 B fragment of n-tile
// j, in the mma instruction's register layout (lane = 4g + t). The lane-dependent part of every
// address is worked out once (the constructor); per load only compile-time offsets are added (or,
// for k-major chunk columns, XORed: a k step is two chunks, and the swizzle only XORs chunk bits
// below those of the row, so chunk(r, c0 + 2kk) = chunk(r, c0) ^ 2kk for c0 in {0, 1}).
template <class S, int OP_A, int OP_B>
struct FragmentLoader {
  using TA = typename S::TileA;
  using TB = typename S::TileB;
  static constexpr bool kHalf = S::kElemBytes == 2;
  static constexpr int kMT = S::kTilesM;
  static constexpr int kNT = S::kTilesN;
  static constexpr int kD = kNT / 4;  // 16-byte B loads per row and k step (permuted FP32 B)
  static_assert(OP_A || (TA::kRowBytes & (TA::kRowBytes - 1)) == 0, "[m][k] A: BK a power of two");
  static_assert(!OP_B || (TB::kRowBytes & (TB::kRowBytes - 1)) == 0, "[n][k] B: BK a power of two");
  static_assert(!OP_A || !kHalf || TA::kRowBytes >= 128, "16-bit [k][m] A: BM >= 64");
  static_assert(OP_B || !kHalf || TB::kRowBytes >= 128, "16-bit [k][n] B: BN >= 64");

  int a_off[OP_A ? (kHalf ? kMT : 4 * kMT) : 1];
  int b_off[OP_B ? 1 : (kHalf ? kNT / 2 : 2 * kD)];

  __device__ __forceinline__ FragmentLoader(int wm0, int wn0, int lane) {
    const int g = lane >> 2;
    const int t = lane & 3;
    if constexpr (OP_A == 0) {
      // [m][k]: ldmatrix matrices (rows 0-7 | 8-15) x (k chunk 0 | 1) = a0, a1, a2, a3.
      a_off[0] = TA::chunk(wm0 + (lane & 15), lane >> 4) * 16;
    } else if constexpr (kHalf) {
      // [k][m], 16-bit: transposing loads; matrix q = lane/8: k rows 8*(q/2).., m chunk q%2.
#pragma unroll
      for (int i = 0; i < kMT; ++i)
        a_off[i] = TA::chunk((lane & 7) + ((lane >> 4) << 3), (wm0 + 16 * i) / 8 + ((lane >> 3) & 1)) * 16;
    } else {
      // [k][m], FP32: 32-bit loads (ldmatrix cannot transpose 32-bit elements): (k t | t+4, m g | g+8).
#pragma unroll
      for (int i = 0; i < kMT; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          a_off[4 * i + e] = TA::word(t + 4 * (e >> 1), (wm0 + 16 * i + g + 8 * (e & 1)) / 4, g & 3);
    }
    if constexpr (OP_B == 1) {
      // [n][k]: matrices (n rows 0-7 | 8-15) x (k chunk 0 | 1) = b[j][0], b[j][1], b[j+1][0], b[j+1][1].
      b_off[0] = TB::chunk(wn0 + (lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1) * 16;
    } else if constexpr (kHalf) {
      // [k][n], 16-bit: transposing loads; lanes 0-15: k rows 0-15 of n chunk 0, lanes 16-31: chunk 1.
#pragma unroll
      for (int jj = 0; jj < kNT / 2; ++jj) b_off[jj] = TB::chunk(lane & 15, (wn0 + 16 * jj) / 8 + (lane >> 4)) * 16;
    } else {
      // [k][n], FP32, permuted columns: lane g's columns g * kNT .. g * kNT + kNT - 1 of rows t, t + 4.
#pragma unroll
      for (int h = 0; h < kD; ++h) {
        b_off[2 * h] = TB::chunk(t, wn0 / 4 + g * kD + h) * 16;
        b_off[2 * h + 1] = TB::chunk(t + 4, wn0 / 4 + g * kD + h) * 16;
      }
    }
  }

  __device__ __forceinline__ void operator()(unsigned sA, unsigned sB, int kk, unsigned (&a)[kMT][4],
                                             unsigned (&b)[kNT][2]) const {
    const int kr = kk * S::kKStep;  // first k row of this step (k-major tiles)
#pragma unroll
    for (int i = 0; i < kMT; ++i) {
      if constexpr (OP_A == 0) {
        ldsm_x4(sA + (a_off[0] ^ (32 * kk)) + i * 16 * TA::kRowBytes, a[i][0], a[i][1], a[i][2], a[i][3]);
      } else if constexpr (kHalf) {
        ldsm_x4_trans(sA + a_off[i] + kr * TA::kRowBytes, a[i][0], a[i][1], a[i][2], a[i][3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) a[i][e] = lds_u32(sA + a_off[4 * i + e] + kr * TA::kRowBytes);
      }
    }
    if constexpr (OP_B == 1) {
#pragma unroll
      for (int j = 0; j < kNT; j += 2)
        ldsm_x4(sB + (b_off[0] ^ (32 * kk)) + (j / 2) * 16 * TB::kRowBytes, b[j][0], b[j][1], b[j + 1][0],
                b[j + 1][1]);
    } else if constexpr (kHalf) {
#pragma unroll
      for (int j = 0; j < kNT; j += 2)
        ldsm_x4_trans(sB + b_off[j / 2] + kr * TB::kRowBytes, b[j][0], b[j][1], b[j + 1][0], b[j + 1][1]);
    } else {
#pragma unroll
      for (int h = 0; h < kD; ++h) {
        lds_u32x4(sB + b_off[2 * h] + kr * TB::kRowBytes, b[4 * h][0], b[4 * h + 1][0], b[4 * h + 2][0],
                  b[4 * h + 3][0]);
        lds_u32x4(sB + b_off[2 * h + 1] + kr * TB::kRowBytes, b[4 * h][1], b[4 * h + 1][1], b[4 * h + 2][1],
                  b[4 * h + 3][1]);
      }
    }
  }
};

// acc += a * b over the warp tile for one k step, in the mode's arithmetic. For 3xtf32 (MODE 1), ACC
// says where the long sums are accumulated:
//   0  in the tensor core's accumulator, like every other mode. The tensor core does not round its
//      FP32 sums to nearest (it truncates), so the error grows with K like K * 2^-23 rather than
//      sqrt(K) * 2^-24: measured 10-35x cuBLAS SGEMM's normwise error.
//   1  the three products of one k step go into a zeroed 4-register temporary, which one FP32 add
//      (round to nearest) moves into acc: 4 FADD per 3 mma.
//   2  the same per k tile: tile_acc (a second accumulator, as large as acc) collects the k tile's
//      products in the tensor core and the kernel adds it into acc once a tile.
template <class S, int MODE, int ACC, int CVT>
__device__ __forceinline__ void multiply_fragments(float (&acc)[S::kTilesM][S::kTilesN][4],
                                                   unsigned (&a)[S::kTilesM][4], unsigned (&b)[S::kTilesN][2]) {
  if constexpr (MODE == 0) {
    unsigned ta[S::kTilesM][4];
    unsigned tb[S::kTilesN][2];
#pragma unroll
    for (int i = 0; i < S::kTilesM; ++i)
#pragma unroll
      for (int e = 0; e < 4; ++e) ta[i][e] = round_tf32<CVT ? 1 : 0>(__uint_as_float(a[i][e]));
#pragma unroll
    for (int j = 0; j < S::kTilesN; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) tb[j][e] = round_tf32<CVT ? 1 : 0>(__uint_as_float(b[j][e]));
#pragma unroll
    for (int i = 0; i < S::kTilesM; ++i)
#pragma unroll
      for (int j = 0; j < S::kTilesN; ++j) mma_tf32_16x8x8(acc[i][j], ta[i], tb[j][0], tb[j][1]);
  } else if constexpr (MODE == 1) {
    // Split in registers: big = tf32(x) keeps the top 11 significand bits; x - big is exact in FP32,
    // and small = tf32(x - big) keeps the next 11 or so. B is split once for the warp tile, A one m-tile
    // at a time (its small half for all m-tiles would cost 4 * kTilesM more live registers).
    // Rounding (CVT): 0 cvt.rna for big and small; 1 cvt.rna for big, integer rounding (to_tf32_int)
    // for small; 2 NaN-safe integer rounding for big, integer rounding for small; 3 integer rounding
    // for big, small left as x - big: it has at most 12 significant bits (|x - big| is at most half a
    // TF32 ulp of x), so the tensor core, which reads the top 11, truncates at most one bit of it, an
    // error below 2^-23 |x|, twice what rounding would leave. CVT 3 costs 3 integer/FP operations a
    // value against cvt.rna's slow conversion pipe (bench.cu, peak_kernel: one cvt per mma costs 23%).
    // NaN: with 1 and 2 big stays NaN; with 3 a NaN whose payload carries gives big = -0 but small =
    // x - big = NaN; either way C gets NaN. Infinities: big = x, small = inf - inf = NaN, so C gets NaN
    // where FP32 would give +-inf (with 1 and 2 small becomes -0, but big * small_of_the_other_operand
    // is inf * 0 wherever that small is 0). CUTLASS's 3xTF32 split behaves the same way.
    constexpr int kBig = CVT == 0 || CVT == 1 ? 0 : (CVT == 2 ? 1 : 2);
    constexpr int kSmall = CVT == 0 ? 0 : (CVT == 3 ? 3 : 2);
    unsigned b_big[S::kTilesN][2];
    unsigned b_small[S::kTilesN][2];
#pragma unroll
    for (int j = 0; j < S::kTilesN; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float x = __uint_as_float(b[j][e]);
        b_big[j][e] = round_tf32<kBig>(x);
        b_small[j][e] = round_tf32<kSmall>(x - __uint_as_float(b_big[j][e]));
      }
#pragma unroll
    for (int i = 0; i < S::kTilesM; ++i) {
      unsigned a_big[4], a_small[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float x = __uint_as_float(a[i][e]);
        a_big[e] = round_tf32<kBig>(x);
        a_small[e] = round_tf32<kSmall>(x - __uint_as_float(a_big[e]));
      }
      // The two small products first, then big * big. The kTilesN chains are independent of each
      // other, which keeps the tensor core busy while each chain waits on its accumulator.
#pragma unroll
      for (int j = 0; j < S::kTilesN; ++j) {
        if constexpr (ACC == 1) {
          float tmp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          mma_tf32_16x8x8(tmp, a_small, b_big[j][0], b_big[j][1]);
          mma_tf32_16x8x8(tmp, a_big, b_small[j][0], b_small[j][1]);
          mma_tf32_16x8x8(tmp, a_big, b_big[j][0], b_big[j][1]);
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][j][e] += tmp[e];
        } else {
          mma_tf32_16x8x8(acc[i][j], a_small, b_big[j][0], b_big[j][1]);
          mma_tf32_16x8x8(acc[i][j], a_big, b_small[j][0], b_small[j][1]);
          mma_tf32_16x8x8(acc[i][j], a_big, b_big[j][0], b_big[j][1]);
        }
      }
    }
  } else if constexpr (MODE == 2) {
#pragma unroll
    for (int i = 0; i < S::kTilesM; ++i)
#pragma unroll
      for (int j = 0; j < S::kTilesN; ++j) mma_bf16_16x8x16(acc[i][j], a[i], b[j][0], b[j][1]);
  } else {
#pragma unroll
    for (int i = 0; i < S::kTilesM; ++i)
#pragma unroll
      for (int j = 0; j < S::kTilesN; ++j) mma_f16_16x8x16(acc[i][j], a[i], b[j][0], b[j][1]);
  }
}

}  // namespace mma

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
// MODE       0 tf32, 1 3xtf32, 2 bf16, 3 fp16 (see the top of the file)
// BM, BN, BK block tile; WM, WN warp tile (multiples of 16; FP32 with OP_B = 0: WN in {32, 64, 128});
//            threads = 32 * (BM/WM) * (BN/WN)
// STAGES     cp.async pipeline depth (>= 2); dynamic shared memory = MmaShape<...>::kSmemBytes
//            = STAGES * (BM*BK + BK*BN) * sizeof(element)
// OP_A, OP_B 0: stored as in the product (A m x k, B k x n); 1: stored transposed (A k x m, B n x k)
// ALIGNED    1: A and B (pointers, leading dimensions, batch strides) are 16-byte aligned; 0: any
// GROUP_M    block swizzle: blocks walk GROUP_M tile rows at a time, so neighbours share A and B in L2
// MIN_BLOCKS __launch_bounds__ minimum blocks per SM (caps registers at 64K / (threads * MIN_BLOCKS))
// ACC        3xtf32 only (else 0): 0 tensor-core accumulation, 1 FP32 add per k step, 2 per k tile
//            (see multiply_fragments)
// CVT        FP32 -> TF32 rounding (tf32, 3xtf32; else 0): tf32 0 cvt.rna, 1 NaN-safe integer rounding;
//            3xtf32 0..3 (see multiply_fragments). Same numbers for finite inputs either way.
// Grid: x = tiles_m * tiles_n, y = batch entries, z = K slices (split-K). With gridDim.z > 1 each slice
// adds alpha * (its partial product) to C atomically, so the caller must have scaled C by beta before
// (or zeroed it when beta == 0); beta is then ignored.
template <int MODE, int BM, int BN, int BK, int WM, int WN, int STAGES, int OP_A, int OP_B, int ALIGNED, int GROUP_M,
          int MIN_BLOCKS, int ACC, int CVT>
__global__ void __launch_bounds__(mma::MmaShape<MODE, BM, BN, BK, WM, WN, STAGES, OP_A, OP_B>::kThreads, MIN_BLOCKS)
    mma_gemm(int M, int N, int K, float alpha, const typename mma::Precision<MODE>::Elem* __restrict__ A, int lda,
             const typename mma::Precision<MODE>::Elem* __restrict__ B, int ldb, float beta, float* __restrict__ C,
             int ldc, long long stride_a, long long stride_b, long long stride_c) {
  using S = mma::MmaShape<MODE, BM, BN, BK, WM, WN, STAGES, OP_A, OP_B>;
  using Elem = typename S::Elem;
  static_assert(ACC == 0 || MODE == 1, "ACC applies to 3xtf32 only");
  static_assert(CVT == 0 || MODE <= 1, "CVT applies to tf32 and 3xtf32 only");
  static_assert(CVT <= (MODE == 1 ? 3 : 1), "CVT: 0..1 for tf32, 0..3 for 3xtf32");
  constexpr int kMT = S::kTilesM;
  constexpr int kNT = S::kTilesN;
  constexpr int kSteps = S::kKSteps;
  extern __shared__ uint4 smem_raw[];  // uint4: 16-byte alignment for cp.async and ldmatrix
  const unsigned smem = mma::smem_u32(smem_raw);

  // Block swizzle over the tile grid.
  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  const int pid = blockIdx.x;
  const int per_group = GROUP_M * tiles_n;
  const int first_m = (pid / per_group) * GROUP_M;
  const int group_rows = min(tiles_m - first_m, GROUP_M);
  const int tile_m = first_m + (pid % per_group) % group_rows;
  const int tile_n = (pid % per_group) / group_rows;
  const int m0 = tile_m * BM;
  const int n0 = tile_n * BN;
  A += blockIdx.y * stride_a;
  B += blockIdx.y * stride_b;
  C += blockIdx.y * stride_c;

  // This block's K slice, in whole BK tiles.
  const int k_tiles_total = (K + BK - 1) / BK;
  const int k_tiles_per_split = (k_tiles_total + gridDim.z - 1) / gridDim.z;
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int k_tiles = max(0, min(k_tiles_total, kt_begin + k_tiles_per_split) - kt_begin);

  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int wm0 = (warp / S::kWarpsN) * WM;
  const int wn0 = (warp % S::kWarpsN) * WN;

  mma::TileCopy<Elem, typename S::TileA, S::kThreads, OP_A == 0, ALIGNED> copy_a(A, lda, m0, M, tid);
  mma::TileCopy<Elem, typename S::TileB, S::kThreads, OP_B == 1, ALIGNED> copy_b(B, ldb, n0, N, tid);
  const mma::FragmentLoader<S, OP_A, OP_B> load_fragments(wm0, wn0, lane);

  float acc[kMT][kNT][4];
  float tile_acc[ACC == 2 ? kMT : 1][ACC == 2 ? kNT : 1][4];  // ACC 2: this k tile's products
#pragma unroll
  for (int i = 0; i < kMT; ++i)
#pragma unroll
    for (int j = 0; j < kNT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  // Prologue: the first STAGES - 1 tiles in flight. Every thread commits a group per tile slot, empty
  // or not, so "at most STAGES - 2 groups pending" always means "the oldest awaited tile has landed".
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) {
      const unsigned base = smem + s * S::kStageBytes;
      copy_a(base, (kt_begin + s) * BK, K);
      copy_b(base + S::TileA::kBytes, (kt_begin + s) * BK, K);
    }
    mma::cp_async_commit();
  }
  mma::cp_async_wait<STAGES - 2>();
  __syncthreads();

  // Main loop, software-pipelined twice over: STAGES k tiles in shared memory, and two k steps of
  // fragments in registers (step kk + 1's are loaded while step kk's mma run). The one barrier per k
  // tile sits before the last step: it publishes tile kt + 1 (whose first fragments that step loads)
  // and tells every warp that all have finished reading tile kt - 1, whose stage the copy issued at
  // the next step 0 refills.
  unsigned frag_a[2][kMT][4];
  unsigned frag_b[2][kNT][2];
  int read_stage = 0;                // stage of tile kt
  int write_stage = STAGES - 1;      // stage of tile kt + STAGES - 1
  load_fragments(smem, smem + S::TileA::kBytes, 0, frag_a[0], frag_b[0]);

  for (int kt = 0; kt < k_tiles; ++kt) {
    if constexpr (ACC == 2) {
#pragma unroll
      for (int i = 0; i < kMT; ++i)
#pragma unroll
        for (int j = 0; j < kNT; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) tile_acc[i][j][e] = 0.0f;
    }
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) {
      int load_stage = read_stage;
      if (kk == kSteps - 1) {
        mma::cp_async_wait<STAGES - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        load_stage = read_stage;
      }
      const unsigned sA = smem + load_stage * S::kStageBytes;
      load_fragments(sA, sA + S::TileA::kBytes, (kk + 1) % kSteps, frag_a[(kk + 1) % 2], frag_b[(kk + 1) % 2]);
      if (kk == 0) {
        const int next = kt + STAGES - 1;
        if (next < k_tiles) {
          const unsigned base = smem + write_stage * S::kStageBytes;
          copy_a(base, (kt_begin + next) * BK, K);
          copy_b(base + S::TileA::kBytes, (kt_begin + next) * BK, K);
        }
        mma::cp_async_commit();
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
      }
      if constexpr (ACC == 2) {
        mma::multiply_fragments<S, MODE, 0, CVT>(tile_acc, frag_a[kk % 2], frag_b[kk % 2]);
      } else {
        mma::multiply_fragments<S, MODE, ACC, CVT>(acc, frag_a[kk % 2], frag_b[kk % 2]);
      }
    }
    if constexpr (ACC == 2) {
#pragma unroll
      for (int i = 0; i < kMT; ++i)
#pragma unroll
        for (int j = 0; j < kNT; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][j][e] += tile_acc[i][j][e];
    }
  }
  mma::cp_async_wait<0>();  // nothing may be in flight into shared memory when the block exits

  // Epilogue. Lane 4g + t holds, per mma tile (i, j), rows g and g + 8 of the tile, mma columns 2t and
  // 2t + 1. Unpermuted, those are two adjacent floats of C (one 8-byte store; a warp's store fills
  // whole 32-byte sectors). Permuted (FP32 B [k][n]), mma column c of n-tile j is warp column
  // c * kNT + j, so each lane holds runs of kNT adjacent floats of a row: 16-byte stores.
  const int g = lane >> 2;
  const int t = lane & 3;
  const bool split = gridDim.z > 1;
  const bool read_c = !split && beta != 0.0f;  // beta == 0 must not read C: it may hold NaN
  const unsigned long long c_addr = reinterpret_cast<unsigned long long>(C);
  constexpr int kRun = S::kPermuteN ? 4 : 2;  // floats per vector store
  const bool vec_ok = (ldc % kRun == 0) && (c_addr % (4 * kRun) == 0);
#pragma unroll
  for (int i = 0; i < kMT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m0 + wm0 + i * 16 + g + 8 * h;
      if (row >= M) continue;
      float* crow = C + static_cast<long long>(row) * ldc;
      // Run q of the lane's runs in this row: kRun floats v[0..kRun-1] starting at column col.
#pragma unroll
      for (int q = 0; q < kNT * 2 / kRun; ++q) {
        float v[kRun];
        int col;
        if constexpr (S::kPermuteN) {
          const int e = q / (kNT / 4);       // mma column 2t + e
          const int j0 = 4 * (q % (kNT / 4));  // n-tiles j0 .. j0 + 3
          col = n0 + wn0 + (2 * t + e) * kNT + j0;
#pragma unroll
          for (int w = 0; w < 4; ++w) v[w] = alpha * acc[i][j0 + w][2 * h + e];
        } else {
          col = n0 + wn0 + q * 8 + 2 * t;
          v[0] = alpha * acc[i][q][2 * h];
          v[1] = alpha * acc[i][q][2 * h + 1];
        }
        if (split && vec_ok && col + kRun <= N) {
          if constexpr (kRun == 4) {
            mma::red_add_f32x4(crow + col, v[0], v[1], v[2], v[3]);
          } else {
            mma::red_add_f32x2(crow + col, v[0], v[1]);
          }
        } else if (split) {
#pragma unroll
          for (int w = 0; w < kRun; ++w)
            if (col + w < N) mma::red_add_f32(crow + col + w, v[w]);
        } else if (vec_ok && col + kRun <= N) {
          if constexpr (kRun == 4) {
            float4* p = reinterpret_cast<float4*>(crow + col);
            if (read_c) {
              const float4 c = *p;
              v[0] += beta * c.x, v[1] += beta * c.y, v[2] += beta * c.z, v[3] += beta * c.w;
            }
            *p = make_float4(v[0], v[1], v[2], v[3]);
          } else {
            float2* p = reinterpret_cast<float2*>(crow + col);
            if (read_c) {
              const float2 c = *p;
              v[0] += beta * c.x, v[1] += beta * c.y;
            }
            *p = make_float2(v[0], v[1]);
          }
        } else {
#pragma unroll
          for (int w = 0; w < kRun; ++w)
            if (col + w < N) crow[col + w] = read_c ? v[w] + beta * crow[col + w] : v[w];
        }
      }
    }
  }
}

}  // namespace gemmtune
