// The benchmark reads the tuned winners from the results cache, as the runtime library would, so
// it measures what applications get.
#include "commands/bench_command.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "commands/common_options.hpp"
#include "core/atomic_file.hpp"
#include "core/device_profile.hpp"
#include "core/file_formats.hpp"
#include "core/kernel_compiler.hpp"
#include "core/results_file.hpp"
#include "core/results_store.hpp"
#include "core/timestamp.hpp"
#include "measure/gpu_session.hpp"
#include "measure/statistics.hpp"
#include "record/baseline_entry.hpp"
#include "report/bench_table.hpp"

namespace gemmtune {
namespace {

// A tuned problem's best kernel and whether the runtime runs cuBLAS there instead; no kernel where
// the tuner recorded cuBLAS without a race (fallback says why).
struct TunedWinner {
  std::optional<KernelConfig> config;
  bool cublas_won = false;
  bool cublaslt_won = false;  // a cuBLASLt algorithm runs there (cublas_won too)
  std::string fallback;
  double normwise_error = 0;  // the tuner's, as the results entry records them (TunedShape)
  double sgemm_normwise_error = 0;
};

std::map<GemmShape, TunedWinner> tuned_winners(const std::filesystem::path& path) {
  std::map<GemmShape, TunedWinner> winners;
  const auto text = read_whole_file(path);
  if (!text) return winners;
  TunedResults results;
  try {
    results = read_results_text(*text, path.string());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{} is not a readable results file: {}", path.string(), e.what()));
  }
  for (const TunedShape& s : results.shapes) {
    if (s.has_kernel())
      winners[s.problem] = {s.config, s.cublas_won,     s.winner == "cublaslt",
                            "",       s.normwise_error, s.sgemm_normwise_error};
    else if (s.cublas_won)
      winners[s.problem] = {std::nullopt,
                            true,
                            s.winner == "cublaslt",
                            s.reason.empty() ? "no kernel recorded" : s.reason,
                            0,
                            0};
  }
  return winners;
}

}  // namespace

int run_bench(const TuneOptions& options) {
  const int index = select_device(options.gpu);
  const DeviceProfile device = query_device(index);
  const auto results_path = std::filesystem::path(options.results_dir) / (device.slug + ".json");

  TuneOptions missing = options;
  missing.shapes.clear();
  const auto known = tuned_winners(results_path);
  for (const auto& s : options.shapes)
    if (!known.count(s)) missing.shapes.push_back(s);
  if (!missing.shapes.empty()) {
    std::fprintf(stderr, "tuning %zu shape(s) with no result yet\n", missing.shapes.size());
    if (const int status = run_tune(missing); status != 0) return status;
  }
  const auto winners = tuned_winners(results_path);

  const auto cache_dir = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  const KernelCompiler compiler(cache_dir);
  GpuSession gpu(index, cache_dir, "", 0);
  nlohmann::json entries = nlohmann::json::array();
  std::printf("\n%s, FP32 peak %.1f TFLOP/s\n", device.name.c_str(), device.fp32_tflops);
  bool with_errors = false;  // the error columns, where a problem of the run has them
  for (const auto& shape : options.shapes)
    if (const auto it = winners.find(shape); it != winners.end() && it->second.normwise_error > 0)
      with_errors = true;
  std::fputs(bench_header(with_errors).c_str(), stdout);
  double log_ratio_sum = 0, log_delivered_sum = 0;
  std::size_t kernel_rows = 0, rows = 0;
  for (const auto& shape : options.shapes) {
    const auto it = winners.find(shape);
    if (it == winners.end()) throw std::runtime_error("no tuned result for " + shape.label());
    const std::optional<KernelConfig>& config = it->second.config;
    if (config)  // into the disk cache the worker reads
      compiler.compile(*config, device.arch(), kernel_path_for(*config, shape));
    PreparedShape prepared;
    try {
      prepared = gpu.prepare(shape, options.seed);
    } catch (const ProblemError& e) {  // one problem the GPU cannot hold never stops the rest
      spdlog::warn("{}: not benchmarked: {}", shape.label(), e.what());
      continue;
    }
    ++rows;
    const TunedWinner& winner = it->second;
    const RaceResult race = config ? gpu.race({*config}) : gpu.race({});
    const Baselines baselines = baselines_of(prepared.cublaslt, race.cublas_ms, race.cublaslt_first_ms,
                                             race.cublaslt_best_ms, shape.flops());
    const std::optional<double> peak = peak_tflops(device, shape.precision);
    const auto percent_of_peak = [&peak](double tflops) {
      return peak ? std::optional<double>(100 * tflops / *peak) : std::nullopt;
    };
    BenchRow row;
    row.problem = shape.label();
    row.cublas_tflops = tflops_of(shape.flops(), baselines.cublas_ms);
    row.cublas_percent_of_peak = percent_of_peak(row.cublas_tflops);
    // What the runtime delivers: the results' winner, timed in this race.
    const double runs_ms = !winner.cublas_won ? median(race.configs_ms[0])
                           : winner.cublaslt_won && baselines.cublaslt_ms > 0 ? baselines.cublaslt_ms
                                                                               : baselines.cublas_ms;
    row.delivered = baselines.cublas_ms / runs_ms;
    row.runs = !winner.cublas_won ? "" : winner.cublaslt_won ? " (cuBLASLt)" : " (cuBLAS)";
    row.normwise_error = winner.normwise_error;
    row.sgemm_normwise_error = winner.sgemm_normwise_error;
    log_delivered_sum += std::log(row.delivered);
    nlohmann::json entry = {
        {"delivered_ratio", row.delivered}, {"race_rounds", race.rounds}, {"date", utc_timestamp()}};
    if (row.cublas_percent_of_peak) entry["cublas_percent_of_peak"] = *row.cublas_percent_of_peak;
    if (winner.normwise_error > 0) entry["normwise_error"] = winner.normwise_error;
    if (winner.sgemm_normwise_error > 0) entry["sgemm_normwise_error"] = winner.sgemm_normwise_error;
    add_baselines(entry, baselines, config ? median(race.configs_ms[0]) : 0);
    entry["winner"] = !winner.cublas_won    ? "kernel"
                      : winner.cublaslt_won ? "cublaslt"
                                            : "cublas";  // the results'
    if (!config) {  // the tuner recorded cuBLAS without a race
      row.config = "no kernel: " + winner.fallback;
      std::fputs(bench_line(row, with_errors).c_str(), stdout);
      entry["reason"] = winner.fallback;
      shape_to_json(entry, shape);
      entries.push_back(entry);
      continue;
    }
    ++kernel_rows;
    const double kernel_ms = median(race.configs_ms[0]);
    row.config = config->name();
    row.tflops = tflops_of(shape.flops(), kernel_ms);
    row.percent_of_peak = percent_of_peak(*row.tflops);
    row.ratio = *row.tflops / row.cublas_tflops;
    if (baselines.cublaslt_ms > 0) row.vs_lt = baselines.cublaslt_ms / kernel_ms;
    log_ratio_sum += std::log(*row.ratio);
    std::fputs(bench_line(row, with_errors).c_str(), stdout);
    nlohmann::json tuned_summary = timing_summary(race.configs_ms[0], shape.flops());
    tuned_summary["name"] = config->name();
    tuned_summary["config"] = *config;
    entry["tuned"] = tuned_summary;
    if (row.percent_of_peak) entry["percent_of_peak"] = *row.percent_of_peak;
    entry["ratio_vs_cublas"] = *row.ratio;
    shape_to_json(entry, shape);
    entries.push_back(entry);
  }
  // Shapes with no kernel count among the delivered, not among the kernels.
  const double geomean = kernel_rows ? std::exp(log_ratio_sum / double(kernel_rows)) : 1.0;
  const double delivered_geomean = rows ? std::exp(log_delivered_sum / double(rows)) : 1.0;
  std::printf("geometric mean ratio vs cuBLAS: %.3f kernels (%zu shapes), %.3f delivered (%zu shapes)\n", geomean,
              kernel_rows, delivered_geomean, rows);
  const auto out = std::filesystem::path(options.results_dir) / ("bench-" + device.slug + ".json");
  nlohmann::json header = measured_header(device);
  header["geometric_mean_ratio_vs_cublas"] = geomean;
  header["geometric_mean_delivered_ratio"] = delivered_geomean;
  merge_entries(out, kBenchSchema, header, entries, {"m", "n", "k", "precision", "c", "layout", "batch"});
  std::printf("written: %s\n", out.c_str());
  return 0;
}

Command add_bench_command(CLI::App& app, const std::shared_ptr<TuneOptions>& tune) {
  CLI::App* cmd =
      app.add_subcommand("bench", "Tuned kernels against cuBLAS over a set of shapes (tuning missing ones)");
  const auto common = std::make_shared<CommonOptions>();
  common->sizes = kDefaultBenchSizes;  // before add_common, so the help shows it as the default
  add_common(*cmd, *common);
  cmd->add_option("--gpu", tune->gpu, "GPU: auto, an index, or a name")->capture_default_str();
  cmd->add_option("--results-dir", tune->results_dir,
                  "Where results/<gpu>.json is read and bench-<gpu>.json written")
      ->capture_default_str();
  return {cmd,
          [common, tune] {
            tune->shapes = parse_sizes(common->sizes, common->precision);
            tune->space_path = common->space_path;
            tune->cache_dir = cache_dir_of(*common);
            tune->jobs = common->jobs;
            return run_bench(*tune);
          },
          common, /*reads_app_options=*/true};  // it tunes the shapes it lacks with them
}

}  // namespace gemmtune
