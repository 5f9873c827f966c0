// The search for one problem shape on one device, in stages: gather the candidates (the space
// enumerated, plus seeds), the evaluation loop (compile outcome -> resource screen -> GPU ->
// tuning log, for each candidate the strategy proposes), the final race of the best few against
// cuBLAS, and the results entry merged into results/<gpu-slug>.json. A ShapeTuner per GPU of the
// run (one GPU worker each) tunes whatever shapes the scheduler (gpu_scheduler.hpp) hands it; the
// TuningRun they share holds the space, the compiler and its one compile pool, the tuning log of
// each GPU model, the help desk through which GPUs with no problem left measure for the others,
// and the progress display.
#pragma once

#include <cstddef>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "commands/gpu_scheduler.hpp"
#include "commands/help_desk.hpp"
#include "commands/setup_ahead.hpp"
#include "commands/tune_command.hpp"
#include "compile/compile_service.hpp"
#include "core/device_profile.hpp"
#include "core/kernel_compiler.hpp"
#include "core/kernel_config.hpp"
#include "measure/gpu_session.hpp"
#include "core/tuning_log.hpp"
#include "report/progress_board.hpp"
#include "core/problem.hpp"
#include "search/search_space.hpp"

namespace gemmtune {

// SIGINT and SIGTERM end the search after the evaluation in flight: everything measured is in the
// tuning log by then, and the same command resumes from it.
void stop_on_interrupt();
bool interrupted();

// What every GPU of a tune run shares. Compilation is the bottleneck, so there is one pool for all
// GPUs (on --jobs threads) over one compile cache.
class TuningRun {
 public:
  TuningRun(const TuneOptions& o, std::vector<std::string> gpu_labels);

  // The log of this GPU model, opened on first use; GPUs of one model share it.
  TuningLog& log_of(const DeviceProfile& device);

  const TuneOptions& options;
  const std::vector<SearchSpace> spaces;  // --space, or every family's built-in space
  const std::string template_source;
  const KernelCompiler compiler;
  // The compile cache's keys when the run began: binaries an earlier run compiled, which the
  // searches prefer, as they prefer those `compile` has compiled for the run's earlier problems
  // (SetupMaker::on_hand, asked when a GPU takes a problem).
  const std::unordered_set<std::string> compiled_before;
  CompileService compile;
  const SetupMaker setup_maker;
  SetupAhead setup_ahead;  // every problem's set-up, before a GPU reaches it
  HelpDesk help_desk;
  ProgressBoard progress;

 private:
  std::mutex logs_mutex_;
  std::map<std::string, std::unique_ptr<TuningLog>> logs_;  // by GPU slug
};

// The compile cache the run and its workers use: --cache-dir (or the default), else a directory of
// the run's own.
std::filesystem::path run_cache_dir(const TuneOptions& o);

// A GPU's worker, started before the run's set-up (devices, spaces, compile pool) so its process,
// CUDA context and cuBLAS come up meanwhile: its first prepare, of the problem the GPU most likely
// takes first, is under way on a thread of its own (issue #47: a second per GPU, in every run).
struct StartedWorker {
  std::unique_ptr<GpuSession> session;
  GemmShape shape;                       // what `prepared` prepares
  std::future<PreparedShape> prepared;   // invalid when nothing was sent
};
StartedWorker start_worker(const TuneOptions& o, int device_index, const GemmShape* first_problem);

class ShapeTuner : public ProblemTuner {
 public:
  // slot: this GPU's place in run.progress (and in the GPU list); label: "GPU 2". worker: from
  // start_worker, or none (started at the first problem).
  ShapeTuner(TuningRun& run, std::size_t slot, std::string label, int device_index, DeviceProfile device,
             StartedWorker worker = {});

  std::string label() const override;

  // A problem no candidate fits, whose every candidate failed or that the GPU worker cannot prepare
  // is recorded with cuBLAS as its winner and the reason (ShapeOutcome::fallback), so a run of many
  // problems goes on. Throws only when this GPU cannot go on (its worker keeps failing).
  ShapeOutcome tune(const GemmShape& shape) override;

  // Measures candidates other GPUs of this model hand over (help_desk.hpp) until keep_helping()
  // turns false. Throws when this GPU's worker cannot go on.
  std::size_t help(const std::function<bool()>& keep_helping) override;

  std::filesystem::path results_path() const;

 private:
  struct Candidates;
  struct Search;
  struct FinalRace;

  ShapeOutcome tune_stages(const GemmShape& shape, Search& search);
  PreparedShape prepare(const GemmShape& shape, Search& search);
  Candidates gather_candidates(const GemmShape& shape) const;
  std::vector<KernelConfig> own_winners(const GemmShape& shape) const;
  std::vector<KernelConfig> relatives_winners(const GemmShape& shape) const;
  void evaluation_loop(const Candidates& candidates, double cublas_ms, Search& search);
  nlohmann::json evaluate(const GemmShape& shape, const KernelConfig& config, const std::string& name,
                          const std::shared_future<CompileOutcome>& compiled, Search& search);
  // A candidate's record without the GPU (its compile failed, or its resources rule it out), or
  // none when the GPU has to measure it.
  std::optional<nlohmann::json> record_without_gpu(const KernelConfig& config, const std::string& name,
                                                   const CompileOutcome& compiled) const;
  // A candidate's record from a worker's reply to evaluate, this GPU's or a helper's.
  nlohmann::json record_of_reply(const KernelConfig& config, const std::string& name, const CompileOutcome& compiled,
                                 const nlohmann::json& reply, Search& search) const;
  void append_to_log(const GemmShape& shape, const nlohmann::json& record, Search& search);
  void settle_early_prepare();
  double book(std::size_t index, const std::string& name, const nlohmann::json& record, Search& search) const;
  FinalRace race_finalists(const Candidates& candidates, const PreparedShape& prepared, Search& search);
  ShapeOutcome record_cublas_fallback(const Candidates& candidates, Search& search, const std::string& reason,
                                      const PreparedShape* prepared);
  nlohmann::json results_entry(const Candidates& candidates, const PreparedShape& prepared,
                               const FinalRace& race, const Search& search) const;
  // The winner at the problem itself: its normwise error and cuBLAS SGEMM's (3xtf32) for the results
  // entry, and why it failed there (empty: it passed, or was not checked again).
  struct ProblemCheck {
    nlohmann::json errors = nlohmann::json::object();
    std::string failure;
  };
  ProblemCheck check_at_problem(const nlohmann::json& best, Search& search);

  TuningRun& run_;
  const TuneOptions& options_;
  const std::vector<SearchSpace>& spaces_;
  std::size_t slot_;
  std::string label_;
  DeviceProfile device_;
  TuningLog& log_;
  std::unique_ptr<GpuSession> gpu_;
  bool worker_started_ = false;
  GemmShape early_shape_;
  std::future<PreparedShape> early_;  // the first prepare, which starts the worker
};

}  // namespace gemmtune
