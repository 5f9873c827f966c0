// Summaries of timing samples as they appear in results files: median and spread, and TFLOP/s of
// the median.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace gemmtune {

double median(std::vector<double> samples);
double percentile(std::vector<double> samples, double fraction);  // fraction in [0, 1], interpolated

// {"median_ms", "min_ms", "p10_ms", "p90_ms", "max_ms", "samples", "tflops"}
nlohmann::json timing_summary(const std::vector<double>& samples_ms, double flops);

inline double tflops_of(double flops, double ms) {
  return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0;
}

}  // namespace gemmtune
