// Worker process main loop. Every reply is written and flushed before the next request is read,
// so the parent's watchdog can attribute a hang to exactly one request.
#include "measure/worker.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cuda_check.hpp"
#include "device_profile.hpp"
#include "gemm_launch.hpp"
#include "kernel_compiler.hpp"
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
    if (!comparator_) comparator_ = std::make_unique<DeviceComparator>();
    bench_ = std::make_unique<GpuBench>(shape, static_cast<std::size_t>(device_.l2_megabytes * 1024 * 1024),
                                        req.value("seed", 1234u), *comparator_);
    const auto cublas = bench_->time_cublas(req.value("samples", 10));
    nlohmann::json awkward;
    shape_to_json(awkward, bench_->awkward_shape(KernelPath::general));
    return {{"status", "ok"},
            {"cublas_ms", cublas},
            {"launches_per_sample", bench_->launches_per_sample()},
            {"awkward", awkward}};
  }

  std::unique_ptr<LoadedKernel> load(const KernelConfig& config) {
    const CompiledKernel compiled = compiler_.compile(config, device_.arch(), kernel_path_for(config, bench_->shape()));
    return std::make_unique<LoadedKernel>(compiled, config);
  }

  nlohmann::json evaluate(const nlohmann::json& req) {
    if (!bench_) throw std::logic_error("evaluate before prepare");
    const KernelConfig config = req.at("config").get<KernelConfig>();
    std::unique_ptr<LoadedKernel> kernel;
    try {
      kernel = load(config);
    } catch (const CompileError& e) {
      return {{"status", "compile"}, {"detail", e.what()}};
    }
    const Verification v = bench_->verify(*kernel);
    if (!v.passed)
      return {{"status", "incorrect"}, {"detail", v.detail}, {"error_ratio", v.worst_error_ratio}};
    const auto samples = bench_->time_kernel(*kernel, req.value("samples", 10));
    return {{"status", "ok"}, {"samples_ms", samples}, {"error_ratio", v.worst_error_ratio}};
  }

  nlohmann::json race(const nlohmann::json& req) {
    if (!bench_) throw std::logic_error("race before prepare");
    std::vector<std::unique_ptr<LoadedKernel>> kernels;
    for (const auto& c : req.at("configs")) kernels.push_back(load(c.get<KernelConfig>()));
    const int rounds = req.value("rounds", 30);
    std::vector<double> cublas;
    std::vector<std::vector<double>> per_config(kernels.size());
    // Interleaved: cuBLAS and every config take turns, so clock drift hits all of them alike.
    for (int r = 0; r < rounds; ++r) {
      cublas.push_back(bench_->time_cublas(1).front());
      for (std::size_t i = 0; i < kernels.size(); ++i)
        per_config[i].push_back(bench_->time_kernel(*kernels[i], 1).front());
    }
    return {{"status", "ok"}, {"cublas_ms", cublas}, {"configs_ms", per_config}};
  }

  KernelCompiler compiler_;
  DeviceProfile device_;
  std::unique_ptr<DeviceComparator> comparator_;
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
      reply = {{"status", is_resource_error(e.code()) ? "resources" : "launch"}, {"detail", e.what()}};
      // Anything but a plain resource error may have left the context unusable: start afresh.
      if (!is_resource_error(e.code())) {
        reply["sticky"] = true;
        exit_after = true;
      }
    } catch (const std::exception& e) {
      reply = {{"status", "error"}, {"detail", e.what()}};
    }
    std::cout << reply.dump() << std::endl;
    if (exit_after) return 1;
  }
  return 0;
}

}  // namespace gemmtune
