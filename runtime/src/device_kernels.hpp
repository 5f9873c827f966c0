// Everything the runtime keeps per GPU: the choice made for each call shape, the kernels compiled and
// loaded for those choices, the split-K workspaces and the cuBLAS handles. The hot path is one shared-lock hash lookup;
// selecting, compiling and loading happen once per shape under a separate lock, so callers of shapes
// already resolved never wait for a compile.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "config_selection.hpp"
#include "cublas_calls.hpp"
#include "core/device_profile.hpp"
#include "core/gemm_launch.hpp"
#include "core/kernel_compiler.hpp"
#include "results_catalog.hpp"
#include "stream_workspaces.hpp"

namespace gemmtune {

// What a call needs once its shape is resolved: the kernel to launch (none: cuBLAS runs it) and the
// choice behind it, and how often it was called (counted only while recording, see shape_recorder).
struct ResolvedShape {
  const LoadedKernel* kernel = nullptr;
  const CublasLtCall* cublaslt = nullptr;  // a cuBLASLt winner to run instead (kernel is then nullptr)
  Selection selection;
  mutable std::atomic<std::uint64_t> calls{0};
};

struct CallShapeHash {
  std::size_t operator()(const CallShape& s) const noexcept {
    return GemmShapeHash{}(s.problem) * 4 + static_cast<std::size_t>(s.aligned_width);
  }
};

class DeviceKernels {
 public:
  // profile: the device these kernels run on (it must be current whenever resolve() is called).
  // deterministic: no atomic split-K (see make_deterministic).
  DeviceKernels(DeviceProfile profile, const ResultsCatalog& catalog, const KernelCompiler& compiler,
                bool deterministic);
  ~DeviceKernels();
  DeviceKernels(const DeviceKernels&) = delete;
  DeviceKernels& operator=(const DeviceKernels&) = delete;

  // The resolved shape, or nullptr if this shape has not been resolved yet. Never blocks on a compile.
  const ResolvedShape* find(const CallShape& shape) const {
    std::shared_lock<std::shared_mutex> lock(table_mutex_);
    const auto it = table_.find(shape);
    return it == table_.end() ? nullptr : it->second;
  }

  // Selects, compiles and loads the kernel for shape (once; later calls return the same result).
  // A tuned config that fails to compile or load is replaced by cuBLAS, with the failure in the
  // reason.
  const ResolvedShape& resolve(const CallShape& shape);

  // Every shape resolved so far with its call count, under the resolve lock (for the recorder).
  template <class Visit>
  void for_each_resolved(Visit&& visit) {
    std::lock_guard<std::mutex> lock(resolve_mutex_);
    for (const auto& [shape, resolved] : table_) visit(shape, *resolved);
  }

  // The kernel over C a call with a bias runs before cuBLAS (LoadedBiasPass), for C's type (0 FP32, 1
  // bf16, 2 fp16): compiled and loaded at its first use (inside a graph capture too), then one atomic
  // read. Throws where it cannot be compiled or loaded.
  const LoadedBiasPass& bias_pass(int c_type);

  const DeviceProfile& profile() const { return profile_; }
  StreamWorkspaces& workspaces() { return workspaces_; }
  CublasCalls& cublas() { return cublas_; }

 private:
  // The loaded kernel for config with that path (KernelPath); one that failed once throws again without a
  // new attempt.
  const LoadedKernel& load(const KernelConfig& config, KernelPath path);
  // The selection's cuBLASLt algorithm rebuilt for shape's densely packed operands; where
  // cublasLtMatmulAlgoCheck refuses it, the heuristic's first choice, and the reason says so.
  const CublasLtCall& load_cublaslt(Selection& selection, const GemmShape& shape);

  DeviceProfile profile_;
  const ResultsCatalog& catalog_;
  const KernelCompiler& compiler_;
  const bool deterministic_;

  mutable std::shared_mutex table_mutex_;  // guards table_
  std::unordered_map<CallShape, const ResolvedShape*, CallShapeHash> table_;

  std::mutex resolve_mutex_;            // guards resolved_ and kernels_, serialises compiles
  std::deque<ResolvedShape> resolved_;  // stable addresses for table_
  std::map<std::string, std::unique_ptr<LoadedKernel>> kernels_;  // by config name and path
  std::map<std::string, std::exception_ptr> failures_;  // config name -> why it cannot be compiled or loaded

  std::atomic<const LoadedBiasPass*> bias_passes_[3] = {};  // by C's type; owned by bias_pass_owned_
  std::unique_ptr<LoadedBiasPass> bias_pass_owned_[3];

  cublasLtHandle_t cublaslt_handle_ = nullptr;          // made with the first cuBLASLt winner
  std::deque<std::unique_ptr<CublasLtCall>> cublaslt_;  // one per resolved cuBLASLt shape

  StreamWorkspaces workspaces_;
  CublasCalls cublas_;
};

}  // namespace gemmtune
