// Worker process main loop. Every reply is written and flushed before the next request is read,
// so the parent's watchdog can attribute a hang to exactly one request.
#include "measure/worker.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/cuda_check.hpp"
#include "core/device_profile.hpp"
#include "core/gemm_launch.hpp"
#include "core/kernel_compiler.hpp"
#include "core/candidate_status.hpp"
#include "measure/gpu_bench.hpp"

namespace gemmtune {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read template " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Launch errors that leave the context usable: the kernel simply does not fit.
bool is_resource_error(cudaError_t code) {
  return code == cudaErrorLaunchOutOfResources || code == cudaErrorInvalidConfiguration ||
         code == cudaErrorInvalidValue || code == cudaErrorSharedObjectInitFailed;
}

class Worker {
 public:
  explicit Worker(const WorkerOptions& o)
      : compiler_(o.cache_dir, o.template_path.empty() ? std::string() : read_text(o.template_path)) {
    GEMMTUNE_CUDA_CHECK(cudaSetDevice(o.device_index));
    device_ = query_device(o.device_index);
  }

  nlohmann::json handle(const nlohmann::json& req) {
    const std::string op = req.at("op").get<std::string>();
    if (op == "prepare") return prepare(req);
    if (op == "evaluate") return evaluate(req);
    if (op == "race") return race(req);
    throw std::invalid_argument("unknown op " + op);
  }

 private:
  nlohmann::json prepare(const nlohmann::json& req) {
    bench_.reset();
    const GemmShape shape = shape_from_json(req);
    if (!checks_) checks_ = std::make_unique<DeviceChecks>();
    bench_ = std::make_unique<GpuBench>(shape, static_cast<std::size_t>(device_.l2_megabytes * 1024 * 1024),
                                        req.value("seed", 1234u), *checks_);
    const GpuBench::Baselines baselines = bench_->time_baselines(req.value("samples", 10));
    nlohmann::json awkward;
    shape_to_json(awkward, bench_->awkward_shape(KernelPath::general));
    nlohmann::json reply = {{"status", status_name(CandidateStatus::ok)},
                            {"launches_per_sample", bench_->launches_per_sample()},
                            {"awkward", awkward},
                            {"cublaslt_version", cublaslt_version()}};
    add_baselines(reply, baselines);
    if (const auto first = bench_->cublaslt_first()) reply["cublaslt_first"] = *first;
    if (const auto best = bench_->cublaslt_best()) reply["cublaslt_best"] = *best;
    if (!bench_->cublaslt_failure().empty()) reply["cublaslt_failure"] = bench_->cublaslt_failure();
    return reply;
  }

  static void add_baselines(nlohmann::json& reply, const GpuBench::Baselines& b) {
    reply["cublas_ms"] = b.cublas_ms;
    if (!b.cublaslt_first_ms.empty()) reply["cublaslt_first_ms"] = b.cublaslt_first_ms;
    if (!b.cublaslt_best_ms.empty()) reply["cublaslt_best_ms"] = b.cublaslt_best_ms;
  }

  std::unique_ptr<LoadedKernel> load(const KernelConfig& config) {
    const CompiledKernel compiled = compiler_.compile(config, device_.arch(), kernel_path_for(config, bench_->shape()));
    return std::make_unique<LoadedKernel>(compiled, config);
  }

  nlohmann::json evaluate(const nlohmann::json& req) {
    if (!bench_) throw std::logic_error("evaluate before prepare");
    const KernelConfig config = req.at("config").get<KernelConfig>();
    auto start = std::chrono::steady_clock::now();
    nlohmann::json phases;  // where the evaluation's time went, for the tuner's debug log
    const auto phase = [&](const char* name) {
      const auto now = std::chrono::steady_clock::now();
      phases[name] = std::chrono::duration<double, std::milli>(now - start).count();
      start = now;
    };
    std::unique_ptr<LoadedKernel> kernel;
    try {
      kernel = load(config);
    } catch (const CompileError& e) {
      return {{"status", status_name(CandidateStatus::compile)}, {"detail", e.what()}};
    }
    phase("load");
    const Verification v = bench_->verify(*kernel);
    nlohmann::json reply = {{"error_ratio", v.worst_error_ratio}};
    // Also when the kernel failed: a 3xtf32 kernel less accurate than SGEMM fails on these.
    if (v.normwise_error > 0) reply["normwise_error"] = v.normwise_error;
    if (v.sgemm_normwise_error > 0) reply["sgemm_normwise_error"] = v.sgemm_normwise_error;
    if (!v.passed) {
      reply["status"] = status_name(CandidateStatus::incorrect);
      reply["detail"] = v.detail;
      return reply;
    }
    phase("verify");
    reply["samples_ms"] = bench_->time_kernel(*kernel, req.value("samples", 10));
    phase("time");
    reply["status"] = status_name(CandidateStatus::ok);
    reply["phases_ms"] = phases;
    return reply;
  }

  nlohmann::json race(const nlohmann::json& req) {
    if (!bench_) throw std::logic_error("race before prepare");
    std::vector<std::unique_ptr<LoadedKernel>> kernels;
    for (const auto& c : req.at("configs")) kernels.push_back(load(c.get<KernelConfig>()));
    std::vector<const LoadedKernel*> contenders;
    for (const auto& kernel : kernels) contenders.push_back(kernel.get());
    const GpuBench::Race times = bench_->race(contenders, req.value("rounds", 30));
    nlohmann::json reply = {{"status", status_name(CandidateStatus::ok)}, {"configs_ms", times.kernels_ms}};
    add_baselines(reply, times);
    return reply;
  }

  KernelCompiler compiler_;
  DeviceProfile device_;
  std::unique_ptr<DeviceChecks> checks_;
  std::unique_ptr<GpuBench> bench_;
};

}  // namespace

int run_worker(const WorkerOptions& options) {
  // Ctrl-C reaches the whole process group; the parent decides when to stop, and a worker killed
  // mid-measurement would be recorded as a failed candidate.
  std::signal(SIGINT, SIG_IGN);
  std::unique_ptr<Worker> worker;
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json reply;
    bool exit_after = false;
    try {
      if (!worker) worker = std::make_unique<Worker>(options);
      reply = worker->handle(nlohmann::json::parse(line));
    } catch (const CudaError& e) {
      reply = {{"status", status_name(is_resource_error(e.code()) ? CandidateStatus::resources : CandidateStatus::launch)}, {"detail", e.what()}};
      // Anything but a plain resource error may have left the context unusable: start afresh.
      if (!is_resource_error(e.code())) {
        reply["sticky"] = true;
        exit_after = true;
      }
    } catch (const std::exception& e) {
      reply = {{"status", status_name(CandidateStatus::error)}, {"detail", e.what()}};
    }
    std::cout << reply.dump() << std::endl;
    if (exit_after) return 1;
  }
  return 0;
}

}  // namespace gemmtune
