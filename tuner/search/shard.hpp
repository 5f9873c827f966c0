// Sharding a problem list over the tasks of a cluster job: task I of N takes the problems whose
// index in the list (as --sizes gives it) is I mod N, so N tasks together cover every problem once
// and each writes a file of its own, which `gemm-tune merge` combines. The shard comes from
// --shard I/N or, without it, from a Slurm array job's environment; tune and plan share this.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.hpp"

namespace gemmtune {

struct Shard {
  int index = 0;  // 0 .. count - 1
  int count = 1;
  std::string label() const { return std::to_string(index) + "/" + std::to_string(count); }
};

inline constexpr const char* kShardHelp =
    "Take only problem i of every n (0-based, in --sizes order): I/N. Default: a Slurm array job's "
    "SLURM_ARRAY_TASK_ID (minus SLURM_ARRAY_TASK_MIN) of SLURM_ARRAY_TASK_COUNT; else all problems";

// Parses "I/N" (0 <= I < N). Throws std::invalid_argument naming what is wrong.
Shard parse_shard(const std::string& text);

// The shard for a command: --shard's text when given (wins, even when empty), else the Slurm array variables
// that lookup returns (nullptr: unset) when SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT are both set, else
// none. Throws std::invalid_argument for malformed or out-of-range values.
using EnvironmentLookup = std::function<const char*(const char*)>;
std::optional<Shard> choose_shard(const std::optional<std::string>& option, const EnvironmentLookup& lookup);

// The problems of shard among shapes, in their order.
std::vector<GemmShape> select_shard(const std::vector<GemmShape>& shapes, const Shard& shard);

// What tune and plan do: the problems this process takes, with the shard from option or the process
// environment (all of them where there is none), and a log line naming the share. An empty share
// is printed to standard output and returned empty: the command has nothing to do and exits 0.
std::vector<GemmShape> problems_of_this_shard(const std::vector<GemmShape>& shapes,
                                              const std::optional<std::string>& option);

}  // namespace gemmtune
