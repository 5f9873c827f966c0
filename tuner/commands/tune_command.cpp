// The tune command: picks the device, runs a ShapeTuner (commands/shape_tuner.hpp) over the
// sizes, and prints the summary table. Ctrl-C ends the run after the evaluation in flight, with
// exit code 130 and everything measured already in the tuning log.
#include "commands/tune_command.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "commands/common_options.hpp"
#include "atomic_file.hpp"
#include "commands/shape_tuner.hpp"
#include "device_profile.hpp"
#include "record_file.hpp"
#include "search/shard.hpp"

namespace gemmtune {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

int select_device(const std::string& gpu) {
  const DeviceCount devices = count_devices();
  if (devices.count == 0) throw NoDeviceError(devices.reason);
  if (gpu == "auto") return 0;
  if (!gpu.empty() && std::all_of(gpu.begin(), gpu.end(),
                                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    const int index = gpu.size() > 4 ? devices.count : std::stoi(gpu);
    if (index >= devices.count)
      throw std::invalid_argument(fmt::format("--gpu {}: only {} device(s) visible", gpu, devices.count));
    return index;
  }
  std::vector<int> matches;
  std::vector<std::string> names;
  for (int i = 0; i < devices.count; ++i) {
    const DeviceProfile p = query_device(i);
    names.push_back(p.name);
    if (lower(p.name).find(lower(gpu)) != std::string::npos || p.slug == lower(gpu)) matches.push_back(i);
  }
  if (matches.empty())
    throw std::invalid_argument(
        fmt::format("--gpu '{}' matches no visible device (visible: {})", gpu, fmt::join(names, "; ")));
  return matches.front();
}

int run_tune(const TuneOptions& options) {
  const int index = select_device(options.gpu);
  const DeviceProfile device = query_device(index);
  spdlog::info("tuning on {} ({}, {} SMs), {} sizes, strategy {}", device.name, device.arch(),
               device.sm_count, options.shapes.size(), options.strategy);
  stop_on_interrupt();
  ShapeTuner tuner(options, index, device);
  std::vector<ShapeOutcome> outcomes;
  for (const auto& shape : options.shapes) {
    if (interrupted()) break;
    outcomes.push_back(tuner.tune(shape));
  }
  std::printf("\n%-16s %-52s %9s %9s %7s %8s\n", "problem", "best config", "TFLOP/s", "vs cuBLAS", "evals",
              "time");
  for (const auto& o : outcomes)
    std::printf("%-16s %-52s %9.2f %8.3fx %7zu %7.1fs\n", o.shape.label().c_str(), o.best_name.c_str(),
                o.best_tflops, o.ratio, o.evaluated, o.seconds);
  std::printf("results: %s\n", tuner.results_path().c_str());
  if (interrupted()) {
    std::fprintf(stderr,
                 "gemm-tune: interrupted; everything measured is in the tuning log. Run the same command to "
                 "resume.\n");
    return 130;
  }
  return 0;
}

Command add_tune_command(CLI::App& app, const std::shared_ptr<TuneOptions>& tune) {
  const auto common = std::make_shared<CommonOptions>();
  add_common(app, *common);
  app.add_option("--gpu", tune->gpu, "GPU to tune on: auto (first visible), an index, or a name")
      ->capture_default_str();
  app.add_option("--strategy", tune->strategy, "exhaustive, random or genetic")
      ->check(CLI::IsMember({"exhaustive", "random", "genetic"}))
      ->capture_default_str();
  app.add_option("--budget", tune->budget_evaluations, "Evaluations per size (0: strategy default)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--time-budget", tune->budget_seconds, "Seconds per size (0: none)")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--seed", tune->seed, "Random seed for the strategy")->capture_default_str();
  app.add_option("--results-dir", tune->results_dir, "Where results/<gpu>.json is written")
      ->capture_default_str();
  app.add_option("--top", tune->retime_top, "Candidates re-timed against cuBLAS at the end")
      ->check(CLI::Range(1, 50));
  app.add_option("--template", tune->template_path,
                 "Kernel template to use instead of the built-in one (testing)")
      ->group("");
  app.add_option("--eval-timeout", tune->eval_timeout_seconds, "Seconds before a hung candidate is killed")
      ->check(CLI::Range(0.5, 3600.0));
  app.add_option("--seed-from", tune->seed_from, "Results files of other GPUs whose winners start the search")
      ->check(CLI::ExistingFile);
  app.add_option("--sizes-from", tune->sizes_from,
                 "A file GEMMTUNE_RECORD wrote: tune its problems, most called first (instead of --sizes)");
  app.add_option("--shard", tune->shard, kShardHelp);
  app.add_flag("!--no-warm-start", tune->warm_start,
               "Do not start from this GPU's own winners in --results-dir (the nearest size's)");
  return {&app,
          [&app, common, tune] {
            if (!tune->sizes_from.empty() && app.count("--sizes"))
              throw std::invalid_argument("give --sizes or --sizes-from, not both");
            tune->shapes = problems_of_this_shard(
                tune->sizes_from.empty() ? parse_sizes(common->sizes) : shapes_from_record(tune->sizes_from),
                tune->shard);
            if (tune->shapes.empty()) return 0;  // this task's share is empty (said so)
            tune->space_path = common->space_path;
            tune->cache_dir = cache_dir_of(*common);
            tune->jobs = common->jobs;
            return run_tune(*tune);
          },
          common};
}

std::vector<GemmShape> shapes_from_record(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text) throw std::invalid_argument(fmt::format("--sizes-from: cannot read '{}'", path));
  std::vector<GemmShape> shapes;
  std::vector<std::string> skipped;
  for (const RecordedProblem& p : parse_record(*text, path)) {  // most called first
    const GemmShape shape{p.m, p.n, p.k, p.layout, p.batch};
    if (std::max({p.m, p.n, p.k}) > kMaxDimension || p.batch > kMaxBatch) {
      skipped.push_back(fmt::format("{} (a dimension larger than {} or a batch larger than {})", shape.label(),
                                    kMaxDimension, kMaxBatch));
      continue;
    }
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
  }
  if (!skipped.empty())
    spdlog::warn("{}: not tuned (too large for the tuner; cuBLAS runs these): {}", path, fmt::join(skipped, ", "));
  if (shapes.empty()) throw std::invalid_argument(fmt::format("--sizes-from: '{}' holds no problem to tune", path));
  return shapes;
}

}  // namespace gemmtune
