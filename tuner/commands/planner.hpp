// `gemm-tune plan`: everything that can be learned about a search space on a GPU without the GPU.
// Compiles every candidate for the device's architecture, rejects those that spill or do not fit,
// ranks the rest with the static model and writes a plan JSON marked as a prediction.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/device_profile.hpp"
#include "core/kernel_compiler.hpp"
#include "core/problem.hpp"
#include "search/search_space.hpp"

namespace gemmtune {

struct PlanOptions {
  std::vector<GemmShape> shapes;
  unsigned threads = 1;
  int keep_top = 20;  // ranked candidates written per problem
  bool progress = true;
};

// Returns the plan document (schema gemmtune.plan/1).
// spaces: load_search_spaces' (every family's, or the one given).
nlohmann::json make_plan(const std::vector<SearchSpace>& spaces, const DeviceProfile& device,
                         const KernelCompiler& compiler, const PlanOptions& options);

// The human summary printed after a plan.
std::string plan_summary_table(const nlohmann::json& plan);

}  // namespace gemmtune
