// Request building and reply checking for the worker protocol (worker.hpp).
#include "measure/gpu_session.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "measure/statistics.hpp"
#include "core/candidate_status.hpp"

namespace gemmtune {
namespace {

std::vector<std::string> worker_arguments(int device_index, const std::filesystem::path& cache_dir,
                                          const std::string& template_path) {
  std::vector<std::string> args = {"worker", "--device", std::to_string(device_index), "--cache-dir", cache_dir.string()};
  if (!template_path.empty()) {
    args.push_back("--template");
    args.push_back(template_path);
  }
  return args;
}

}  // namespace

GpuSession::GpuSession(int device_index, const std::filesystem::path& cache_dir, const std::string& template_path,
                       double evaluation_timeout)
    : worker_(worker_arguments(device_index, cache_dir, template_path)),
      evaluation_timeout_override_(evaluation_timeout) {}

PreparedShape GpuSession::prepare(const GemmShape& shape, std::uint64_t seed) {
  nlohmann::json request = {{"op", "prepare"}, {"seed", seed}, {"samples", 20}};
  shape_to_json(request, shape);
  constexpr double kPrepareTimeout = 300;  // allocation, reference GEMMs, kernel compile
  worker_.set_preamble(request, kPrepareTimeout);
  const auto reply = worker_.call(request, kPrepareTimeout);
  const CandidateStatus status = parse_status(reply.value("status", ""));
  const std::string why = "the GPU worker could not prepare " + shape.label() + ": " + reply.value("detail", "");
  // "resources" (out of memory) and "error" are the worker's own answers about this problem; a
  // crash, a hang or an unreadable reply says nothing about the problem and everything about the GPU.
  if (status == CandidateStatus::resources || status == CandidateStatus::error) throw ProblemError(why);
  if (status != CandidateStatus::ok) throw std::runtime_error(why);
  prepared_.shape = shape;
  prepared_.cublas_ms = median(reply["cublas_ms"].get<std::vector<double>>());
  prepared_.launches_per_sample = reply["launches_per_sample"].get<int>();
  prepared_.cublaslt = CublasLtContestants{};
  prepared_.cublaslt_first_ms = prepared_.cublaslt_best_ms = {};
  try {  // cuBLASLt is a contestant, not the problem: what cannot be read leaves it out, with a line
    if (const auto first = reply.find("cublaslt_first"); first != reply.end())
      prepared_.cublaslt.first = first->get<CublasLtAlgo>();
    if (const auto best = reply.find("cublaslt_best"); best != reply.end())
      prepared_.cublaslt.best = best->get<CublasLtAlgo>();
    prepared_.cublaslt.version = reply.value("cublaslt_version", std::size_t(0));
    prepared_.cublaslt.failure = reply.value("cublaslt_failure", "");
    prepared_.cublaslt_first_ms = reply.value("cublaslt_first_ms", std::vector<double>{});
    prepared_.cublaslt_best_ms = reply.value("cublaslt_best_ms", std::vector<double>{});
  } catch (const std::exception& e) {
    prepared_.cublaslt = CublasLtContestants{};
    prepared_.cublaslt.failure = e.what();
    prepared_.cublaslt_first_ms = prepared_.cublaslt_best_ms = {};
  }
  if (!prepared_.cublaslt.failure.empty())
    spdlog::warn("{}: cuBLASLt left out of the race: {}", shape.label(), prepared_.cublaslt.failure);
  // 12 batches (warm-up, samples) with 50x slack over cuBLAS, plus fixed costs.
  prepared_.evaluation_timeout = evaluation_timeout_override_ > 0
                                     ? evaluation_timeout_override_
                                     : 30.0 + 50.0 * prepared_.cublas_ms * prepared_.launches_per_sample * 12 / 1000.0;
  return prepared_;
}

nlohmann::json GpuSession::evaluate(const KernelConfig& config, int samples) {
  return worker_.call({{"op", "evaluate"}, {"config", config}, {"samples", samples}}, prepared_.evaluation_timeout);
}

RaceResult GpuSession::race(const std::vector<KernelConfig>& configs, double budget_ms) {
  const double batch_ms = prepared_.cublas_ms * prepared_.launches_per_sample;
  const int baselines = 1 + int(prepared_.cublaslt.first.has_value()) + int(prepared_.cublaslt.best.has_value());
  RaceResult result;
  result.rounds =
      std::clamp(static_cast<int>(budget_ms / std::max(1e-3, batch_ms * double(configs.size() + baselines))), 10, 50);
  const auto reply = worker_.call({{"op", "race"}, {"configs", configs}, {"rounds", result.rounds}},
                                  60.0 + 10.0 * prepared_.evaluation_timeout);
  if (parse_status(reply.value("status", "")) != CandidateStatus::ok)
    throw std::runtime_error("re-timing against cuBLAS failed: " + reply.value("detail", reply.value("status", "")));
  result.cublas_ms = reply["cublas_ms"].get<std::vector<double>>();
  result.cublaslt_first_ms = reply.value("cublaslt_first_ms", std::vector<double>{});
  result.cublaslt_best_ms = reply.value("cublaslt_best_ms", std::vector<double>{});
  result.configs_ms = reply["configs_ms"].get<std::vector<std::vector<double>>>();
  return result;
}

}  // namespace gemmtune
