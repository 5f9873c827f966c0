// Skinny family, part 2: the register-streaming kernel, for up to 8 rows of C. Decode-sized calls are
// memory-bound: the floor is reading B once. So B streams past L1 exactly once in 16-byte loads,
// the small A is read through L1 (every warp of a block shares it), and every thread keeps all BM
// rows of C for its columns in registers, so each B value fetched feeds BM FMAs.
//
// ELEM: the operands' elements (0 FP32, 1 bf16, 2 fp16; the sums FP32). 16-bit B stays packed
// in registers until its FMAs (converting at the load would double the registers a load in flight
// holds), so a 16-byte load costs the same registers in every precision.
// C16: C is FP32 (0) or, with 16-bit operands only, their own type (1): each element of C is written
// once, alpha * sum + beta * C computed in FP32 (a 16-bit C read exactly) and rounded to nearest even.
// Split-K's partial sums stay FP32 in the workspace; only the final write rounds.
//
// Work decomposition (all compile-time but the split count):
//   - a "quad" is KS consecutive k: 4, or for OP_B = 1 one 16-byte vector of a B row (4 floats or 8
//     halves). A thread's step multiplies a KS x TN piece of op(B) (one quad by its TN columns) with
//     the BM x KS piece of op(A) into acc[BM][TN].
//   - a warp is LK lanes along k (different quads) by LN = 32 / LK lanes along n. For OP_B = 1 the
//     LK lanes of a column are adjacent lanes reading one row of B contiguously (LK * 16 bytes);
//     for OP_B = 0 the LN lanes along n are adjacent and read LN * 16 contiguous bytes of a B row
//     (a thread's TN columns are runs of one 16-byte vector, VEC elements).
//   - a block is WN warps along n by WK warps along k; its tile is BM rows by BN = WN * LN * TN
//     columns. Warp wk takes the block's k-steps wk, wk + WK, ... (interleaved, so the block walks
//     through B as one front: DRAM pages stay open and the warps share A lines in L1).
//   - U steps per iteration have all their B loads in flight before the first FMA; PF = 1 also
//     loads the next iteration's B before this iteration's FMAs (a register double buffer).
//   - split-K: `splits` blocks share a tile, each a contiguous range of quads. Their partial sums go
//     to the workspace; the block that finishes last (a counter per tile) adds them in split order
//     (deterministic), writes C and zeroes what it read, so one launch does everything, C is read
//     only if beta != 0, and the workspace is all zeros again when the launch ends.
//
// Grid: x = tiles_m * tiles_n * splits (split fastest, so the blocks of a tile run together and
// their partial sums are still in L2 when the last one reads them), y = batch entries. Block:
// 32 * WN * WK threads. Static shared memory: WK * BM * BN floats when WK > 1, else none.
// Workspace (splits > 1 only): batch * tiles * splits * BM * BN floats, then batch * tiles
// unsigned counters, all zero before the launch and after it.

namespace gemmtune {
namespace skinny {

// C's element (the stream kernel's C16): FP32, or the 16-bit operands' type (ELEM 1 bf16, 2 fp16) as
// raw bits, read as FP32 and written rounded to nearest even (common/sixteen_bit_c.cuh, which also
// serves the T4's bf16 stream kernels).
template <int ELEM, int C16>
struct OutputC {
  static_assert(C16 == 0 || ELEM != 0, "a 16-bit C needs bf16 or fp16 operands");
  using T = typename Element<C16 ? ELEM : 0>::T;
  static __device__ __forceinline__ float load(const T* p) {
    if constexpr (C16) {
      const unsigned w = *p;
      return element_to_float<ELEM>(&w, 0);
    } else {
      return *p;
    }
  }
  static __device__ __forceinline__ void store(T* p, float v) {
    if constexpr (C16) {
      *p = c16::round_to_16<ELEM == 1>(v);
    } else {
      *p = v;
    }
  }
};

template <int OP_A, int OP_B, int BM, int TN, int LK, int WN, int WK, int U, int PF, int PATH, int ELEM,
          int C16>
__global__ void __launch_bounds__(32 * WN * WK)
    stream(int M, int N, int K, float alpha, const typename Element<ELEM>::T* __restrict__ A, int lda,
           const typename Element<ELEM>::T* __restrict__ B, int ldb, float beta,
           typename OutputC<ELEM, C16>::T* __restrict__ C, int ldc, float* __restrict__ workspace, int splits,
           long long stride_a, long long stride_b, long long stride_c,
           const typename OutputC<ELEM, C16>::T* __restrict__ bias) {
  using T = typename Element<ELEM>::T;
  using Out = OutputC<ELEM, C16>;
  constexpr int VEC = 16 / static_cast<int>(sizeof(T));  // elements in one 16-byte load
  constexpr int KS = OP_B ? VEC : 4;                      // k per quad
  constexpr int BW = KS * TN * static_cast<int>(sizeof(T)) / 4;  // 32-bit words of B per step
  constexpr int LN = 32 / LK;       // lanes along n
  constexpr int WC = LN * TN;       // columns per warp
  constexpr int BN = WN * WC;       // columns per block
  constexpr int THREADS = 32 * WN * WK;
  static_assert(LK == 1 || LK == 2 || LK == 4 || LK == 8 || LK == 16 || LK == 32, "LK: power of 2 <= 32");
  static_assert(OP_B == 1 || TN % VEC == 0, "OP_B = 0 reads B rows in 16-byte vectors: TN a multiple of VEC");
  static_assert(BM >= 1 && BM <= 32 && TN >= 1 && U >= 1, "tile");
  static_assert(WK == 1 || WK * BM * BN * 4 <= 48 * 1024, "cross-warp reduction buffer over 48 KB");

  const BlockTile at = block_tile<BM, BN>(M, N, splits);
  const int tiles = at.tiles, tile = at.tile, split = at.split, m0 = at.m0, n0 = at.n0;
  A += blockIdx.y * stride_a;
  B += blockIdx.y * stride_b;
  C += blockIdx.y * stride_c;
  wait_for_prior_grid();

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int wn = warp % WN, wk = warp / WN;
  // OP_B = 1: the lanes of one column are adjacent (contiguous along a B row); OP_B = 0: the lanes
  // of one quad are adjacent (contiguous along a B row, which runs along n).
  const int lk = OP_B ? lane % LK : lane / LN;
  const int ln = OP_B ? lane / LK : lane % LN;

  // Column of C for the thread's j-th accumulator, relative to n0. OP_B = 0: runs of VEC (one
  // vector), the warp's lanes side by side, runs repeating every VEC * LN; OP_B = 1: one B row each,
  // lanes interleaved.
  auto col_of = [&](int j) {
    return OP_B ? wn * WC + j * LN + ln : wn * WC + (j / VEC) * VEC * LN + ln * VEC + (j % VEC);
  };

  // This split's quads [q0, q1). Rounded to whole warp-steps (LK quads) so that the splits of one
  // tile start on the same lane pattern.
  const int K4 = (K + KS - 1) / KS;
  const int qper = ((K4 + splits - 1) / splits + LK - 1) / LK * LK;
  const int q0 = min(K4, split * qper);
  const int q1 = min(K4, q0 + qper);
  const int nq = q1 - q0;
  const int steps = (nq + LK - 1) / LK;  // warp-steps in this split
  const int full_steps = nq / LK;        // those in which every lane's quad is in range

  float acc[BM][TN];
#pragma unroll
  for (int i = 0; i < BM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // Rows and columns outside the matrix are clamped to its last row/column: the loads stay in
  // bounds without predicates, and the results for them are never stored.
  int a_row[BM];
#pragma unroll
  for (int i = 0; i < BM; ++i) a_row[i] = min(m0 + i, M - 1);
  int b_col[TN];  // OP_B = 1: the B row of column j; OP_B = 0: the first column of j's vector
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    if (OP_B) {
      b_col[j] = min(n0 + col_of(j), N - 1);
    } else if (PATH == 1) {
      b_col[j] = min(n0 + col_of(j & ~(VEC - 1)), N - VEC);  // N % VEC == 0 here: whole vectors
    } else {
      b_col[j] = min(n0 + col_of(j), N - 1);
    }
  }

  // One step's B, packed as loaded: element (kk, j) of the KS x TN piece is element b_at(kk, j) of
  // the words (OP_B = 1: load j holds column j's KS elements; OP_B = 0: load (kk, j / VEC) holds row
  // kk's run of VEC columns).
  auto b_at = [](int kk, int j) { return OP_B ? j * KS + kk : kk * TN + j; };

  // One step: quad q of this lane (k = KS q .. KS q + KS - 1), valid or not (then zeros).
  auto load_b = [&](unsigned (&bw)[BW], int q, bool valid) {
    const int k = KS * q;
    if (PATH == 1) {
      // One 16-byte load fills 4 words: a column's KS elements (OP_B = 1), or row kk's run jv.
      auto load = [&](unsigned* w, const T* p) {
        if (valid) {
          ld_bits<16, true>(p, w);
        } else {
          w[0] = w[1] = w[2] = w[3] = 0u;
        }
      };
      if (OP_B) {
#pragma unroll
        for (int j = 0; j < TN; ++j) load(bw + 4 * j, B + static_cast<long long>(b_col[j]) * ldb + k);
      } else {
#pragma unroll
        for (int kk = 0; kk < KS; ++kk)
#pragma unroll
          for (int jv = 0; jv < TN / VEC; ++jv)
            load(bw + 4 * (kk * (TN / VEC) + jv), B + static_cast<long long>(k + kk) * ldb + b_col[VEC * jv]);
      }
    } else {
#pragma unroll
      for (int w = 0; w < BW; ++w) bw[w] = 0u;
#pragma unroll
      for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const long long off = OP_B ? static_cast<long long>(b_col[j]) * ldb + k + kk
                                     : static_cast<long long>(k + kk) * ldb + b_col[j];
          unsigned e = 0u;
          if (valid && k + kk < K) ld_bits<static_cast<int>(sizeof(T)), true>(B + off, &e);
          const int at = b_at(kk, j);
          if constexpr (sizeof(T) == 4)
            bw[at] = e;
          else
            bw[at / 2] |= e << (16 * (at % 2));
        }
    }
  };

  // Multiplies one step: loads A row by row (L1 hits after the first warp) and does KS * TN FMAs each.
  auto fma_step = [&](const unsigned (&bw)[BW], int q, bool valid) {
    const int k = KS * q;
    float af[BM][KS];
    if (PATH == 1 && (OP_A == 0 || BM % 4 == 0)) {
      if (OP_A == 0) {
#pragma unroll
        for (int i = 0; i < BM; ++i) {
          float v[KS];
          if (valid) {
            load_floats<ELEM, KS, false>(A + static_cast<long long>(a_row[i]) * lda + k, v);
          } else {
#pragma unroll
            for (int kk = 0; kk < KS; ++kk) v[kk] = 0.0f;
          }
#pragma unroll
          for (int kk = 0; kk < KS; ++kk) af[i][kk] = v[kk];
        }
      } else {
        // A stored k x m: runs of 4 along m (M % 4 == 0 on this path), KS k-rows.
#pragma unroll
        for (int kk = 0; kk < KS; ++kk)
#pragma unroll
          for (int iv = 0; iv < BM / 4; ++iv) {
            float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            const long long off = static_cast<long long>(k + kk) * lda + min(m0 + 4 * iv, M - 4);
            if (valid) load_floats<ELEM, 4, false>(A + off, v);
#pragma unroll
            for (int e = 0; e < 4; ++e) af[4 * iv + e][kk] = v[e];
          }
      }
    } else {
#pragma unroll
      for (int i = 0; i < BM; ++i)
#pragma unroll
        for (int kk = 0; kk < KS; ++kk) {
          const bool ok = valid && (PATH == 1 || k + kk < K);
          const long long off = OP_A ? static_cast<long long>(k + kk) * lda + a_row[i]
                                     : static_cast<long long>(a_row[i]) * lda + k + kk;
          float v[1] = {0.0f};
          if (ok) load_floats<ELEM, 1, false>(A + off, v);
          af[i][kk] = v[0];
        }
    }
    // Row by row, as for FP32 from the start (a 16-bit element's conversion is the same expression
    // for every row: compiled once).
#pragma unroll
    for (int i = 0; i < BM; ++i)
#pragma unroll
      for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(af[i][kk], element_to_float<ELEM>(bw, b_at(kk, j)), acc[i][j]);
  };

  // Main loop: U steps per iteration, all their B loads issued before the first FMA, so each thread
  // has U * TN 16-byte loads of B in flight. PF = 1 also issues the next iteration's B loads before
  // this iteration's FMAs (register double buffer): at large BM the FMAs of one iteration take about
  // as long as a DRAM round trip, and without it every warp alternates between waiting and computing.
  // Iterations in which every lane of every step is in range carry no checks; the last one checks.
  int t = 0;  // this warp's step counter: step s = wk + WK * t
  auto quad_of = [&](int tt) { return q0 + (wk + WK * tt) * LK + lk; };
  if (PF) {
    if (wk + WK * (U - 1) < full_steps) {
      unsigned bf[U][BW];
#pragma unroll
      for (int u = 0; u < U; ++u) load_b(bf[u], quad_of(u), true);
      while (true) {
        const bool next_full = wk + WK * (t + 2 * U - 1) < full_steps;
        unsigned bn[U][BW];
        if (next_full) {
#pragma unroll
          for (int u = 0; u < U; ++u) load_b(bn[u], quad_of(t + U + u), true);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) fma_step(bf[u], quad_of(t + u), true);
        t += U;
        if (!next_full) break;
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int w = 0; w < BW; ++w) bf[u][w] = bn[u][w];
      }
    }
  } else {
    for (; wk + WK * (t + U - 1) < full_steps; t += U) {
      unsigned bf[U][BW];
#pragma unroll
      for (int u = 0; u < U; ++u) load_b(bf[u], quad_of(t + u), true);
#pragma unroll
      for (int u = 0; u < U; ++u) fma_step(bf[u], quad_of(t + u), true);
    }
  }
  if (wk + WK * t < steps) {
    unsigned bf[U][BW];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int q = quad_of(t + u);
      load_b(bf[u], q, q < q1);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int q = quad_of(t + u);
      fma_step(bf[u], q, q < q1);
    }
  }

  allow_dependent_launch();  // the next kernel may be scheduled; it waits for our writes

  // ---- reduction: lanes along k (shuffles), warps along k (shared memory), splits (workspace) ----
  constexpr int XOR_FIRST = OP_B ? 1 : LN;
  constexpr int XOR_END = OP_B ? LK : 32;
#pragma unroll
  for (int x = XOR_FIRST; x < XOR_END; x *= 2)
#pragma unroll
    for (int i = 0; i < BM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] += __shfl_xor_sync(0xffffffffu, acc[i][j], x);

  // Where the block's sums go: C directly (one split), else this split's slice of the workspace.
  const bool partial = splits > 1;
  float* part = workspace + (static_cast<long long>(blockIdx.y * tiles + tile) * splits + split) * (BM * BN);
  const bool read_c = beta != 0.0f;  // beta == 0 must not read C: it may hold NaN

  auto store = [&](int i, int c, float v) {  // element (i, c) of the block tile
    if (partial) {
      part[i * BN + c] = v;
    } else {
      const int gm = m0 + i, gn = n0 + c;
      if (gm < M && gn < N) {
        typename Out::T* p = C + static_cast<long long>(gm) * ldc + gn;
        Out::store(p, (read_c ? alpha * v + beta * Out::load(p) : alpha * v) + (bias ? Out::load(bias + gn) : 0.0f));
      }
    }
  };

  if (WK == 1) {
    if (lk == 0) {
#pragma unroll
      for (int i = 0; i < BM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) store(i, col_of(j), acc[i][j]);
    }
  } else {
    // Each warp's sums to its own slice, then every thread adds the slices of a few elements in
    // warp order (deterministic).
    __shared__ float red[WK == 1 ? 1 : WK * BM * BN];
    if (lk == 0) {
#pragma unroll
      for (int i = 0; i < BM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) red[(wk * BM + i) * BN + col_of(j)] = acc[i][j];
    }
    __syncthreads();
    for (int e = tid; e < BM * BN; e += THREADS) {
      float v = red[e];
#pragma unroll
      for (int w = 1; w < WK; ++w) v += red[w * BM * BN + e];
      store(e / BN, e % BN, v);
    }
  }
  if (!partial) return;

  // Split-K: the last block of the tile to arrive adds the partial sums in split order.
  unsigned* counter = reinterpret_cast<unsigned*>(workspace + static_cast<long long>(gridDim.y) * tiles * splits * (BM * BN)) +
                      blockIdx.y * tiles + tile;
  if (!last_to_arrive(counter, splits)) return;
  // The workspace is left as it was found, all zeros (the counter above, the partial sums here): the
  // runtime shares one such buffer among every skinny kernel on a stream.
  float* tile_parts = workspace + static_cast<long long>(blockIdx.y * tiles + tile) * splits * (BM * BN);
  for (int e = tid; e < BM * BN; e += THREADS) {
    float v = 0.0f;
    for (int s = 0; s < splits; ++s) {
      v += ld_l2(tile_parts + s * (BM * BN) + e);
      tile_parts[s * (BM * BN) + e] = 0.0f;
    }
    const int gm = m0 + e / BN, gn = n0 + e % BN;
    if (gm >= M || gn >= N) continue;
    typename Out::T* p = C + static_cast<long long>(gm) * ldc + gn;
    Out::store(p, (read_c ? alpha * v + beta * Out::load(p) : alpha * v) + (bias ? Out::load(bias + gn) : 0.0f));
  }
}

}  // namespace skinny
}  // namespace gemmtune
