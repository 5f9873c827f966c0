// The correctness check's work on the GPU (kernel_templates/check.cuh): making operands and error
// bounds, and comparing a result with its reference, without copying matrices to or from the host.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/precision.hpp"

namespace gemmtune {

struct WorstError {
  double ratio = 0;       // max |got - expected| / bound; infinity for NaN or inf
  std::size_t index = 0;  // where (modulo 2^32)
};

class DeviceChecks {
 public:
  // Compiles the kernels for the current device (a fraction of a second, once).
  DeviceChecks();
  ~DeviceChecks();
  DeviceChecks(const DeviceChecks&) = delete;
  DeviceChecks& operator=(const DeviceChecks&) = delete;

  // Fills out with count values uniform in [-1, 1), a function of (seed, index) only; with
  // absolute, their absolute values.
  void fill_uniform(float* out, std::size_t count, unsigned long long seed, bool absolute,
                    cudaStream_t stream) const;

  // bound_i = scale_ab * abs_ab_i + scale_c * |c0_i| + 1e-30.
  void error_bound(float* bound, const float* abs_ab, const float* c0, std::size_t count, float scale_ab,
                   float scale_c, cudaStream_t stream) const;

  // Rounds count floats to what precision's kernels multiply (tf32: in place; bf16, fp16: into
  // bits as 16-bit values, and the floats to the values those hold); fp32 and 3xtf32: nothing.
  void round_operand(Precision precision, float* values, void* bits, std::size_t count, cudaStream_t stream) const;
  // A 16-bit C (bf16 or fp16 bits) as the floats it holds.
  void unpack_16bit(Precision precision, const void* bits, float* out, std::size_t count, cudaStream_t stream) const;
  void widen(const float* in, double* out, std::size_t count, cudaStream_t stream) const;
  void narrow(const double* in, float* out, std::size_t count, cudaStream_t stream) const;
  // ||got - expected||_F / ||expected||_F, in float64. Synchronizes stream.
  double normwise_error(const float* got, const double* expected, std::size_t count, cudaStream_t stream) const;

  // Synchronizes stream.
  WorstError worst(const float* got, const float* expected, const float* bound, std::size_t count,
                   cudaStream_t stream) const;

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t uniform_ = nullptr, bound_ = nullptr, worst_ = nullptr, round_ = nullptr, widen_ = nullptr,
               narrow_ = nullptr, squared_error_ = nullptr, unpack_16bit_ = nullptr;
  unsigned long long* result_ = nullptr;  // device word for the atomicMax
  double* sums_ = nullptr;                // normwise_error's two sums
};

}  // namespace gemmtune
