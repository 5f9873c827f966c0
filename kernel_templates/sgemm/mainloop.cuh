// The main loop: the software pipeline that streams the A and B tiles of the block's share of K
// through shared memory (copy_global_to_shared.cuh) and registers (copy_shared_to_registers.cuh)
// into the FMAs on the accumulators. Its pieces hold references to the kernel's variables, as the
// lambdas they once were captured them (sgemm.cuh says why).

namespace gemmtune {
namespace detail {

// One step's FMAs into the accumulators. FMA_ORDER (runtime/src/kernel_config.hpp): 0 row by row;
// 1 rows, odd ones reversed; 2 columns, odd ones reversed. Serpentine orders start each row
// (column) on the operand the last one ended on, which the register reuse cache can then serve.
// The fastest order depends on the tile.
template <class S, int FMA_ORDER>
struct FragmentMultiplier {
  enum : int { TM = S::kTM, TN = S::kTN, KRUN = S::kRunK };  // the kernel's names
  float (&acc)[TM][TN];

  __device__ void operator()(const Fragments<S>& f) {
#pragma unroll
    for (int kk = 0; kk < KRUN; ++kk) {
      if constexpr (FMA_ORDER == 2) {
#pragma unroll
        for (int j = 0; j < TN; ++j)
#pragma unroll
          for (int r = 0; r < TM; ++r) {
            const int i = j % 2 ? TM - 1 - r : r;
            acc[i][j] = fmaf(f.a[i][kk], f.b[kk][j], acc[i][j]);
          }
      } else {
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int c = 0; c < TN; ++c) {
            const int j = FMA_ORDER == 1 && i % 2 ? TN - 1 - c : c;
            acc[i][j] = fmaf(f.a[i][kk], f.b[kk][j], acc[i][j]);
          }
      }
    }
  }
};

// Software-pipelined at two levels. Tiles: without ASYNC tile t + 1 is fetched into registers while
// tile t is computed, then stored to shared memory: STAGES == 2 alternates two buffers (one barrier
// per tile), STAGES == 1 reuses one (two barriers); with ASYNC (cp.async, sm_80+), tile
// t + STAGES - 1 is in flight, STAGES buffers in all. Fragments: step s + 1's fragments are read
// from shared memory while step s's FMAs run, and across the tile boundary too: the next tile is
// made visible (store + barrier, or wait + barrier) before the last step's FMAs, so the barrier and
// the first shared-memory reads of the next tile hide behind those FMAs; double-buffered in
// registers (frag).
// Stage reuse is safe with one barrier per tile (two with one stage): a stage's last reads are the
// fragments of its last step, issued before the barrier that precedes any write to it.
template <class S, class Multiplier, class Scaling>
struct MainLoop {
  // The kernel's names for these constants.
  enum : int { STAGES = S::kStages, ASYNC = S::kAsync, KRUN = S::kRunK, kSteps = S::kSteps };
  GlobalToShared<S>& copy;
  FragmentLoader<S>& load_fragments;
  Multiplier& multiply_fragments;
  // Atomic split-K's work in the prologue (epilogue.cuh), overlapped with the first tiles' loads.
  Scaling& scaling;
  Fragments<S> (&frag)[2];
  const int& kt_begin;  // the block's first tile of K
  const int& k_tiles;   // and how many

  __device__ static int stage_of(int t) { return t % STAGES; }

  __device__ void publish_tile(int t) {  // make tile t visible in shared memory to the whole block
    if constexpr (ASYNC) {
      cp_async_wait<STAGES - 2>();
    } else {
      if constexpr (STAGES == 1) __syncthreads();  // the only stage is still being read
      copy.store_regs(stage_of(t));
    }
    __syncthreads();
  }

  // Runs the block's tiles into the accumulators. `whole` (a Flag): the whole-vector copies
  // (copy_global_to_shared.cuh).
  // The loop body has no data-dependent branches: past the last tile, fetches are dead (zeros)
  // and the extra publish is harmless, which lets the scheduler spread loads among the FMAs.
  template <class Whole>
  __device__ void operator()(Whole whole) {
    auto prefetch_tile = [&](int t) {  // start bringing the tile the pipeline needs next
      if constexpr (ASYNC) {
        const int next = t + STAGES - 1;
        copy.issue_async(kt_begin + next, stage_of(next), next < k_tiles, whole);
        cp_async_commit();  // even when empty, so wait_group counts stay fixed
      } else {
        copy.fetch_regs(kt_begin + t + 1, t + 1 < k_tiles, whole);
      }
    };
    if (k_tiles <= 0) {
      // Atomic kernels only: a barrier here, even one never reached, reschedules the main loop
      // (H100: 2.5% slower at 4096 without split-K; 1.7% faster at 4096x64x4096 with atomic
      // split-K than with the barrier under `if (scales_c)`).
      if constexpr (Scaling::kEnabled) {
        scaling.scale_c_tile();
        __syncthreads();
        scaling.count_in();
      }
      return;
    }
    if constexpr (ASYNC) {
#pragma unroll
      for (int s = 0; s < STAGES - 1; ++s) {
        copy.issue_async(kt_begin + s, s, s < k_tiles, whole);
        cp_async_commit();
      }
      scaling.scale_c_tile();
      cp_async_wait<STAGES - 2>();
      __syncthreads();
    } else {
      copy.fetch_regs(kt_begin, true, whole);
      scaling.scale_c_tile();
      copy.store_regs(0);
      __syncthreads();
    }
    scaling.count_in();
    load_fragments(0, 0, frag[0]);
    for (int t = 0; t < k_tiles; ++t) {
      prefetch_tile(t);
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        if (s + 1 < kSteps) {
          load_fragments(stage_of(t), (s + 1) * KRUN, frag[(s + 1) % 2]);
        } else {
          publish_tile(t + 1);
          load_fragments(stage_of(t + 1), 0, frag[(s + 1) % 2]);
        }
        multiply_fragments(frag[s % 2]);
      }
      if constexpr (kSteps % 2 == 1) frag[0] = frag[1];  // the next tile's first step reads frag[0]
    }
  }
};

}  // namespace detail
}  // namespace gemmtune
