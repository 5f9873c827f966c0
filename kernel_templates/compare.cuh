// Correctness check on the GPU, so verifying a candidate costs one small kernel instead of copying
// C back to the host: the worst ratio |got - expected| / bound over all elements, packed with its
// index as (float bits of the ratio) << 32 | index into one 64-bit atomicMax. Ratios are
// non-negative, so their float bits order like the floats; NaN and infinity map to +infinity.
// Compiled at run time by NVRTC (tuner/device_comparator.cpp), like the GEMM template.

namespace gemmtune {

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    worst_error_ratio(const float* __restrict__ got, const float* __restrict__ expected,
                      const float* __restrict__ bound, unsigned long long count, unsigned long long* worst) {
  unsigned long long best = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)THREADS + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * THREADS) {
    float ratio = fabsf(got[i] - expected[i]) / bound[i];
    if (!(ratio <= 3.0e38f)) ratio = __int_as_float(0x7f800000);  // NaN or inf: the worst there is
    const unsigned long long packed =
        ((unsigned long long)__float_as_uint(ratio) << 32) | (unsigned long long)(i & 0xffffffffULL);
    best = best > packed ? best : packed;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, best, offset);
    best = best > other ? best : other;
  }
  if ((threadIdx.x & 31) == 0) atomicMax(worst, best);
}

}  // namespace gemmtune
