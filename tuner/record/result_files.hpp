// The four kinds of file `gemm-tune compare` and `merge` read, as typed structs: results caches
// (gemmtune.results/3, /2 or /1, measured; read by core's one results reader), plans (gemmtune.plan/1, predictions), cross measurements
// (gemmtune.cross/1, one GPU's winners run on another GPU) and peers (gemmtune.peers/1, another
// implementation such as Triton raced against cuBLAS by scripts/peers/). The files come from other machines
// and other people, so every field used is checked here, once, and the rest of the compare code works with
// values it can trust. A file that fails a check is refused whole with one line naming it.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/device_profile.hpp"
#include "core/kernel_config.hpp"
#include "core/problem.hpp"
#include "core/results_file.hpp"

namespace gemmtune {

// The first-ranked candidate of one problem in a plan: a static-model estimate, nothing was run.
struct PredictedWinner {
  GemmShape shape;
  std::string name;
  KernelConfig config;
  double predicted_tflops = 0;
};

struct PlanPredictions {
  std::filesystem::path path;
  DeviceProfile device;
  std::string date;
  std::vector<PredictedWinner> winners;  // problems whose plan ranked no candidate are absent
};

// One winner of the source GPU (`from`, a device slug) measured on the file's device.
struct CrossRun {
  std::string from;
  GemmShape shape;
  std::string name;
  KernelConfig config;
  double tflops = 0;
  double own_best_tflops = 0;      // the file's device's own best at this problem
  double percent_of_own_best = 0;  // tflops / own_best_tflops, in percent
};

struct CrossMeasurements {
  std::filesystem::path path;
  DeviceProfile device;  // the GPU the runs were made on
  std::string date;
  std::vector<CrossRun> runs;
};


// One shape of a peers file: the peer's autotuned winner raced against the file's baseline (torch.mm,
// which is cuBLAS SGEMM underneath) in the peer's own run. The numbers are set only when it passed.
struct PeerRun {
  GemmShape shape;
  std::string status;  // "passed", or why not: "incorrect", "failed"
  std::string name;    // the peer's winning configuration; empty when it failed before choosing one
  double tflops = 0;
  double baseline_tflops = 0;
  double ratio_vs_baseline = 0;  // baseline median / peer median, same race
  bool passed() const { return status == "passed"; }
};

struct PeerMeasurements {
  std::filesystem::path path;
  std::string gpu_name;  // the device block of a peers file is not a full profile: name, slug, peak
  std::string gpu_slug;
  double fp32_tflops = 0;  // 0 when the file gives no peak
  std::string peer;        // implementation and version, e.g. "triton 3.6.0"
  std::string baseline;    // what the ratios are against, e.g. "torch.mm"
  std::string updated;
  std::vector<PeerRun> runs;
};

using ResultFile = std::variant<TunedResults, PlanPredictions, CrossMeasurements, PeerMeasurements>;

// Reads and validates a file of any of the four schemas, chosen by its "schema" field. Throws
// std::invalid_argument with one line naming the file and the first problem found: unreadable,
// malformed JSON, unknown schema, a kind that contradicts the schema, a missing field, a wrong type,
// a value out of range, or a problem listed twice.
ResultFile load_result_file(const std::filesystem::path& path);

// The same checks, for a command that needs the document itself (merge keeps every field); verb
// names that command in the error line ("cannot merge 'a.json': ...").
struct LoadedResultFile {
  nlohmann::json document;
  ResultFile content;
};
LoadedResultFile load_result_document(const std::filesystem::path& path, const std::string& verb);

}  // namespace gemmtune
