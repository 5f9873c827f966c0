// Turns CUDA and NVRTC status codes into exceptions with the failing expression and site.
#include "core/cuda_check.hpp"

#include <fmt/format.h>

namespace gemmtune {

bool CudaError::sticky() const {
  switch (code_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  throw CudaError(code, fmt::format("{} failed: {} ({}) at {}:{}", expr, cudaGetErrorString(code),
                                    cudaGetErrorName(code), file, line));
}

void throw_nvrtc_error(nvrtcResult code, const char* expr, const char* file, int line) {
  throw std::runtime_error(fmt::format("{} failed: {} at {}:{}", expr, nvrtcGetErrorString(code), file, line));
}

}  // namespace gemmtune
