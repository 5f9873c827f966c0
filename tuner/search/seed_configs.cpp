// Reading seeds from results files (schema gemmtune.results/3, /2 or /1).
#include "search/seed_configs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "core/file_formats.hpp"

namespace gemmtune {
namespace {

// An entry's dimension, checked before conversion: a huge float would otherwise reach an undefined
// float-to-int conversion (seen while writing fuzz_seed_configs). 0 or less: not a usable shape.
long long dimension(const nlohmann::json& entry, const char* key) {
  const auto& value = entry.at(key);
  if (!value.is_number_integer())
    throw std::invalid_argument(fmt::format("entry '{}' is not an integer", key));
  return value.get<long long>();
}

// Squared log2 distance over m, n, k and the batch; another layout counts as a factor of 2 away.
double log_distance(const nlohmann::json& entry, const GemmShape& s) {
  const auto term = [](double a, double b) { return std::pow(std::log2(a) - std::log2(b), 2); };
  const double batch = entry.contains("batch") ? double(dimension(entry, "batch")) : 1.0;
  const bool same_layout = entry.value("layout", std::string("nn")) == layout_name(s.layout) ||
                           (s.layout == Layout::nn && entry.value("layout", std::string()) == "row-major");
  return term(double(dimension(entry, "m")), s.m) + term(double(dimension(entry, "n")), s.n) +
         term(double(dimension(entry, "k")), s.k) + term(std::max(batch, 1.0), s.batch) + (same_layout ? 0.0 : 1.0);
}

}  // namespace

std::vector<KernelConfig> seed_configs(const std::vector<std::string>& files, const GemmShape& shape) {
  std::vector<KernelConfig> seeds;
  for (const auto& path : files) {
    const auto text = read_whole_file(path);
    if (!text) throw std::invalid_argument(fmt::format("cannot read --seed-from file '{}'", path));
    try {
      const auto doc = nlohmann::json::parse(*text);
      if (!is_results_schema(doc.value("schema", "")))
        throw std::invalid_argument(
            fmt::format("not a {} (or {}, {}) file", kResultsSchema, kResultsSchemaV2, kResultsSchemaV1));
      const nlohmann::json* nearest = nullptr;
      double best_distance = std::numeric_limits<double>::infinity();
      for (const auto& entry : doc.at("entries")) {
        if (dimension(entry, "m") <= 0 || dimension(entry, "n") <= 0 || dimension(entry, "k") <= 0) continue;
        if (!entry.contains("best")) continue;  // a cuBLAS fallback: no kernel to start from
        // Another precision's kernels are another family's (schemas before 3: fp32 only).
        if (entry.value("precision", std::string("fp32")) != precision_name(shape.precision)) continue;
        const double d = log_distance(entry, shape);
        if (d < best_distance) best_distance = d, nearest = &entry;
      }
      if (!nearest) continue;
      // Tiles carry over between layouts as seeds: compiled for this problem's.
      const auto add = [&](const nlohmann::json& config_json) {
        KernelConfig config = config_json.get<KernelConfig>();
        config.layout = shape.layout;
        seeds.push_back(config);
      };
      add(nearest->at("best").at("config"));
      for (const auto& alt : nearest->value("alternatives", nlohmann::json::array())) add(alt.at("config"));
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("--seed-from {}: {}", path, e.what()));
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
    const auto doc = nlohmann::json::parse(*text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !is_results_schema(doc.value("schema", "")) ||
        doc.value("kind", "") != "measured" || !doc.contains("device") || !doc["device"].is_object())
      continue;
    const auto& other = doc["device"];
    if (other.value("slug", "") == device.slug) continue;
    const auto log_ratio = [](double a, double b) { return a > 0 && b > 0 ? std::fabs(std::log(a / b)) : 1.0; };
    // A compute capability apart outweighs any SM count or bandwidth: it changes the instruction set.
    const double unlikeness = 10.0 * std::abs(other.value("compute_capability", 0) - device.compute_capability) +
                              log_ratio(other.value("sm_count", 0), device.sm_count) +
                              log_ratio(other.value("memory_gbps", 0.0), device.memory_gbps);
    ranked.emplace_back(unlikeness, file.path().string());
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i) out.push_back(ranked[i].second);
  return out;
}

}  // namespace gemmtune
