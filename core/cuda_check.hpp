// Error handling for CUDA runtime and NVRTC calls: exceptions inside the project, carrying
// the call site, so one failed call never goes unnoticed. The NOTHROW form is for destructors.
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime.h>
#include <nvrtc.h>

namespace gemmtune {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }
  // Errors after which the CUDA context is unusable and the process must be replaced.
  bool sticky() const;

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
[[noreturn]] void throw_nvrtc_error(nvrtcResult code, const char* expr, const char* file, int line);

}  // namespace gemmtune

#define GEMMTUNE_CUDA_CHECK(expr)                                                        \
  do {                                                                                   \
    const cudaError_t gemmtune_err_ = (expr);                                            \
    if (gemmtune_err_ != cudaSuccess)                                                    \
      ::gemmtune::throw_cuda_error(gemmtune_err_, #expr, __FILE__, __LINE__);            \
  } while (0)

#define GEMMTUNE_CUDA_CHECK_NOTHROW(expr) static_cast<void>(expr)

#define GEMMTUNE_NVRTC_CHECK(expr)                                                       \
  do {                                                                                   \
    const nvrtcResult gemmtune_err_ = (expr);                                            \
    if (gemmtune_err_ != NVRTC_SUCCESS)                                                  \
      ::gemmtune::throw_nvrtc_error(gemmtune_err_, #expr, __FILE__, __LINE__);           \
  } while (0)
