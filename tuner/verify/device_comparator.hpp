// Compares a result with its reference on the GPU (kernel_templates/compare.cuh): returns the
// worst error ratio and where it is, without copying the matrices back to the host.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>

namespace gemmtune {

struct WorstError {
  double ratio = 0;       // max |got - expected| / bound; infinity for NaN or inf
  std::size_t index = 0;  // where (modulo 2^32)
};

class DeviceComparator {
 public:
  // Compiles the comparison kernel for the current device (a fraction of a second, once).
  DeviceComparator();
  ~DeviceComparator();
  DeviceComparator(const DeviceComparator&) = delete;
  DeviceComparator& operator=(const DeviceComparator&) = delete;

  WorstError worst(const float* got, const float* expected, const float* bound, std::size_t count,
                   cudaStream_t stream) const;

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  unsigned long long* result_ = nullptr;  // device word for the atomicMax
};

}  // namespace gemmtune
