// JSON writer for the comparison. Absent values (a GPU with no winner for a problem, a file with no
// peak, a peer that did not run a problem or did not pass it) are left out rather than written as
// null or zero; "peers" appears only where peers files were given.
#include "report/json_report.hpp"
#include "core/file_formats.hpp"

namespace gemmtune {
namespace {

nlohmann::json gpu_json(const ComparedGpu& gpu) {
  return {{"name", gpu.name},
          {"slug", gpu.slug},
          {"fp32_tflops", gpu.fp32_peak_tflops},
          {"file", gpu.source_file},
          {"date", gpu.date}};
}

nlohmann::json section_json(const ComparisonSection& section) {
  const std::string prefix = section.predicted ? "predicted_" : "";
  nlohmann::json gpus = nlohmann::json::array();
  for (const ComparedGpu& gpu : section.gpus) gpus.push_back(gpu_json(gpu));
  nlohmann::json problems = nlohmann::json::array();
  for (const ComparedProblem& problem : section.problems) {
    nlohmann::json winners = nlohmann::json::array();
    for (std::size_t g = 0; g < section.gpus.size(); ++g) {
      const auto& w = problem.winners[g];
      if (!w) continue;
      nlohmann::json entry{{"gpu", section.gpus[g].slug},
                           {"name", w->name},
                           {"config", w->config},
                           {prefix + "tflops", w->tflops}};
      if (w->percent_of_peak) entry[prefix + "percent_of_peak"] = *w->percent_of_peak;
      if (w->cublas_tflops) entry["cublas_tflops"] = *w->cublas_tflops;
      if (w->ratio_vs_cublas) entry["ratio_vs_cublas"] = *w->ratio_vs_cublas;
      if (w->delivered_ratio) entry["delivered_ratio"] = *w->delivered_ratio;
      if (w->normwise_error > 0) entry["normwise_error"] = w->normwise_error;
      if (w->sgemm_normwise_error > 0) entry["sgemm_normwise_error"] = w->sgemm_normwise_error;
      winners.push_back(std::move(entry));
    }
    nlohmann::json differences = nlohmann::json::array();
    for (const ParameterDifference& d : problem.differences) {
      nlohmann::json values = nlohmann::json::object();
      for (std::size_t g = 0; g < section.gpus.size(); ++g)
        if (d.values[g]) values[section.gpus[g].slug] = *d.values[g];
      differences.push_back({{"parameter", d.parameter}, {"values", values}});
    }
    nlohmann::json problem_json{{"winners", winners}, {"differences", differences}};
    shape_to_json(problem_json, problem.shape);
    if (!section.peers.empty()) {
      nlohmann::json peer_runs = nlohmann::json::array();
      for (std::size_t p = 0; p < section.peers.size(); ++p) {
        const auto& run = problem.peer_runs[p];
        if (!run) continue;
        nlohmann::json entry{{"peer", section.peers[p].peer},
                             {"gpu", section.gpus[section.peers[p].gpu].slug},
                             {"status", run->status}};
        if (!run->name.empty()) entry["name"] = run->name;
        if (run->passed()) {
          entry["tflops"] = run->tflops;
          entry["baseline_tflops"] = run->baseline_tflops;
          entry["ratio_vs_baseline"] = run->ratio_vs_baseline;
        }
        peer_runs.push_back(std::move(entry));
      }
      problem_json["peers"] = std::move(peer_runs);
    }
    problems.push_back(std::move(problem_json));
  }
  nlohmann::json out{
      {"kind", section.predicted ? "prediction" : "measured"}, {"gpus", gpus}, {"problems", problems}};
  if (!section.peers.empty()) {
    nlohmann::json peers = nlohmann::json::array();
    for (const ComparedPeer& peer : section.peers)
      peers.push_back({{"peer", peer.peer},
                       {"baseline", peer.baseline},
                       {"gpu", section.gpus[peer.gpu].slug},
                       {"file", peer.source_file},
                       {"date", peer.date}});
    out["peers"] = std::move(peers);
  }
  if (section.predicted)
    out["notice"] = "PREDICTION from a static model: no kernel was run. Never compare with measured TFLOP/s.";
  return out;
}

nlohmann::json portability_json(const PortabilityMatrix& matrix, const std::vector<ComparedGpu>& cross_gpus) {
  nlohmann::json gpus = nlohmann::json::array();
  for (std::size_t i = 0; i < matrix.slugs.size(); ++i)
    gpus.push_back({{"slug", matrix.slugs[i]}, {"name", matrix.names[i]}});
  nlohmann::json cells = nlohmann::json::array();
  for (std::size_t from = 0; from < matrix.slugs.size(); ++from)
    for (std::size_t on = 0; on < matrix.slugs.size(); ++on)
      if (const auto& cell = matrix.cells[from][on])
        cells.push_back({{"from", matrix.slugs[from]},
                         {"on", matrix.slugs[on]},
                         {"geomean_percent_of_own_best", cell->geomean_percent},
                         {"problems", cell->problems},
                         {"by_definition", cell->by_definition}});
  nlohmann::json files = nlohmann::json::array();
  for (const ComparedGpu& gpu : cross_gpus) files.push_back(gpu_json(gpu));
  return {{"kind", "measured"}, {"gpus", gpus}, {"cross_files", files}, {"cells", cells}};
}

}  // namespace

nlohmann::json comparison_json(const Comparison& comparison) {
  nlohmann::json out{{"schema", kCompareSchema},
                     {"sources", comparison.sources},
                     {"measured", section_json(comparison.measured)},
                     {"predicted", section_json(comparison.predicted)}};
  if (comparison.portability)
    out["portability"] = portability_json(*comparison.portability, comparison.cross_gpus);
  return out;
}

}  // namespace gemmtune
