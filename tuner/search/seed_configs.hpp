// --seed-from: the winners another GPU's results file holds for a shape (or for its nearest tuned
// shape), used to start a search where that GPU's search ended.
#pragma once

#include <string>
#include <vector>

#include "kernel_config.hpp"
#include "search/problem.hpp"

namespace gemmtune {

// Best and alternative configs of every file, for shape or its nearest problem by log-space
// distance of (M, N, K). Configs are validated like any untrusted input; a file that cannot be read
// or is not a results file throws std::invalid_argument naming it.
std::vector<KernelConfig> seed_configs(const std::vector<std::string>& results_files, const GemmShape& shape);

}  // namespace gemmtune
