// Driver of a tuning run. Everything measured is appended to the tuning log before anything else
// happens with it, so an interruption at any point loses nothing already measured.
#include "commands/tune_command.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <deque>
#include <future>
#include <iostream>
#include <map>

#include "atomic_file.hpp"
#include "commands/common_options.hpp"
#include "compile/compile_service.hpp"
#include "device_profile.hpp"
#include "embedded_files.hpp"
#include "measure/gpu_session.hpp"
#include "measure/statistics.hpp"
#include "record/results_store.hpp"
#include "record/timestamp.hpp"
#include "record/tuning_log.hpp"
#include "report/progress_bar.hpp"
#include "search/occupancy.hpp"
#include "search/search_space.hpp"
#include "search/seed_configs.hpp"
#include "search/static_model.hpp"
#include "search/strategies/search_strategy.hpp"
#include "stable_hash.hpp"
#include "version.hpp"

namespace gemmtune {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) {
  g_interrupted = true;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A new best during the search: after how many evaluations and seconds, and how good.
struct Improvement {
  std::size_t evaluations;
  double seconds;
  double tflops;
};

// When the search first came within `fraction` of the best it found: how fast a strategy (or a
// seeded start) gets there, the figure --seed-from is judged by.
nlohmann::json time_to_fraction(const std::vector<Improvement>& improvements, double fraction) {
  if (improvements.empty()) return nullptr;
  const double target = fraction * improvements.back().tflops;
  for (const auto& i : improvements)
    if (i.tflops >= target) return {{"evaluations", i.evaluations}, {"seconds", i.seconds}};
  return nullptr;
}

struct Evaluated {
  std::size_t index;
  double median_ms;
};

struct ShapeOutcome {
  GemmShape shape;
  std::string best_name;
  double best_tflops = 0;
  double ratio = 0;
  std::size_t evaluated = 0;
  double seconds = 0;
  bool complete = false;
};

class Tuner {
 public:
  Tuner(const TuneOptions& o, int device_index, DeviceProfile device)
      : options_(o),
        device_(std::move(device)),
        space_(load_search_space(o.space_path)),
        template_source_(o.template_path.empty() ? std::string(embedded_file("kernel_templates/sgemm.cuh"))
                                                 : read_whole_file(o.template_path).value_or("")),
        compiler_(
            o.cache_dir.empty() ? std::filesystem::temp_directory_path() / "gemmtune-run-cache" : o.cache_dir,
            template_source_),
        service_(compiler_, device_.arch(), o.jobs),
        log_(std::filesystem::path(o.results_dir) / "logs" / (device_.slug + ".jsonl"), device_.slug,
             stable_hash_hex(template_source_)),
        gpu_(device_index, compiler_.cache_dir(), o.template_path, o.eval_timeout_seconds) {
    if (template_source_.empty()) throw std::invalid_argument("cannot read template " + o.template_path);
  }

  ShapeOutcome tune(const GemmShape& shape) {
    const auto t0 = std::chrono::steady_clock::now();
    ShapeOutcome out;
    out.shape = shape;
    Enumeration e = enumerate(space_, device_, &shape);
    std::map<std::string, std::size_t> rejected = e.removed;
    // Seeds from other GPUs' results join the candidates if this device can run them, even when
    // this space would not have produced them.
    std::vector<std::size_t> seeds;
    if (!options_.seed_from.empty()) {
      for (const KernelConfig& c : seed_configs(options_.seed_from, shape)) {
        if (!rejecting_constraint(space_, c, device_, &shape).empty() && config_error(c)) continue;
        const auto it = std::find(e.candidates.begin(), e.candidates.end(), c);
        seeds.push_back(static_cast<std::size_t>(it - e.candidates.begin()));
        if (it == e.candidates.end()) e.candidates.push_back(c);
      }
    }
    // Warm start: this GPU's own winners at the nearest size tuned before go first, so re-tuning
    // never starts below what is known, and a short search at a new size starts from good tiles.
    // Only those inside this space: a narrowed space (an A/B of one configuration) stays narrow.
    for (const KernelConfig& c : own_winners(shape)) {
      const auto it = std::find(e.candidates.begin(), e.candidates.end(), c);
      if (it != e.candidates.end()) seeds.push_back(static_cast<std::size_t>(it - e.candidates.begin()));
    }
    if (e.candidates.empty())
      throw std::runtime_error("no candidate passes the constraints for " + shape.label());

    const PreparedShape prepared = gpu_.prepare(shape, options_.seed);
    const double cublas_ms = prepared.cublas_ms;

    StrategyContext ctx;
    ctx.candidates = e.candidates;
    ctx.seed = options_.seed;
    ctx.budget = static_cast<std::size_t>(options_.budget_evaluations);
    ctx.seeds = seeds;
    ctx.prior =
        predicted_tflops_before_compile(e.candidates, device_, shape, space_.settings.register_overhead);
    // Keep every core busy: what the strategy has not asked for yet compiles in the background,
    // most promising first, behind whatever the GPU is waiting for.
    for (std::size_t i : order_by_prior(ctx)) service_.submit(e.candidates[i], /*urgent=*/false);
    auto strategy = make_strategy(options_.strategy, ctx);
    ProgressBar bar(fmt::format("tune {:>14}", shape.label()), strategy->planned());
    std::vector<Improvement> improvements;

    std::deque<std::pair<std::size_t, std::shared_future<CompileOutcome>>> pending;
    std::vector<Evaluated> measured;
    double compile_wait = 0, gpu_seconds = 0;
    const std::size_t lookahead = std::max<std::size_t>(8, 2 * options_.jobs);
    while (!g_interrupted) {
      if (options_.budget_seconds > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
              options_.budget_seconds)
        break;
      if (pending.size() < lookahead) {
        for (std::size_t i : strategy->propose(lookahead - pending.size()))
          pending.emplace_back(i, service_.submit(e.candidates[i]));
      }
      if (pending.empty()) break;
      const auto [index, future] = pending.front();
      pending.pop_front();
      const KernelConfig& config = e.candidates[index];
      const std::string name = config.name();

      nlohmann::json record;
      if (const nlohmann::json* prior = log_.find(shape, name)) {
        record = *prior;  // measured by an earlier, interrupted run
      } else {
        const auto tc = std::chrono::steady_clock::now();
        const CompileOutcome& compiled = future.get();
        compile_wait += std::chrono::duration<double>(std::chrono::steady_clock::now() - tc).count();
        record = {{"name", name}, {"config", config}};
        if (!compiled.kernel) {
          record["status"] = "compile";
          record["detail"] = compiled.error;
        } else if (compiled.kernel->resources.spill_bytes() > 0 ||
                   compiled.kernel->resources.stack_bytes > 0) {
          record["status"] = "resources";
          record["detail"] =
              fmt::format("{} bytes spilled, {} bytes stack", compiled.kernel->resources.spill_bytes(),
                          compiled.kernel->resources.stack_bytes);
        } else if (compute_occupancy(config, compiled.kernel->resources.registers, device_).blocks_per_sm ==
                   0) {
          record["status"] = "resources";
          record["detail"] = fmt::format("{} registers x {} threads do not fit one SM",
                                         compiled.kernel->resources.registers, config.threads());
        } else {
          const auto tg = std::chrono::steady_clock::now();
          const auto reply = gpu_.evaluate(config, 10);
          gpu_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - tg).count();
          record["status"] = reply.value("status", "error");
          if (reply.contains("detail")) record["detail"] = reply["detail"];
          if (reply.contains("samples_ms")) {
            record["samples_ms"] = reply["samples_ms"];
            record["median_ms"] = median(reply["samples_ms"].get<std::vector<double>>());
          }
          if (reply.contains("error_ratio")) record["error_ratio"] = reply["error_ratio"];
          if (compiled.kernel) record["registers"] = compiled.kernel->resources.registers;
        }
        log_.append(shape, record);
      }
      const std::string status = record.value("status", "error");
      double tflops = 0;
      if (status == "ok") {
        const double ms = record["median_ms"].get<double>();
        measured.push_back({index, ms});
        tflops = tflops_of(shape.flops(), ms);
        if (tflops > out.best_tflops) {
          out.best_tflops = tflops;
          out.best_name = name;
          improvements.push_back(
              {out.evaluated + 1,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), tflops});
        }
      } else {
        ++rejected[status];
        if (status != "compile" && status != "resources")
          spdlog::debug("{} at {}: {} ({})", name, shape.label(), status, record.value("detail", ""));
      }
      strategy->observe(index, tflops);
      ++out.evaluated;
      bar.advance(1, fmt::format("best {:.1f} TFLOP/s (cuBLAS {:.1f})", out.best_tflops,
                                 tflops_of(shape.flops(), cublas_ms)));
    }
    bar.finish();
    if (g_interrupted) {  // everything measured is in the log; a rerun resumes from it
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return out;
    }
    if (measured.empty()) {
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      spdlog::error("{}: no candidate passed verification and timing", shape.label());
      return out;
    }

    // Final word: the best few re-timed with many samples, interleaved with cuBLAS.
    std::sort(measured.begin(), measured.end(),
              [](const Evaluated& a, const Evaluated& b) { return a.median_ms < b.median_ms; });
    std::vector<KernelConfig> finalists;
    for (std::size_t i = 0; i < measured.size() && finalists.size() < std::size_t(options_.retime_top); ++i)
      finalists.push_back(e.candidates[measured[i].index]);
    const auto tr = std::chrono::steady_clock::now();
    const RaceResult race = gpu_.race(finalists);
    gpu_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - tr).count();

    const double cublas_median = median(race.cublas_ms);
    std::vector<std::pair<double, std::size_t>> ranking;
    for (std::size_t i = 0; i < finalists.size(); ++i) ranking.emplace_back(median(race.configs_ms[i]), i);
    std::sort(ranking.begin(), ranking.end());
    nlohmann::json alternatives = nlohmann::json::array();
    for (const auto& [ms, i] : ranking) {
      const KernelConfig& c = finalists[i];
      nlohmann::json alt = timing_summary(race.configs_ms[i], shape.flops());
      alt["name"] = c.name();
      alt["config"] = c;
      alt["ratio_vs_cublas"] = cublas_median / ms;
      alternatives.push_back(alt);
    }
    const nlohmann::json best = alternatives[0];
    out.best_name = best["name"].get<std::string>();
    out.best_tflops = best["tflops"].get<double>();
    out.ratio = best["ratio_vs_cublas"].get<double>();
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.complete = !g_interrupted;

    nlohmann::json entry = {{"m", shape.m},
                            {"n", shape.n},
                            {"k", shape.k},
                            {"dtype", "f32"},
                            {"layout", "row-major"},
                            {"best", best},
                            {"cublas", timing_summary(race.cublas_ms, shape.flops())},
                            {"ratio_vs_cublas", out.ratio},
                            {"alternatives", nlohmann::json(alternatives.begin() + 1, alternatives.end())},
                            {"search",
                             {{"strategy", options_.strategy},
                              {"seed", options_.seed},
                              {"complete", out.complete},
                              {"space", space_.source},
                              {"space_size", e.total},
                              {"candidates", e.candidates.size()},
                              {"evaluated", out.evaluated},
                              {"measured", measured.size()},
                              {"rejected", rejected},
                              {"compile_wait_seconds", compile_wait},
                              {"benchmark_seconds", gpu_seconds},
                              {"wall_seconds", out.seconds},
                              {"seeds", seeds.size()},
                              {"time_to_99_percent", time_to_fraction(improvements, 0.99)},
                              {"worker_restarts", gpu_.restarts()},
                              {"race_rounds", race.rounds},
                              {"launches_per_sample", prepared.launches_per_sample}}},
                            {"date", utc_timestamp()},
                            {"tool_version", kGemmtuneVersion}};
    merge_results(results_path(), measured_header(device_), nlohmann::json::array({entry}));
    return out;
  }

  // The winners (best and alternatives) of the entry nearest to shape in this GPU's results file;
  // none when warm start is off or there is no file. An unreadable file only costs the warm start:
  // writing the results later reports it properly.
  std::vector<KernelConfig> own_winners(const GemmShape& shape) const {
    if (!options_.warm_start || !std::filesystem::exists(results_path())) return {};
    try {
      return seed_configs({results_path().string()}, shape);
    } catch (const std::exception& e) {
      spdlog::warn("no warm start from {}: {}", results_path().string(), e.what());
      return {};
    }
  }

  std::filesystem::path results_path() const {
    return std::filesystem::path(options_.results_dir) / (device_.slug + ".json");
  }

 private:
  const TuneOptions& options_;
  DeviceProfile device_;
  SearchSpace space_;
  std::string template_source_;
  KernelCompiler compiler_;
  CompileService service_;
  TuningLog log_;
  GpuSession gpu_;
};

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
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  Tuner tuner(options, index, device);
  std::vector<ShapeOutcome> outcomes;
  for (const auto& shape : options.shapes) {
    if (g_interrupted) break;
    outcomes.push_back(tuner.tune(shape));
  }
  std::printf("\n%-16s %-52s %9s %9s %7s %8s\n", "problem", "best config", "TFLOP/s", "vs cuBLAS", "evals",
              "time");
  for (const auto& o : outcomes)
    std::printf("%-16s %-52s %9.2f %8.3fx %7zu %7.1fs\n", o.shape.label().c_str(), o.best_name.c_str(),
                o.best_tflops, o.ratio, o.evaluated, o.seconds);
  std::printf("results: %s\n", tuner.results_path().c_str());
  if (g_interrupted) {
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
  app.add_flag("!--no-warm-start", tune->warm_start,
               "Do not start from this GPU's own winners in --results-dir (the nearest size's)");
  return {&app,
          [common, tune] {
            tune->shapes = parse_sizes(common->sizes);
            tune->space_path = common->space_path;
            tune->cache_dir = cache_dir_of(*common);
            tune->jobs = common->jobs;
            return run_tune(*tune);
          },
          common};
}

}  // namespace gemmtune
