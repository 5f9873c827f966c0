// A few threads work through the run's problems in order; each set-up is a shared future the
// problem's GPU takes when it gets there. The compile-ahead jobs go to the speculative lane, so
// they only take cores no search is waiting on, and a search that proposes one of them moves it up.
#include "commands/setup_ahead.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "commands/tune_command.hpp"
#include "core/kernel_path.hpp"
#include "search/screening.hpp"
#include "search/static_model.hpp"
#include "search/strategies/search_strategy.hpp"

namespace gemmtune {
namespace {

// Set-up threads: a problem's enumeration keeps a core busy for 0.2 to 0.3 s, and the first
// problems of a run wait for theirs, so enough for one round of GPUs, but few beside the compiles.
unsigned setup_threads(unsigned jobs, std::size_t work) {
  return static_cast<unsigned>(std::clamp<std::size_t>(std::min<std::size_t>(jobs / 8, work), 1, 8));
}

}  // namespace

SetupMaker::SetupMaker(const std::vector<SearchSpace>& spaces, const KernelCompiler& compiler,
                       const std::unordered_set<std::string>& compiled_before, CompileService& compile)
    : spaces_(spaces), compiler_(compiler), compiled_before_(compiled_before), compile_(compile) {}

ProblemSetup SetupMaker::make(const DeviceProfile& device, const GemmShape& shape) const {
  ProblemSetup setup{enumerate(spaces_, device, &shape), {}, {}};
  extend(setup, 0, device, shape);
  return setup;
}

void SetupMaker::extend(ProblemSetup& setup, std::size_t from, const DeviceProfile& device,
                        const GemmShape& shape) const {
  const std::vector<KernelConfig>& configs = setup.enumeration.candidates;
  if (from >= configs.size()) return;
  const std::vector<KernelConfig> added(configs.begin() + static_cast<std::ptrdiff_t>(from), configs.end());
  for (double p : predicted_tflops_before_compile(added, device, shape, spaces_.front().settings.register_overhead))
    setup.prior.push_back(p);
  // Every candidate's key, even over a cold cache: the binaries of the run's earlier problems are
  // looked up by it when a GPU takes this one.
  for (const KernelConfig& c : added)
    setup.binaries.push_back(
        compiler_.cache_key(c.family, c.name_expression(kernel_path_for(c, shape)), device.arch()));
}

OnHand SetupMaker::on_hand(const ProblemSetup& setup) const {
  const std::unordered_set<std::string> compiled = compile_.compiled();  // a copy: the pool goes on meanwhile
  OnHand out;
  if (compiled_before_.empty() && compiled.empty()) return out;
  out.flags.reserve(setup.binaries.size());
  out.from_this_run.reserve(setup.binaries.size());
  for (const std::string& key : setup.binaries) {
    const bool before = compiled_before_.count(key) > 0, now = !before && compiled.count(key) > 0;
    out.before_run += before;
    out.this_run += now;
    out.flags.push_back(before || now);
    out.from_this_run.push_back(now);
  }
  if (out.this_run == 0) out.from_this_run.clear();
  if (out.before_run + out.this_run == 0) out.flags.clear();
  return out;
}

SetupAhead::SetupAhead(const SetupMaker& maker, const TuneOptions& options, CompileService& compile)
    : maker_(maker), options_(options), compile_(compile) {}

SetupAhead::~SetupAhead() {
  for (std::thread& t : threads_) t.join();
}

void SetupAhead::start(const std::vector<DeviceProfile>& devices, const std::vector<GemmShape>& problems,
                       const std::function<TuningLog&(const DeviceProfile&)>& log_of) {
  struct Work {
    DeviceProfile device;
    GemmShape shape;
    std::shared_ptr<std::promise<ProblemSetup>> promise;
    std::shared_future<ProblemSetup> promise_future;
    TuningLog* log;
  };
  auto work = std::make_shared<std::vector<Work>>();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const GemmShape& shape : problems) {
      std::vector<std::string> models;
      for (const DeviceProfile& device : devices) {
        if (std::find(models.begin(), models.end(), device.slug) != models.end()) continue;
        models.push_back(device.slug);
        const std::string key = device.slug + " " + shape.label();
        if (setups_.count(key)) continue;
        auto promise = std::make_shared<std::promise<ProblemSetup>>();
        std::shared_future<ProblemSetup> future = promise->get_future().share();
        setups_.emplace(key, future);
        work->push_back({device, shape, promise, future, &log_of(device)});
      }
    }
  }
  auto next = std::make_shared<std::atomic<std::size_t>>(0);
  const unsigned threads = setup_threads(options_.jobs, work->size());
  for (unsigned t = 0; t < threads; ++t)
    threads_.emplace_back([work, next, this] {
      for (std::size_t i = (*next)++; i < work->size(); i = (*next)++) {
        Work& w = (*work)[i];
        try {
          w.promise->set_value(maker_.make(w.device, w.shape));
        } catch (...) {
          w.promise->set_exception(std::current_exception());
        }
      }
    });
  // The compiles ahead, from one more thread, in the problems' order: the speculative lane is first
  // come, first served, so the problems the GPUs reach first get theirs first.
  threads_.emplace_back([work, this] {
    for (const Work& w : *work) {
      try {
        compile_first_generation(w.promise_future.get(), w.device, w.shape, *w.log);
      } catch (const std::exception& e) {
        spdlog::debug("{}: nothing compiled ahead ({})", w.shape.label(), e.what());
      }
    }
  });
}

ProblemSetup SetupAhead::take(const DeviceProfile& device, const GemmShape& shape) {
  std::shared_future<ProblemSetup> setup;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = setups_.find(device.slug + " " + shape.label()); it != setups_.end()) setup = it->second;
  }
  return setup.valid() ? setup.get() : maker_.make(device, shape);
}

// The first generation the strategy proposes without seeds (the seeds are the winners of problems
// finished before this one starts, unknown now): most of what the search will propose first.
void SetupAhead::compile_first_generation(const ProblemSetup& setup, const DeviceProfile& device,
                                          const GemmShape& shape, TuningLog& log) {
  const std::vector<KernelConfig>& configs = setup.enumeration.candidates;
  if (configs.empty()) return;
  StrategyContext ctx;
  ctx.candidates = configs;
  ctx.seed = options_.seed;
  ctx.budget = static_cast<std::size_t>(options_.budget_evaluations);
  ctx.prior = setup.prior;
  OnHand on_hand = maker_.on_hand(setup);
  ctx.on_hand = std::move(on_hand.flags);
  ctx.on_hand_from_this_run = std::move(on_hand.from_this_run);
  const auto strategy = make_strategy(options_.strategy, std::move(ctx));
  const GemmShape screen = screening_shape(shape, configs);
  std::size_t submitted = 0;
  for (std::size_t i : strategy->propose(std::max<std::size_t>(32, 2 * options_.jobs))) {
    if (log.find(screen, configs[i].name())) continue;  // a resumed run measured it already
    compile_.submit(configs[i], device.arch(), kernel_path_for(configs[i], shape), CompileService::Need::later, this);
    ++submitted;
  }
  spdlog::debug("{}: {} binaries of its first generation compile ahead", shape.label(), submitted);
}

}  // namespace gemmtune
