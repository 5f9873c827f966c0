// Seeds from results files (schema gemmtune.results/3, /2 or /1, read by core/results_file.hpp).
#include "search/seed_configs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "core/file_formats.hpp"
#include "core/results_file.hpp"

namespace gemmtune {
namespace {

// Squared log2 distance over m, n, k and the batch; another layout counts as a factor of 2 away.
double log_distance(const GemmShape& a, const GemmShape& b) {
  const auto term = [](double x, double y) { return std::pow(std::log2(x) - std::log2(y), 2); };
  return term(a.m, b.m) + term(a.n, b.n) + term(a.k, b.k) + term(a.batch, b.batch) + (a.layout == b.layout ? 0.0 : 1.0);
}

// A results file, read by core's reader; refused as a whole with the reason.
TunedResults read_results_file(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text) throw std::invalid_argument(fmt::format("cannot read --seed-from file '{}'", path));
  try {
    const auto doc = nlohmann::json::parse(*text);
    if (!doc.is_object() || !is_results_schema(doc.value("schema", "")))
      throw std::invalid_argument(
          fmt::format("not a {} (or {}, {}) file", kResultsSchema, kResultsSchemaV2, kResultsSchemaV1));
    return read_results(doc, path);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("--seed-from {}: {}", path, e.what()));
  }
}

}  // namespace

std::vector<KernelConfig> seed_configs(const std::vector<std::string>& files, const GemmShape& shape) {
  std::vector<KernelConfig> seeds;
  for (const auto& path : files) {
    const TunedResults results = read_results_file(path);
    const TunedShape* nearest = nullptr;
    double best_distance = std::numeric_limits<double>::infinity();
    for (const TunedShape& tuned : results.shapes) {
      // A cuBLAS fallback has no kernel to start from; another precision's kernels are another family's.
      if (!tuned.has_kernel() || tuned.problem.precision != shape.precision) continue;
      const double d = log_distance(tuned.problem, shape);
      if (d < best_distance) best_distance = d, nearest = &tuned;
    }
    if (!nearest) continue;
    // Tiles carry over between layouts and C types as seeds: compiled for this problem's.
    for (const RacedConfig& raced : nearest->raced) {
      KernelConfig config = raced.config;
      config.layout = shape.layout;
      config.c16 = shape.c16;
      seeds.push_back(config);
    }
  }
  return seeds;
}

std::optional<std::size_t> seed_index(const std::vector<KernelConfig>& candidates, const KernelConfig& seed) {
  const auto index_of = [&](auto&& matches) -> std::optional<std::size_t> {
    const auto it = std::find_if(candidates.begin(), candidates.end(), matches);
    if (it == candidates.end()) return std::nullopt;
    return static_cast<std::size_t>(it - candidates.begin());
  };
  if (auto exact = index_of([&](const KernelConfig& c) { return c == seed; })) return exact;
  KernelConfig unsplit = seed;
  unsplit.split_k = 1;
  unsplit.swizzle = 1;
  if (auto same = index_of([&](const KernelConfig& c) { return c == unsplit; })) return same;
  if (auto same_binary = index_of([&](const KernelConfig& c) { return c.same_binary(seed); })) return same_binary;
  unsplit.split_k_atomic = false;  // a compile-time choice that means nothing without split-K
  return index_of([&](const KernelConfig& c) { return c == unsplit; });
}

std::vector<std::string> similar_gpu_results(const std::filesystem::path& dir, const DeviceProfile& device,
                                             std::size_t count) {
  std::vector<std::pair<double, std::string>> ranked;  // (unlikeness, path)
  std::error_code ec;
  for (const auto& file : std::filesystem::directory_iterator(dir, ec)) {
    if (file.path().extension() != ".json" || file.path().stem() == device.slug) continue;
    const auto text = read_whole_file(file.path().string());
    if (!text) continue;
    TunedResults other;
    try {
      other = read_results_text(*text, file.path().string());
    } catch (const std::invalid_argument&) {
      continue;  // a plan, a report, a broken file: not measured results of another GPU
    }
    if (other.portfolio || other.device.slug == device.slug) continue;
    const auto log_ratio = [](double a, double b) { return a > 0 && b > 0 ? std::fabs(std::log(a / b)) : 1.0; };
    // A compute capability apart outweighs any SM count or bandwidth: it changes the instruction set.
    const double unlikeness = 10.0 * std::abs(other.device.compute_capability - device.compute_capability) +
                              log_ratio(other.device.sm_count, device.sm_count) +
                              log_ratio(other.device.memory_gbps, device.memory_gbps);
    ranked.emplace_back(unlikeness, file.path().string());
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i) out.push_back(ranked[i].second);
  return out;
}

}  // namespace gemmtune
