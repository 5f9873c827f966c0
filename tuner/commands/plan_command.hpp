// `gemm-tune plan --gpu a100 --sizes ...`: the search space compiled and ranked for a GPU that
// need not be present (commands/planner.hpp does the work); writes results/plan-<gpu>.json and
// prints the ranking's summary. With --shard (or in a Slurm array job) it plans its share of the
// sizes only, into the -o file of that task; `gemm-tune merge` combines the tasks' plans.
#pragma once

#include <optional>
#include <string>

#include "commands/command.hpp"
#include "commands/common_options.hpp"

namespace gemmtune {

struct PlanCommandOptions {
  CommonOptions common;
  std::string gpu;                   // t4, a100, h100, h200, or sm_XY
  std::string output;                // empty: results/plan-<gpu>.json
  int keep_top = 20;                 // ranked candidates kept per problem
  std::optional<std::string> shard;  // --shard I/N; without it a Slurm array job's variables decide
};

int run_plan(const PlanCommandOptions& options);

// The `plan` subcommand and its options.
Command add_plan_command(CLI::App& app);

}  // namespace gemmtune
