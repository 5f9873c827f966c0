// Tensor-core GEMM family (mma.sync, sm_80 and newer; fp16 from sm_75, mma/ptx.cuh says how):
// C = alpha * op(A) * op(B) + beta * C, C row-major, over strided batches (gridDim.y entries; a
// stride of 0 shares one matrix) and split-K (gridDim.z slices). C is FP32, or with C16 the 16-bit
// operands' own type (the sums stay FP32; the store rounds). One template serves four precisions
// (MODE; the host's Precision in brackets):
//   0 tf32    [tf32]   FP32 in, each operand rounded to TF32 (cvt.rna) on the fly; FP32 accumulation.
//   1 3xtf32  [3xtf32] FP32 in, each operand x split into big = tf32(x) and small = x - big; the
//             product is small*big + big*small + big*big, and the long sums stay outside the tensor
//             core (its FP32 accumulation truncates): FP32-level accuracy at three mma per product.
//   2 bf16    [bf16]   bfloat16 in (raw bits), FP32 accumulation.
//   3 fp16    [fp16]   half in (raw bits), FP32 accumulation.
// The tiles keep their input type in shared memory; rounding and the split happen in registers after
// the fragment loads, so 3xtf32 moves no more bytes than tf32.
//
// Layouts: OP_A = 0: A is M x K row-major (lda >= K); 1: A is stored K x M (lda >= M). OP_B = 0: B is
// K x N (ldb >= N); 1: B is stored N x K (ldb >= K). Tiles keep the stored layout in shared memory
// (plain 16-byte row copies); the fragment loads transpose where the mma fragments need it.
// PATH (the host's KernelPath): 1, whole vectors: A and B (pointers, leading dimensions, batch
// strides) on 16-byte boundaries, one cp.async of 16 bytes per chunk; 0, general: any leading
// dimension (FP32 by 4-byte cp.async, 16-bit element by element through registers).
//
// The parts, in the order they depend on each other: the PTX wrappers, the block's geometry, the
// global -> shared copies, the fragment loads and the mma of each precision. It began as the
// measured spike of scripts/spikes/tensor-core/ (NOTES.md there has the H100 numbers behind every
// choice). Compiled at run time by NVRTC, one instantiation per candidate, named by an expression
// such as `gemmtune::mma_gemm<1,128,128,32,32,64,3,0,0,1,1,0,0>`; the host side (core/kernel_config.cpp)
// owns the parameters' meaning and ranges, shared-memory sizes and thread counts. No standard headers.

// Each part needs the ones before it: not to be sorted.
// clang-format off
#include "common/sixteen_bit_c.cuh"
#include "common/bias.cuh"
#include "mma/ptx.cuh"
#include "mma/shape.cuh"
#include "mma/copy_global_to_shared.cuh"
#include "mma/fragments.cuh"
// clang-format on

namespace gemmtune {
namespace mma {

// One run of the epilogue with a 16-bit C (mma_gemm's C16): RUN values v of a row from column col.
// Not split: v + beta * C (C read only where read_c) rounded to nearest even, as pairs packed into
// one store where vec_ok (ldc and C's address allow the run's width) and the run lies inside N, else
// element by element inside N. Split: v, this slice's raw sums, into its row of the FP32 workspace.
template <bool BF16, int RUN>
__device__ __forceinline__ void store_run_16(const float (&v)[RUN], unsigned short* crow, int col, int N,
                                             bool vec_ok, bool read_c, float beta, bool split, float* srow,
                                             bool srow_vec_ok) {
  if (split) {
    if (srow_vec_ok && col + RUN <= N) {
      if constexpr (RUN == 4) {
        *reinterpret_cast<float4*>(srow + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
        *reinterpret_cast<float2*>(srow + col) = make_float2(v[0], v[1]);
      }
    } else {
#pragma unroll
      for (int w = 0; w < RUN; ++w)
        if (col + w < N) srow[col + w] = v[w];
    }
  } else if (vec_ok && col + RUN <= N) {
    unsigned words[RUN / 2];  // pairs of 16-bit elements, the lower column in the low half
    if (read_c) {
      if constexpr (RUN == 4) {
        const uint2 c = *reinterpret_cast<const uint2*>(crow + col);
        words[0] = c.x, words[1] = c.y;
      } else {
        words[0] = *reinterpret_cast<const unsigned*>(crow + col);
      }
    }
#pragma unroll
    for (int e = 0; e < RUN / 2; ++e) {
      float lo = v[2 * e], hi = v[2 * e + 1];
      if (read_c) {
        lo += beta * c16::widen_16<BF16>(static_cast<unsigned short>(words[e] & 0xffffu));
        hi += beta * c16::widen_16<BF16>(static_cast<unsigned short>(words[e] >> 16));
      }
      words[e] = c16::round_pair_to_16<BF16>(lo, hi);
    }
    if constexpr (RUN == 4) {
      *reinterpret_cast<uint2*>(crow + col) = make_uint2(words[0], words[1]);
    } else {
      *reinterpret_cast<unsigned*>(crow + col) = words[0];
    }
  } else {
#pragma unroll
    for (int w = 0; w < RUN; ++w)
      if (col + w < N)
        crow[col + w] = c16::round_to_16<BF16>(read_c ? v[w] + beta * c16::widen_16<BF16>(crow[col + w]) : v[w]);
  }
}

}  // namespace mma

// MODE       0 tf32, 1 3xtf32, 2 bf16, 3 fp16 (see the top of the file)
// BM, BN, BK block tile; WM, WN warp tile (multiples of 16; FP32 with OP_B = 0: WN in {32, 64, 128});
//            threads = 32 * (BM/WM) * (BN/WN)
// STAGES     cp.async pipeline depth (>= 2); dynamic shared memory = MmaShape<...>::kSmemBytes
//            = STAGES * (BM*BK + BK*BN) * sizeof(element)
// OP_A, OP_B 0: stored as in the product (A m x k, B k x n); 1: stored transposed (A k x m, B n x k)
// PATH       1: whole 16-byte vectors (A and B aligned); 0: any leading dimension
// MIN_BLOCKS __launch_bounds__ minimum blocks per SM (caps registers at 64K / (threads * MIN_BLOCKS))
// ROUND_SPLIT 3xtf32 only: 1 rounds both parts (big by cvt.rna, small by integer arithmetic: CVT 1 of
//            the spike), 0 rounds big by integer arithmetic and leaves small to the tensor core's
//            truncation (CVT 3): about 10% faster; small loses at most one bit (mma/fragments.cuh).
//            The error at small K follows BK instead, the length of the tensor core's truncating sums
//            (H100, 2026-11-26, 512^3: 2.4e-7 with BK 32, 4.6e-7 with 64, SGEMM 2.1e-7; BK 16 is
//            predicted to pass: docs/kernel-notes.md, session 37). The tuner's check decides per problem.
// C16        0: C is FP32; 1: C holds the operands' 16-bit type (MODE 2 bf16, 3 fp16), as raw bits:
//            each element rounded to nearest even once, from alpha * acc + beta * C in FP32
// 3xtf32 accumulates each k tile's products in a second accumulator and adds it into the first once
// a tile (ACC 2 of the spike). tf32 rounds with cvt.rna (integer rounding made its loop issue-bound).
// Arguments are the sgemm template's, bias last (common/bias.cuh): `swizzle` is the block swizzle
// (tile rows walked together, for L2 reuse). Grid: x = tiles_m * tiles_n, y = batch entries, z = K slices.
// With gridDim.z > 1 and an FP32 C each slice adds alpha * (its partial product) to C atomically:
// the host scales C by beta first (a kernel over C), and beta is ignored here; `workspace` is unused.
// With a 16-bit C each slice stores its raw partial sums (no alpha, no beta) into its own FP32 slice
// of `workspace`, [gridDim.z][gridDim.y][M][N]; the host's splitk_reduce then adds the slices, applies
// alpha and beta and rounds once (adding into 16-bit C would round every slice's sum).
template <int MODE, int BM, int BN, int BK, int WM, int WN, int STAGES, int OP_A, int OP_B, int PATH,
          int MIN_BLOCKS, int ROUND_SPLIT, int C16>
__global__ void __launch_bounds__(mma::MmaShape<MODE, BM, BN, BK, WM, WN, STAGES, OP_A, OP_B>::kThreads,
                                  MIN_BLOCKS)
    mma_gemm(int M, int N, int K, float alpha, const typename mma::Precision<MODE>::Elem* __restrict__ A,
             int lda, const typename mma::Precision<MODE>::Elem* __restrict__ B, int ldb, float beta,
             typename mma::OutputC<MODE, C16>::Elem* __restrict__ C, int ldc, float* workspace, int swizzle,
             long long stride_a, long long stride_b, long long stride_c,
             const typename mma::OutputC<MODE, C16>::Elem* __restrict__ bias) {
  constexpr int ACC = MODE == 1 ? 2 : 0;
  static_assert(ROUND_SPLIT == 0 || MODE == 1, "ROUND_SPLIT applies to 3xtf32 only");
  constexpr int CVT = MODE == 1 ? (ROUND_SPLIT ? 1 : 3) : 0;
  constexpr int ALIGNED = PATH;
  const int GROUP_M = swizzle < 1 ? 1 : swizzle;
#if __CUDA_ARCH__ >= 900
  // Launched as a programmatic dependent (core/gemm_launch.cpp): wait for the stream's previous
  // kernel before touching memory. Unlike the wgmma kernels, these do not let the next grid launch
  // early (griddepcontrol.launch_dependents before the epilogue): H200, 2026-11-29, that cost 512^3
  // bf16 4.6% and tf32's split-K skinny shapes 1-1.6%, and gained bf16 decode rows 1%
  // (scripts/spikes/small-tc/ab-mma-run.sh).
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  using S = mma::MmaShape<MODE, BM, BN, BK, WM, WN, STAGES, OP_A, OP_B>;
  using Elem = typename S::Elem;
  using Out = mma::OutputC<MODE, C16>;
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
  // A 16-bit C takes the same runs rounded and packed in pairs: 4-byte stores (8 for runs of 4), where
  // ldc and C's address allow, else 2-byte ones; its split-K slices go to the workspace as floats.
  const int g = lane >> 2;
  const int t = lane & 3;
  const bool split = gridDim.z > 1;
  const bool read_c = !split && beta != 0.0f;  // beta == 0 must not read C: it may hold NaN
  const unsigned long long c_addr = reinterpret_cast<unsigned long long>(C);
  constexpr int kRun = S::kPermuteN ? 4 : 2;  // elements per vector store
  const bool vec_ok = (ldc % kRun == 0) && (c_addr % (sizeof(*C) * kRun) == 0);
  // 16-bit C, split: this slice's [M][N] of the workspace, whose rows are whole runs when N allows.
  float* const slice =
      C16 ? workspace + static_cast<long long>(blockIdx.z * gridDim.y + blockIdx.y) * M * N : nullptr;
  const bool slice_vec_ok =
      N % kRun == 0 && reinterpret_cast<unsigned long long>(workspace) % (4 * kRun) == 0;
  const float scale = C16 && split ? 1.0f : alpha;  // the reduction applies alpha to a 16-bit C's slices
#pragma unroll
  for (int i = 0; i < kMT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m0 + wm0 + i * 16 + g + 8 * h;
      if (row >= M) continue;
      typename Out::Elem* crow = C + static_cast<long long>(row) * ldc;
      // Run q of the lane's runs in this row: kRun values v[0..kRun-1] starting at column col.
#pragma unroll
      for (int q = 0; q < kNT * 2 / kRun; ++q) {
        float v[kRun];
        int col;
        if constexpr (S::kPermuteN) {
          const int e = q / (kNT / 4);       // mma column 2t + e
          const int j0 = 4 * (q % (kNT / 4));  // n-tiles j0 .. j0 + 3
          col = n0 + wn0 + (2 * t + e) * kNT + j0;
#pragma unroll
          for (int w = 0; w < 4; ++w) v[w] = scale * acc[i][j0 + w][2 * h + e];
        } else {
          col = n0 + wn0 + q * 8 + 2 * t;
          v[0] = scale * acc[i][q][2 * h];
          v[1] = scale * acc[i][q][2 * h + 1];
        }
        if (!split) {  // the host gives split-K's slices no bias (common/bias.cuh)
#pragma unroll
          for (int w = 0; w < kRun; ++w)
            if (col + w < N) v[w] += c16::bias_at<MODE == 2>(bias, col + w);
        }
        if constexpr (C16) {
          mma::store_run_16<MODE == 2, kRun>(v, crow, col, N, vec_ok, read_c, beta, split,
                                             slice + static_cast<long long>(row) * N, slice_vec_ok);
        } else if (split && vec_ok && col + kRun <= N) {
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
