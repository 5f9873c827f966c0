// Resolution of a new shape: select, then compile through the shared disk cache and load; a tuned
// config that fails either step is logged and replaced by cuBLAS so the call still runs.
#include "device_kernels.hpp"

#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "relaxed_capture_mode.hpp"
#include "runtime_log.hpp"

namespace gemmtune {

DeviceKernels::DeviceKernels(DeviceProfile profile, const ResultsCatalog& catalog,
                             const KernelCompiler& compiler, bool deterministic)
    : profile_(std::move(profile)), catalog_(catalog), compiler_(compiler), deterministic_(deterministic) {}

DeviceKernels::~DeviceKernels() {
  cublaslt_.clear();
  if (cublaslt_handle_) static_cast<void>(cublasLtDestroy(cublaslt_handle_));
}

const CublasLtCall& DeviceKernels::load_cublaslt(Selection& selection, const GemmShape& shape) {
  if (!cublaslt_handle_) {
    if (const cublasStatus_t status = cublasLtCreate(&cublaslt_handle_); status != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(fmt::format("cublasLtCreate: {}", cublasLtGetStatusString(status)));
  }
  auto lt = std::make_unique<CublasLtCall>(cublaslt_handle_, shape);
  std::string why;
  if (auto rebuilt = lt->matmul.rebuild(selection.cublaslt, why)) {
    lt->choice = *rebuilt;
  } else {
    const std::vector<CublasLtChoice> first = lt->matmul.heuristic(1);
    if (first.empty()) throw std::runtime_error("the stored algorithm is refused (" + why + ") and cuBLASLt offers no other");
    lt->choice = first.front();
    selection.reason += fmt::format("; the stored algorithm is refused ({}): cuBLASLt's first choice runs", why);
  }
  cublaslt_.push_back(std::move(lt));
  return *cublaslt_.back();
}

const LoadedKernel& DeviceKernels::load(const KernelConfig& config, KernelPath path) {
  const char* const paths[] = {"", " (whole vectors)", " (whole tiles)"};
  const std::string name = config.name() + paths[int(path)];
  if (const auto failed = failures_.find(name); failed != failures_.end())
    std::rethrow_exception(failed->second);
  auto& slot = kernels_[name];
  if (!slot) {
    try {
      const CompiledKernel compiled = compiler_.compile(config, profile_.arch(), path);
      runtime_logger().debug("{} on {}: {} ({:.2f} s, {} registers)", name, profile_.arch(),
                             compiled.from_cache ? "from the disk cache" : "compiled",
                             compiled.compile_seconds, compiled.resources.registers);
      slot = std::make_unique<LoadedKernel>(compiled, config);
    } catch (...) {
      kernels_.erase(name);
      failures_.emplace(name, std::current_exception());
      throw;
    }
  }
  return *slot;
}

const LoadedBiasPass& DeviceKernels::bias_pass(int c_type) {
  if (const LoadedBiasPass* ready = bias_passes_[c_type].load(std::memory_order_acquire)) return *ready;
  std::lock_guard<std::mutex> lock(resolve_mutex_);
  if (!bias_pass_owned_[c_type]) {
    const RelaxedCaptureMode relaxed;
    bias_pass_owned_[c_type] = std::make_unique<LoadedBiasPass>(*compiler_.reduce_kernel(profile_.arch(), c_type));
    bias_passes_[c_type].store(bias_pass_owned_[c_type].get(), std::memory_order_release);
  }
  return *bias_pass_owned_[c_type];
}

const ResolvedShape& DeviceKernels::resolve(const CallShape& shape) {
  std::lock_guard<std::mutex> lock(resolve_mutex_);
  if (const ResolvedShape* done = find(shape)) return *done;
  const RelaxedCaptureMode relaxed;  // a first call inside a graph capture loads its kernel now

  ResolvedShape& resolved = resolved_.emplace_back();
  try {
    resolved.selection = select_config(catalog_, profile_, shape);
    if (deterministic_) make_deterministic(resolved.selection);
    if (resolved.selection.implementation == Implementation::tuned_kernel) {
      try {
        const KernelConfig& config = resolved.selection.config;
        resolved.kernel = &load(config, kernel_path_for(config, shape.problem.m, shape.problem.n, shape.problem.k,
                                                         shape.aligned_width));
      } catch (const std::exception& e) {
        runtime_logger().warn("{} cannot run on {}: {}; using cuBLAS", resolved.selection.config.name(),
                              profile_.slug, printable(e.what()));
        resolved.selection = {Implementation::cublas, KernelConfig{}, ConfigSource::built_in_default,
                              fmt::format("{} was chosen ({}) but failed to compile or load: {}",
                                          resolved.selection.config.name(), resolved.selection.reason,
                                          printable(e.what())),
                              {}};
      }
    } else if (resolved.selection.implementation == Implementation::cublaslt) {
      try {
        resolved.cublaslt = &load_cublaslt(resolved.selection, shape.problem);
      } catch (const std::exception& e) {
        runtime_logger().warn("{} cannot run on {}: {}; using cuBLAS's default call",
                              describe(resolved.selection.cublaslt), profile_.slug, printable(e.what()));
        resolved.selection.implementation = Implementation::cublas;
        resolved.selection.reason += fmt::format("; cuBLASLt failed: {}", printable(e.what()));
      }
    }
  } catch (...) {
    resolved_.pop_back();
    throw;
  }
  runtime_logger().debug("{} (vector width {}) on {}: {} ({}): {}", shape.problem.label(), shape.aligned_width,
                         profile_.slug,
                         resolved.kernel ? resolved.selection.config.name()
                                         : implementation_name(resolved.selection.implementation),
                         config_source_name(resolved.selection.source), resolved.selection.reason);
  const ResolvedShape* stored = &resolved;
  std::unique_lock<std::shared_mutex> table_lock(table_mutex_);
  table_.emplace(shape, stored);
  return *stored;
}

}  // namespace gemmtune
