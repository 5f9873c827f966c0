// The epilogue: a consumer warpgroup's accumulators straight from registers to C = alpha * acc +
// beta * C, row-major with any ldc, C FP32 or 16-bit (CTYPE 1 bf16, 2 fp16: rounded to nearest even
// once, from the FP32 value). beta == 0 never reads C (it may hold NaN). Interior tiles with an even
// ldc and a C aligned to a pair (8 bytes FP32, 4 bytes 16-bit) store pairs without checks; edge tiles
// mask each element (rows past M, columns past N, and a cluster pair's tile past N). Split-K (add,
// FP32 C only) adds alpha * acc into C with fire-and-forget reductions instead: the host scaled C by
// beta before. A 16-bit C's split-K slices are FP32 tiles of the workspace, stored as an FP32 C with
// alpha 1 and beta 0 (the reduction kernel applies both and rounds).

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

// Accumulator layout of m64nN: warp w of the warpgroup holds rows 16w..16w+15; lane l holds rows
// l/4 and l/4 + 8 of those, columns 8j + 2(l%4) + {0, 1} in registers 4j + {0, 1} and 4j + {2, 3}.
// row0, col0: this thread's first row and column in C.
template <int MI, int ACC, int BN, int CTYPE>
__device__ __forceinline__ void store_tile(const float (&acc)[MI][ACC],
                                           typename OutputC<CTYPE>::Elem* __restrict__ C, int ldc, int M,
                                           int N, int row0, int col0, bool interior, bool pairs, float alpha,
                                           float beta, bool add) {
  const bool read_c = !add && beta != 0.0f;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + mi * 64 + 8 * h;
      if (!interior && row >= M) continue;
      typename OutputC<CTYPE>::Elem* crow = C + static_cast<long long>(row) * ldc;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = col0 + 8 * j;
        float v0 = alpha * acc[mi][4 * j + 2 * h], v1 = alpha * acc[mi][4 * j + 2 * h + 1];
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
