// Shared memory -> registers: the fragments of A and B that one step of the inner loop multiplies.
// A thread reads its micro-tile's rows of A and columns of B as runs of up to 4 floats, one vector
// access per run where the shared-memory stride keeps it aligned; the warp's threads read
// contiguous, interleaved runs (shape.cuh), broadcast where threads share them, without bank
// conflicts. Fragments are double-buffered in registers by the main loop (mainloop.cuh).

namespace gemmtune {
namespace detail {

// One step's operands: kRunK k values of the thread's TM rows of A and TN columns of B.
template <class S>
struct Fragments {
  float a[S::kTM][S::kRunK];
  float b[S::kRunK][S::kTN];
};

// Reads one step's fragments. Holds references to the kernel's variables, as the lambda it once
// was captured them (sgemm.cuh says why).
template <class S>
struct FragmentLoader {
  float*& smem;
  const int& row_base;  // the thread's first row and column inside the block tile
  const int& col_base;

  // Step k0's fragments (k0: the step's first k within the tile) from stage `stage`.
  __device__ void operator()(int stage, int k0, Fragments<S>& f) {
    const float* As = smem + stage * (S::kTileA + S::kTileB);
    const float* Bs = As + S::kTileA;
#pragma unroll
    for (int run = 0; run < S::kTM / S::kRunM; ++run) {
      const int r = row_base + run * S::kStrideRunM;
      if constexpr (S::kTransposeA && S::kRunK == 1) {  // f.a is [TM][1]: the run lands contiguously
        load_run<S::kRunM, S::kStrideA % S::kRunM == 0>(&f.a[run * S::kRunM][0], &As[k0 * S::kStrideA + r]);
      } else if constexpr (S::kTransposeA) {  // a run of rows for each of the step's k values
#pragma unroll
        for (int kk = 0; kk < S::kRunK; ++kk) {
          float rows[S::kRunM];
          load_run<S::kRunM, S::kStrideA % S::kRunM == 0>(rows, &As[(k0 + kk) * S::kStrideA + r]);
#pragma unroll
          for (int j = 0; j < S::kRunM; ++j) f.a[run * S::kRunM + j][kk] = rows[j];
        }
      } else {
#pragma unroll
        for (int j = 0; j < S::kRunM; ++j)
          load_run<S::kRunK, S::kStrideA % S::kRunK == 0>(f.a[run * S::kRunM + j],
                                                          &As[(r + j) * S::kStrideA + k0]);
      }
    }
    if constexpr (S::kTransposeB) {  // B n-major: a run of k values of each of the thread's columns
#pragma unroll
      for (int run = 0; run < S::kTN / S::kRunN; ++run) {
        const int c = col_base + run * S::kStrideRunN;
#pragma unroll
        for (int j = 0; j < S::kRunN; ++j) {
          float ks[S::kRunK];
          load_run<S::kRunK, S::kStrideB % S::kRunK == 0>(ks, &Bs[(c + j) * S::kStrideB + k0]);
#pragma unroll
          for (int kk = 0; kk < S::kRunK; ++kk) f.b[kk][run * S::kRunN + j] = ks[kk];
        }
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < S::kRunK; ++kk)
#pragma unroll
        for (int run = 0; run < S::kTN / S::kRunN; ++run) {
          const int c = col_base + run * S::kStrideRunN;
          load_run<S::kRunN, S::kStrideB % S::kRunN == 0>(&f.b[kk][run * S::kRunN],
                                                          &Bs[(k0 + kk) * S::kStrideB + c]);
        }
    }
  }
};

}  // namespace detail
}  // namespace gemmtune
