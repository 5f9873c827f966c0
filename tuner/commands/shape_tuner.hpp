// The search for one problem shape on one device, in stages: gather the candidates (the space
// enumerated, plus seeds), the evaluation loop (compile outcome -> resource screen -> GPU ->
// tuning log, for each candidate the strategy proposes), the final race of the best few against
// cuBLAS, and the results entry merged into results/<gpu-slug>.json. One ShapeTuner serves every
// shape of a run, so the compiler, the compile service, the log and the GPU worker are shared.
#pragma once

#include <cstddef>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands/tune_command.hpp"
#include "compile/compile_service.hpp"
#include "device_profile.hpp"
#include "kernel_compiler.hpp"
#include "kernel_config.hpp"
#include "measure/gpu_session.hpp"
#include "record/tuning_log.hpp"
#include "search/problem.hpp"
#include "search/search_space.hpp"

namespace gemmtune {

// SIGINT and SIGTERM end the search after the evaluation in flight: everything measured is in the
// tuning log by then, and the same command resumes from it.
void stop_on_interrupt();
bool interrupted();

struct ShapeOutcome {
  GemmShape shape;
  std::string best_name;
  double best_tflops = 0;
  double ratio = 0;
  std::size_t evaluated = 0;
  double seconds = 0;
  bool complete = false;
};

class ShapeTuner {
 public:
  ShapeTuner(const TuneOptions& o, int device_index, DeviceProfile device);

  // Throws when no candidate passes the constraints; a shape where every candidate failed is an
  // outcome with no winner, and nothing is merged into the results.
  ShapeOutcome tune(const GemmShape& shape);

  std::filesystem::path results_path() const;

 private:
  struct Candidates;
  struct Search;
  struct FinalRace;

  Candidates gather_candidates(const GemmShape& shape) const;
  std::vector<KernelConfig> own_winners(const GemmShape& shape) const;
  void evaluation_loop(const Candidates& candidates, double cublas_ms, Search& search);
  nlohmann::json evaluate(const GemmShape& shape, const KernelConfig& config, const std::string& name,
                          const std::shared_future<CompileOutcome>& compiled, Search& search);
  double book(std::size_t index, const std::string& name, const nlohmann::json& record, Search& search) const;
  FinalRace race_finalists(const Candidates& candidates, Search& search);
  nlohmann::json results_entry(const Candidates& candidates, const PreparedShape& prepared,
                               const FinalRace& race, const Search& search) const;

  const TuneOptions& options_;
  DeviceProfile device_;
  SearchSpace space_;
  std::string template_source_;
  KernelCompiler compiler_;
  CompileService service_;
  TuningLog log_;
  GpuSession gpu_;
};

}  // namespace gemmtune
