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

// Bytes of device workspace a launch needs: split-K's partial sums, or for atomic split-K a counter
// per tile; 0 without split-K.
std::size_t workspace_bytes(const KernelConfig& config, int m, int n);

// True when the workspace holds atomic split-K's counters: it must be zero before its first launch
// (each launch then adds exactly 2^32 to the counters it uses), and nothing else may write it
// (another kernel's partial sums would read as counts). Other workspaces are scratch.
bool workspace_holds_counters(const KernelConfig& config);

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

  // Atomic split-K must scale C by beta before adding into it. True when this call's GEMM does it
  // itself, which needs its workspace (a counter per tile); otherwise launch() runs a kernel over C
  // first.
  bool gemm_scales_c(const GemmArguments& args, const float* workspace) const;

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
