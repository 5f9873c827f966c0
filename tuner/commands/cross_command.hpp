// `gemm-tune cross --from results/other.json [--from ...] --gpu auto`: how well other GPUs' winners
// run here. For every problem this GPU has tuned, each source GPU's winner is raced against this
// GPU's own winner (and cuBLAS) in one interleaved measurement, and its speed is reported as a
// percentage of the own winner's. Results go to results/cross-<gpu-slug>.json (gemmtune.cross/1),
// which `compare` turns into a portability matrix.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "commands/command.hpp"

namespace gemmtune {


struct CrossOptions {
  std::string gpu = "auto";
  std::vector<std::string> from;
  std::string results_dir = "results";
  std::filesystem::path cache_dir;
  std::uint64_t seed = 1;
};

int run_cross(const CrossOptions& options);

// The `cross` subcommand and its options.
Command add_cross_command(CLI::App& app);

}  // namespace gemmtune
