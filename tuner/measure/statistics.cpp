// Sample statistics (sorting copies: sample lists are short).
#include "measure/statistics.hpp"

#include <algorithm>

namespace gemmtune {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double percentile(std::vector<double> v, double fraction) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = fraction * double(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

nlohmann::json timing_summary(const std::vector<double>& samples, double flops) {
  const double med = median(samples);
  return {{"median_ms", med},
          {"min_ms", percentile(samples, 0.0)},
          {"p10_ms", percentile(samples, 0.1)},
          {"p90_ms", percentile(samples, 0.9)},
          {"max_ms", percentile(samples, 1.0)},
          {"samples", samples.size()},
          {"tflops", tflops_of(flops, med)}};
}

}  // namespace gemmtune
