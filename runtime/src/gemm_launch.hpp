// Loads a compiled kernel into the current CUDA context and launches it. Only the CUDA runtime's
// library-management API is used (no driver API), so nothing links against libcuda.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "kernel_compiler.hpp"
#include "kernel_config.hpp"

namespace gemmtune {

// One GEMM call: C = alpha * A * B + beta * C, row-major, A is m x k, B is k x n, C is m x n.
struct GemmArguments {
  int m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const float* a = nullptr;
  int lda = 0;
  const float* b = nullptr;
  int ldb = 0;
  float beta = 0.0f;
  float* c = nullptr;
  int ldc = 0;
};

// Why the arguments cannot be run (dimensions, leading dimensions, null pointers), or nullptr.
const char* gemm_arguments_error(const GemmArguments& args);

// Bytes of device workspace a launch needs (split-K partial sums); 0 without split-K.
std::size_t workspace_bytes(const KernelConfig& config, int m, int n);

class LoadedKernel {
 public:
  // Loads into the current device's context; throws CudaError.
  LoadedKernel(const CompiledKernel& compiled, const KernelConfig& config);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Enqueues the GEMM (and the split-K reduction) on stream. workspace must hold
  // workspace_bytes(config(), m, n) bytes. Returns the launch status; never throws.
  cudaError_t launch(const GemmArguments& args, float* workspace, cudaStream_t stream) const;

  const KernelConfig& config() const { return config_; }

 private:
  KernelConfig config_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t gemm_ = nullptr;
  cudaKernel_t reduce_ = nullptr;
  bool programmatic_launch_ = false;  // programmatic dependent launches (sm_90+)
  int sm_count_ = 1;
};

}  // namespace gemmtune
