// Loading and launching the comparison kernel.
#include "verify/device_comparator.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "cuda_check.hpp"
#include "embedded_files.hpp"
#include "kernel_compiler.hpp"

namespace gemmtune {
namespace {
constexpr int kThreads = 256;
}

DeviceComparator::DeviceComparator() {
  int device = 0, major = 0, minor = 0;
  GEMMTUNE_CUDA_CHECK(cudaGetDevice(&device));
  GEMMTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GEMMTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const std::string expr = "gemmtune::worst_error_ratio<" + std::to_string(kThreads) + ">";
  const NvrtcOutput out = nvrtc_compile(std::string(embedded_file("kernel_templates/compare.cuh")), {expr},
                                        "sm_" + std::to_string(major * 10 + minor));
  GEMMTUNE_CUDA_CHECK(
      cudaLibraryLoadData(&library_, out.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&kernel_, library_, out.lowered_names[0].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaMalloc(&result_, sizeof(unsigned long long)));
}

DeviceComparator::~DeviceComparator() {
  if (result_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaFree(result_));
  if (library_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaLibraryUnload(library_));
}

WorstError DeviceComparator::worst(const float* got, const float* expected, const float* bound,
                                   std::size_t count, cudaStream_t stream) const {
  GEMMTUNE_CUDA_CHECK(cudaMemsetAsync(result_, 0, sizeof(unsigned long long), stream));
  unsigned long long n = count;
  unsigned long long* result = result_;
  void* params[] = {&got, &expected, &bound, &n, &result};
  const auto blocks =
      static_cast<unsigned>(std::clamp<std::size_t>((count + kThreads - 1) / kThreads, 1, 8192));
  GEMMTUNE_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(blocks), dim3(kThreads),
                                       params, 0, stream));
  unsigned long long packed = 0;
  GEMMTUNE_CUDA_CHECK(cudaMemcpyAsync(&packed, result_, sizeof packed, cudaMemcpyDeviceToHost, stream));
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto bits = static_cast<std::uint32_t>(packed >> 32);
  float ratio = 0;
  std::memcpy(&ratio, &bits, sizeof ratio);
  return {double(ratio), static_cast<std::size_t>(packed & 0xffffffffULL)};
}

}  // namespace gemmtune
