// Skinny family, part 3: the shared-memory tiled kernel, for 8 to 32 rows of C. At 16 FMAs per byte
// of B (m = 32) the FP32 pipe is as busy as the memory system, and the stream kernel (every thread
// holding all BM rows, B loads waiting in registers) runs out of registers and warps. Here A and B
// tiles stream into shared memory through a STAGES-deep cp.async pipeline (the memory latency
// overlaps the FMAs of earlier stages, however few warps fit), and each thread computes a TM x TN
// piece of the BM x BN block tile from 16-byte shared-memory reads. KG groups of threads split each
// stage's BK and add their sums at the end. MINB: resident blocks per SM for __launch_bounds__.
//
// Shared memory (dynamic, bytes): STAGES * (BM * (BK + 4) + (OP_B ? BN * (BK + 4) : BK * (BN + 4))) * 4.
// Threads: (BM / TM) * (BN / TN) * KG. Grid as the stream kernel's: x = tiles_m * tiles_n * splits,
// y = batch entries. Split-K (splits > 1) adds each block's tile into the workspace with vector
// reductions (fire and forget, so a split's tail is short); the last block of the tile (a counter)
// reads the sum, writes C and zeroes the tile again. The order of the additions across splits is not
// fixed: not bitwise reproducible (GEMMTUNE_DETERMINISTIC=1 runs these kernels unsplit).
// Workspace: batch * tiles * BM * BN floats, then batch * tiles unsigned counters; all zero before
// the launch and after it.

namespace gemmtune {
namespace skinny {

template <int OP_A, int OP_B, int BM, int BN, int BK, int TM, int TN, int STAGES, int KG>
struct TiledShape {
  static constexpr int kThreads = (BM / TM) * (BN / TN) * KG;
  static constexpr int kLdA = BK + 4;                       // As[m][k], k contiguous (+4: no bank conflicts)
  static constexpr int kLdB = OP_B ? BK + 4 : BN + 4;       // Bs[n][k] (nt) or Bs[k][n] (nn)
  static constexpr int kStageA = BM * kLdA;
  static constexpr int kStageB = OP_B ? BN * kLdB : BK * kLdB;
  static constexpr int kSmemBytes = STAGES * (kStageA + kStageB) * 4;
};

// MINB: resident blocks per SM the register allocation must allow (__launch_bounds__): without it the
// compiler hoists a whole stage's shared-memory reads into registers and leaves one block per SM.
template <int OP_A, int OP_B, int BM, int BN, int BK, int TM, int TN, int STAGES, int KG, int MINB, int PATH>
__global__ void __launch_bounds__((BM / TM) * (BN / TN) * KG, MINB)
    tiled(int M, int N, int K, float alpha, const float* __restrict__ A, int lda, const float* __restrict__ B,
          int ldb, float beta, float* __restrict__ C, int ldc, float* __restrict__ workspace, int splits,
          long long stride_a, long long stride_b, long long stride_c, const float* __restrict__ bias) {
  using S = TiledShape<OP_A, OP_B, BM, BN, BK, TM, TN, STAGES, KG>;
  constexpr int THREADS = S::kThreads;
  constexpr int GM = BM / TM, GN = BN / TN;  // thread groups along m and n
  static_assert(BK % 4 == 0 && BM % TM == 0 && BN % TN == 0 && (OP_B || TN % 4 == 0), "tile");
  static_assert(STAGES >= 2, "pipeline");
  static_assert((BK / 4) % KG == 0, "each k-group takes whole quads of a stage");
  static_assert(THREADS % (BK / 4) == 0 && THREADS % (BN / 4) == 0 || PATH == 0, "vector copies: whole rows per pass");
  static_assert((KG - 1) * BM * BN * 4 <= S::kSmemBytes, "k-group reduction reuses the pipeline's shared memory");
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);

  const BlockTile at = block_tile<BM, BN>(M, N, splits);
  const int tiles = at.tiles, tile = at.tile, split = at.split, m0 = at.m0, n0 = at.n0;
  A += blockIdx.y * stride_a;
  B += blockIdx.y * stride_b;
  C += blockIdx.y * stride_c;
  wait_for_prior_grid();

  const int tid = threadIdx.x;
  // Thread (tm, tn); its rows tm, tm + GM, ... and columns interleaved the same way, so that the
  // threads of a warp read adjacent shared-memory rows (distinct banks) and share the rest.
  // KG groups of GM * GN threads split each stage's k (quads g * BK / 4 / KG ...), summed at the end.
  const int g = tid / (GM * GN), r_in_group = tid % (GM * GN);
  const int tm = r_in_group % GM, tn = r_in_group / GM;
  auto col_of = [&](int j) { return OP_B ? j * GN + tn : (j / 4) * (4 * GN) + tn * 4 + (j % 4); };

  // This split's k-tiles.
  const int KT = (K + BK - 1) / BK;
  const int per = (KT + splits - 1) / splits;
  const int kt0 = min(KT, split * per);
  const int kt1 = min(KT, kt0 + per);
  const int nkt = kt1 - kt0;

  // ---- global -> shared copy of k-tile kt into stage st --------------------------------------
  auto load_tile = [&](int kt, int st) {
    float* As = smem + st * S::kStageA;
    float* Bs = smem + STAGES * S::kStageA + st * S::kStageB;
    const int k0 = kt * BK;
    // A: BM x BK into As[m][k].
    // Vector copies: a thread keeps one 16-byte column of the tile and walks down its rows, so the
    // row and column arithmetic is done once per thread, not per chunk.
    if (PATH == 1 && OP_A == 0) {
      constexpr int CPR = BK / 4;  // chunks per row
      const int kq = tid % CPR;
      const int k = k0 + 4 * kq;
      const bool in = k < K;
      const float* src = A + min(k, K - 4);
#pragma unroll
      for (int m = tid / CPR; m < BM; m += THREADS / CPR)
        cp_async16(As + m * S::kLdA + 4 * kq, src + static_cast<long long>(min(m0 + m, M - 1)) * lda, in);
    } else {
      // Scalar (A stored k x m, or the general path): consecutive threads take consecutive elements
      // of a stored row.
      for (int e = tid; e < BM * BK; e += THREADS) {
        int m, kk;
        if (OP_A) m = e % BM, kk = e / BM;
        else m = e / BK, kk = e % BK;
        const int k = k0 + kk;
        const int gm = min(m0 + m, M - 1);
        const int gk = min(k, K - 1);
        const long long off = OP_A ? static_cast<long long>(gk) * lda + gm : static_cast<long long>(gm) * lda + gk;
        cp_async4(As + m * S::kLdA + kk, A + off, k < K);
      }
    }
    // B
    if (PATH == 1) {
      if (OP_B) {  // Bs[n][k] from B rows (n x k)
        constexpr int CPR = BK / 4;
        const int kq = tid % CPR;
        const int k = k0 + 4 * kq;
        const bool in = k < K;
        const float* src = B + min(k, K - 4);
#pragma unroll
        for (int n = tid / CPR; n < BN; n += THREADS / CPR)
          cp_async16(Bs + n * S::kLdB + 4 * kq, src + static_cast<long long>(min(n0 + n, N - 1)) * ldb, in);
      } else {  // Bs[k][n] from B rows (k x n)
        constexpr int CPR = BN / 4;
        const int nq = tid % CPR;
        const float* src = B + min(n0 + 4 * nq, N - 4);
#pragma unroll
        for (int kk = tid / CPR; kk < BK; kk += THREADS / CPR) {
          const int k = k0 + kk;
          cp_async16(Bs + kk * S::kLdB + 4 * nq, src + static_cast<long long>(min(k, K - 1)) * ldb, k < K);
        }
      }
    } else {
      for (int e = tid; e < BN * BK; e += THREADS) {
        int n, kk;
        if (OP_B) n = e / BK, kk = e % BK;
        else n = e % BN, kk = e / BN;
        const int k = k0 + kk;
        const int gn = min(n0 + n, N - 1), gk = min(k, K - 1);
        const long long off = OP_B ? static_cast<long long>(gn) * ldb + gk : static_cast<long long>(gk) * ldb + gn;
        cp_async4(Bs + (OP_B ? n * S::kLdB + kk : kk * S::kLdB + n), B + off, k < K);
      }
    }
  };

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // ---- pipeline: STAGES - 1 tiles in flight while one is multiplied ---------------------------
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < nkt) load_tile(kt0 + s, s);
    cp_async_commit();  // empty groups keep the count uniform
  }
  for (int t = 0; t < nkt; ++t) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // tile t visible to all; everyone is done with the stage about to be refilled
    if (t + STAGES - 1 < nkt) load_tile(kt0 + t + STAGES - 1, (t + STAGES - 1) % STAGES);
    cp_async_commit();
    const float* As = smem + (t % STAGES) * S::kStageA;
    const float* Bs = smem + STAGES * S::kStageA + (t % STAGES) * S::kStageB;
#pragma unroll
    for (int kq2 = 0; kq2 < BK / 4 / KG; ++kq2) {
      const int kq = g * (BK / 4 / KG) + kq2;
      float bf[4][TN];
      if (OP_B) {
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const float4 v = *reinterpret_cast<const float4*>(Bs + (j * GN + tn) * S::kLdB + 4 * kq);
          bf[0][j] = v.x, bf[1][j] = v.y, bf[2][j] = v.z, bf[3][j] = v.w;
        }
      } else {
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
          for (int jv = 0; jv < TN / 4; ++jv) {
            const float4 v = *reinterpret_cast<const float4*>(Bs + (4 * kq + kk) * S::kLdB + jv * 4 * GN + tn * 4);
            bf[kk][4 * jv] = v.x, bf[kk][4 * jv + 1] = v.y, bf[kk][4 * jv + 2] = v.z, bf[kk][4 * jv + 3] = v.w;
          }
      }
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const float4 a = *reinterpret_cast<const float4*>(As + (i * GM + tm) * S::kLdA + 4 * kq);
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          acc[i][j] = fmaf(a.x, bf[0][j], acc[i][j]);
          acc[i][j] = fmaf(a.y, bf[1][j], acc[i][j]);
          acc[i][j] = fmaf(a.z, bf[2][j], acc[i][j]);
          acc[i][j] = fmaf(a.w, bf[3][j], acc[i][j]);
        }
      }
    }
  }
  cp_async_wait<0>();
  allow_dependent_launch();  // the next kernel may be scheduled; it waits for our writes
  if (KG > 1) {
    // Groups 1.. hand their sums to group 0 through the (now idle) pipeline buffers.
    __syncthreads();
    if (g > 0) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) smem[(((g - 1) * TM + i) * TN + j) * (GM * GN) + r_in_group] = acc[i][j];
    }
    __syncthreads();
    if (g == 0) {
      for (int h = 1; h < KG; ++h)
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] += smem[(((h - 1) * TM + i) * TN + j) * (GM * GN) + r_in_group];
    }
  }
  const bool owner = g == 0;  // the threads that hold the block's sums

  // ---- epilogue ------------------------------------------------------------------------------
  const bool read_c = beta != 0.0f;  // beta == 0 must not read C: it may hold NaN
  auto store_c = [&](int gm, int gn, float v) {
    if (gm < M && gn < N) {
      float* p = C + static_cast<long long>(gm) * ldc + gn;
      *p = (read_c ? alpha * v + beta * *p : alpha * v) + (bias ? bias[gn] : 0.0f);
    }
  };
  if (splits == 1) {
    if (!owner) return;  // no barrier follows on this path
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) store_c(m0 + i * GM + tm, n0 + col_of(j), acc[i][j]);
    return;
  }
  // Split-K: add into the tile's workspace sum, 4 columns at a time where they are adjacent (nn),
  // else element by element.
  float* sum = workspace + static_cast<long long>(blockIdx.y * tiles + tile) * (BM * BN);
#pragma unroll
  for (int i = 0; i < TM && owner; ++i) {
    const int r = i * GM + tm;
    if (!OP_B) {
#pragma unroll
      for (int jv = 0; jv < TN / 4; ++jv)
        red_add_f32x4(sum + r * BN + col_of(4 * jv),
                      make_float4(acc[i][4 * jv], acc[i][4 * jv + 1], acc[i][4 * jv + 2], acc[i][4 * jv + 3]));
    } else {
#pragma unroll
      for (int j = 0; j < TN; ++j) atomicAdd(sum + r * BN + col_of(j), acc[i][j]);
    }
  }
  unsigned* counter = reinterpret_cast<unsigned*>(workspace + static_cast<long long>(gridDim.y) * tiles * (BM * BN)) +
                      blockIdx.y * tiles + tile;
  if (!last_to_arrive(counter, splits)) return;
  for (int e4 = tid; e4 < BM * BN / 4; e4 += THREADS) {
    float4 v;
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(sum + 4 * e4)
                 : "memory");
    *reinterpret_cast<float4*>(sum + 4 * e4) = make_float4(0.f, 0.f, 0.f, 0.f);  // zero for the next launch
    const int r = (4 * e4) / BN, c = (4 * e4) % BN;
    store_c(m0 + r, n0 + c, v.x);
    store_c(m0 + r, n0 + c + 1, v.y);
    store_c(m0 + r, n0 + c + 2, v.z);
    store_c(m0 + r, n0 + c + 3, v.w);
  }
}

}  // namespace skinny
}  // namespace gemmtune
