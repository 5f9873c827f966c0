// `gemm-tune merge -o OUT FILE...`: the files of a sharded run (one per Slurm array task) combined
// into one results or plan file; record/results_merge.hpp decides what is kept.
#pragma once

#include <string>
#include <vector>

#include "commands/command.hpp"

namespace gemmtune {

struct MergeOptions {
  std::string output;
  std::vector<std::string> files;
};

int run_merge(const MergeOptions& options);

// The `merge` subcommand and its options.
Command add_merge_command(CLI::App& app);

}  // namespace gemmtune
