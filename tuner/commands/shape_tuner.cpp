// The stages of a shape's search. Everything measured is appended to the tuning log before
// anything else happens with it, so an interruption at any point loses nothing already measured.
#include "commands/shape_tuner.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <deque>
#include <map>
#include <optional>
#include <utility>

#include "core/atomic_file.hpp"
#include "core/embedded_files.hpp"
#include "measure/statistics.hpp"
#include "record/baseline_entry.hpp"
#include "core/results_store.hpp"
#include "core/timestamp.hpp"
#include "search/launch_variants.hpp"
#include "search/occupancy.hpp"
#include "search/screening.hpp"
#include "search/seed_configs.hpp"
#include "search/static_model.hpp"
#include "search/strategies/search_strategy.hpp"
#include "core/stable_hash.hpp"
#include "core/version.hpp"
#include "core/candidate_status.hpp"

namespace gemmtune {
namespace {

using Clock = std::chrono::steady_clock;

// Launch variants (kLaunchVariantsPerProposal) only on problems where cuBLAS takes at most this
// long (2048 and smaller, the skinny shapes): a measurement at 4096 costs 60 ms.
constexpr double kVariantsUpToCublasMs = 1.0;

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) {
  g_interrupted = true;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
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

// The first of the pending candidates (index, binary) whose binary is ready, or logged by an
// earlier run (no binary needed); none when every one waits for NVRTC. The GPU measures what it
// has instead of waiting: a rerun over a warm cache proposes a few candidates the first run never
// compiled, and measuring in strict order made it wait for each.
using Pending = std::deque<std::pair<std::size_t, std::shared_future<CompileOutcome>>>;
std::optional<std::size_t> first_ready(const Pending& pending) {
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const std::shared_future<CompileOutcome>& binary = pending[i].second;
    if (!binary.valid() || binary.wait_for(std::chrono::seconds(0)) == std::future_status::ready) return i;
  }
  return std::nullopt;
}

struct Evaluated {
  std::size_t index;
  double median_ms;
};

// The sources of the spaces candidates came from, as the results entry names them: a space serves
// one precision, so a family's spaces of other precisions are not named.
std::string space_sources(const std::vector<SearchSpace>& spaces, const std::vector<KernelConfig>& candidates) {
  std::vector<std::string> sources;
  for (const SearchSpace& space : spaces)
    if (std::any_of(candidates.begin(), candidates.end(), [&](const KernelConfig& c) {
          return c.family == space.family && c.precision == space.precision;
        }))
      sources.push_back(space.source);
  return sources.empty() ? spaces.front().source : fmt::format("{}", fmt::join(sources, ", "));
}

// Why a compiled kernel is not worth a GPU evaluation (it spills, or one block does not fit an
// SM), or an empty string.
std::string resource_rejection(const KernelConfig& config, const KernelResources& resources,
                               const DeviceProfile& device) {
  if (resources.spill_bytes() > 0 || resources.stack_bytes > 0)
    return fmt::format("{} bytes spilled, {} bytes stack", resources.spill_bytes(), resources.stack_bytes);
  if (compute_occupancy(config, resources.registers, device).blocks_per_sm == 0)
    return fmt::format("{} registers x {} threads do not fit one SM", resources.registers, config.threads());
  return {};
}

}  // namespace

void stop_on_interrupt() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

bool interrupted() {
  return g_interrupted;
}

// The space enumerated for this device and shape (what the constraints removed, counted by name),
// and the seeds the strategy starts from, as indices into the candidates.
struct ShapeTuner::Candidates {
  Enumeration enumeration;
  std::vector<std::size_t> seeds;
  // This GPU's winner at the nearest size tuned before (the first of its own winners among the
  // seeds): measured before the search ends, even one a time budget cut short.
  std::optional<std::size_t> known_best;
  std::vector<double> prior;  // the static model's, per candidate
  OnHand on_hand;  // asked once the seeds joined: binaries from before the run and from this run's compiles
};

// What the search has learned about one shape so far; the final race and the results entry read it.
struct ShapeTuner::Search {
  Clock::time_point started;
  ShapeOutcome outcome;                         // best so far and evaluations, at the end the winner
  GemmShape screen;  // where candidates are measured (screening.hpp); the final race is at outcome.shape
  std::map<std::string, std::size_t> rejected;  // by reason: the constraints' cuts, then failures
  std::vector<Evaluated> measured;
  std::vector<Improvement> improvements;
  double compile_wait = 0;  // seconds the loop waited for NVRTC
  double gpu_seconds = 0;   // evaluations and the final race
  double proposing = 0;     // the strategy's proposals and their compile submissions (debug log)
  double logging = 0;       // appending records to the tuning log (debug log)
  std::map<std::string, double> worker_ms;  // the worker's own phases of the evaluations (debug log)
};

// The finalists' race against cuBLAS, and the finalists fastest first, each with its timing
// summary and its ratio to cuBLAS from that same race.
struct ShapeTuner::FinalRace {
  RaceResult timings;
  Baselines baselines;  // cuBLAS's and cuBLASLt's times in the race
  nlohmann::json ranked = nlohmann::json::array();
};

namespace {

std::string template_of(const TuneOptions& o) {
  std::string source = o.template_path.empty() ? std::string(embedded_file("kernel_templates/sgemm.cuh"))
                                               : read_whole_file(o.template_path).value_or("");
  if (source.empty()) throw std::invalid_argument("cannot read template " + o.template_path);
  return source;
}

}  // namespace

TuningRun::TuningRun(const TuneOptions& o, std::vector<std::string> gpu_labels)
    : options(o),
      spaces(load_search_spaces(o.space_path)),
      template_source(template_of(o)),
      compiler(run_cache_dir(o), template_source),
      compiled_before(compiler.cached_keys()),
      compile(compiler, o.jobs),
      setup_maker(spaces, compiler, compiled_before, compile),
      setup_ahead(setup_maker, o, compile),
      progress(std::move(gpu_labels)) {}

TuningLog& TuningRun::log_of(const DeviceProfile& device) {
  const std::lock_guard<std::mutex> lock(logs_mutex_);
  std::unique_ptr<TuningLog>& log = logs_[device.slug];
  if (!log)
    log = std::make_unique<TuningLog>(
        std::filesystem::path(options.results_dir) / "logs" / (device.slug + ".jsonl"), device.slug,
        stable_hash_hex(template_source), stable_hash_hex(embedded_file("kernel_templates/skinny.cuh")),
        stable_hash_hex(embedded_file("kernel_templates/mma.cuh")),
        stable_hash_hex(embedded_file("kernel_templates/wgmma.cuh")));
  return *log;
}

std::filesystem::path run_cache_dir(const TuneOptions& o) {
  return o.cache_dir.empty() ? std::filesystem::temp_directory_path() / "gemmtune-run-cache" : o.cache_dir;
}

StartedWorker start_worker(const TuneOptions& o, int device_index, const GemmShape* first_problem) {
  StartedWorker w;
  w.session = std::make_unique<GpuSession>(device_index, run_cache_dir(o), o.template_path, o.eval_timeout_seconds);
  if (first_problem) {
    w.shape = *first_problem;
    w.prepared = std::async(std::launch::async, [session = w.session.get(), shape = w.shape, seed = o.seed] {
      return session->prepare(shape, seed);
    });
  }
  return w;
}

ShapeTuner::ShapeTuner(TuningRun& run, std::size_t slot, std::string label, int device_index,
                       DeviceProfile device, StartedWorker worker)
    : run_(run),
      options_(run.options),
      spaces_(run.spaces),
      slot_(slot),
      label_(std::move(label)),
      device_(std::move(device)),
      log_(run.log_of(device_)),
      gpu_(worker.session ? std::move(worker.session)
                          : std::make_unique<GpuSession>(device_index, run.compiler.cache_dir(),
                                                         run.options.template_path,
                                                         run.options.eval_timeout_seconds)),
      early_shape_(worker.shape),
      early_(std::move(worker.prepared)) {}

std::string ShapeTuner::label() const {
  return label_;
}

ShapeOutcome ShapeTuner::tune(const GemmShape& shape) {
  Search search;
  search.started = Clock::now();
  search.outcome.shape = shape;
  ShapeOutcome out = tune_stages(shape, search);
  out.seconds = seconds_since(search.started);  // the results file's write included
  out.times = search.outcome.times;
  out.times.compile_wait = search.compile_wait;
  out.times.gpu = search.gpu_seconds - out.times.race;
  out.times.proposing = search.proposing;
  out.times.logging = search.logging;
  const ProblemTimes& t = out.times;
  spdlog::debug("{} on {}: {:.2f} s: worker start {:.2f}, gather {:.2f}, prepare {:.2f}, first evaluation at {:.2f}; "
                "waiting for NVRTC {:.2f}, GPU {:.2f}, race {:.2f}, proposing {:.2f}, logging {:.2f}, results {:.2f}, "
                "other {:.2f}",
                shape.label(), label_, out.seconds, t.worker_start, t.gather, t.prepare, t.first_evaluation,
                t.compile_wait, t.gpu, t.race, t.proposing, t.logging, t.record, t.other(out.seconds));
  return out;
}

// The first prepare of a worker also starts it (process, CUDA context, cuBLAS): counted apart.
// That one was sent at the start of the problem (early_), so the worker starts while the search
// is set up; at the screening shape the problem is prepared again.
PreparedShape ShapeTuner::prepare(const GemmShape& shape, Search& search) {
  const auto tp = Clock::now();
  if (early_.valid()) {
    if (early_shape_ == shape) {
      PreparedShape first = early_.get();  // throws as gpu_->prepare would
      search.outcome.times.worker_start += seconds_since(tp);
      worker_started_ = true;
      return first;
    }
    settle_early_prepare();
    search.outcome.times.worker_start += seconds_since(tp);
  }
  PreparedShape prepared = gpu_->prepare(shape, options_.seed);
  (worker_started_ ? search.outcome.times.prepare : search.outcome.times.worker_start) += seconds_since(tp);
  worker_started_ = true;
  return prepared;
}

ShapeOutcome ShapeTuner::tune_stages(const GemmShape& shape, Search& search) {
  if (!worker_started_ && !early_.valid()) {
    early_shape_ = shape;
    early_ = std::async(std::launch::async, [this, shape] { return gpu_->prepare(shape, options_.seed); });
  }
  const Candidates candidates = gather_candidates(shape);
  search.outcome.times.gather = seconds_since(search.started);
  search.rejected = candidates.enumeration.removed;
  if (candidates.enumeration.candidates.empty()) {
    std::string reason = "no candidate passes the constraints";
    if (!search.rejected.empty()) {
      std::vector<std::string> cuts;
      for (const auto& [constraint, count] : search.rejected) cuts.push_back(fmt::format("{} {}", constraint, count));
      reason += fmt::format(" ({})", fmt::join(cuts, ", "));
    }
    try {  // cuBLAS's time at the problem, for the results entry
      const PreparedShape prepared = prepare(shape, search);
      return record_cublas_fallback(candidates, search, reason, &prepared);
    } catch (const ProblemError& e) {
      return record_cublas_fallback(candidates, search, reason + "; " + e.what(), nullptr);
    }
  }
  search.screen = screening_shape(shape, candidates.enumeration.candidates);
  const double gathered = seconds_since(search.started);
  PreparedShape prepared;
  try {
    prepared = prepare(search.screen, search);
  } catch (const ProblemError& e) {
    return record_cublas_fallback(candidates, search, e.what(), nullptr);
  }
  spdlog::debug("{}: {} candidates gathered in {:.1f} s, GPU prepared {:.1f} s later{}", shape.label(),
                candidates.enumeration.candidates.size(), gathered, seconds_since(search.started) - gathered,
                search.screen == shape ? "" : "; screening them at " + search.screen.label());
  evaluation_loop(candidates, prepared.cublas_ms, search);
  ShapeOutcome& out = search.outcome;
  if (g_interrupted) {  // everything measured is in the log; a rerun resumes from it
    out.seconds = seconds_since(search.started);
    return out;
  }
  if (search.measured.empty()) {
    std::vector<std::string> failures;  // the evaluations' outcomes, counted by status
    for (const auto& [status, count] : search.rejected)
      if (!candidates.enumeration.removed.count(status)) failures.push_back(fmt::format("{} {}", status, count));
    return record_cublas_fallback(
        candidates, search,
        fmt::format("every candidate failed ({})", failures.empty() ? "none evaluated" : fmt::format("{}", fmt::join(failures, ", "))),
        search.screen == shape ? &prepared : nullptr);
  }
  if (search.screen != shape) prepared = prepare(shape, search);
  const FinalRace race = race_finalists(candidates, prepared, search);
  const nlohmann::json best = race.ranked[0];
  out.best_name = best["name"].get<std::string>();
  out.best_tflops = best["tflops"].get<double>();
  out.ratio = best["ratio_vs_cublas"].get<double>();
  if (race.baselines.cublaslt_ms > 0) out.cublaslt_ratio = race.baselines.cublaslt_ms / best["median_ms"].get<double>();
  out.seconds = seconds_since(search.started);
  out.complete = !g_interrupted;
  const ProblemCheck check = check_at_problem(best, search);
  const auto tr = Clock::now();
  nlohmann::json entry = results_entry(candidates, prepared, race, search);
  entry.update(check.errors);
  if (!check.failure.empty() && entry["winner"] == "kernel") {
    // Screened at a shorter K and wrong at the problem itself: never served, cuBLAS's contestant runs.
    entry["winner"] = race.baselines.cublaslt_leads() ? "cublaslt" : "cublas";
    spdlog::warn("{}: {} runs instead of {} ({})", shape.label(), entry["winner"].get<std::string>(), out.best_name,
                 check.failure);
  }
  out.winner = entry["winner"].get<std::string>();
  merge_results(results_path(), measured_header(device_), nlohmann::json::array({entry}));
  out.times.record = seconds_since(tr);
  return out;
}

// One warning line names the problem and the reason; the results entry says the same, with
// cuBLAS's time where it was measured at the problem itself. An entry the file already holds for
// the problem (an earlier run's winner) is kept: a failure here says nothing against it.
ShapeOutcome ShapeTuner::record_cublas_fallback(const Candidates& candidates, Search& search,
                                                const std::string& reason, const PreparedShape* prepared) {
  ShapeOutcome& out = search.outcome;
  const GemmShape& shape = out.shape;
  spdlog::warn("{}: cuBLAS recorded as the winner: {}", shape.label(), reason);
  out.fallback = reason;
  out.ratio = 1.0;
  out.winner = "cublas";
  out.complete = true;
  out.seconds = seconds_since(search.started);
  nlohmann::json entry = {{"reason", reason},
                          {"search",
                           {{"strategy", options_.strategy},
                            {"seed", options_.seed},
                            {"complete", true},
                            {"space", space_sources(spaces_, candidates.enumeration.candidates)},
                            {"space_size", candidates.enumeration.total},
                            {"candidates", candidates.enumeration.candidates.size()},
                            {"evaluated", out.evaluated},
                            {"rejected", search.rejected},
                            {"wall_seconds", out.seconds}}},
                          {"date", utc_timestamp()},
                          {"tool_version", kGemmtuneVersion}};
  if (prepared) {  // cuBLAS's default call or cuBLASLt, whichever was faster while preparing
    const Baselines baselines = baselines_of(prepared->cublaslt, {prepared->cublas_ms}, prepared->cublaslt_first_ms,
                                             prepared->cublaslt_best_ms, shape.flops());
    add_baselines(entry, baselines, 0);
    out.best_tflops = tflops_of(shape.flops(), baselines.best_ms());
    out.winner = entry["winner"].get<std::string>();
  } else {
    entry["winner"] = "cublas";
  }
  shape_to_json(entry, shape);
  const auto tr = Clock::now();
  merge_results(results_path(), measured_header(device_), nlohmann::json::array({entry}), MergeRule::keep_existing);
  out.times.record = seconds_since(tr);
  return out;
}

ShapeTuner::Candidates ShapeTuner::gather_candidates(const GemmShape& shape) const {
  ProblemSetup setup = run_.setup_ahead.take(device_, shape);  // made ahead (setup_ahead.hpp)
  const std::size_t enumerated = setup.enumeration.candidates.size();
  Candidates c;
  std::vector<KernelConfig>& configs = setup.enumeration.candidates;
  // Seeds from other GPUs' results join the candidates if this device can run them, even when
  // this space would not have produced them.
  if (!options_.seed_from.empty()) {
    for (const KernelConfig& config : seed_configs(options_.seed_from, shape)) {
      if (!rejecting_constraint(space_of(spaces_, config), config, device_, &shape).empty() && config_error(config))
        continue;
      const auto it = std::find(configs.begin(), configs.end(), config);
      c.seeds.push_back(static_cast<std::size_t>(it - configs.begin()));
      if (it == configs.end()) configs.push_back(config);
    }
  }
  // Warm start: this GPU's own winners at the nearest size tuned before go first, so re-tuning
  // never starts below what is known, and a short search at a new size starts from good tiles;
  // then, without --seed-from, the winners of the most similar GPUs in the results directory (a new
  // GPU starts from its nearest relative's tiles). Only those inside this space: a narrowed space
  // (an A/B of one configuration) stays narrow. Seeds only order the search: each is measured here,
  // with the split-K and swizzle this problem allows (seed_index).
  std::vector<KernelConfig> known = own_winners(shape);
  if (!known.empty()) c.known_best = seed_index(configs, known.front());
  for (KernelConfig& config : relatives_winners(shape)) known.push_back(std::move(config));
  for (const KernelConfig& config : known) {
    const std::optional<std::size_t> index = seed_index(configs, config);
    if (index && std::find(c.seeds.begin(), c.seeds.end(), *index) == c.seeds.end()) c.seeds.push_back(*index);
  }
  // Seeds from other GPUs' results that joined the candidates get their prior and binary's key.
  if (configs.size() > enumerated) run_.setup_maker.extend(setup, enumerated, device_, shape);
  // Asked now, not when the set-up was made: what the run compiled for the problems before this one
  // is on hand too.
  c.on_hand = run_.setup_maker.on_hand(setup);
  c.enumeration = std::move(setup.enumeration);
  c.prior = std::move(setup.prior);
  return c;
}

// The winners of the entries nearest to shape in the results of the two GPUs most like this one
// (similar_gpu_results); none with --seed-from (the user chose the seeds) or without warm start.
std::vector<KernelConfig> ShapeTuner::relatives_winners(const GemmShape& shape) const {
  if (!options_.warm_start || !options_.seed_from.empty()) return {};
  const std::vector<std::string> files = similar_gpu_results(options_.results_dir, device_, 2);
  std::vector<KernelConfig> out;
  for (const auto& file : files) {
    try {
      for (KernelConfig& config : seed_configs({file}, shape)) out.push_back(std::move(config));
    } catch (const std::exception& e) {
      spdlog::debug("no seeds from {}: {}", file, e.what());
    }
  }
  return out;
}

// The winners (best and alternatives) of the entry nearest to shape in this GPU's results file;
// none when warm start is off or there is no file. An unreadable file only costs the warm start:
// writing the results later reports it properly.
std::vector<KernelConfig> ShapeTuner::own_winners(const GemmShape& shape) const {
  if (!options_.warm_start || !std::filesystem::exists(results_path())) return {};
  try {
    return seed_configs({results_path().string()}, shape);
  } catch (const std::exception& e) {
    spdlog::warn("no warm start from {}: {}", results_path().string(), e.what());
    return {};
  }
}

// The strategy proposes, the compile service works ahead of the GPU, and the candidates are
// evaluated in the order proposed, those already compiled first, until the strategy, the time
// budget or an interrupt ends it.
// After each proposal the GPU measures launch-time variants of binaries already measured, and the
// strategy learns them without having spent its budget (a cold search waits for NVRTC most of its
// time, and these need none).
void ShapeTuner::evaluation_loop(const Candidates& candidates, double cublas_ms, Search& search) {
  const GemmShape& shape = search.outcome.shape;
  const GemmShape& screen = search.screen;  // same path as shape for every candidate
  const std::vector<KernelConfig>& configs = candidates.enumeration.candidates;
  StrategyContext ctx;
  ctx.candidates = configs;
  ctx.seed = options_.seed;
  ctx.budget = static_cast<std::size_t>(options_.budget_evaluations);
  ctx.seeds = candidates.seeds;
  ctx.prior = candidates.prior;
  ctx.on_hand = candidates.on_hand.flags;
  ctx.on_hand_from_this_run = candidates.on_hand.from_this_run;
  spdlog::debug(
      "{}: {} of {} candidates on hand: {} with a binary from before the run, {} compiled by this run",
      shape.label(), candidates.on_hand.before_run + candidates.on_hand.this_run, configs.size(),
      candidates.on_hand.before_run, candidates.on_hand.this_run);
  // A resumed run's logged candidates need no binary: evaluate() returns their records.
  std::vector<bool> logged(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) logged[i] = log_.find(screen, configs[i].name()) != nullptr;
  // After each proposal, launch-time variants of the binaries measured so far (fastest binary
  // first): no compile, and the same number every time, so a rerun over a warm cache learns what
  // the first run learned and keeps to its binaries.
  const std::size_t variants_per_proposal =
      cublas_ms <= kVariantsUpToCublasMs ? kLaunchVariantsPerProposal : 0;
  LaunchVariants variants(configs, shape, ctx.prior);
  auto strategy = make_strategy(options_.strategy, ctx);
  ProgressBoard::Problem progress(run_.progress, slot_, fmt::format("tune {:>14}", shape.label()),
                                  strategy->planned());

  Pending pending;
  // Candidates and launch variants handed to GPUs with no problem left (help_desk.hpp), with their
  // binaries: one that comes back without a measurement is measured here.
  struct Handed {
    std::size_t index;
    bool variant;
    std::shared_future<CompileOutcome> binary;
    std::future<nlohmann::json> reply;
  };
  std::vector<Handed> handed;
  // At least a whole generation of the surrogate (20 at the default budget, 24 at most) beside a
  // quarter of one still compiling (SearchStrategy::stalled), however few the cores: the strategy
  // proposes no more than it is asked for, and on 2 cores generations of 8 landed 4% short at 1024.
  const std::size_t lookahead = std::max<std::size_t>(32, 2 * options_.jobs);
  const auto ask = [&] {
    if (pending.size() >= lookahead) return;
    const auto tp = Clock::now();
    const std::vector<std::size_t> proposed = strategy->propose(lookahead - pending.size());
    for (std::size_t i : proposed) {
      variants.take(i);
      pending.emplace_back(i, logged[i] ? std::shared_future<CompileOutcome>()
                                        : run_.compile.submit(configs[i], device_.arch(),
                                                              kernel_path_for(configs[i], shape)));
    }
    if (!proposed.empty()) {
      // What the strategy expects to ask for next compiles on the cores this generation leaves
      // idle (the speculative lane), replacing its previous guess where not yet started.
      run_.compile.withdraw(&search);
      for (std::size_t i : strategy->likely_next())
        if (!logged[i])
          run_.compile.submit(configs[i], device_.arch(), kernel_path_for(configs[i], shape),
                              CompileService::Need::later, &search);
    }
    search.proposing += seconds_since(tp);
  };
  // Whether a helper waits for work and this candidate can go to it: its binary is ready and passes the
  // resource screen, and the log holds no record of it (an earlier run's, or this search's).
  const auto can_hand = [&](std::size_t index, const std::shared_future<CompileOutcome>& binary) {
    return run_.help_desk.wanted(device_.slug) && binary.valid() &&
           binary.wait_for(std::chrono::seconds(0)) == std::future_status::ready &&
           !record_without_gpu(configs[index], configs[index].name(), binary.get()) &&
           log_.find(screen, configs[index].name()) == nullptr;
  };
  const auto hand = [&](std::size_t index, bool variant, std::shared_future<CompileOutcome> binary) {
    handed.push_back({index, variant, binary, run_.help_desk.hand(device_.slug, screen, configs[index])});
  };
  // A measured proposal, then its launch variants (here, or on a helper), as one GPU alone would.
  bool known_best_measured = false;
  const auto observe = [&](std::size_t index, const nlohmann::json& record) {
    known_best_measured = known_best_measured || index == candidates.known_best;
    const double score = book(index, configs[index].name(), record, search);
    strategy->observe(index, score);
    variants.measured(index, score);
    ++search.outcome.evaluated;
    for (std::size_t v = 0; v < variants_per_proposal && !g_interrupted; ++v) {
      const std::optional<std::size_t> variant = variants.next();
      if (!variant) break;
      const KernelConfig& config = configs[*variant];
      const auto binary = run_.compile.submit(config, device_.arch(), kernel_path_for(config, shape),
                                              CompileService::Need::now);
      ++search.outcome.launch_variants;
      if (can_hand(*variant, binary)) {
        hand(*variant, true, binary);
        continue;
      }
      const nlohmann::json measured = evaluate(screen, config, config.name(), binary, search);
      strategy->learn(*variant, book(*variant, config.name(), measured, search));
    }
    progress.advance(fmt::format("best {:.1f} TFLOP/s (cuBLAS {:.1f})", search.outcome.best_tflops,
                                 tflops_of(screen.flops(), cublas_ms)));
  };
  // While a helper waits for work, ready candidates beyond the one this GPU measures next go to it.
  const auto hand_over = [&] {
    for (std::size_t p = 0; p < pending.size();) {
      const auto& [index, binary] = pending[p];
      if (!can_hand(index, binary)) {
        ++p;
        continue;
      }
      hand(index, false, binary);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(p));
    }
  };
  // The helpers' replies that are in (all of them, and what they lead to, with wait_all), booked as
  // this GPU's would be.
  const auto collect = [&](bool wait_all) {
    do {
      if (wait_all && !handed.empty()) handed.front().reply.wait();
      std::vector<Handed> in;  // taken out first: booking them may hand over more
      for (auto it = handed.begin(); it != handed.end();) {
        if (it->reply.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
          in.push_back(std::move(*it));
          it = handed.erase(it);
        } else {
          ++it;
        }
      }
      for (Handed& h : in) {
        const KernelConfig& config = configs[h.index];
        std::optional<nlohmann::json> record;
        try {
          record = record_of_reply(config, config.name(), h.binary.get(), h.reply.get(), search);
          append_to_log(screen, *record, search);
          ++search.outcome.measured_elsewhere;
        } catch (const std::exception& e) {
          spdlog::debug("{} at {}: measured here instead ({})", config.name(), screen.label(), e.what());
          if (!g_interrupted) record = evaluate(screen, config, config.name(), h.binary, search);
        }
        if (!record) continue;
        if (h.variant) {
          strategy->learn(h.index, book(h.index, config.name(), *record, search));
        } else {
          observe(h.index, *record);
        }
      }
    } while (wait_all && !handed.empty());
  };
  while (!g_interrupted) {
    if (options_.budget_seconds > 0 && seconds_since(search.started) > options_.budget_seconds) break;
    ask();
    if (pending.empty()) {
      if (handed.empty()) break;
      handed.front().reply.wait();  // what the helpers measure may make the strategy propose more
      collect(false);
      continue;
    }
    std::optional<std::size_t> ready = first_ready(pending);
    if (!ready) {  // the strategy may go on without what NVRTC has not finished (a rerun's drift)
      strategy->stalled();
      ask();
      ready = first_ready(pending);
    }
    if (!ready) {  // measure whichever binary comes first, the oldest hurried ahead of the others
      const auto tw = Clock::now();
      const KernelConfig& oldest = configs[pending.front().first];
      run_.compile.submit(oldest, device_.arch(), kernel_path_for(oldest, shape), CompileService::Need::now);
      while (!(ready = first_ready(pending)) && !g_interrupted)
        pending.front().second.wait_for(std::chrono::milliseconds(2));
      search.compile_wait += seconds_since(tw);
      if (!ready) break;  // interrupted
    }
    const auto next = pending.begin() + static_cast<std::ptrdiff_t>(*ready);
    const auto [index, future] = *next;
    pending.erase(next);
    hand_over();
    observe(index, evaluate(screen, configs[index], configs[index].name(), future, search));
    collect(false);
  }
  collect(true);  // measured elsewhere: in the log and the finalists' pool before the race
  // Re-tuning never ends without the known winner: a time budget that ran out before it was measured
  // (its binary still compiling on a cold cache, a wgmma compile taking seconds) measures it now, so
  // the entry it replaces is replaced only by something measured faster beside it.
  if (candidates.known_best && !known_best_measured && !g_interrupted) {
    const std::size_t index = *candidates.known_best;
    const KernelConfig& config = configs[index];
    spdlog::debug("{}: the known winner {} measured after the search", shape.label(), config.name());
    const auto binary = logged[index] ? std::shared_future<CompileOutcome>()
                                      : run_.compile.submit(config, device_.arch(), kernel_path_for(config, shape),
                                                            CompileService::Need::now);
    observe(index, evaluate(screen, config, config.name(), binary, search));
  }
  run_.compile.withdraw(&search);  // this search's look-ahead, no use to the next problem
  spdlog::debug("{}: {} candidates proposed, {} launch variants measured ({} of all these by GPUs with no "
                "problem left)",
                shape.label(), search.outcome.evaluated, search.outcome.launch_variants,
                search.outcome.measured_elsewhere);
  std::vector<std::string> phases;
  for (const auto& [phase, ms] : search.worker_ms) phases.push_back(fmt::format("{} {:.2f} s", phase, ms / 1000));
  spdlog::debug("{}: searched for {:.1f} s: waiting for NVRTC {:.2f} s, GPU {:.2f} s (in the worker: {}); "
                "proposing {:.2f} s, logging {:.2f} s",
                shape.label(), seconds_since(search.started), search.compile_wait, search.gpu_seconds,
                fmt::join(phases, ", "), search.proposing, search.logging);
}

// One candidate's record. Taken from the log when an earlier, interrupted run measured it;
// otherwise its compile outcome, then the resource screen, then the GPU (verify, then time), and
// appended to the log before the search looks at it.
nlohmann::json ShapeTuner::evaluate(const GemmShape& shape, const KernelConfig& config,
                                    const std::string& name,
                                    const std::shared_future<CompileOutcome>& compiled_future,
                                    Search& search) {
  if (const nlohmann::json* prior = log_.find(shape, name)) return *prior;
  // The caller has the binary ready (the search measures only what NVRTC finished) or asked for it
  // Need::now (a launch variant's, of a binary already measured), so this wait is short.
  const auto tc = Clock::now();
  const CompileOutcome& compiled = compiled_future.get();
  search.compile_wait += seconds_since(tc);
  std::optional<nlohmann::json> record = record_without_gpu(config, name, compiled);
  if (!record) {
    const auto tg = Clock::now();
    if (search.outcome.times.first_evaluation == 0) search.outcome.times.first_evaluation = seconds_since(search.started);
    const nlohmann::json reply = gpu_->evaluate(config, 10);
    search.gpu_seconds += seconds_since(tg);
    record = record_of_reply(config, name, compiled, reply, search);
  }
  append_to_log(shape, *record, search);
  return *record;
}

std::optional<nlohmann::json> ShapeTuner::record_without_gpu(const KernelConfig& config, const std::string& name,
                                                             const CompileOutcome& compiled) const {
  if (!compiled.kernel)
    return nlohmann::json{{"name", name}, {"config", config}, {"status", status_name(CandidateStatus::compile)},
                          {"detail", compiled.error}};
  if (const std::string why = resource_rejection(config, compiled.kernel->resources, device_); !why.empty())
    return nlohmann::json{{"name", name}, {"config", config}, {"status", status_name(CandidateStatus::resources)},
                          {"detail", why}};
  return std::nullopt;
}

nlohmann::json ShapeTuner::record_of_reply(const KernelConfig& config, const std::string& name,
                                           const CompileOutcome& compiled, const nlohmann::json& reply,
                                           Search& search) const {
  nlohmann::json record = {{"name", name}, {"config", config}};
  record["status"] = status_name(parse_status(reply.value("status", "")));
  if (reply.contains("detail")) record["detail"] = reply["detail"];
  if (reply.contains("samples_ms")) {
    record["samples_ms"] = reply["samples_ms"];
    record["median_ms"] = median(reply["samples_ms"].get<std::vector<double>>());
  }
  for (const char* key : {"error_ratio", "normwise_error", "sgemm_normwise_error"})
    if (reply.contains(key)) record[key] = reply[key];
  if (const auto phases = reply.find("phases_ms"); phases != reply.end())
    for (const auto& [phase, ms] : phases->items()) search.worker_ms[phase] += ms.get<double>();
  record["registers"] = compiled.kernel->resources.registers;
  return record;
}

void ShapeTuner::append_to_log(const GemmShape& shape, const nlohmann::json& record, Search& search) {
  const auto tl = Clock::now();
  log_.append(shape, record);
  search.logging += seconds_since(tl);
}

// The first prepare, sent when the worker started, may still be under way: the worker answers one
// request at a time. It was another problem's: a failure there says nothing about the next request
// (a broken worker shows in that request's own answer).
void ShapeTuner::settle_early_prepare() {
  if (!early_.valid()) return;
  try {
    early_.get();
  } catch (const std::exception&) {
  }
}

std::size_t ShapeTuner::help(const std::function<bool()>& keep_helping) {
  HelpDesk& desk = run_.help_desk;
  desk.join(device_.slug);
  struct Leave {  // on every way out: requests still waiting for this GPU go back to their problems
    HelpDesk& desk;
    const std::string& model;
    ~Leave() { desk.leave(model); }
  } leave{desk, device_.slug};
  std::size_t helped = 0;
  GemmShape held, refused;  // the screening shape this worker holds; one it cannot prepare (too large, say)
  bool holding = false, refusing = false;
  while (keep_helping() && !g_interrupted) {
    std::optional<HelpDesk::Request> request = desk.take(device_.slug, std::chrono::milliseconds(10));
    if (!request) continue;
    try {
      if (refusing && refused == request->screen)
        throw ProblemError("this GPU cannot prepare " + request->screen.label());
      if (!holding || held != request->screen) {
        settle_early_prepare();
        holding = false;
        try {
          gpu_->prepare(request->screen, options_.seed);  // the problem's own inputs: the same seed
        } catch (const ProblemError&) {
          refused = request->screen;
          refusing = true;
          throw;
        }
        held = request->screen;
        holding = true;
        worker_started_ = true;  // a problem this GPU takes later counts its prepare as a prepare
      }
      request->reply.set_value(gpu_->evaluate(request->config, 10));
      ++helped;
    } catch (const ProblemError&) {
      request->reply.set_exception(std::current_exception());  // the problem's GPU measures it
    } catch (...) {
      request->reply.set_exception(std::current_exception());
      throw;  // the worker cannot go on: the scheduler retires this GPU
    }
  }
  return helped;
}

// Books one record into the search: a measurement joins the pool the finalists come from (and may
// be a new best); a failure is counted under its status. Returns the strategy's score: TFLOP/s,
// 0 for a failure.
double ShapeTuner::book(std::size_t index, const std::string& name, const nlohmann::json& record,
                        Search& search) const {
  ShapeOutcome& out = search.outcome;
  const CandidateStatus status = parse_status(record.value("status", ""));
  if (status != CandidateStatus::ok) {
    ++search.rejected[std::string(status_name(status))];
    if (status != CandidateStatus::compile && status != CandidateStatus::resources)
      spdlog::debug("{} at {}: {} ({})", name, out.shape.label(), status_name(status), record.value("detail", ""));
    return 0;
  }
  const double ms = record.at("median_ms").get<double>();
  search.measured.push_back({index, ms});
  const double tflops = tflops_of(search.screen.flops(), ms);
  if (tflops > out.best_tflops) {
    out.best_tflops = tflops;
    out.best_name = name;
    search.improvements.push_back({out.evaluated + 1, seconds_since(search.started), tflops});
  }
  return tflops;
}

// Final word: the best few re-timed with many samples, interleaved with cuBLAS.
ShapeTuner::FinalRace ShapeTuner::race_finalists(const Candidates& candidates, const PreparedShape& prepared,
                                                  Search& search) {
  std::sort(search.measured.begin(), search.measured.end(),
            [](const Evaluated& a, const Evaluated& b) { return a.median_ms < b.median_ms; });
  std::vector<KernelConfig> finalists;
  for (std::size_t i = 0; i < search.measured.size() && finalists.size() < std::size_t(options_.retime_top);
       ++i)
    finalists.push_back(candidates.enumeration.candidates[search.measured[i].index]);
  const auto tr = Clock::now();
  FinalRace race;
  race.timings = gpu_->race(finalists);
  search.gpu_seconds += seconds_since(tr);
  search.outcome.times.race += seconds_since(tr);
  spdlog::debug("{}: {} finalists raced in {:.2f} s", search.outcome.shape.label(), finalists.size(),
                seconds_since(tr));

  race.baselines = baselines_of(prepared.cublaslt, race.timings.cublas_ms, race.timings.cublaslt_first_ms,
                                race.timings.cublaslt_best_ms, search.outcome.shape.flops());
  const double cublas_median = race.baselines.cublas_ms;
  std::vector<std::pair<double, std::size_t>> ranking;
  for (std::size_t i = 0; i < finalists.size(); ++i)
    ranking.emplace_back(median(race.timings.configs_ms[i]), i);
  std::sort(ranking.begin(), ranking.end());
  if (search.screen != search.outcome.shape) {  // how well the screening's order held at full size
    std::vector<std::size_t> order;
    for (const auto& r : ranking) order.push_back(r.second + 1);
    spdlog::debug("{}: the race's order, by rank at {}: {}", search.outcome.shape.label(), search.screen.label(),
                  fmt::join(order, " "));
  }
  for (const auto& [ms, i] : ranking) {
    const KernelConfig& c = finalists[i];
    nlohmann::json alt = timing_summary(race.timings.configs_ms[i], search.outcome.shape.flops());
    alt["name"] = c.name();
    alt["config"] = c;
    alt["ratio_vs_cublas"] = cublas_median / ms;
    race.ranked.push_back(alt);
  }
  return race;
}

// The shape's entry in results/<gpu-slug>.json: the winner, the runners-up, cuBLAS from the same
// race, and how the search went.
nlohmann::json ShapeTuner::results_entry(const Candidates& candidates, const PreparedShape& prepared,
                                         const FinalRace& race, const Search& search) const {
  const ShapeOutcome& out = search.outcome;
  const GemmShape& shape = out.shape;
  const Enumeration& e = candidates.enumeration;
  nlohmann::json entry = {
          {"best", race.ranked[0]},
          {"ratio_vs_cublas", out.ratio},
          {"alternatives", nlohmann::json(race.ranked.begin() + 1, race.ranked.end())},
          {"search",
           {{"strategy", options_.strategy},
            {"seed", options_.seed},
            {"complete", out.complete},
            {"space", space_sources(spaces_, candidates.enumeration.candidates)},
            {"space_size", e.total},
            {"candidates", e.candidates.size()},
            {"evaluated", out.evaluated},
            {"launch_variants", out.launch_variants},
            {"measured", search.measured.size()},
            {"rejected", search.rejected},
            {"compile_wait_seconds", search.compile_wait},
            {"benchmark_seconds", search.gpu_seconds},
            {"wall_seconds", out.seconds},
            {"seeds", candidates.seeds.size()},
            {"time_to_99_percent", time_to_fraction(search.improvements, 0.99)},
            {"worker_restarts", gpu_->restarts()},
            {"race_rounds", race.timings.rounds},
            {"launches_per_sample", prepared.launches_per_sample}}},
          {"date", utc_timestamp()},
          {"tool_version", kGemmtuneVersion}};
  if (search.screen != shape) entry["search"]["screened_at"] = search.screen.label();
  if (out.measured_elsewhere > 0) entry["search"]["measured_by_other_gpus"] = out.measured_elsewhere;
  add_baselines(entry, race.baselines, race.ranked[0]["median_ms"].get<double>());
  shape_to_json(entry, shape);
  return entry;
}

// The winner's normwise error, and cuBLAS SGEMM's on the same inputs (3xtf32), at the problem itself,
// for its results entry. The winner's evaluation measured them where it ran at the problem; a problem
// screened at a shorter K (screening.hpp) has the winner evaluated once more, at the problem the
// worker holds since the race, which also checks it at full K. fp32 is checked against cuBLAS SGEMM
// itself and measures none.
ShapeTuner::ProblemCheck ShapeTuner::check_at_problem(const nlohmann::json& best, Search& search) {
  ProblemCheck check;
  const GemmShape& shape = search.outcome.shape;
  if (shape.precision == Precision::fp32) return check;
  const std::string name = best["name"].get<std::string>();
  const nlohmann::json* logged = search.screen == shape ? log_.find(shape, name) : nullptr;
  nlohmann::json measured;
  if (logged) {
    measured = *logged;
  } else {
    const auto tg = Clock::now();
    measured = gpu_->evaluate(best["config"].get<KernelConfig>(), 1);
    search.gpu_seconds += seconds_since(tg);
    if (parse_status(measured.value("status", "")) != CandidateStatus::ok)
      check.failure = fmt::format("the winner evaluated at the problem itself: {} {}", measured.value("status", ""),
                                  measured.value("detail", ""));
  }
  for (const char* key : {"normwise_error", "sgemm_normwise_error"})
    if (measured.contains(key)) check.errors[key] = measured[key];
  return check;
}

std::filesystem::path ShapeTuner::results_path() const {
  return std::filesystem::path(options_.results_dir) / (device_.slug + ".json");
}

}  // namespace gemmtune
