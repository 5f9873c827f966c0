// The one writer of results files: results/<gpu-slug>.json, schema gemmtune.results/3 (documented
// in README.md and read by core/results_file.hpp; kind "measured", or "portfolio" for
// results/portfolio-<gpu-slug>.json). Entries are keyed by problem (m, n, k, precision, layout,
// batch) and say which implementation won the final race ("winner": "kernel", "cublas" or
// "cublaslt", record/baseline_entry.hpp); a new entry replaces the old one for the same problem and
// leaves the others alone. Schema 1 and 2 files are upgraded when next written. Updates hold an
// exclusive lock on <file>.lock and replace the file atomically, so concurrent tuners lose nothing
// and a reader never sees a torn file.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gemmtune {


// What a new entry does to the file's entry for the same problem: replace it (a new measurement),
// or leave it where it names a kernel (a cuBLAS fallback, which measured nothing against an earlier
// winner; an earlier fallback it does replace).
enum class MergeRule { replace, keep_existing };

// Merges entries into the file; header fields (device, versions) are refreshed. Throws
// std::runtime_error naming the file and the reason when it cannot be written.
void merge_results(const std::filesystem::path& path, const nlohmann::json& header, const nlohmann::json& entries,
                   MergeRule rule = MergeRule::replace);

// The same for any file of this shape: entries are the same problem when all key_fields match.
void merge_entries(const std::filesystem::path& path, const std::string& schema, const nlohmann::json& header,
                   const nlohmann::json& entries, const std::vector<std::string>& key_fields,
                   MergeRule rule = MergeRule::replace);

// The header every measured file starts with: device, CUDA runtime, NVRTC and tool versions, time.
nlohmann::json measured_header(const nlohmann::json& device);

}  // namespace gemmtune
