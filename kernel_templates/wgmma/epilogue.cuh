// The epilogue: a consumer warpgroup's accumulators straight from registers to C = alpha * acc +
// beta * C, row-major with any ldc, C FP32 or 16-bit (CTYPE 1 bf16, 2 fp16: rounded to nearest even
// once, from the FP32 value). beta == 0 never reads C (it may hold NaN). Interior tiles with an even
// ldc and a C aligned to a pair (8 bytes FP32, 4 bytes 16-bit) store pairs without checks; edge tiles
// mask each element (rows past M, columns past N, and a cluster pair's tile past N). Split-K (add,
// FP32 C only) adds alpha * acc into C with fire-and-forget reductions instead: the host scaled C by
// beta before. A 16-bit C's split-K slices are FP32 tiles of the workspace, stored as an FP32 C with
// alpha 1 and beta 0 (the reduction kernel applies both and rounds).
// Interior tiles whose rows are aligned to 16 bytes go out 16 bytes a thread, the quad's pairs
// exchanged first: a 16-bit C's pair is 4 bytes, and a warp's store of pairs filled half of each
// 32-byte sector it touched, so C took as many store transactions as an FP32 C of twice the bytes
// (H200, 2026-11-29: 4096x4096x64 in bf16 32.4 -> 13.6 us); an FP32 C's pair is 8 bytes, and two of
// them go out as one store (or one reduction under split-K) where there were two. A 16-bit C keeps
// its pairs where beta is not 0: its sum must be rounded once, after C is added, and the exchange
// moves values already rounded.

namespace gemmtune {
namespace wgmma {

// C's element: CTYPE 0 FP32, 1 bf16, 2 fp16 (the 16-bit ones as raw bits).
template <int CTYPE>
struct OutputC {
  using Elem = unsigned short;
};
template <>
struct OutputC<0> {
  using Elem = float;
};

// The four lanes of each quad (lanes 4i..4i+3, q = lane % 4) hold p[0..3]; afterwards lane q holds
// what lane t held in p[q], in p[t]: a 4 x 4 transpose in two exchanges, of 2 x 2 blocks (lanes 2
// apart), then of elements within them (lanes 1 apart). Every lane of the warp takes part.
__device__ __forceinline__ void transpose_quad(unsigned (&p)[4], int q) {
  const bool upper = (q & 2) != 0;
  unsigned x0 = __shfl_xor_sync(0xffffffffu, upper ? p[0] : p[2], 2);
  unsigned x1 = __shfl_xor_sync(0xffffffffu, upper ? p[1] : p[3], 2);
  if (upper) {
    p[0] = x0, p[1] = x1;
  } else {
    p[2] = x0, p[3] = x1;
  }
  const bool odd = (q & 1) != 0;
  x0 = __shfl_xor_sync(0xffffffffu, odd ? p[0] : p[1], 1);
  x1 = __shfl_xor_sync(0xffffffffu, odd ? p[2] : p[3], 1);
  if (odd) {
    p[0] = x0, p[2] = x1;
  } else {
    p[1] = x0, p[3] = x1;
  }
}

// One row of an interior tile to a 16-bit C, beta 0, 16 bytes a thread: for every four 8-column
// groups, the quad's pairs (lane q: columns 2q, 2q + 1 of each group) are transposed so that lane q
// holds group q's 8 columns. A warp's store then covers 64 contiguous bytes of each of its 8 rows.
// crow: the row; col0: this thread's first column (a group's start + 2q).
template <int ACC, int BN, int CTYPE>
__device__ __forceinline__ void store_row_16_wide(const float (&acc)[ACC], unsigned short* __restrict__ crow,
                                                  int col0, int h, float alpha,
                                                  const unsigned short* __restrict__ bias) {
  const int q = threadIdx.x & 3;  // the lane's place in its quad (consumer warpgroups start at multiples of 128)
#pragma unroll
  for (int g = 0; g < BN / 32; ++g) {
    unsigned p[4];
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      const int j = 4 * g + t;
      const int col = col0 + 8 * j;
      p[t] = c16::round_pair_to_16<CTYPE == 1>(alpha * acc[4 * j + 2 * h] + c16::bias_at<CTYPE == 1>(bias, col),
                                               alpha * acc[4 * j + 2 * h + 1] + c16::bias_at<CTYPE == 1>(bias, col + 1));
    }
    transpose_quad(p, q);
    *reinterpret_cast<uint4*>(crow + col0 - 2 * q + 8 * (4 * g + q)) = make_uint4(p[0], p[1], p[2], p[3]);
  }
}

// One row of an interior tile to an FP32 C, 16 bytes a thread: of two neighbouring 8-column groups
// (64 bytes), lane q stores the 4 columns of chunk (q / 2) + 2 (q % 2): an even lane its own pair of
// the first group and its odd neighbour's, an odd lane its even neighbour's pair of the second group
// and its own; one exchange between neighbours. beta (read_c) and split-K's reduction (add) as in
// store_tile.
template <int ACC, int BN>
__device__ __forceinline__ void store_row_32_wide(const float (&acc)[ACC], float* __restrict__ crow, int col0,
                                                  int h, float alpha, float beta, const float* __restrict__ bias,
                                                  bool read_c, bool add) {
  const int q = threadIdx.x & 3;  // as in store_row_16_wide
  const bool odd = (q & 1) != 0;
  float* const base = crow + col0 - 2 * q + 4 * ((q >> 1) | ((q & 1) << 1));
#pragma unroll
  for (int g = 0; g < BN / 16; ++g) {
    const int j0 = 2 * g, j1 = 2 * g + 1;
    const int ca = col0 + 8 * j0, cb = col0 + 8 * j1;  // the columns of a0 and b0 (a1, b1: the next)
    const float a0 = alpha * acc[4 * j0 + 2 * h] + c16::bias_at<false>(bias, ca);
    const float a1 = alpha * acc[4 * j0 + 2 * h + 1] + c16::bias_at<false>(bias, ca + 1);
    const float b0 = alpha * acc[4 * j1 + 2 * h] + c16::bias_at<false>(bias, cb);
    const float b1 = alpha * acc[4 * j1 + 2 * h + 1] + c16::bias_at<false>(bias, cb + 1);
    const float r0 = __shfl_xor_sync(0xffffffffu, odd ? a0 : b0, 1);
    const float r1 = __shfl_xor_sync(0xffffffffu, odd ? a1 : b1, 1);
    float4 v = odd ? make_float4(r0, r1, b0, b1) : make_float4(a0, a1, r0, r1);
    float* p = base + 16 * g;
    if (add) {
      sm90::red_add_quad(p, v);
    } else {
      if (read_c) {
        const float4 c = *reinterpret_cast<const float4*>(p);
        v.x += beta * c.x, v.y += beta * c.y, v.z += beta * c.z, v.w += beta * c.w;
      }
      *reinterpret_cast<float4*>(p) = v;
    }
  }
}

// Accumulator layout of m64nN: warp w of the warpgroup holds rows 16w..16w+15; lane l holds rows
// l/4 and l/4 + 8 of those, columns 8j + 2(l%4) + {0, 1} in registers 4j + {0, 1} and 4j + {2, 3}.
// row0, col0: this thread's first row and column in C.
// wide: every row of C starts 16-byte aligned (ldc a multiple of 16 bytes, C aligned to 16 bytes).
template <int MI, int ACC, int BN, int CTYPE>
__device__ __forceinline__ void store_tile(const float (&acc)[MI][ACC],
                                           typename OutputC<CTYPE>::Elem* __restrict__ C, int ldc, int M,
                                           int N, int row0, int col0, bool interior, bool pairs, float alpha,
                                           float beta, const typename OutputC<CTYPE>::Elem* __restrict__ bias,
                                           bool add, bool wide = false) {
  const bool read_c = !add && beta != 0.0f;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + mi * 64 + 8 * h;
      if (!interior && row >= M) continue;
      typename OutputC<CTYPE>::Elem* crow = C + static_cast<long long>(row) * ldc;
      if constexpr (CTYPE != 0 && BN % 32 == 0) {
        if (interior && wide && !read_c) {  // uniform over the warpgroup, as the shuffles need
          store_row_16_wide<ACC, BN, CTYPE>(acc[mi], crow, col0, h, alpha, bias);
          continue;
        }
      } else if constexpr (CTYPE == 0 && BN % 16 == 0) {
        if (interior && wide) {
          store_row_32_wide<ACC, BN>(acc[mi], crow, col0, h, alpha, beta, bias, read_c, add);
          continue;
        }
      }
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = col0 + 8 * j;
        float v0 = alpha * acc[mi][4 * j + 2 * h], v1 = alpha * acc[mi][4 * j + 2 * h + 1];
        if (bias != nullptr) {
          if (interior || col < N) v0 += c16::bias_at<CTYPE == 1>(bias, col);
          if (interior || col + 1 < N) v1 += c16::bias_at<CTYPE == 1>(bias, col + 1);
        }
        if constexpr (CTYPE != 0) {  // never split here: no add
          if (interior || (pairs && col + 1 < N)) {
            unsigned* p = reinterpret_cast<unsigned*>(crow + col);
            if (read_c) {
              const unsigned c = *p;
              v0 += beta * c16::widen_16<CTYPE == 1>(static_cast<unsigned short>(c & 0xffffu));
              v1 += beta * c16::widen_16<CTYPE == 1>(static_cast<unsigned short>(c >> 16));
            }
            *p = c16::round_pair_to_16<CTYPE == 1>(v0, v1);
          } else {
            if (col < N) crow[col] = c16::round_to_16<CTYPE == 1>(read_c ? v0 + beta * c16::widen_16<CTYPE == 1>(crow[col]) : v0);
            if (col + 1 < N)
              crow[col + 1] = c16::round_to_16<CTYPE == 1>(read_c ? v1 + beta * c16::widen_16<CTYPE == 1>(crow[col + 1]) : v1);
          }
        } else if (interior || (pairs && col + 1 < N)) {
          if (add) {
            sm90::red_add_pair(crow + col, v0, v1);
          } else {
            float2* p = reinterpret_cast<float2*>(crow + col);
            if (read_c) {
              const float2 c = *p;
              v0 += beta * c.x;
              v1 += beta * c.y;
            }
            *p = make_float2(v0, v1);
          }
        } else if (add) {
          if (col < N) sm90::red_add(crow + col, v0);
          if (col + 1 < N) sm90::red_add(crow + col + 1, v1);
        } else {
          if (col < N) crow[col] = read_c ? v0 + beta * crow[col] : v0;
          if (col + 1 < N) crow[col + 1] = read_c ? v1 + beta * crow[col + 1] : v1;
        }
      }
    }
  }
}

}  // namespace wgmma
}  // namespace gemmtune
