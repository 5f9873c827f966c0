// The name of every file format gemm-tune writes, each defined once: the tuner writes them, and the
// tuner, the runtime and `compare` read them, each refusing a file whose "schema" it does not know.
// The formats themselves are documented in README.md (results) and beside their readers and writers.
#pragma once

#include <string_view>

namespace gemmtune {

// results/<gpu>.json and results/portfolio-<gpu>.json: the tuned winners (kind "measured" or
// "portfolio"). Version 1 (row-major nn only, no batch, no "winner") is still read and upgraded.
inline constexpr const char* kResultsSchema = "gemmtune.results/2";
inline constexpr const char* kResultsSchemaV1 = "gemmtune.results/1";
inline constexpr const char* kPlanSchema = "gemmtune.plan/1";        // results/plan-<gpu>.json: predictions
inline constexpr const char* kCrossSchema = "gemmtune.cross/1";      // results/cross-<gpu>.json
inline constexpr const char* kBenchSchema = "gemmtune.bench/1";      // results/bench-<gpu>.json
inline constexpr const char* kPeersSchema = "gemmtune.peers/1";      // results/peers-*.json (scripts/peers/)
inline constexpr const char* kCompareSchema = "gemmtune.compare/1";  // `compare --format json`
inline constexpr const char* kRecordSchema = "gemmtune.record/1";    // GEMMTUNE_RECORD files

// Schema 2 or the schema 1 it replaces: both are read everywhere.
inline bool is_results_schema(std::string_view schema) {
  return schema == kResultsSchema || schema == kResultsSchemaV1;
}

}  // namespace gemmtune
