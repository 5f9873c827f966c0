// The main job: `gemm-tune --gpu auto --sizes ...`. For each size: enumerate the space for the
// live device, let the strategy pick candidates, compile them ahead on all cores, evaluate each in
// the isolated worker (verify against cuBLAS, then time), log every outcome, re-time the best few
// interleaved with cuBLAS, and merge the winner into results/<gpu-slug>.json.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands/command.hpp"
#include "core/problem.hpp"

namespace gemmtune {

class NoDeviceError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TuneOptions {
  std::string gpu = "auto";
  std::vector<GemmShape> shapes;
  std::string sizes_from;  // a GEMMTUNE_RECORD file: its problems, most called first, replace --sizes
  std::string space_path;
  std::filesystem::path cache_dir;
  unsigned jobs = 1;
  std::string strategy = "surrogate";
  int budget_evaluations = 0;
  double budget_seconds = 0;
  std::uint64_t seed = 1;
  std::string results_dir = "results";
  int retime_top = 5;
  double eval_timeout_seconds = 0;     // per evaluation; 0: from cuBLAS's time at the shape
  std::string template_path;           // tests: a deliberately broken template
  std::vector<std::string> seed_from;  // results files of other GPUs whose winners start the search
  bool warm_start = true;              // this GPU's own results file (results_dir) seeds the search too
  std::optional<std::string> shard;    // --shard I/N; without it a Slurm array job's variables decide
};

// The devices for --gpu (measure/gpu_list.hpp): "auto", "all", an index, a list of indices, or a
// name (case-insensitive substring or slug; the first visible match). Throws NoDeviceError or
// std::invalid_argument.
std::vector<int> select_devices(const std::string& gpu);

// The same for the commands that measure on one GPU (bench, cross, portfolio): a list of several
// is refused.
int select_device(const std::string& gpu);

int run_tune(const TuneOptions& options);

// The problems of a GEMMTUNE_RECORD file the tuner can tune (row-major nn, one at a time), most
// called first, each once; the others are named in one log line. Throws std::invalid_argument with
// the file's line and field for bad input.
std::vector<GemmShape> shapes_from_record(const std::string& path);

// The default command: its options sit on app itself, bound to tune (bench tunes with them too).
Command add_tune_command(CLI::App& app, const std::shared_ptr<TuneOptions>& tune);

}  // namespace gemmtune
