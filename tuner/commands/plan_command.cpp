// The plan command's edge: options in, the plan file and its summary out. Everything learned
// about the candidates comes from commands/planner.hpp.
#include <fmt/format.h>

#include "commands/plan_command.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "core/kernel_compiler.hpp"
#include "search/device_catalog.hpp"
#include "commands/planner.hpp"
#include "core/problem.hpp"
#include "search/search_space.hpp"
#include "search/shard.hpp"

namespace gemmtune {

int run_plan(const PlanCommandOptions& o) {
  const auto shapes = problems_of_this_shard(parse_sizes(o.common.sizes, o.common.precision), o.shard);
  if (shapes.empty()) return 0;  // this task's share is empty (said so)
  const DeviceProfile device = load_device_profile(o.gpu);
  for (const GemmShape& shape : shapes)  // no tensor cores for it there: nothing to plan
    if (const std::string why = unsupported_precision(shape.precision, device.compute_capability, device.name);
        !why.empty())
      throw std::invalid_argument(shape.label() + ": " + why);
  const std::vector<SearchSpace> spaces = load_search_spaces(o.common.space_path);
  const KernelCompiler compiler(cache_dir_of(o.common));
  PlanOptions options;
  options.shapes = shapes;
  options.threads = o.common.jobs;
  options.keep_top = o.keep_top;
  const nlohmann::json plan = make_plan(spaces, device, compiler, options);
  const std::filesystem::path out = o.output.empty()
                                        ? std::filesystem::path("results") / ("plan-" + device.slug + ".json")
                                        : std::filesystem::path(o.output);
  std::error_code ec;
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path(), ec);
  std::ofstream file(out);
  if (!file || !(file << plan.dump(2) << '\n'))
    throw std::runtime_error("cannot write the plan to " + out.string());
  std::cout << plan_summary_table(plan) << "plan written to " << out.string() << '\n';
  return 0;
}

Command add_plan_command(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("plan", "Compile and rank the search space for a GPU, with no GPU needed");
  const auto options = std::make_shared<PlanCommandOptions>();
  add_common(*cmd, options->common);
  cmd->add_option("--gpu", options->gpu, "t4, a100, h100, h200, or sm_XY")->required();
  cmd->add_option("-o,--output", options->output, "Plan file (default: results/plan-<gpu>.json)");
  cmd->add_option("--top", options->keep_top, "Ranked candidates kept per problem")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--shard", options->shard, kShardHelp);
  return {cmd, [options] { return run_plan(*options); },
          std::shared_ptr<const CommonOptions>(options, &options->common)};
}

}  // namespace gemmtune
