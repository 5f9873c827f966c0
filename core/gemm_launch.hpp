// Loads a compiled kernel into the current CUDA context and launches it. Only the CUDA runtime's
// library-management API is used (no driver API), so nothing links against libcuda.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "core/kernel_path.hpp"
#include "core/kernel_compiler.hpp"
#include "core/kernel_config.hpp"

namespace gemmtune {

// One GEMM call: C = alpha * op(A) * op(B) + beta * C + bias, row-major, op(A) is m x k, op(B) is
// k x n, C is m x n, over `batch` entries (entry i at a + i * stride_a, ...). The layout, which
// operands are stored transposed, is the kernel's (KernelConfig::layout): A is then k x m (lda >= m),
// B n x k. A and B hold the kernel's precision's elements, C FP32 or, for a c16 kernel, that 16-bit
// type; leading dimensions and strides count elements. bias: n elements of C's type added to every
// row of every entry (kernel_templates/common/bias.cuh), or null.
struct GemmArguments {
  int m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const float* a = nullptr;
  int lda = 0;
  const float* b = nullptr;
  int ldb = 0;
  float beta = 0.0f;
  void* c = nullptr;
  int ldc = 0;
  int batch = 1;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
  const void* bias = nullptr;
};

// Batch entries one launch runs (gridDim.y's limit); launch() splits larger batches.
inline constexpr int kMaxBatchPerLaunch = 65535;

// Why the arguments cannot be run with operands in this layout (dimensions, leading dimensions,
// batch, null pointers), or nullptr.
const char* gemm_arguments_error(const GemmArguments& args, Layout layout);

// Bytes of device workspace a launch needs: split-K's partial sums, or for atomic split-K a counter
// per tile, for every batch entry (the skinny kernels: partial sums, then a counter per tile); for
// pretranspose the K-major copies of the MN-major operands (pretranspose_layout); 0 otherwise.
std::size_t workspace_bytes(const KernelConfig& config, int m, int n, int k, int batch = 1);

// Where a pretranspose launch puts its copies in the workspace: A's (m rows of ld elements a batch
// entry) from the start, then B's (n rows of ld); ld is k rounded up to whole 16-byte vectors, as
// the tensor maps need. Entry counts are a launch's (kMaxBatchPerLaunch at most).
struct PretransposeLayout {
  long long ld = 0;
  std::size_t a_floats = 0, b_floats = 0;  // per launch, all entries; 0 for an operand not copied
};
PretransposeLayout pretranspose_layout(const KernelConfig& config, int m, int n, int k, int batch);

// What a workspace must hold between launches, so that kernels share one only with their own kind:
//  - scratch: anything (the split-K partial sums are written before they are read);
//  - counters: atomic split-K's, zero before the first launch; each launch then adds exactly 2^32 to
//    the counters it uses, and nothing else may write it (partial sums would read as counts);
//  - zeros: the skinny kernels', all zero before every launch, and every launch leaves it so.
enum class WorkspaceKind { scratch, counters, zeros };
WorkspaceKind workspace_kind(const KernelConfig& config);

// The most specialised binary these arguments allow (kernel_path.hpp): from the pointers, leading
// dimensions and strides.
KernelPath kernel_path_for(const KernelConfig& config, const GemmArguments& args);

class LoadedKernel {
 public:
  // Loads into the current device's context; throws CudaError. compiled is config's binary, with
  // its reduction kernel where the config splits K (std::invalid_argument otherwise).
  LoadedKernel(const CompiledKernel& compiled, const KernelConfig& config);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Enqueues the GEMM (and the split-K reduction) on stream. workspace must hold
  // workspace_bytes(config(), m, n, k, batch) bytes. Returns the launch status; never throws.
  // cudaErrorInvalidValue for invalid arguments, and for arguments this binary's path() does not
  // serve (a call that needs a less specialised binary).
  cudaError_t launch(const GemmArguments& args, float* workspace, cudaStream_t stream) const;

  // Atomic split-K must scale C by beta and add the bias before adding into it. True when this
  // call's GEMM does it itself (sgemm's), which needs its workspace (a counter per tile); otherwise
  // launch() runs a kernel over C first. (The skinny kernels reduce inside the launch: never.)
  bool gemm_scales_c(const GemmArguments& args, const float* workspace) const;

  const KernelConfig& config() const { return config_; }
  KernelPath path() const { return path_; }

 private:
  cudaError_t launch_entries(const GemmArguments& args, float* workspace, cudaStream_t stream) const;
  cudaError_t launch_skinny(const GemmArguments& args, float* workspace, cudaStream_t stream, long long tiles) const;
  cudaError_t launch_wgmma(const GemmArguments& args, Layout layout, float* workspace, cudaStream_t stream) const;
  // pretranspose: copies the MN-major operands K-major into workspace and points args at them.
  cudaError_t pretranspose(GemmArguments& args, float* workspace, cudaStream_t stream) const;

  KernelConfig config_;
  KernelPath path_ = KernelPath::general;
  cudaLibrary_t library_ = nullptr;
  cudaLibrary_t reduce_library_ = nullptr;     // split-K only
  cudaLibrary_t transpose_library_ = nullptr;  // pretranspose only
  cudaKernel_t gemm_ = nullptr;
  cudaKernel_t reduce_ = nullptr;
  cudaKernel_t transpose_ = nullptr;
  bool programmatic_launch_ = false;  // programmatic dependent launches (sm_90+)
  int sm_count_ = 1;
  int resident_units_ = 1;  // wgmma: CTAs (clusters) resident at once, the persistent grid
};

// C = beta * C + bias over a strided batch (args' m, n, beta, c, ldc, batch, stride_c and bias):
// splitk_reduce with no slices, of C's type. A call with a bias runs it before a GEMM that takes
// none (cuBLAS's, cuBLASLt's algorithm as tuned), which then adds its product with beta = 1.
class LoadedBiasPass {
 public:
  // reduce: KernelCompiler::reduce_kernel for C's type. Loads into the current device's context;
  // throws CudaError.
  explicit LoadedBiasPass(const CompiledKernel& reduce);
  ~LoadedBiasPass();
  LoadedBiasPass(const LoadedBiasPass&) = delete;
  LoadedBiasPass& operator=(const LoadedBiasPass&) = delete;

  // Enqueues it on stream; returns the launch status, never throws.
  cudaError_t launch(const GemmArguments& args, cudaStream_t stream) const;

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  int sm_count_ = 1;
};

}  // namespace gemmtune
