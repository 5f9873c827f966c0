// What a results entry says about the baselines a kernel raced: cuBLAS's default call ("cublas"),
// cuBLASLt's fastest contestant ("cublaslt": its timing, its algorithm for the runtime to rebuild,
// the cuBLAS version, and the heuristic's first choice beside it), and which implementation won
// ("winner": "kernel", "cublas" or "cublaslt"). The runtime runs the winner; a kernel wins only by
// beating both baselines.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "measure/gpu_session.hpp"

namespace gemmtune {

// cuBLASLt wins over cuBLAS's default call only by more than this: two cuBLAS paths often run the
// same kernel, and a coin toss between them should not change what the library calls.
inline constexpr double kCublasLtMargin = 1.01;

struct Baselines {
  double cublas_ms = 0;    // median
  double cublaslt_ms = 0;  // median of cuBLASLt's faster contestant; 0: none raced
  nlohmann::json cublas, cublaslt;  // the entry's fields (cublaslt null: none raced)

  // The baseline a kernel must beat: cuBLASLt where it beat cuBLAS's default call by the margin.
  bool cublaslt_leads() const { return cublaslt_ms > 0 && cublaslt_ms * kCublasLtMargin < cublas_ms; }
  double best_ms() const { return cublaslt_leads() ? cublaslt_ms : cublas_ms; }
};

// Samples of one race (or of a prepare) summarised for the entry.
Baselines baselines_of(const CublasLtContestants& contestants, const std::vector<double>& cublas_ms,
                       const std::vector<double>& cublaslt_first_ms, const std::vector<double>& cublaslt_best_ms,
                       double flops);

// Writes "cublas", "cublaslt", "winner" and, where a kernel raced (kernel_ms > 0),
// "ratio_vs_cublaslt" (cuBLASLt's time over the kernel's) into entry.
void add_baselines(nlohmann::json& entry, const Baselines& baselines, double kernel_ms);

}  // namespace gemmtune
