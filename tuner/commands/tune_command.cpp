// The tune command: picks the GPUs, runs a ShapeTuner (commands/shape_tuner.hpp) per GPU over the
// sizes, handed out by the scheduler (commands/gpu_scheduler.hpp), and prints the summary table.
// Ctrl-C ends the run after the evaluations in flight, with exit code 130 and everything measured
// already in the tuning log.
#include "commands/tune_command.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <string>
#include <vector>

#include "core/atomic_file.hpp"
#include "commands/common_options.hpp"
#include "commands/gpu_scheduler.hpp"
#include "commands/shape_tuner.hpp"
#include "compile/thread_pool.hpp"
#include "core/device_profile.hpp"
#include "core/precision.hpp"
#include "measure/gpu_list.hpp"
#include "core/record_file.hpp"
#include "search/shard.hpp"
#include "search/strategies/search_strategy.hpp"

namespace gemmtune {

std::vector<int> select_devices(const std::string& gpu) {
  const GpuRequest request =
      parse_gpu_request(gpu, repeated_gpus_allowed());  // before CUDA: a bad list is exit 2
  const DeviceCount devices = count_devices();
  if (devices.count == 0) throw NoDeviceError(devices.reason);
  return resolve_gpus(request, devices.count, [](int i) {
    const DeviceProfile p = query_device(i);
    return VisibleGpu{p.name, p.slug};
  });
}

int select_device(const std::string& gpu) {
  const std::vector<int> indices = select_devices(gpu);
  if (indices.size() != 1)
    throw std::invalid_argument(fmt::format("--gpu {}: this command measures on one GPU; give one", gpu));
  return indices.front();
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Where the run's time went (debug level, issue #47): per GPU the sums of its problems' parts and
// its idle time, then what the compile pool did. docs/multi-gpu.md reads these lines.
void log_time_breakdown(const Schedule& schedule, const CompileStats& compile, unsigned jobs) {
  if (!spdlog::should_log(spdlog::level::debug)) return;
  for (const GpuTimeline& gpu : schedule.gpus) {
    ProblemTimes sum;
    double seconds = 0;
    for (const ShapeOutcome& o : schedule.outcomes) {
      if (o.gpu != gpu.label) continue;
      seconds += o.seconds;
      const ProblemTimes& t = o.times;
      sum.worker_start += t.worker_start;
      sum.gather += t.gather;
      sum.prepare += t.prepare;
      sum.first_evaluation += t.first_evaluation;
      sum.compile_wait += t.compile_wait;
      sum.gpu += t.gpu;
      sum.race += t.race;
      sum.proposing += t.proposing;
      sum.logging += t.logging;
      sum.record += t.record;
    }
    spdlog::debug("{}: {} problems, busy {:.2f} s of {:.2f} (helping the others {:.2f} s, {} evaluations; idle {:.2f}, "
                  "{:.2f} of it after its last problem): "
                  "worker start {:.2f}, gather {:.2f}, prepare {:.2f}, waiting for NVRTC {:.2f}, GPU {:.2f}, "
                  "race {:.2f}, proposing {:.2f}, logging {:.2f}, results {:.2f}, other {:.2f}; "
                  "first evaluations after {:.2f} s in all",
                  gpu.label, gpu.problems, gpu.busy, schedule.seconds, gpu.helping, gpu.helped,
                  std::max(0.0, schedule.seconds - gpu.busy - gpu.helping),
                  std::max(0.0, schedule.seconds - gpu.last_end - gpu.helping), sum.worker_start, sum.gather, sum.prepare, sum.compile_wait,
                  sum.gpu, sum.race, sum.proposing, sum.logging, sum.record, sum.other(seconds),
                  sum.first_evaluation);
  }
  const std::size_t compiles = compile.pressing_compiles + compile.speculative_compiles;
  spdlog::debug("compile pool ({} + {} threads, {} cores): {} compiles ({} failed) in {:.1f} thread-seconds "
                "({:.2f} s a compile, {:.0f}% of the cores over {:.1f} s); pressing {} ({:.1f} s), queued "
                "{:.2f} s on average, {:.2f} s at most; speculative {} ({:.1f} s), {} of them used; {} withdrawn "
                "unstarted; {} read from the disk cache",
                jobs, jobs, default_parallelism(), compiles, compile.failed,
                compile.pressing_seconds + compile.speculative_seconds,
                compiles ? (compile.pressing_seconds + compile.speculative_seconds) / double(compiles) : 0.0,
                100.0 * (compile.pressing_seconds + compile.speculative_seconds) /
                    std::max(1e-9, schedule.seconds * default_parallelism()),
                schedule.seconds, compile.pressing_compiles, compile.pressing_seconds,
                compile.pressing_compiles ? compile.queued_seconds / double(compile.pressing_compiles) : 0.0,
                compile.max_queued_seconds, compile.speculative_compiles, compile.speculative_seconds,
                compile.speculative_used, compile.withdrawn, compile.cache_reads);
}

// The problems these GPUs can run: a precision without tensor cores on one of them (bf16 on a T4)
// is a usage error for --sizes, and for --sizes-from (a record made elsewhere) a skip named in one
// line.
std::vector<GemmShape> runnable_problems(const TuneOptions& options, const std::vector<DeviceProfile>& devices) {
  std::vector<GemmShape> runnable;
  std::vector<std::string> skipped;
  const auto oldest = std::min_element(devices.begin(), devices.end(), [](const auto& a, const auto& b) {
    return a.compute_capability < b.compute_capability;
  });
  for (const GemmShape& shape : options.shapes) {
    const std::string why =
        oldest == devices.end() ? "" : unsupported_precision(shape.precision, oldest->compute_capability, oldest->name);
    if (why.empty()) {
      runnable.push_back(shape);
      continue;
    }
    if (options.sizes_from.empty()) throw std::invalid_argument(fmt::format("{}: {}", shape.label(), why));
    skipped.push_back(fmt::format("{} ({})", shape.label(), why));
  }
  if (!skipped.empty())
    spdlog::warn("{}: not tuned (this GPU cannot run them): {}", options.sizes_from, fmt::join(skipped, ", "));
  return runnable;
}

}  // namespace

int run_tune(const TuneOptions& options) {
  const auto started = Clock::now();
  const std::vector<int> indices = select_devices(options.gpu);
  // The workers come up while the devices are queried and the run is set up; GPU i most likely
  // takes problem i first (a wrong guess costs one more prepare).
  std::vector<StartedWorker> workers;
  for (std::size_t i = 0; i < indices.size(); ++i)
    workers.push_back(start_worker(options, indices[i], i < options.shapes.size() ? &options.shapes[i] : nullptr));
  std::vector<DeviceProfile> devices;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    devices.push_back(query_device(indices[i]));
    // A GPU listed again (GEMMTUNE_TEST_SHARE_GPU) gets a worker of its own, told apart by number.
    const auto again = std::count(indices.begin(), indices.begin() + static_cast<long>(i), indices[i]);
    labels.push_back(again == 0 ? fmt::format("GPU {}", indices[i])
                                : fmt::format("GPU {} worker {}", indices[i], again + 1));
  }
  const std::vector<GemmShape> problems = runnable_problems(options, devices);
  for (std::size_t i = 0; i < devices.size(); ++i)
    spdlog::info("tuning on {}{} ({}, {} SMs), {} sizes, strategy {}",
                 devices.size() > 1 ? labels[i] + ": " : "", devices[i].name, devices[i].arch(),
                 devices[i].sm_count, problems.size(), options.strategy);
  stop_on_interrupt();
  TuningRun run(options, labels);
  std::vector<std::unique_ptr<ShapeTuner>> tuners;
  std::vector<ProblemTuner*> gpus;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    tuners.push_back(std::make_unique<ShapeTuner>(run, i, labels[i], indices[i], devices[i], std::move(workers[i])));
    gpus.push_back(tuners.back().get());
  }
  run.setup_ahead.start(devices, problems, [&run](const DeviceProfile& d) -> TuningLog& { return run.log_of(d); });
  const double before_schedule = seconds_since(started);
  const Schedule schedule = tune_on_gpus(gpus, problems, interrupted);
  log_time_breakdown(schedule, run.compile.stats(), options.jobs);
  // "vs cuBLAS" is the best kernel against cuBLAS's default call, "vs Lt" against cuBLASLt's fastest
  // contestant; "runs" is what the library will call.
  std::printf("\n%-16s %-52s %9s %9s %7s %-8s %7s %8s %8s%s\n", "problem", "best config", "TFLOP/s", "vs cuBLAS",
              "vs Lt", "runs", "evals", "variants", "time", gpus.size() > 1 ? "  GPU" : "");
  for (const auto& o : schedule.outcomes) {
    // A fallback's row says cuBLAS and the start of the reason; its warning line said all of it.
    const std::string best = o.fallback.empty() ? o.best_name : ("cublas: " + o.fallback).substr(0, 52);
    const std::string lt = o.cublaslt_ratio > 0 ? fmt::format("{:.3f}x", o.cublaslt_ratio) : "-";
    std::printf("%-16s %-52s %9.2f %8.3fx %7s %-8s %7zu %8zu %7.1fs%s\n", o.shape.label().c_str(), best.c_str(),
                o.best_tflops, o.ratio, lt.c_str(), o.winner.c_str(), o.evaluated, o.launch_variants, o.seconds,
                gpus.size() > 1 ? ("  " + o.gpu).c_str() : "");
  }
  std::vector<std::string> files;  // one per GPU model
  for (const auto& tuner : tuners)
    if (std::find(files.begin(), files.end(), tuner->results_path().string()) == files.end())
      files.push_back(tuner->results_path().string());
  std::printf("results: %s\n", fmt::format("{}", fmt::join(files, ", ")).c_str());
  std::fflush(stdout);
  // The workers go at once: each one's CUDA context takes a while to tear down.
  const auto stopping = Clock::now();
  std::vector<std::thread> stops;
  for (auto& tuner : tuners) stops.emplace_back([&tuner] { tuner.reset(); });
  for (std::thread& t : stops) t.join();
  spdlog::debug("run: {:.2f} s before the first problem (devices, space, workers), schedule {:.2f} s, "
                "workers stopped in {:.2f} s",
                before_schedule, schedule.seconds, seconds_since(stopping));
  if (interrupted()) {
    std::fprintf(stderr,
                 "gemm-tune: interrupted; everything measured is in the tuning log. Run the same command to "
                 "resume.\n");
    return 130;
  }
  if (schedule.error) std::rethrow_exception(schedule.error);
  return 0;
}

Command add_tune_command(CLI::App& app, const std::shared_ptr<TuneOptions>& tune) {
  const auto common = std::make_shared<CommonOptions>();
  add_common(app, *common);
  app.add_option("--gpu", tune->gpu,
                 "GPUs to tune on: auto (first visible), all, an index, a list of indices (0,2,3), or a name")
      ->capture_default_str();
  app.add_option("--strategy", tune->strategy, "exhaustive, random, genetic or surrogate")
      ->check(CLI::IsMember(strategy_names()))
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
                tune->sizes_from.empty() ? parse_sizes(common->sizes, common->precision) : shapes_from_record(tune->sizes_from),
                tune->shard);
            if (tune->shapes.empty()) return 0;  // this task's share is empty (said so)
            tune->space_path = common->space_path;
            tune->cache_dir = cache_dir_of(*common);
            tune->jobs = common->jobs;
            return run_tune(*tune);
          },
          common, /*reads_app_options=*/true};
}

std::vector<GemmShape> shapes_from_record(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text) throw std::invalid_argument(fmt::format("--sizes-from: cannot read '{}'", path));
  std::vector<GemmShape> shapes;
  std::vector<std::string> skipped;
  for (const RecordedProblem& p : parse_record(*text, path)) {  // most called first
    const GemmShape& shape = p.problem;
    if (std::max({shape.m, shape.n, shape.k}) > kMaxDimension || shape.batch > kMaxBatch) {
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
