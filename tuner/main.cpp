// gemm-tune: command-line entry. Parses arguments, maps every error to a one-line message and an
// exit code (2: bad input, 3: no usable GPU, 1: anything else), and dispatches to the commands.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "commands/compare_command.hpp"
#include "search/device_catalog.hpp"
#include "search/planner.hpp"
#include "search/problem.hpp"
#include "search/search_space.hpp"
#include "commands/bench_command.hpp"
#include "commands/cross_command.hpp"
#include "compile/thread_pool.hpp"
#include "commands/tune_command.hpp"
#include "version.hpp"
#include "measure/worker.hpp"

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitNoDevice = 3;

struct CommonOptions {
  std::string sizes = "512,1024,4096";
  std::string space_path;
  std::string cache_dir;
  bool no_cache = false;
  unsigned jobs = gemmtune::default_parallelism();
  std::string log_level = "info";
};

void add_common(CLI::App& cmd, CommonOptions& o) {
  cmd.add_option("--sizes", o.sizes, "Problem sizes: N (cube) or MxNxK, comma-separated")->capture_default_str();
  cmd.add_option("--space", o.space_path, "Search-space JSON (default: the built-in configs/sgemm.json)");
  cmd.add_option("--cache-dir", o.cache_dir, "Compile cache directory (default: $GEMMTUNE_CACHE_DIR or ~/.cache/gemmtune)");
  cmd.add_flag("--no-cache", o.no_cache, "Do not read or write the compile cache");
  cmd.add_option("-j,--jobs", o.jobs, "Parallel NVRTC compilations")->capture_default_str()->check(CLI::Range(1u, 1024u));
  cmd.add_option("--log-level", o.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
}

std::filesystem::path cache_dir_of(const CommonOptions& o) {
  if (o.no_cache) return {};
  return o.cache_dir.empty() ? gemmtune::default_cache_dir() : std::filesystem::path(o.cache_dir);
}

int run_plan(const CommonOptions& common, const std::string& gpu, const std::string& output, int keep_top) {
  using namespace gemmtune;
  const auto shapes = parse_sizes(common.sizes);
  const DeviceProfile device = load_device_profile(gpu);
  const SearchSpace space = load_search_space(common.space_path);
  const KernelCompiler compiler(cache_dir_of(common));
  PlanOptions options;
  options.shapes = shapes;
  options.threads = common.jobs;
  options.keep_top = keep_top;
  const nlohmann::json plan = make_plan(space, device, compiler, options);
  const std::filesystem::path out = output.empty() ? std::filesystem::path("results") / ("plan-" + device.slug + ".json")
                                                   : std::filesystem::path(output);
  std::error_code ec;
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path(), ec);
  std::ofstream file(out);
  if (!file || !(file << plan.dump(2) << '\n'))
    throw std::runtime_error("cannot write the plan to " + out.string());
  std::cout << plan_summary_table(plan) << "plan written to " << out.string() << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gemmtune;
  auto logger = spdlog::stderr_color_mt("gemm-tune");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%^%l%$: %v");

  CLI::App app{"gemm-tune: search CUDA SGEMM kernel configurations and keep the best per GPU and size"};
  app.set_version_flag("--version", std::string("gemm-tune ") + kGemmtuneVersion);
  app.require_subcommand(0, 1);

  CommonOptions common;
  TuneOptions tune;
  add_common(app, common);
  app.add_option("--gpu", tune.gpu, "GPU to tune on: auto (first visible), an index, or a name")->capture_default_str();
  app.add_option("--strategy", tune.strategy, "exhaustive, random or genetic")
      ->check(CLI::IsMember({"exhaustive", "random", "genetic"}))
      ->capture_default_str();
  app.add_option("--budget", tune.budget_evaluations, "Evaluations per size (0: strategy default)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--time-budget", tune.budget_seconds, "Seconds per size (0: none)")->check(CLI::Range(0.0, 1e6));
  app.add_option("--seed", tune.seed, "Random seed for the strategy")->capture_default_str();
  app.add_option("--results-dir", tune.results_dir, "Where results/<gpu>.json is written")->capture_default_str();
  app.add_option("--top", tune.retime_top, "Candidates re-timed against cuBLAS at the end")->check(CLI::Range(1, 50));
  app.add_option("--template", tune.template_path, "Kernel template to use instead of the built-in one (testing)")
      ->group("");
  app.add_option("--eval-timeout", tune.eval_timeout_seconds, "Seconds before a hung candidate is killed")
      ->check(CLI::Range(0.5, 3600.0));

  auto* plan_cmd = app.add_subcommand("plan", "Compile and rank the search space for a GPU, with no GPU needed");
  CommonOptions plan_common;
  std::string plan_gpu, plan_output;
  int plan_top = 20;
  add_common(*plan_cmd, plan_common);
  plan_cmd->add_option("--gpu", plan_gpu, "t4, a100, h100, h200, or sm_XY")->required();
  plan_cmd->add_option("-o,--output", plan_output, "Plan file (default: results/plan-<gpu>.json)");
  plan_cmd->add_option("--top", plan_top, "Ranked candidates kept per problem")->check(CLI::Range(1, 10000));

  app.add_option("--seed-from", tune.seed_from, "Results files of other GPUs whose winners start the search")
      ->check(CLI::ExistingFile);
  app.add_flag("!--no-warm-start", tune.warm_start,
               "Do not start from this GPU's own winners in --results-dir (the nearest size's)");

  auto* cross_cmd = app.add_subcommand("cross", "Measure other GPUs' winners on this GPU against its own");
  CrossOptions cross;
  cross_cmd->add_option("--from", cross.from, "Results files of other GPUs")->required()->check(CLI::ExistingFile);
  cross_cmd->add_option("--gpu", cross.gpu, "GPU to measure on: auto, an index, or a name")->capture_default_str();
  cross_cmd->add_option("--results-dir", cross.results_dir, "Where this GPU's results are and cross-<gpu>.json goes")
      ->capture_default_str();
  cross_cmd->add_option("--cache-dir", cross.cache_dir, "Compile cache directory");

  auto* bench_cmd = app.add_subcommand("bench", "Tuned kernels against cuBLAS over a set of shapes (tuning missing ones)");
  CommonOptions bench_common;
  bench_common.sizes = kDefaultBenchSizes;
  add_common(*bench_cmd, bench_common);
  bench_cmd->add_option("--gpu", tune.gpu, "GPU: auto, an index, or a name")->capture_default_str();
  bench_cmd->add_option("--results-dir", tune.results_dir, "Where results/<gpu>.json is read and bench-<gpu>.json written")
      ->capture_default_str();

  auto* compare_cmd =
      app.add_subcommand("compare", "Set GPUs' winners side by side: results, plan (predictions) and cross files");
  CompareOptions compare;
  compare_cmd
      ->add_option("files", compare.files,
                   "Two or more files: results (gemmtune.results/1), plans (gemmtune.plan/1), cross (gemmtune.cross/1)")
      ->required();
  compare_cmd->add_option("--format", compare.format, "table (terminal), md, json or html (self-contained page)")
      ->check(CLI::IsMember({"table", "md", "json", "html"}))
      ->capture_default_str();
  compare_cmd->add_option("-o,--output", compare.output, "Write the report to this file instead of standard output");

  auto* worker_cmd = app.add_subcommand("worker", "Internal: the GPU evaluation process");
  worker_cmd->group("");  // hidden
  WorkerOptions worker;
  worker_cmd->add_option("--device", worker.device_index)->required();
  worker_cmd->add_option("--cache-dir", worker.cache_dir);
  worker_cmd->add_option("--template", worker.template_path);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }

  const CommonOptions& active = plan_cmd->parsed() ? plan_common : bench_cmd->parsed() ? bench_common : common;
  spdlog::set_level(spdlog::level::from_str(active.log_level));
  try {
    if (worker_cmd->parsed()) return run_worker(worker);
    if (plan_cmd->parsed()) return run_plan(plan_common, plan_gpu, plan_output, plan_top);
    if (cross_cmd->parsed()) return run_cross(cross);
    if (bench_cmd->parsed()) {
      tune.shapes = parse_sizes(bench_common.sizes);
      tune.space_path = bench_common.space_path;
      tune.cache_dir = cache_dir_of(bench_common);
      tune.jobs = bench_common.jobs;
      return run_bench(tune);
    }
    if (compare_cmd->parsed()) return run_compare(compare);
    tune.shapes = parse_sizes(common.sizes);
    tune.space_path = common.space_path;
    tune.cache_dir = cache_dir_of(common);
    tune.jobs = common.jobs;
    return run_tune(tune);
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "gemm-tune: %s. To plan for a GPU without one: gemm-tune plan --gpu h100 --sizes %s\n",
                 e.what(), common.sizes.c_str());
    return kExitNoDevice;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gemm-tune: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm-tune: error: %s\n", e.what());
    return 1;
  }
}
