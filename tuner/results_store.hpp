// The results cache a tuning run produces: results/<gpu-slug>.json, schema gemmtune.results/1
// (documented in README.md). Entries are keyed by problem (m, n, k, dtype, layout); a new entry
// replaces the old one for the same problem and leaves the others alone. Updates hold an exclusive
// lock on <file>.lock and replace the file atomically, so concurrent tuners lose nothing and a
// reader never sees a torn file.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

namespace gemmtune {

inline constexpr const char* kResultsSchema = "gemmtune.results/1";

// Merges entries into the file; header fields (device, versions) are refreshed. Throws
// std::runtime_error naming the file and the reason when it cannot be written.
void merge_results(const std::filesystem::path& path, const nlohmann::json& header, const nlohmann::json& entries);

}  // namespace gemmtune
