// `gemm-tune merge`: the files of a sharded run (one per cluster task) combined into one. Results
// files (gemmtune.results/1 or /2) of one GPU model merge per problem, keeping the faster measured
// winner (higher best.tflops; the first file's on a tie) and, in the kept entry's "merged_from",
// every measurement of that problem: its file, best kernel, TFLOP/s and date. Plans
// (gemmtune.plan/1) of one GPU merge by problem; shards plan disjoint problems, so a problem seen
// twice keeps its first plan and the merge says so. Files of different kinds, of different GPU
// models, or that fail the checks `compare` applies are refused whole.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gemmtune {

struct MergedFiles {
  nlohmann::json document;         // results schema 2 or plan schema 1, ready to write
  std::string kind;                // "results" or "plan"
  std::string gpu;                 // the device slug all files share
  std::size_t problems = 0;        // in the merged document
  std::vector<std::string> notes;  // problems found in several files, and which one was kept
};

// Throws std::invalid_argument with one line naming the file and the reason it is refused.
MergedFiles merge_result_files(const std::vector<std::filesystem::path>& files);

}  // namespace gemmtune
