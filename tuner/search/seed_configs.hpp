// --seed-from: the winners another GPU's results file holds for a shape (or for its nearest tuned
// shape), used to start a search where that GPU's search ended; and, without --seed-from, the
// results of the GPUs most like this one that lie in the results directory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/device_profile.hpp"
#include "core/kernel_config.hpp"
#include "core/problem.hpp"

namespace gemmtune {

// Best and alternative configs of every file, for shape or its nearest problem by log-space
// distance of (M, N, K). Configs are validated like any untrusted input; a file that cannot be read
// or is not a results file throws std::invalid_argument naming it.
std::vector<KernelConfig> seed_configs(const std::vector<std::string>& results_files, const GemmShape& shape);

// Where a seed lands among a problem's candidates: the seed itself, or else the same binary with
// launch-time parameters this problem allows (another split-K or swizzle), or else its tiles and
// pipeline without split-K. A winner at 1024 splits K four ways, which 4096 rejects: without this,
// the nearest size's winners seeded nothing there. nullopt: nothing of it is a candidate.
std::optional<std::size_t> seed_index(const std::vector<KernelConfig>& candidates, const KernelConfig& seed);

// The measured results files of other GPU models in dir, most like device first (compute
// capability, then SM count, then memory bandwidth), at most count. Files that are not such
// results, or cannot be read, are skipped: these only order a search.
std::vector<std::string> similar_gpu_results(const std::filesystem::path& dir, const DeviceProfile& device,
                                             std::size_t count);

}  // namespace gemmtune
