// The correctness check's kernels, so that making a check's operands and comparing a candidate's C
// with cuBLAS's happen on the GPU: the host neither generates nor copies matrices (at 4096 that
// took 0.6 s per set of operands). Compiled at run time by NVRTC (tuner/verify/device_checks.cpp),
// like the GEMM template.

namespace gemmtune {

// Uniform in [-1, 1) (or its absolute value), a pure function of (seed, index): the same matrix
// wherever and however often it is made. splitmix64 of the index; 24 random bits, so every value
// is exact in float.
__global__ void uniform_operand(float* __restrict__ out, unsigned long long count, unsigned long long seed,
                                int absolute) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long z = (seed + 1) * 0x9E3779B97F4A7C15ULL + i * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    const float value = (float)(z >> 40) * (1.0f / 8388608.0f) - 1.0f;
    out[i] = absolute ? fabsf(value) : value;
  }
}

// The error bound of every element: scale_ab * (|A||B|)_ij + scale_c * |C0_ij|, plus a floor that
// keeps the ratio finite where both are zero.
__global__ void error_bound(float* __restrict__ bound, const float* __restrict__ abs_ab,
                            const float* __restrict__ c0, unsigned long long count, float scale_ab,
                            float scale_c) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    bound[i] = scale_ab * abs_ab[i] + scale_c * fabsf(c0[i]) + 1e-30f;
}

// The worst ratio |got - expected| / bound over all elements, packed with its index as (float bits
// of the ratio) << 32 | index into one 64-bit atomicMax. Ratios are non-negative, so their float
// bits order like the floats; NaN and infinity map to +infinity.
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

// The operands of a reduced precision as the kernels see them. KIND 1 (tf32): each value rounded to
// TF32 in place (cvt.rna, as kernel_templates/mma does); 2 (bf16) and 3 (fp16): rounded to nearest
// into the 16-bit copy `bits`, and the float itself replaced by the 16-bit value it now stands for,
// so the float64 reference is computed from exactly what the kernel multiplies.
__global__ void round_operand(float* __restrict__ values, unsigned short* __restrict__ bits, unsigned long long count,
                              int kind) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float x = values[i];
    if (kind == 1) {
      unsigned r;
      asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
      values[i] = __uint_as_float(r);
    } else if (kind == 2) {
      unsigned short h;
      asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
      bits[i] = h;
      values[i] = __uint_as_float((unsigned)h << 16);
    } else if (kind == 3) {
      unsigned short h;
      float back;
      asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
      asm("cvt.f32.f16 %0, %1;\n" : "=f"(back) : "h"(h));
      bits[i] = h;
      values[i] = back;
    }
  }
}

// A 16-bit C read back as floats, exactly: KIND 2 bf16, 3 fp16 (round_operand's kinds).
__global__ void unpack_16bit(const unsigned short* __restrict__ bits, float* __restrict__ out, unsigned long long count,
                             int kind) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned short h = bits[i];
    if (kind == 2) {
      out[i] = __uint_as_float((unsigned)h << 16);
    } else {
      float f;
      asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
      out[i] = f;
    }
  }
}

__global__ void widen(const float* __restrict__ in, double* __restrict__ out, unsigned long long count) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = (double)in[i];
}

__global__ void narrow(const double* __restrict__ in, float* __restrict__ out, unsigned long long count) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = (float)in[i];
}

// sums[0] += sum of (got - expected)^2, sums[1] += sum of expected^2, in float64: the normwise error
// ||C - R||_F / ||R||_F of a result against the float64 reference. A NaN or infinity in got makes it
// NaN or infinite.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    squared_error(const float* __restrict__ got, const double* __restrict__ expected, unsigned long long count,
                  double* sums) {
  double error = 0, norm = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)THREADS + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * THREADS) {
    const double d = (double)got[i] - expected[i];
    error += d * d;
    norm += expected[i] * expected[i];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    error += __shfl_down_sync(0xffffffffu, error, offset);
    norm += __shfl_down_sync(0xffffffffu, norm, offset);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(sums, error);
    atomicAdd(sums + 1, norm);
  }
}

}  // namespace gemmtune
