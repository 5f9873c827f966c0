// FP32 SIMT GEMM template: C = alpha * op(A) * op(B) + beta * C, all matrices row-major, op(X) X or
// X^T (OP_A, OP_B: the operands' layouts in global memory, compile-time), over strided batches
// (gridDim.y entries, entry i at A + i * stride_a, ...; a stride of 0 shares one matrix).
//
// Compiled at run time by NVRTC; one instantiation per tuning candidate, selected with an NVRTC
// name expression such as `gemmtune::sgemm<128,128,8,8,8,4,4,4,3,1,1,4,2,1,0,0,1,1,2>`. The host side
// (runtime/src/kernel_config.cpp) owns the meaning and valid ranges of every parameter and the
// shared-memory size formula; this file must agree with it.
//
// The template is split into parts, included below in the order they depend on each other: the
// PTX wrappers, the block's geometry, the two copy stages (global -> shared, shared -> registers),
// the main loop and the split-K epilogue; this file is the kernel that joins them and stores the
// accumulators. The fragment loader, the main loop and the split-K scaling hold references to the
// kernel's variables, as the lambdas they replaced captured them: that kept every kernel's PTX
// byte for byte the same when the template was split; the copies (OperandCopy) own their values,
// having been rewritten for transposed operands anyway. NVRTC gets one program: the build inlines each `#include` line (cmake/JoinTemplate.cmake) and embeds
// the result, so the compile cache key, a hash of the program, covers every part. The tuner's
// --template takes such a whole program; join a changed tree with
//   cmake -DIN=kernel_templates/sgemm.cuh -DOUT=joined.cuh -P cmake/JoinTemplate.cmake
// scripts/check-template-ptx.sh BASE_REV proves that a reshaping changed no shipped kernel's PTX
// (it needs both revisions to take the same parameters and arguments).
// No standard headers: NVRTC compiles this without a host toolchain.

// Each part needs the ones before it: not to be sorted.
// clang-format off
#include "common/sixteen_bit_c.cuh"
#include "common/bias.cuh"
#include "sgemm/ptx.cuh"
#include "sgemm/shape.cuh"
#include "sgemm/copy_global_to_shared.cuh"
#include "sgemm/copy_shared_to_registers.cuh"
#include "sgemm/mainloop.cuh"
#include "sgemm/epilogue.cuh"
// clang-format on

namespace gemmtune {

// On sm_90 every kernel is a programmatic dependent of the stream's previous kernel, so back-to-
// back launches do not leave the GPU idle in between; each waits for its predecessor's memory
// before its first access (griddepcontrol.wait).
template <int BM, int BN, int BK, int TM, int TN, int WARP_ROWS, int PAD_A, int PAD_B, int STAGES,
          int ASYNC, int TRANSPOSE_A, int VEC, int MIN_BLOCKS, int FMA_ORDER, int SPLIT_ATOMIC, int OP_A, int OP_B,
          int TRANSPOSE_B, int PATH>
__global__ void __launch_bounds__(
    SgemmShape<BM, BN, BK, TM, TN, WARP_ROWS, PAD_A, PAD_B, STAGES, ASYNC, TRANSPOSE_A, VEC, OP_A, OP_B,
               TRANSPOSE_B>::kThreads,
    MIN_BLOCKS)
    sgemm(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
          const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc,
          float* __restrict__ workspace, int swizzle, long long stride_a, long long stride_b,
          long long stride_c, const float* __restrict__ bias) {
  using S =
      SgemmShape<BM, BN, BK, TM, TN, WARP_ROWS, PAD_A, PAD_B, STAGES, ASYNC, TRANSPOSE_A, VEC, OP_A, OP_B, TRANSPOSE_B>;
  extern __shared__ float4 smem_raw[];  // float4: 16-byte alignment for vector accesses
  float* smem = reinterpret_cast<float*>(smem_raw);

  // Atomic split-K adds into C, so C must be set to beta * C + bias first (unless beta is 1 and there
  // is no bias). Given a workspace (of per-tile counters), each tile's first slice does it; otherwise
  // splitk_reduce did it before this kernel (and the host passes no bias).
  const bool atomic = SPLIT_ATOMIC && gridDim.z > 1;
  const bool scales_c = atomic && (beta != 1.0f || bias != nullptr) && workspace != nullptr;
  const bool after_scaling = atomic && beta != 1.0f && workspace == nullptr;
  // Launched as a programmatic dependent on sm_90 (runtime/src/gemm_launch.cpp), so this grid may
  // start while the stream's previous kernel still runs: wait for it before the first access to
  // memory. Atomic split-K behind its scaling kernel waits later, before its first addition: that
  // kernel itself waited for everything before it, and the main loop overlaps the scaling.
  if (!after_scaling) detail::wait_for_prior_grid();

  // Block swizzle: walk `swizzle` block rows at a time so neighbouring blocks share A and B in L2.
  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  const int pid = blockIdx.x;
  const int per_group = swizzle * tiles_n;
  const int first_m = (pid / per_group) * swizzle;
  const int group_rows = min(tiles_m - first_m, swizzle);
  const int tile_m = first_m + (pid % per_group) % group_rows;
  const int tile_n = (pid % per_group) / group_rows;
  const int m0 = tile_m * BM;
  const int n0 = tile_n * BN;
  // This block's batch entry; split-K's workspace holds a counter per tile of every entry.
  A += blockIdx.y * stride_a;
  B += blockIdx.y * stride_b;
  C += blockIdx.y * stride_c;
  unsigned long long* const counter =
      reinterpret_cast<unsigned long long*>(workspace) + blockIdx.y * gridDim.x + pid;  // if scales_c
  unsigned long long ticket = 0;  // thread 0's, from count_in

  // This block's share of K (split-K), rounded to whole BK tiles.
  const int k_tiles_total = (K + BK - 1) / BK;
  const int k_tiles_per_split = (k_tiles_total + gridDim.z - 1) / gridDim.z;
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles_total, kt_begin + k_tiles_per_split);
  const int k_tiles = max(0, kt_end - kt_begin);

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int warp_m = warp / S::kWarpsN;
  const int warp_n = warp % S::kWarpsN;
  const int lane_r = lane / S::kWarpCols;
  const int lane_c = lane % S::kWarpCols;
  // First row/column of this thread's runs inside the block tile; runs repeat every kStrideRunM/N.
  const int row_base = warp_m * TM * WARP_ROWS + lane_r * S::kRunM;
  const int col_base = warp_n * TN * S::kWarpCols + lane_c * S::kRunN;

  // Vector loads need the whole vector in bounds and 16-byte (or 8-byte) alignment; checked once.
  const bool a_vec_ok = VEC > 1 && lda % VEC == 0 && detail::aligned_to(A, 4 * VEC);
  const bool b_vec_ok = VEC > 1 && ldb % VEC == 0 && detail::aligned_to(B, 4 * VEC);
  // PATH (runtime/src/kernel_config.hpp, KernelPath), chosen by the host per call: 0 serves every
  // call; 1, whole vectors (the common case): both operands are aligned as above in every batch
  // entry and the stored rows' lengths (K or M for A, N or K for B) are multiples of VEC too, so
  // every VEC-float piece of a tile is entirely inside or entirely outside the matrix. Each load is
  // then one predicated vector access, and the main loop has no branches: branches are walls the
  // instruction scheduler cannot move loads across, and a block of loads that cannot be spread
  // among the FMAs stalls the few warps an SM holds. Otherwise the general path checks every
  // element. 2, whole tiles: whole vectors, and C aligned with N a multiple of BN, so the epilogue
  // stores every run as a vector without checks. A binary holds one main loop and one epilogue:
  // all of them took twice the compile time (kernel_path_for, runtime/src/kernel_path.cpp, decides).
  static_assert(PATH == 0 || VEC > 1, "whole vectors need VEC > 1");
  static_assert(PATH < 2 || S::kRunN == 4, "whole tiles store runs of 4");
  // ---- global -> shared copies (sgemm/copy_global_to_shared.cuh) ---------------------------
  detail::OperandCopy<S, detail::OperandA<S>> copy_a(A, lda, m0, M, K, tid, a_vec_ok);
  detail::OperandCopy<S, detail::OperandB<S>> copy_b(B, ldb, n0, N, K, tid, b_vec_ok);
  detail::GlobalToShared<S> copy{copy_a, copy_b, smem};

  // ---- main loop (sgemm/mainloop.cuh) -------------------------------------------------------
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  detail::FragmentLoader<S> load_fragments{smem, row_base, col_base};
  detail::FragmentMultiplier<S, FMA_ORDER> multiply_fragments{acc};
  detail::Fragments<S> frag[2];
  detail::AtomicSplitKScaling<S, SPLIT_ATOMIC> scaling{scales_c, C, ldc, M, N, m0, n0, beta, bias, tid, ticket, counter};
  detail::MainLoop<S, detail::FragmentMultiplier<S, FMA_ORDER>, detail::AtomicSplitKScaling<S, SPLIT_ATOMIC>>
      main_loop{copy, load_fragments, multiply_fragments, scaling, frag, kt_begin, k_tiles};
  main_loop(detail::Flag<PATH != 0>{});
  if constexpr (ASYNC) detail::cp_async_wait<0>();

  // ---- epilogue (split-K: sgemm/epilogue.cuh) ----------------------------------------------
  // Here, not in a function of its own: moved into one, it compiled to different PTX for atomic
  // split-K (registers numbered in another order), and scripts/check-template-ptx.sh demands
  // identical PTX.
  // Split-K: raw partial sums to workspace[z][M][N], and splitk_reduce applies alpha and beta; or,
  // SPLIT_ATOMIC, alpha * partial added atomically to C once C is scaled by beta.
  detail::allow_dependent_launch();  // the next kernel may be scheduled now; it waits for our writes
  const bool partial = !SPLIT_ATOMIC && gridDim.z > 1;
  if constexpr (SPLIT_ATOMIC) {
    if (scales_c) detail::wait_for_scaled_tile(counter, ticket);
    if (after_scaling) detail::wait_for_prior_grid();
  }
  // Partial sums: workspace[z][batch entry][M][N].
  float* out = partial ? workspace + (static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y) * M * N : C;
  const int ldo = partial ? N : ldc;
  const bool out_vec_ok = ldo % 4 == 0 && detail::aligned_to(out, 16);
  const float scale = partial ? 1.0f : alpha;
  const bool read_c = !partial && !atomic && beta != 0.0f;  // beta == 0 must not read C: it may hold NaN
  // Run by run: a run of 4 that lies inside and aligned is one vector access, others float by float.
  // Whole tiles (PATH 2) know every run is such a vector.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int gm = m0 + row_base + (i / S::kRunM) * S::kStrideRunM + i % S::kRunM;
    if (gm >= M) continue;
    float* row = out + static_cast<long long>(gm) * ldo;
#pragma unroll
    for (int run = 0; run < TN / S::kRunN; ++run) {
      const int gn = n0 + col_base + run * S::kStrideRunN;
      const int j0 = run * S::kRunN;
      if (PATH == 2 || (S::kRunN == 4 && out_vec_ok && gn + 4 <= N)) {
        float4 r = make_float4(scale * acc[i][j0], scale * acc[i][j0 + 1], scale * acc[i][j0 + 2],
                               scale * acc[i][j0 + 3]);
        if (read_c) {
          const float4 c = *reinterpret_cast<const float4*>(row + gn);
          r.x += beta * c.x, r.y += beta * c.y, r.z += beta * c.z, r.w += beta * c.w;
        }
        if (!atomic && bias != nullptr) {  // partial slices get none; atomic ones' first slice added it
          r.x += bias[gn], r.y += bias[gn + 1], r.z += bias[gn + 2], r.w += bias[gn + 3];
        }
        if (atomic) {
          detail::atomic_add_f32x4(row + gn, r);
        } else {
          *reinterpret_cast<float4*>(row + gn) = r;
        }
      } else {
#pragma unroll
        for (int j = 0; j < S::kRunN; ++j) {
          if (gn + j < N) {
            const float r = scale * acc[i][j0 + j];
            if (atomic) {
              detail::atomic_add_f32(row + gn + j, r);
            } else {
              row[gn + j] = (read_c ? r + beta * row[gn + j] : r) + c16::bias_at<false>(bias, gn + j);
            }
          }
        }
      }
    }
  }
}

}  // namespace gemmtune
