#include "record/baseline_entry.hpp"

#include "core/cublaslt_matmul.hpp"
#include "measure/statistics.hpp"

namespace gemmtune {

Baselines baselines_of(const CublasLtContestants& contestants, const std::vector<double>& cublas_ms,
                       const std::vector<double>& cublaslt_first_ms, const std::vector<double>& cublaslt_best_ms,
                       double flops) {
  Baselines b;
  b.cublas_ms = median(cublas_ms);
  b.cublas = timing_summary(cublas_ms, flops);
  if (!contestants.first || cublaslt_first_ms.empty()) return b;
  nlohmann::json first = timing_summary(cublaslt_first_ms, flops);
  first["algo"] = *contestants.first;
  const bool best_raced = contestants.best && !cublaslt_best_ms.empty();
  // The faster in this race runs: the screening that picked "best" was short.
  const bool best_faster = best_raced && median(cublaslt_best_ms) < median(cublaslt_first_ms);
  if (best_faster) {
    b.cublaslt = timing_summary(cublaslt_best_ms, flops);
    b.cublaslt["algo"] = *contestants.best;
  } else {
    b.cublaslt = first;
  }
  b.cublaslt_ms = b.cublaslt["median_ms"].get<double>();
  b.cublaslt["heuristic_first"] = std::move(first);
  b.cublaslt["version"] = contestants.version;
  return b;
}

void add_baselines(nlohmann::json& entry, const Baselines& b, double kernel_ms) {
  entry["cublas"] = b.cublas;
  if (!b.cublaslt.is_null()) entry["cublaslt"] = b.cublaslt;
  const bool kernel_won = kernel_ms > 0 && kernel_ms < b.best_ms();
  entry["winner"] = kernel_won ? "kernel" : b.cublaslt_leads() ? "cublaslt" : "cublas";
  if (kernel_ms > 0 && b.cublaslt_ms > 0) entry["ratio_vs_cublaslt"] = b.cublaslt_ms / kernel_ms;
}

}  // namespace gemmtune
