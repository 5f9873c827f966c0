// The tuner's handle on the GPU: one isolated worker process (worker_process.hpp) and the requests
// every GPU command makes of it: prepare a shape, evaluate a config, race configs against cuBLAS
// (its default call, and cuBLASLt's first and best algorithms).
// Shared by tuning and by `cross`, which measures other GPUs' winners.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cublaslt_matmul.hpp"
#include "core/kernel_config.hpp"
#include "core/problem.hpp"
#include "measure/worker_process.hpp"

namespace gemmtune {

// cuBLASLt's contestants at a prepared shape (gpu_bench.hpp): the heuristic's first choice and the
// fastest correct one of its first few, chosen by the worker when it prepares the shape.
struct CublasLtContestants {
  std::optional<CublasLtAlgo> first;  // nullopt: cuBLASLt offered no algorithm
  std::optional<CublasLtAlgo> best;   // nullopt: the first is the best
  std::size_t version = 0;            // cublasLtGetVersion() in the worker
  std::string failure;                // why there are none, where choosing them failed
};

struct PreparedShape {
  GemmShape shape;
  double cublas_ms = 0;         // median per launch while preparing
  int launches_per_sample = 1;  // batch size of one timing sample
  double evaluation_timeout = 0;
  CublasLtContestants cublaslt;
  std::vector<double> cublaslt_first_ms, cublaslt_best_ms;  // samples while preparing (empty: none)
};

// The worker is alive but cannot run this problem (it answered prepare with a failure: too large
// for the GPU's memory, say). Another problem may still run, so the run goes on without it.
class ProblemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RaceResult {
  std::vector<double> cublas_ms;
  std::vector<double> cublaslt_first_ms, cublaslt_best_ms;  // empty where PreparedShape's are
  std::vector<std::vector<double>> configs_ms;  // per config, in the order given
  int rounds = 0;
};

class GpuSession {
 public:
  // evaluation_timeout 0: derived from cuBLAS's time at each shape.
  GpuSession(int device_index, const std::filesystem::path& cache_dir, const std::string& template_path,
             double evaluation_timeout);

  // Allocates operands and references for shape (also in every replacement worker). Throws
  // ProblemError if the worker answers that it cannot, std::runtime_error if the worker fails.
  PreparedShape prepare(const GemmShape& shape, std::uint64_t seed);

  // The worker's reply: status "ok" with samples_ms, or a failure status with detail.
  nlohmann::json evaluate(const KernelConfig& config, int samples);

  // Interleaved re-timing of configs and the baselines (cuBLAS, cuBLASLt's), enough rounds for about budget_ms of GPU time
  // (10 to 50). Throws std::runtime_error on failure.
  RaceResult race(const std::vector<KernelConfig>& configs, double budget_ms = 1500.0);

  int restarts() const { return worker_.restarts(); }

 private:
  WorkerProcess worker_;
  double evaluation_timeout_override_;
  PreparedShape prepared_;
};

}  // namespace gemmtune
