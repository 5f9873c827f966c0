// Shared -> registers -> tensor cores: a warp's fragments for one k step (FragmentLoader) and the
// k step's mma instructions in each precision's arithmetic (multiply_fragments).

namespace gemmtune {
namespace mma {

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
}  // namespace gemmtune
