// A search's set-up, done for every problem of a run before the GPUs reach it (issue #47): the
// space enumerated for the problem and the GPU model, the static model's prior and the cache key of
// each candidate's binary. A quarter of a second to half a second a problem, which the GPU otherwise
// waited for at the start of each; here it runs on idle cores while the first problems are
// measured. Each problem's first generation as the strategy would propose it without seeds then
// goes to the compile pool's speculative lane, so a problem that starts later finds most of its
// first binaries compiled (the cold cache's first wait, once a problem).
//
// Which binaries are on hand is asked when a GPU takes the problem, not when the run starts: those
// the compile cache held when the run began and those the run's compile pool has compiled since
// (for the problems before this one). A cold run's later problems then measure, where the model
// rates them alike, the binaries the earlier ones compiled (the strategy replays of
// docs/multi-gpu.md: about half as many new binaries between the cubes).
#pragma once

#include <cstddef>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "compile/compile_service.hpp"
#include "core/device_profile.hpp"
#include "core/kernel_compiler.hpp"
#include "core/problem.hpp"
#include "core/tuning_log.hpp"
#include "search/search_space.hpp"

namespace gemmtune {

struct TuneOptions;

// What a search starts from, before seeds: the candidates (and what the constraints cut), the
// prior per candidate and the cache key of each candidate's binary (candidates that differ only at
// launch, in split-K or swizzle, share one).
struct ProblemSetup {
  Enumeration enumeration;
  std::vector<double> prior;
  std::vector<std::string> binaries;
};

// Which candidates' binaries are on hand at the moment it was asked.
// (StrategyContext::on_hand and on_hand_from_this_run.)
struct OnHand {
  std::vector<bool> flags;  // per candidate; empty when none is (a strategy reads that as a first run)
  std::vector<bool> from_this_run;  // per candidate, of those: compiled by the run's pool; empty when none is
  std::size_t before_run = 0;       // candidates whose binary the compile cache held when the run began
  std::size_t this_run = 0;         // ... whose binary the run's compile pool compiled since
};

// The set-up of one problem for one GPU model, on the calling thread. extend() computes prior and
// binaries for candidates appended after the first `from` (seeds from other GPUs' results).
// on_hand() may be called from any thread, while the pool compiles.
class SetupMaker {
 public:
  SetupMaker(const std::vector<SearchSpace>& spaces, const KernelCompiler& compiler,
             const std::unordered_set<std::string>& compiled_before, CompileService& compile);
  ProblemSetup make(const DeviceProfile& device, const GemmShape& shape) const;
  void extend(ProblemSetup& setup, std::size_t from, const DeviceProfile& device, const GemmShape& shape) const;
  OnHand on_hand(const ProblemSetup& setup) const;

 private:
  const std::vector<SearchSpace>& spaces_;
  const KernelCompiler& compiler_;
  const std::unordered_set<std::string>& compiled_before_;
  CompileService& compile_;
};

class SetupAhead {
 public:
  SetupAhead(const SetupMaker& maker, const TuneOptions& options, CompileService& compile);
  ~SetupAhead();  // waits for the threads (a set-up takes well under a second)
  SetupAhead(const SetupAhead&) = delete;
  SetupAhead& operator=(const SetupAhead&) = delete;

  // Starts the set-ups of problems in order (for every GPU model among devices, the first of each
  // model naming it), on a few threads; then each problem's first generation is compiled ahead.
  // log_of: the tuning log of a GPU model, so a resumed run compiles nothing it already measured.
  void start(const std::vector<DeviceProfile>& devices, const std::vector<GemmShape>& problems,
             const std::function<TuningLog&(const DeviceProfile&)>& log_of);

  // The problem's set-up: from start()'s threads (waiting if it is still under way), or made here
  // if it was not planned. Which binaries are on hand is the caller's to ask (SetupMaker::on_hand),
  // once seeds have joined the candidates.
  ProblemSetup take(const DeviceProfile& device, const GemmShape& shape);

 private:
  void compile_first_generation(const ProblemSetup& setup, const DeviceProfile& device, const GemmShape& shape,
                                TuningLog& log);

  const SetupMaker& maker_;
  const TuneOptions& options_;
  CompileService& compile_;
  std::mutex mutex_;
  std::map<std::string, std::shared_future<ProblemSetup>> setups_;  // by GPU slug and problem label
  std::vector<std::thread> threads_;
};

}  // namespace gemmtune
