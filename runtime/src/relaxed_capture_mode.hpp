// The calling thread's CUDA-graph capture mode set to relaxed for a scope. A shape first called
// while its stream captures a graph is resolved then: compiling and loading its kernel (or creating
// a cuBLAS handle) is no stream work, but global capture mode (torch.cuda.graph's default) refuses
// such "potentially unsafe" calls and invalidates the capture. What the scope launches is captured
// all the same; PyTorch's allocator relaxes the mode the same way around its cudaMalloc.
#pragma once

#include <cuda_runtime_api.h>

namespace gemmtune {

class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() noexcept { static_cast<void>(cudaThreadExchangeStreamCaptureMode(&mode_)); }
  ~RelaxedCaptureMode() { static_cast<void>(cudaThreadExchangeStreamCaptureMode(&mode_)); }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;  // the thread's own while in scope
};

}  // namespace gemmtune
