// One worker session, one grid point after another: prepare the shape (operands, cuBLAS reference
// and its time), verify every menu kernel once (a kernel that fails is left out of that point's
// race and recorded as such), then race the survivors against cuBLAS, interleaved. Each point is
// merged into the file as soon as it is measured.
#include "commands/portfolio_command.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <set>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "commands/tune_command.hpp"
#include "compile/compile_service.hpp"
#include "compile/thread_pool.hpp"
#include "core/device_profile.hpp"
#include "core/kernel_compiler.hpp"
#include "core/kernel_config.hpp"
#include "measure/gpu_session.hpp"
#include "measure/statistics.hpp"
#include "core/results_file.hpp"
#include "core/results_store.hpp"
#include "core/timestamp.hpp"
#include "report/progress_bar.hpp"
#include "core/version.hpp"
#include "core/candidate_status.hpp"

namespace gemmtune {
namespace {

// A kernel whose screening time is more than this times cuBLAS's is not raced: it cannot win.
constexpr double kRaceWithin = 1.25;

// The best config of every nn, unbatched entry of a results file (tuned or not: a kernel that lost
// to cuBLAS at its own shape may still win elsewhere); the grid is of such problems.
std::vector<KernelConfig> winners_in(const std::filesystem::path& path) {
  const auto text = read_whole_file(path);
  if (!text) throw std::invalid_argument(fmt::format("cannot read '{}'", path.string()));
  TunedResults results;
  try {
    results = read_results_text(*text, path.string());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("'{}' is not a results file: {}", path.string(), e.what()));
  }
  std::vector<KernelConfig> configs;
  for (const TunedShape& s : results.shapes)
    if (s.has_kernel() && s.problem.layout == Layout::nn && s.problem.batch == 1) configs.push_back(s.config);
  return configs;
}

std::string menu_key(const std::vector<KernelConfig>& menu) {
  std::vector<std::string> names;
  for (const auto& c : menu) names.push_back(c.name());
  std::sort(names.begin(), names.end());
  return fmt::format("{}", fmt::join(names, ","));
}

// Points already measured with this menu (for resuming).
std::vector<GemmShape> measured_points(const std::filesystem::path& path, const std::string& menu) {
  std::vector<GemmShape> points;
  const auto text = read_whole_file(path);
  if (!text) return points;
  try {
    for (const TunedShape& s : read_results_text(*text, path.string()).shapes)
      if (s.search_menu == menu) points.push_back(s.problem);
  } catch (const std::invalid_argument&) {
    // An unreadable grid resumes nothing; its writer keeps it beside the new one (results_store).
  }
  return points;
}

}  // namespace

int run_portfolio(const PortfolioOptions& options) {
  const int index = select_device(options.gpu);
  const DeviceProfile device = query_device(index);
  const std::filesystem::path own = std::filesystem::path(options.results_dir) / (device.slug + ".json");
  std::vector<std::string> sources = options.menu_from;
  if (sources.empty()) {
    if (!std::filesystem::exists(own))
      throw std::invalid_argument(fmt::format(
          "{} has no results in {} to take a menu from: tune some shapes first, or give --menu-from", device.name,
          own.string()));
    sources.push_back(own.string());
  }
  std::vector<KernelConfig> menu;
  for (const auto& source : sources)
    for (const KernelConfig& c : winners_in(source))
      if (!config_error(c) && runs_on(c, device.compute_capability) &&
          c.shared_bytes() <= std::size_t(device.shared_bytes_per_block) &&
          std::find(menu.begin(), menu.end(), c) == menu.end())
        menu.push_back(c);
  if (menu.empty()) throw std::invalid_argument("the menu is empty: no results entry holds a config this GPU runs");
  const std::string key = menu_key(menu);

  std::vector<GemmShape> points;
  for (int m : options.grid)
    for (int n : options.grid)
      for (int k : options.grid) {
        const double mnk = double(m) * n * k;
        const double largest = std::max({double(m) * k, double(k) * n, double(m) * n});
        if (mnk <= options.max_mnk && largest <= double(1 << 27)) points.push_back({m, n, k});
      }
  const auto path = std::filesystem::path(options.results_dir) / ("portfolio-" + device.slug + ".json");
  const std::vector<GemmShape> done = options.refresh ? std::vector<GemmShape>{} : measured_points(path, key);
  spdlog::info("portfolio on {}: {} kernels x {} grid points ({} measured before) -> {}", device.name, menu.size(),
               points.size(), done.size(), path.string());

  // The menu compiles once, on every core, into the disk cache the worker then loads from.
  const std::filesystem::path cache_dir = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  {
    const KernelCompiler compiler(cache_dir);
    CompileService compile(compiler, default_parallelism());
    std::vector<std::pair<std::string, std::shared_future<CompileOutcome>>> compiled;
    for (const KernelConfig& c : menu) {
      std::set<KernelPath> paths;  // the ones the grid's points run
      for (const GemmShape& point : points) paths.insert(kernel_path_for(c, point));
      for (const KernelPath binary : paths) compiled.emplace_back(c.name(), compile.submit(c, device.arch(), binary));
    }
    for (const auto& [name, outcome] : compiled)
      if (!outcome.get().kernel) spdlog::warn("{} does not compile: {}", name, outcome.get().error);
  }
  GpuSession gpu(index, cache_dir, "", 0);
  ProgressBar bar("portfolio", points.size());
  int kernel_points = 0, failed_points = 0;
  for (const GemmShape& shape : points) {
    if (std::find(done.begin(), done.end(), shape) != done.end()) {
      bar.advance(1, "measured before");
      continue;
    }
    PreparedShape prepared;
    try {
      prepared = gpu.prepare(shape, 1);
    } catch (const ProblemError& e) {  // one point the GPU cannot hold never stops the rest
      spdlog::warn("{}: not measured: {}", shape.label(), e.what());
      ++failed_points;
      bar.advance(1, "not measured");
      continue;
    }
    // Every kernel is verified and timed once; only those within reach of cuBLAS go on to the race
    // (a kernel 80 times slower than cuBLAS at a GEMV-like point would take minutes to race, and
    // its screening time already says it cannot win).
    std::vector<KernelConfig> contenders;
    nlohmann::json screened = nlohmann::json::array(), failed = nlohmann::json::array();
    for (const KernelConfig& c : menu) {
      if (is_skinny(c.family) && shape.m > c.block_m) continue;  // B read once per row tile: never a contender
      const auto reply = gpu.evaluate(c, 1);
      if (parse_status(reply.value("status", "")) != CandidateStatus::ok || !reply.contains("samples_ms")) {
        failed.push_back({{"name", c.name()}, {"status", status_name(parse_status(reply.value("status", "")))}});
        continue;
      }
      const double ms = median(reply["samples_ms"].get<std::vector<double>>());
      if (ms <= kRaceWithin * prepared.cublas_ms) {
        contenders.push_back(c);
      } else {
        screened.push_back({{"name", c.name()},
                            {"config", c},
                            {"median_ms", ms},
                            {"tflops", tflops_of(shape.flops(), ms)},
                            {"ratio_vs_cublas", prepared.cublas_ms / ms},
                            {"screened", true}});
      }
    }
    nlohmann::json entry = nlohmann::json::object();
    shape_to_json(entry, shape);
    nlohmann::json raced = nlohmann::json::array();
    if (!contenders.empty()) {
      const RaceResult race = gpu.race(contenders, 150.0);
      const double cublas = median(race.cublas_ms);
      for (std::size_t i = 0; i < contenders.size(); ++i) {
        nlohmann::json r = timing_summary(race.configs_ms[i], shape.flops());
        r["name"] = contenders[i].name();
        r["config"] = contenders[i];
        r["ratio_vs_cublas"] = cublas / median(race.configs_ms[i]);
        raced.push_back(r);
      }
      entry["cublas"] = timing_summary(race.cublas_ms, shape.flops());
      entry["race_rounds"] = race.rounds;
    }
    for (const auto& s : screened) raced.push_back(s);
    std::sort(raced.begin(), raced.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return a["ratio_vs_cublas"].get<double>() > b["ratio_vs_cublas"].get<double>();
    });
    const double ratio = raced.empty() ? 0.0 : raced[0]["ratio_vs_cublas"].get<double>();
    entry["winner"] = !contenders.empty() && ratio > 1.0 ? "kernel" : "cublas";
    if (!raced.empty()) {
      entry["ratio_vs_cublas"] = ratio;
      entry["best"] = raced[0];
      entry["alternatives"] = nlohmann::json(raced.begin() + 1, raced.end());
    }
    if (entry["winner"] == "kernel") ++kernel_points;
    entry["search"] = {{"strategy", "portfolio"}, {"menu", key}, {"failed", failed}};
    entry["date"] = utc_timestamp();
    entry["tool_version"] = kGemmtuneVersion;
    nlohmann::json header = measured_header(device);
    header["kind"] = "portfolio";
    merge_results(path, header, nlohmann::json::array({entry}));
    bar.advance(1, fmt::format("{}: {}", shape.label(), entry["winner"].get<std::string>()));
  }
  bar.finish();
  std::printf("portfolio: %zu grid points, a kernel beat cuBLAS at %d of those measured now; %s\n", points.size(),
              kernel_points, path.c_str());
  if (failed_points) std::printf("portfolio: %d points not measured (warnings above)\n", failed_points);
  return 0;
}

Command add_portfolio_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "portfolio", "Race this GPU's tuned kernels against cuBLAS over a grid of shapes (for untuned calls)");
  const auto options = std::make_shared<PortfolioOptions>();
  cmd->add_option("--gpu", options->gpu, "GPU to measure on: auto, an index, or a name")->capture_default_str();
  cmd->add_option("--results-dir", options->results_dir,
                  "Where <gpu>.json is read and portfolio-<gpu>.json written")
      ->capture_default_str();
  cmd->add_option("--cache-dir", options->cache_dir, "Compile cache directory");
  cmd->add_option("--grid", options->grid, "Values of m, n and k (log-spaced)")
      ->delimiter(',')
      ->check(CLI::Range(1, kMaxDimension))
      ->capture_default_str();
  cmd->add_option("--max-mnk", options->max_mnk, "Largest m*n*k measured")->capture_default_str();
  cmd->add_option("--menu-from", options->menu_from, "Results files whose winners form the menu (default: this GPU's)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--refresh", options->refresh, "Measure points already in the file again");
  return {cmd, [options] { return run_portfolio(*options); }, nullptr};
}

}  // namespace gemmtune
