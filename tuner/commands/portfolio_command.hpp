// `gemm-tune portfolio --gpu auto`: what the runtime library runs for shapes nobody tuned. A small
// menu of kernels (this GPU's tuned winners) is raced against cuBLAS at every point of a log-spaced
// grid of shapes; results/portfolio-<gpu-slug>.json (gemmtune.results/2, kind "portfolio") keeps
// every ratio, and the runtime runs a kernel for a call only where it beat cuBLAS at all the grid
// points around it (runtime/src/config_selection.cpp). Points already measured with the same menu
// are kept, so an interrupted run resumes; --refresh measures them again.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "commands/command.hpp"

namespace gemmtune {

struct PortfolioOptions {
  std::string gpu = "auto";
  std::string results_dir = "results";
  std::filesystem::path cache_dir;
  std::vector<int> grid = {1, 8, 64, 512, 4096, 32768, 65536};  // values of m, n and k (at most kMaxDimension)
  double max_mnk = 4096.0 * 4096.0 * 4096.0;  // larger points are not measured: cuBLAS territory
  std::vector<std::string> menu_from;          // results files whose winners join the menu
  bool refresh = false;
};

int run_portfolio(const PortfolioOptions& options);

Command add_portfolio_command(CLI::App& app);

}  // namespace gemmtune
