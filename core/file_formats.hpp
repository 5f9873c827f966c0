// The name of every file format gemm-tune writes, each defined once, and where each format's one
// reader and one writer live (each reader refuses a file whose "schema" it does not know):
//   results, portfolio  read: core/results_file (the runtime and every tuner command);
//                       written: tuner/record/results_store (merge: tuner/record/results_merge)
//   record              read and written: core/record_file (the runtime writes, the tuner reads)
//   plan, cross, peers  read: tuner/record/result_files (compare, merge); written: commands/planner,
//                       commands/cross_command, scripts/peers/ (Python)
//   bench, compare      written only: commands/bench_command, report/json_report
//   tuning log          read and written: tuner/record/tuning_log (results/logs/<gpu>.jsonl)
// The formats themselves are documented in README.md (results) and beside their readers and writers.
#pragma once

#include <string_view>

namespace gemmtune {

// results/<gpu>.json and results/portfolio-<gpu>.json: the tuned winners (kind "measured" or
// "portfolio"). Version 3 keys every entry by its "precision" too, and its "winner" may be
// "cublaslt" (with the algorithm in "cublaslt"). Versions 2 ("dtype": "f32", i.e. fp32 only) and 1
// (row-major nn only, no batch, no "winner") are still read and upgraded.
inline constexpr const char* kResultsSchema = "gemmtune.results/3";
inline constexpr const char* kResultsSchemaV2 = "gemmtune.results/2";
inline constexpr const char* kResultsSchemaV1 = "gemmtune.results/1";
inline constexpr const char* kPlanSchema = "gemmtune.plan/1";        // results/plan-<gpu>.json: predictions
inline constexpr const char* kCrossSchema = "gemmtune.cross/1";      // results/cross-<gpu>.json
inline constexpr const char* kBenchSchema = "gemmtune.bench/1";      // results/bench-<gpu>.json
inline constexpr const char* kPeersSchema = "gemmtune.peers/1";      // results/peers-*.json (scripts/peers/)
inline constexpr const char* kCompareSchema = "gemmtune.compare/1";  // `compare --format json`
inline constexpr const char* kRecordSchema = "gemmtune.record/1";    // GEMMTUNE_RECORD files

// 3, 2 or 1 for a results schema (each is read everywhere), 0 for anything else.
inline int results_schema_version(std::string_view schema) {
  return schema == kResultsSchema ? 3 : schema == kResultsSchemaV2 ? 2 : schema == kResultsSchemaV1 ? 1 : 0;
}
inline bool is_results_schema(std::string_view schema) { return results_schema_version(schema) != 0; }

// A results entry's "winner" is "kernel" (one of ours) or one of cuBLAS's calls: its default one
// ("cublas") or a cuBLASLt algorithm ("cublaslt").
inline bool is_cublas_winner(std::string_view winner) { return winner == "cublas" || winner == "cublaslt"; }

}  // namespace gemmtune
