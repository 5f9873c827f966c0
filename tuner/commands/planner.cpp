// Plan construction. Compilation is shared across problem sizes (a binary serves every shape and
// every launch-time variant), so the plan compiles each distinct instantiation once; and of the
// candidates the model cannot rank apart (parameters_the_model_cannot_rank) only the first.
#include "commands/planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "compile/compile_service.hpp"
#include "core/file_formats.hpp"
#include "core/timestamp.hpp"
#include "report/progress_bar.hpp"
#include "search/occupancy.hpp"
#include "search/static_model.hpp"
#include "core/version.hpp"

namespace gemmtune {

nlohmann::json make_plan(const std::vector<SearchSpace>& spaces, const DeviceProfile& device,
                         const KernelCompiler& compiler, const PlanOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Enumeration> per_shape;
  std::map<std::string, std::pair<KernelConfig, KernelPath>> binaries;  // name expression -> one config using it
  // Per shape, how many candidates each representative stands for (the others are dropped).
  std::vector<std::map<std::string, std::size_t>> stands_for;
  std::vector<std::size_t> passed;  // per shape, candidates that passed the constraints
  for (const auto& shape : options.shapes) {
    per_shape.push_back(enumerate(spaces, device, &shape));
    passed.push_back(per_shape.back().candidates.size());
    std::map<std::string, std::size_t>& groups = stands_for.emplace_back();
    std::map<std::string, std::size_t> first_of;  // model view -> its first candidate's name
    std::vector<KernelConfig> representatives;
    for (const auto& c : per_shape.back().candidates) {
      const auto [it, fresh] = first_of.emplace(model_view(c).name(), representatives.size());
      if (fresh) representatives.push_back(c);
      ++groups[representatives[it->second].name()];
    }
    per_shape.back().candidates = std::move(representatives);
    for (const auto& c : per_shape.back().candidates) {
      const KernelPath path = kernel_path_for(c, shape);
      binaries.emplace(c.name_expression(path), std::pair(c, path));
    }
  }

  std::map<std::string, CompileOutcome> compiled;
  std::size_t from_cache = 0, failed = 0;
  {
    CompileService service(compiler, options.threads);
    std::vector<std::pair<std::string, std::shared_future<CompileOutcome>>> futures;
    for (const auto& [expr, binary] : binaries)
      futures.emplace_back(expr, service.submit(binary.first, device.arch(), binary.second));
    std::unique_ptr<ProgressBar> bar;
    if (options.progress) bar = std::make_unique<ProgressBar>("compile " + device.arch(), futures.size());
    for (auto& [expr, future] : futures) {
      CompileOutcome outcome = future.get();
      if (!outcome.kernel)
        ++failed;
      else if (outcome.kernel->from_cache)
        ++from_cache;
      compiled.emplace(expr, std::move(outcome));
      if (bar) bar->advance(1, fmt::format("{} cached, {} failed", from_cache, failed));
    }
  }
  const double compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  nlohmann::json problems = nlohmann::json::array();
  for (std::size_t i = 0; i < options.shapes.size(); ++i) {
    const GemmShape& shape = options.shapes[i];
    const Enumeration& e = per_shape[i];
    std::map<std::string, std::size_t> rejected;
    struct Ranked {
      KernelConfig config;
      KernelResources resources;
      Occupancy occupancy;
      Prediction prediction;
    };
    std::vector<Ranked> ranked;
    for (const auto& c : e.candidates) {
      const CompileOutcome& outcome = compiled.at(c.name_expression(kernel_path_for(c, shape)));
      if (!outcome.kernel) {
        ++rejected["compile"];
        continue;
      }
      const KernelResources& r = outcome.kernel->resources;
      if (r.spill_bytes() > 0 || r.stack_bytes > 0) {
        ++rejected["spills"];
        continue;
      }
      const Occupancy occ = compute_occupancy(c, r.registers, device);
      if (occ.blocks_per_sm == 0) {
        ++rejected["occupancy"];
        continue;
      }
      ranked.push_back({c, r, occ, predict(c, occ, device, shape)});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
      return a.prediction.predicted_tflops > b.prediction.predicted_tflops;
    });
    nlohmann::json top = nlohmann::json::array();
    for (std::size_t r = 0; r < ranked.size() && r < std::size_t(options.keep_top); ++r) {
      const auto& x = ranked[r];
      top.push_back({{"rank", r + 1},
                     {"name", x.config.name()},
                     {"stands_for", stands_for[i].at(x.config.name())},
                     {"config", x.config},
                     {"predicted_tflops", x.prediction.predicted_tflops},
                     {"predicted_fraction_of_peak", x.prediction.fraction_of_peak},
                     {"factors",
                      {{"shared_memory", x.prediction.shared_memory_factor},
                       {"global_memory", x.prediction.global_memory_factor},
                       {"latency", x.prediction.latency_factor},
                       {"waves", x.prediction.wave_factor},
                       {"edges", x.prediction.edge_factor},
                       {"split_k", x.prediction.split_k_factor},
                       {"pipeline", x.prediction.pipeline_factor}}},
                     {"waves", x.prediction.waves},
                     {"registers", x.resources.registers},
                     {"shared_bytes", x.config.shared_bytes()},
                     {"threads", x.config.threads()},
                     {"blocks_per_sm", x.occupancy.blocks_per_sm},
                     {"occupancy", x.occupancy.fraction},
                     {"occupancy_limited_by", x.occupancy.limited_by}});
    }
    nlohmann::json problem = {
                        {"enumerated", e.total},
                        {"removed_by_constraint", e.removed},
                        {"passed_constraints", passed[i]},
                        {"ranked_apart", e.candidates.size()},
                        {"rejected_after_compile", rejected},
                        {"ranked_count", ranked.size()},
                        {"ranked", top}};
    shape_to_json(problem, shape);
    problems.push_back(problem);
  }

  nlohmann::json compile_failures = nlohmann::json::array();
  for (const auto& [expr, outcome] : compiled) {
    if (!outcome.kernel && compile_failures.size() < 20)
      compile_failures.push_back({{"name_expression", expr}, {"error", outcome.error}, {"log", outcome.log}});
  }
  return {{"schema", kPlanSchema},
          {"kind", "prediction"},
          {"notice",
           "PREDICTION from a static model: no kernel was run. Not measured results; never compare with "
           "measured TFLOP/s."},
          {"tool_version", kGemmtuneVersion},
          {"date", utc_timestamp()},
          {"device", device},
          {"arch", device.arch()},
          {"nvrtc_version", nvrtc_version()},
          {"search_space", [&] {
             std::vector<std::string> sources;
             for (const SearchSpace& space : spaces) sources.push_back(space.source);
             return fmt::format("{}", fmt::join(sources, ", "));
           }()},
          {"unranked_parameters", parameters_the_model_cannot_rank()},
          {"compile",
           {{"binaries", binaries.size()},
            {"from_cache", from_cache},
            {"compiled", binaries.size() - from_cache - failed},
            {"failed", failed},
            {"wall_seconds", compile_seconds},
            {"failures", compile_failures}}},
          {"problems", problems}};
}

std::string plan_summary_table(const nlohmann::json& plan) {
  std::string out = fmt::format("Plan for {} ({}) -- PREDICTION, nothing was run\n",
                                plan["device"]["name"].get<std::string>(), plan["arch"].get<std::string>());
  const auto& compile = plan["compile"];
  out += fmt::format("compiled {} binaries ({} from cache, {} failed) in {:.1f}s\n",
                     compile["binaries"].get<std::size_t>(), compile["from_cache"].get<std::size_t>(),
                     compile["failed"].get<std::size_t>(), compile["wall_seconds"].get<double>());
  std::string unranked;
  for (const auto& name : plan.value("unranked_parameters", nlohmann::json::array()))
    unranked += (unranked.empty() ? "" : ", ") + name.get<std::string>();
  if (!unranked.empty())
    out += fmt::format("the model cannot rank {} apart: one candidate of each such group was compiled and ranked\n",
                       unranked);
  out += fmt::format("{:<16} {:>9} {:>9} {:>7}  {:<44} {:>10}\n", "problem", "space", "valid", "ranked",
                     "predicted best", "pred TF/s");
  for (const auto& p : plan["problems"]) {
    const std::string label = shape_from_json(p).label();
    const bool any = !p["ranked"].empty();
    out += fmt::format("{:<16} {:>9} {:>9} {:>7}  {:<44} {:>10}\n", label, p["enumerated"].get<std::size_t>(),
                       p["passed_constraints"].get<std::size_t>(), p["ranked_count"].get<std::size_t>(),
                       any ? p["ranked"][0]["name"].get<std::string>() : "-",
                       any ? fmt::format("{:.1f}", p["ranked"][0]["predicted_tflops"].get<double>()) : "-");
    std::string reasons;
    for (const auto& [name, count] : p["removed_by_constraint"].items())
      reasons += fmt::format("{}={} ", name, count.get<std::size_t>());
    for (const auto& [name, count] : p["rejected_after_compile"].items())
      reasons += fmt::format("{}={} ", name, count.get<std::size_t>());
    if (!reasons.empty()) out += "    removed: " + reasons + "\n";
  }
  return out;
}

}  // namespace gemmtune
