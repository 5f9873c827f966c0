// Every update is a read-modify-write under the results file's lock (file_lock.hpp), so tuners
// running at once, on one machine or on a cluster's shared storage, lose nothing.
#include "core/results_store.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "core/atomic_file.hpp"
#include "core/file_formats.hpp"
#include "core/file_lock.hpp"
#include "core/kernel_compiler.hpp"
#include "core/results_file.hpp"
#include "core/timestamp.hpp"
#include "core/version.hpp"

namespace gemmtune {
namespace {

bool same_key(const nlohmann::json& a, const nlohmann::json& b, const std::vector<std::string>& key_fields) {
  for (const auto& key : key_fields)
    if (a.value(key, nlohmann::json()) != b.value(key, nlohmann::json())) return false;
  return true;
}

}  // namespace

void merge_results(const std::filesystem::path& path, const nlohmann::json& header, const nlohmann::json& entries,
                   MergeRule rule) {
  merge_entries(path, kResultsSchema, header, entries, {"m", "n", "k", "precision", "c", "layout", "batch"}, rule);
}

nlohmann::json measured_header(const nlohmann::json& device) {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  return {{"device", device},
          {"cuda_runtime_version", fmt::format("{}.{}", runtime / 1000, (runtime % 1000) / 10)},
          {"nvrtc_version", nvrtc_version()},
          {"tool_version", kGemmtuneVersion},
          {"updated", utc_timestamp()}};
}

void merge_entries(const std::filesystem::path& path, const std::string& schema, const nlohmann::json& header,
                   const nlohmann::json& entries, const std::vector<std::string>& key_fields, MergeRule rule) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  FileLock lock(path.string() + ".lock");
  nlohmann::json doc = nlohmann::json::object();
  if (const auto text = read_whole_file(path)) {
    auto parsed = nlohmann::json::parse(*text, nullptr, false);
    const bool any_results_version = schema == kResultsSchema && !parsed.is_discarded() && parsed.is_object() &&
                               parsed.contains("schema") && parsed["schema"].is_string() &&
                               results_schema_version(parsed["schema"].get<std::string>()) > 0;
    if (any_results_version && parsed.contains("entries") && parsed["entries"].is_array())
      for (auto& entry : parsed["entries"]) upgrade_results_entry(entry);
    if (!parsed.is_discarded() && parsed.is_object() && (parsed.value("schema", "") == schema || any_results_version)) {
      doc = std::move(parsed);
    } else {
      // Never silently drop someone's data: keep the unreadable file beside the new one.
      const auto backup = path.string() + ".unreadable";
      std::filesystem::rename(path, backup, ec);
      spdlog::warn("{} was not a readable results file; moved it to {}", path.string(), backup);
    }
  }
  nlohmann::json merged = doc.value("entries", nlohmann::json::array());
  if (!merged.is_array()) merged = nlohmann::json::array();
  // Keys as schema 2 spells them, so an entry written by an older tuner is replaced, not repeated.
  auto with_current_keys = [](nlohmann::json e) {
    if (!e.is_object()) return e;
    if (!e.contains("layout") || e["layout"] == "row-major") e["layout"] = "nn";
    if (!e.contains("batch")) e["batch"] = 1;
    if (!e.contains("precision")) e["precision"] = "fp32";
    if (e.value("c", nlohmann::json()) == "fp32") e.erase("c");  // FP32 C is spelled by its absence
    return e;
  };
  for (auto& old : merged) old = with_current_keys(old);
  for (const auto& incoming : entries) {
    const nlohmann::json e = with_current_keys(incoming);
    bool replaced = false;
    for (auto& old : merged) {
      if (same_key(old, e, key_fields)) {
        // An earlier fallback measured no kernel either: the newer one's cuBLAS timings replace it.
        if (rule == MergeRule::replace || !old.contains("best")) old = e;
        replaced = true;
      }
    }
    if (!replaced) merged.push_back(e);
  }
  std::sort(merged.begin(), merged.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    const auto key = [](const nlohmann::json& e) {
      return std::make_tuple(e.value("from", std::string()), e.value("precision", std::string()),
                             e.value("c", std::string()), e.value("m", 0), e.value("n", 0), e.value("k", 0),
                             e.value("layout", std::string()), e.value("batch", 1));
    };
    return key(a) < key(b);
  });
  nlohmann::json out = header;
  out["schema"] = schema;
  out["kind"] = header.value("kind", "measured");
  out["entries"] = merged;
  std::string error;
  if (!write_file_atomically(path, out.dump(2) + "\n", &error))
    throw std::runtime_error(fmt::format("cannot write results {}: {}", path.string(), error));
}

}  // namespace gemmtune
