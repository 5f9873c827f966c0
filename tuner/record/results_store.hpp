// The results cache a tuning run produces: results/<gpu-slug>.json, schema gemmtune.results/1
// (documented in README.md). Entries are keyed by problem (m, n, k, dtype, layout); a new entry
// replaces the old one for the same problem and leaves the others alone. Updates hold an exclusive
// lock on <file>.lock and replace the file atomically, so concurrent tuners lose nothing and a
// reader never sees a torn file.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gemmtune {

inline constexpr const char* kResultsSchema = "gemmtune.results/1";

// Merges entries into the file; header fields (device, versions) are refreshed. Throws
// std::runtime_error naming the file and the reason when it cannot be written.
void merge_results(const std::filesystem::path& path, const nlohmann::json& header,
                   const nlohmann::json& entries);

// The same for any file of this shape: entries are the same problem when all key_fields match.
void merge_entries(const std::filesystem::path& path, const std::string& schema, const nlohmann::json& header,
                   const nlohmann::json& entries, const std::vector<std::string>& key_fields);

// The header every measured file starts with: device, CUDA runtime, NVRTC and tool versions, time.
nlohmann::json measured_header(const nlohmann::json& device);

}  // namespace gemmtune
