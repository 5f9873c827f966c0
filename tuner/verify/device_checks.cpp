// Loading and launching the correctness check's kernels.
#include "verify/device_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/cuda_check.hpp"
#include "core/embedded_files.hpp"
#include "core/kernel_compiler.hpp"

namespace gemmtune {
namespace {

constexpr int kThreads = 256;

// Grid-stride loops: enough blocks to fill the GPU, one per kThreads elements for small counts.
dim3 blocks_for(std::size_t count) {
  return dim3(static_cast<unsigned>(std::clamp<std::size_t>((count + kThreads - 1) / kThreads, 1, 8192)));
}

void launch(cudaKernel_t kernel, std::size_t count, void** params, cudaStream_t stream) {
  GEMMTUNE_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), blocks_for(count), dim3(kThreads),
                                       params, 0, stream));
}

}  // namespace

DeviceChecks::DeviceChecks() {
  int device = 0, major = 0, minor = 0;
  GEMMTUNE_CUDA_CHECK(cudaGetDevice(&device));
  GEMMTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GEMMTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const NvrtcOutput out = nvrtc_compile(
      std::string(embedded_file("kernel_templates/check.cuh")),
      {"gemmtune::uniform_operand", "gemmtune::error_bound", "gemmtune::worst_error_ratio<" + std::to_string(kThreads) + ">",
       "gemmtune::round_operand", "gemmtune::widen", "gemmtune::narrow",
       "gemmtune::squared_error<" + std::to_string(kThreads) + ">", "gemmtune::unpack_16bit"},
      "sm_" + std::to_string(major * 10 + minor));
  GEMMTUNE_CUDA_CHECK(cudaLibraryLoadData(&library_, out.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&uniform_, library_, out.lowered_names[0].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&bound_, library_, out.lowered_names[1].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&worst_, library_, out.lowered_names[2].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&round_, library_, out.lowered_names[3].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&widen_, library_, out.lowered_names[4].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&narrow_, library_, out.lowered_names[5].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&squared_error_, library_, out.lowered_names[6].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&unpack_16bit_, library_, out.lowered_names[7].c_str()));
  GEMMTUNE_CUDA_CHECK(cudaMalloc(&result_, sizeof(unsigned long long)));
  GEMMTUNE_CUDA_CHECK(cudaMalloc(&sums_, 2 * sizeof(double)));
}

DeviceChecks::~DeviceChecks() {
  if (result_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaFree(result_));
  if (sums_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaFree(sums_));
  if (library_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaLibraryUnload(library_));
}

void DeviceChecks::fill_uniform(float* out, std::size_t count, unsigned long long seed, bool absolute,
                                cudaStream_t stream) const {
  unsigned long long n = count;
  int abs_flag = absolute ? 1 : 0;
  void* params[] = {&out, &n, &seed, &abs_flag};
  launch(uniform_, count, params, stream);
}

void DeviceChecks::error_bound(float* bound, const float* abs_ab, const float* c0, std::size_t count,
                               float scale_ab, float scale_c, cudaStream_t stream) const {
  unsigned long long n = count;
  void* params[] = {&bound, &abs_ab, &c0, &n, &scale_ab, &scale_c};
  launch(bound_, count, params, stream);
}

void DeviceChecks::round_operand(Precision precision, float* values, void* bits, std::size_t count,
                                 cudaStream_t stream) const {
  int kind = precision == Precision::tf32 ? 1 : precision == Precision::bf16 ? 2 : precision == Precision::fp16 ? 3 : 0;
  if (kind == 0) return;
  unsigned long long n = count;
  void* params[] = {&values, &bits, &n, &kind};
  launch(round_, count, params, stream);
}

void DeviceChecks::unpack_16bit(Precision precision, const void* bits, float* out, std::size_t count,
                                cudaStream_t stream) const {
  int kind = precision == Precision::bf16 ? 2 : 3;
  unsigned long long n = count;
  void* params[] = {&bits, &out, &n, &kind};
  launch(unpack_16bit_, count, params, stream);
}

void DeviceChecks::widen(const float* in, double* out, std::size_t count, cudaStream_t stream) const {
  unsigned long long n = count;
  void* params[] = {&in, &out, &n};
  launch(widen_, count, params, stream);
}

void DeviceChecks::narrow(const double* in, float* out, std::size_t count, cudaStream_t stream) const {
  unsigned long long n = count;
  void* params[] = {&in, &out, &n};
  launch(narrow_, count, params, stream);
}

double DeviceChecks::normwise_error(const float* got, const double* expected, std::size_t count,
                                    cudaStream_t stream) const {
  GEMMTUNE_CUDA_CHECK(cudaMemsetAsync(sums_, 0, 2 * sizeof(double), stream));
  unsigned long long n = count;
  double* sums = sums_;
  void* params[] = {&got, &expected, &n, &sums};
  launch(squared_error_, count, params, stream);
  double host[2] = {0, 0};
  GEMMTUNE_CUDA_CHECK(cudaMemcpyAsync(host, sums_, sizeof host, cudaMemcpyDeviceToHost, stream));
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host[1] > 0 ? std::sqrt(host[0] / host[1]) : std::sqrt(host[0]);
}

WorstError DeviceChecks::worst(const float* got, const float* expected, const float* bound, std::size_t count,
                               cudaStream_t stream) const {
  GEMMTUNE_CUDA_CHECK(cudaMemsetAsync(result_, 0, sizeof(unsigned long long), stream));
  unsigned long long n = count;
  unsigned long long* result = result_;
  void* params[] = {&got, &expected, &bound, &n, &result};
  launch(worst_, count, params, stream);
  unsigned long long packed = 0;
  GEMMTUNE_CUDA_CHECK(cudaMemcpyAsync(&packed, result_, sizeof packed, cudaMemcpyDeviceToHost, stream));
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto bits = static_cast<std::uint32_t>(packed >> 32);
  float ratio = 0;
  std::memcpy(&ratio, &bits, sizeof ratio);
  return {double(ratio), static_cast<std::size_t>(packed & 0xffffffffULL)};
}

}  // namespace gemmtune
