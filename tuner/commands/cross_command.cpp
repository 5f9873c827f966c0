// Cross-GPU portability measurement. A foreign winner that this GPU cannot run at all (too much
// shared memory, cp.async on an older architecture) scores 0% with the reason, because that is the
// honest portability of that configuration.
#include "commands/cross_command.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "commands/tune_command.hpp"
#include "core/device_profile.hpp"
#include "core/file_formats.hpp"
#include "core/kernel_compiler.hpp"
#include "core/results_file.hpp"
#include "measure/gpu_session.hpp"
#include "measure/statistics.hpp"
#include "core/results_store.hpp"
#include "core/timestamp.hpp"
#include "core/version.hpp"

namespace gemmtune {
namespace {

TunedResults load_results_file(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text) throw std::invalid_argument(fmt::format("cannot read '{}'", path));
  try {
    return read_results_text(*text, path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("'{}' is not a {} file: {}", path, kResultsSchema, e.what()));
  }
}

// Why this device cannot run config at all, or empty.
std::string cannot_run_reason(const KernelConfig& c, const DeviceProfile& d) {
  if (auto err = config_error(c)) return *err;
  if (!runs_on(c, d.compute_capability))
    return c.family == KernelFamily::wgmma ? "needs sm_90a (compute capability 9.0)"
                                           : fmt::format("needs sm_{}", min_compute_capability(c));
  if (c.shared_bytes() > std::size_t(d.shared_bytes_per_block))
    return fmt::format("needs {} bytes of shared memory, the device gives {}", c.shared_bytes(),
                       d.shared_bytes_per_block);
  if (c.threads() > d.max_threads_per_block) return fmt::format("{} threads per block", c.threads());
  return {};
}

struct Pending {
  std::string from;
  KernelConfig config;
};

}  // namespace

int run_cross(const CrossOptions& options) {
  if (options.from.empty()) throw std::invalid_argument("cross needs at least one --from results file");
  const int index = select_device(options.gpu);
  const DeviceProfile device = query_device(index);
  const auto own_path = std::filesystem::path(options.results_dir) / (device.slug + ".json");
  if (!std::filesystem::exists(own_path))
    throw std::invalid_argument(
        fmt::format("{} has no results in {}: tune it first (gemm-tune --gpu {} --sizes ...)", device.name,
                    own_path.string(), options.gpu));
  const TunedResults own = load_results_file(own_path.string());

  // Problems this GPU has tuned, and which foreign winners to race there.
  std::map<GemmShape, std::pair<KernelConfig, std::vector<Pending>>> work;
  for (const TunedShape& s : own.shapes)
    if (s.has_kernel()) work[s.problem].first = s.config;  // a cuBLAS fallback has no kernel to race against
  nlohmann::json entries = nlohmann::json::array();
  std::size_t untuned = 0;
  for (const auto& path : options.from) {
    const TunedResults other = load_results_file(path);
    // Another file of this GPU model (a fresh run's, say) races too, named by its path; this GPU's
    // own results file is what they race against.
    std::error_code same_error;
    if (std::filesystem::equivalent(path, own_path, same_error)) continue;
    const std::string from = other.device.slug == device.slug ? path : other.device.slug;
    for (const TunedShape& tuned : other.shapes) {
      if (!tuned.has_kernel()) continue;  // a cuBLAS fallback: no kernel to run here
      const GemmShape& s = tuned.problem;
      const KernelConfig& config = tuned.config;
      if (!work.count(s)) {
        ++untuned;
        continue;
      }
      if (const std::string reason = cannot_run_reason(config, device); !reason.empty()) {
        nlohmann::json entry = {{"from", from},
                                {"name", config.name()},
                                {"config", config},
                                {"tflops", 0.0},
                                {"percent_of_own_best", 0.0},
                                {"cannot_run", reason}};
        shape_to_json(entry, s);
        entries.push_back(entry);
        continue;
      }
      work[s].second.push_back({from, config});
    }
  }
  if (untuned > 0)
    spdlog::warn("{} problem(s) of the source files are not tuned on {}; skipped", untuned, device.name);

  GpuSession gpu(index, options.cache_dir.empty() ? default_cache_dir() : options.cache_dir, "", 0);
  const KernelCompiler compiler(options.cache_dir.empty() ? default_cache_dir() : options.cache_dir);
  for (const auto& [shape, job] : work) {
    const auto& [own_best, foreign] = job;
    if (foreign.empty()) continue;
    std::vector<KernelConfig> racers = {own_best};
    for (const auto& p : foreign) racers.push_back(p.config);
    for (const auto& c : racers)  // the worker then loads from the cache
      compiler.compile(c, device.arch(), kernel_path_for(c, shape));
    gpu.prepare(shape, options.seed);
    const RaceResult race = gpu.race(racers);
    const double own_ms = median(race.configs_ms[0]);
    for (std::size_t i = 0; i < foreign.size(); ++i) {
      const double ms = median(race.configs_ms[i + 1]);
      nlohmann::json entry = {{"from", foreign[i].from},
                         {"name", foreign[i].config.name()},
                         {"config", foreign[i].config},
                         {"tflops", tflops_of(shape.flops(), ms)},
                         {"own_best_name", own_best.name()},
                         {"own_best_tflops", tflops_of(shape.flops(), own_ms)},
                         {"cublas_tflops", tflops_of(shape.flops(), median(race.cublas_ms))},
                         {"percent_of_own_best", 100.0 * own_ms / ms},
                         {"race_rounds", race.rounds},
                         {"date", utc_timestamp()}};
      shape_to_json(entry, shape);
      entries.push_back(entry);
    }
  }

  const auto out_path = std::filesystem::path(options.results_dir) / ("cross-" + device.slug + ".json");
  merge_entries(out_path, kCrossSchema, measured_header(device), entries, {"from", "m", "n", "k", "layout", "batch"});

  std::printf("%-24s %-16s %-50s %9s %9s\n", "from", "problem", "its winner", "TFLOP/s", "% of own");
  std::map<std::string, std::pair<double, int>> log_sum;  // geometric mean per source
  for (const auto& e : entries) {
    const GemmShape s = shape_from_json(e);
    const double pct = e["percent_of_own_best"].get<double>();
    std::printf(
        "%-24s %-16s %-50s %9.2f %8.1f%%%s\n", e["from"].get<std::string>().c_str(), s.label().c_str(),
        e["name"].get<std::string>().c_str(), e["tflops"].get<double>(), pct,
        e.contains("cannot_run") ? ("  cannot run: " + e["cannot_run"].get<std::string>()).c_str() : "");
    auto& [sum, count] = log_sum[e["from"].get<std::string>()];
    sum += std::log(std::max(pct, 0.1));
    ++count;
  }
  for (const auto& [from, acc] : log_sum)
    std::printf("portability %s -> %s: %.1f%% of the own winner (geometric mean over %d problems)\n",
                from.c_str(), device.slug.c_str(), std::exp(acc.first / acc.second), acc.second);
  std::printf("written: %s\n", out_path.c_str());
  return 0;
}

Command add_cross_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("cross", "Measure other GPUs' winners on this GPU against its own");
  const auto options = std::make_shared<CrossOptions>();
  cmd->add_option("--from", options->from, "Results files of other GPUs")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--gpu", options->gpu, "GPU to measure on: auto, an index, or a name")
      ->capture_default_str();
  cmd->add_option("--results-dir", options->results_dir,
                  "Where this GPU's results are and cross-<gpu>.json goes")
      ->capture_default_str();
  cmd->add_option("--cache-dir", options->cache_dir, "Compile cache directory");
  return {cmd, [options] { return run_cross(*options); }, nullptr};
}

}  // namespace gemmtune
