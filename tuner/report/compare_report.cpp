// Building the comparison: sections keyed by problem, parameter differences from the configs'
// JSON form (so every parameter the config has is compared, with the names the files use), and the
// portability matrix as geometric means, which treat a 2x loss and a 2x gain symmetrically.
#include "report/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace gemmtune {
namespace {

ComparedGpu describe(const DeviceProfile& device, const std::filesystem::path& file,
                     const std::string& date) {
  return {device.name, device.slug, device.fp32_tflops, file.string(), date};
}

std::optional<double> percent_of_peak(double tflops, const DeviceProfile& device, Precision precision) {
  const std::optional<double> peak = peak_tflops(device, precision);
  if (!peak) return std::nullopt;
  return 100.0 * tflops / *peak;
}

std::string parameter_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::vector<ParameterDifference> differences_between(
    const std::vector<std::optional<ComparedWinner>>& winners) {
  std::vector<nlohmann::json> configs;
  for (const auto& w : winners) configs.push_back(w ? nlohmann::json(w->config) : nlohmann::json());
  // Every parameter any winner has, in the order first met: winners of different families (an mma
  // kernel on one GPU, a skinny one on the other) hold different fields, and a field one lacks reads
  // as "-".
  std::vector<std::string> parameters;
  for (const auto& c : configs)
    if (c.is_object())
      for (const auto& item : c.items())
        if (std::find(parameters.begin(), parameters.end(), item.key()) == parameters.end())
          parameters.push_back(item.key());
  const auto value_of = [](const nlohmann::json& c, const std::string& parameter) {
    const auto it = c.find(parameter);
    return it == c.end() ? nlohmann::json() : *it;
  };
  std::vector<ParameterDifference> out;
  for (const std::string& parameter : parameters) {
    std::optional<nlohmann::json> reference;
    bool differs = false;
    for (const auto& c : configs) {
      if (c.is_null()) continue;
      const nlohmann::json value = value_of(c, parameter);
      if (!reference) reference = value;
      differs = differs || value != *reference;
    }
    if (!differs) continue;
    ParameterDifference d{parameter, {}};
    for (const auto& c : configs) {
      const nlohmann::json value = c.is_null() ? nlohmann::json() : value_of(c, parameter);
      d.values.push_back(c.is_null() ? std::nullopt
                                     : std::optional<std::string>(value.is_null() ? "-" : parameter_text(value)));
    }
    out.push_back(std::move(d));
  }
  return out;
}

// Adds one GPU's winners as a column of the section; winners_of maps shape -> winner.
void add_column(ComparisonSection& section, ComparedGpu gpu,
                const std::map<GemmShape, ComparedWinner>& winners_of) {
  for (const auto& other : section.gpus)
    if (other.slug == gpu.slug)
      throw std::invalid_argument(fmt::format("'{}' and '{}' both hold {} for {}; give one of them",
                                              other.source_file, gpu.source_file,
                                              section.predicted ? "plans" : "results", gpu.slug));
  section.gpus.push_back(std::move(gpu));
  for (auto& problem : section.problems) problem.winners.emplace_back();
  for (const auto& [shape, winner] : winners_of) {
    auto it = std::find_if(section.problems.begin(), section.problems.end(),
                           [&, s = shape](const ComparedProblem& p) { return p.shape == s; });
    if (it == section.problems.end()) {
      section.problems.push_back(
          {shape, std::vector<std::optional<ComparedWinner>>(section.gpus.size()), {}, {}});
      it = std::prev(section.problems.end());
    }
    it->winners.back() = winner;
  }
}

// Adds a peer's runs beside the results column of the same GPU; shapes only the peer covers get a
// problem of their own, with no winner.
void add_peer(ComparisonSection& section, const PeerMeasurements& peers) {
  const auto gpu = std::find_if(section.gpus.begin(), section.gpus.end(),
                                [&](const ComparedGpu& g) { return g.slug == peers.gpu_slug; });
  if (gpu == section.gpus.end())
    throw std::invalid_argument(fmt::format("'{}' holds {} runs on {}, but no results file for {} was given",
                                            peers.path.string(), peers.peer, peers.gpu_slug, peers.gpu_slug));
  for (const ComparedPeer& other : section.peers)
    if (other.peer == peers.peer && section.gpus[other.gpu].slug == peers.gpu_slug)
      throw std::invalid_argument(fmt::format("'{}' and '{}' both hold {} runs on {}; give one of them",
                                              other.source_file, peers.path.string(), peers.peer,
                                              peers.gpu_slug));
  section.peers.push_back({peers.peer, peers.baseline, std::size_t(gpu - section.gpus.begin()),
                           peers.path.string(), peers.updated});
  for (auto& problem : section.problems) problem.peer_runs.emplace_back();
  for (const PeerRun& run : peers.runs) {
    auto it = std::find_if(section.problems.begin(), section.problems.end(),
                           [&](const ComparedProblem& p) { return p.shape == run.shape; });
    if (it == section.problems.end()) {
      section.problems.push_back({run.shape,
                                  std::vector<std::optional<ComparedWinner>>(section.gpus.size()),
                                  {},
                                  std::vector<std::optional<PeerRun>>(section.peers.size())});
      it = std::prev(section.problems.end());
    }
    it->peer_runs.back() = run;
  }
}

void finish_section(ComparisonSection& section) {
  std::sort(section.problems.begin(), section.problems.end(),
            [](const ComparedProblem& a, const ComparedProblem& b) { return a.shape < b.shape; });
  for (auto& problem : section.problems) problem.differences = differences_between(problem.winners);
}

double geometric_mean(const std::vector<double>& values) {
  double log_sum = 0;
  for (double v : values) {
    if (v <= 0) return 0;  // a winner that ran at zero speed sinks the mean, as it should
    log_sum += std::log(v);
  }
  return std::exp(log_sum / double(values.size()));
}

PortabilityMatrix portability_of(const std::vector<const CrossMeasurements*>& crosses,
                                 const std::map<std::string, std::string>& name_of_measured) {
  std::map<std::string, std::string> name_of = name_of_measured;  // slug -> device name
  for (const CrossMeasurements* cross : crosses) name_of[cross->device.slug] = cross->device.name;
  PortabilityMatrix matrix;
  const auto index_of = [&](const std::string& slug) {
    const auto it = std::find(matrix.slugs.begin(), matrix.slugs.end(), slug);
    if (it != matrix.slugs.end()) return std::size_t(it - matrix.slugs.begin());
    const auto name = name_of.find(slug);
    matrix.slugs.push_back(slug);
    matrix.names.push_back(name == name_of.end() ? slug : name->second);
    return matrix.slugs.size() - 1;
  };
  std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> percents;  // (from, on) -> values
  for (const CrossMeasurements* cross : crosses) {
    const std::size_t on = index_of(cross->device.slug);
    for (const CrossRun& run : cross->runs)
      percents[{index_of(run.from), on}].push_back(run.percent_of_own_best);
  }
  const std::size_t n = matrix.slugs.size();
  matrix.cells.assign(n, std::vector<std::optional<PortabilityCell>>(n));
  for (const auto& [key, values] : percents)
    matrix.cells[key.first][key.second] = PortabilityCell{geometric_mean(values), values.size(), false};
  for (std::size_t i = 0; i < n; ++i)
    if (!matrix.cells[i][i] && name_of_measured.count(matrix.slugs[i]))
      matrix.cells[i][i] = PortabilityCell{100.0, 0, true};
  return matrix;
}

}  // namespace

Comparison build_comparison(const std::vector<ResultFile>& files) {
  Comparison out;
  out.predicted.predicted = true;
  std::vector<const CrossMeasurements*> crosses;
  std::vector<const PeerMeasurements*> peers;           // added once every results column is known
  std::map<std::string, std::string> name_of_measured;  // slug -> device name, from results files
  for (const ResultFile& file : files) {
    if (const auto* results = std::get_if<TunedResults>(&file)) {
      out.sources.push_back(results->origin);
      name_of_measured[results->device.slug] = results->device.name;
      std::map<GemmShape, ComparedWinner> winners;
      for (const TunedShape& s : results->shapes) {
        if (!s.has_kernel()) continue;  // a cuBLAS fallback: no kernel to compare
        const RacedConfig& best = s.raced.front();
        winners[s.problem] = {best.name,
                              s.config,
                              best.tflops,
                              percent_of_peak(best.tflops, results->device, s.problem.precision),
                              s.cublas_tflops,
                              s.kernel_ratio,
                              s.cublas_won ? 1.0 : s.kernel_ratio,  // what the runtime delivers
                              s.normwise_error,
                              s.sgemm_normwise_error};
      }
      add_column(out.measured, describe(results->device, results->origin, results->updated), winners);
    } else if (const auto* plan = std::get_if<PlanPredictions>(&file)) {
      out.sources.push_back(plan->path.string());
      std::map<GemmShape, ComparedWinner> winners;
      for (const PredictedWinner& w : plan->winners)
        winners[w.shape] = {w.name,
                            w.config,
                            w.predicted_tflops,
                            percent_of_peak(w.predicted_tflops, plan->device, w.shape.precision),
                            std::nullopt,
                            std::nullopt,
                            std::nullopt,
                            0,
                            0};
      add_column(out.predicted, describe(plan->device, plan->path, plan->date), winners);
    } else if (const auto* peer = std::get_if<PeerMeasurements>(&file)) {
      out.sources.push_back(peer->path.string());
      peers.push_back(peer);
    } else {
      const auto& cross = std::get<CrossMeasurements>(file);
      out.sources.push_back(cross.path.string());
      for (const CrossMeasurements* other : crosses)
        if (other->device.slug == cross.device.slug)
          throw std::invalid_argument(
              fmt::format("'{}' and '{}' both hold cross runs on {}; give one of them", other->path.string(),
                          cross.path.string(), cross.device.slug));
      crosses.push_back(&cross);
      out.cross_gpus.push_back(describe(cross.device, cross.path, cross.date));
    }
  }
  for (const PeerMeasurements* peer : peers) add_peer(out.measured, *peer);
  finish_section(out.measured);
  finish_section(out.predicted);
  if (!crosses.empty()) out.portability = portability_of(crosses, name_of_measured);
  return out;
}

}  // namespace gemmtune
