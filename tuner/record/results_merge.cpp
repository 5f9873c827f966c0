// Each input is validated by core/result_documents (the same checks as compare), then merged from its
// raw JSON, so fields the validator does not know (search statistics, alternatives) travel intact.
#include "record/results_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <variant>

#include "core/result_documents.hpp"
#include "core/results_store.hpp"
#include "core/file_formats.hpp"
#include "core/timestamp.hpp"

namespace gemmtune {
namespace {

struct Input {
  std::string file;
  nlohmann::json document;
  std::string kind;  // "results" or "plan"
  std::string gpu;
};

Input load(const std::filesystem::path& path) {
  LoadedResultFile loaded = load_result_document(path, "merge");
  Input in{path.string(), std::move(loaded.document), "", ""};
  if (const auto* results = std::get_if<TunedResults>(&loaded.content)) {
    in.kind = "results";
    in.gpu = results->device.slug;
  } else if (const auto* plan = std::get_if<PlanPredictions>(&loaded.content)) {
    in.kind = "plan";
    in.gpu = plan->device.slug;
  } else {
    const char* kind = std::holds_alternative<CrossMeasurements>(loaded.content) ? "cross" : "peers";
    throw std::invalid_argument(
        fmt::format("cannot merge '{}': a {} file ({}); merge takes results or plan files", in.file, kind,
                    in.document.value("schema", "")));
  }
  return in;
}

std::string schema_of(const Input& in) {
  return in.document.value("schema", "");
}

// Layout as schema 2 spells it: plans and schema 1 wrote "row-major" for nn.
std::string layout_of(const nlohmann::json& entry) {
  const std::string layout = entry.value("layout", "nn");
  return layout == "row-major" ? "nn" : layout;
}

std::string problem_label(const nlohmann::json& entry) {
  try {
    return shape_from_json(entry).label();
  } catch (const std::invalid_argument&) {
    return fmt::format("{}x{}x{}", entry.value("m", 0), entry.value("n", 0), entry.value("k", 0));
  }
}

double best_tflops(const nlohmann::json& entry) {
  const auto best = entry.find("best");
  if (best == entry.end() || !best->is_object()) return -std::numeric_limits<double>::infinity();
  const auto tflops = best->find("tflops");
  return tflops != best->end() && tflops->is_number() ? tflops->get<double>()
                                                      : -std::numeric_limits<double>::infinity();
}

// The best kernel's name; "cuBLAS" for an entry without one (a run that fell back to cuBLAS).
std::string best_name(const nlohmann::json& entry) {
  const auto best = entry.find("best");
  return best != entry.end() && best->is_object() ? best->value("name", "?") : "cuBLAS";
}

// One measurement of a problem, as merged_from records it.
nlohmann::json provenance(const nlohmann::json& entry, const std::string& file) {
  const nlohmann::json best = entry.value("best", nlohmann::json::object());
  return {{"file", file},
          {"name", best.value("name", "")},
          {"tflops", best.value("tflops", 0.0)},
          {"winner", entry.value("winner", "")},
          {"date", entry.value("date", "")}};
}

// m, n, k, precision, C's type ("fp32" where absent), layout, batch.
using Key = std::tuple<int, int, int, std::string, std::string, std::string, int>;

Key key_of(const nlohmann::json& entry) {
  return {entry.value("m", 0),         entry.value("n", 0), entry.value("k", 0),
          entry.value("precision", "fp32"), entry.value("c", "fp32"), layout_of(entry), entry.value("batch", 1)};
}

nlohmann::json merge_results(const std::vector<Input>& inputs, std::vector<std::string>& notes) {
  struct Slot {
    nlohmann::json kept;
    std::string kept_file;
    std::vector<nlohmann::json> measurements;  // every contributing entry's provenance, in file order
  };
  std::map<Key, Slot> slots;
  std::vector<Key> order;
  nlohmann::json files = nlohmann::json::array();
  for (const Input& in : inputs) {
    files.push_back({{"file", in.file},
                     {"schema", schema_of(in)},
                     {"updated", in.document.value("updated", "")},
                     {"tool_version", in.document.value("tool_version", "")},
                     {"entries", in.document["entries"].size()}});
    for (nlohmann::json entry : in.document["entries"]) {
      upgrade_results_entry(entry);         // schemas 1 and 2: layout, batch, winner, precision
      std::vector<nlohmann::json> earlier;  // an entry merged before brings the measurements it lost to
      if (const auto it = entry.find("merged_from"); it != entry.end() && it->is_array())
        for (const auto& m : *it)
          if (!m.value("kept", false)) earlier.push_back(m);
      entry.erase("merged_from");
      const Key key = key_of(entry);
      auto [slot, fresh] = slots.try_emplace(key);
      Slot& s = slot->second;
      s.measurements.push_back(provenance(entry, in.file));
      s.measurements.insert(s.measurements.end(), earlier.begin(), earlier.end());
      if (fresh) {
        order.push_back(key);
        s.kept = std::move(entry);
        s.kept_file = in.file;
        continue;
      }
      const bool faster = best_tflops(entry) > best_tflops(s.kept);
      notes.push_back(fmt::format(
          "{}: kept {}'s {} ({:.2f} TFLOP/s) over {}'s {} ({:.2f} TFLOP/s)", problem_label(entry),
          faster ? in.file : s.kept_file, best_name(faster ? entry : s.kept), best_tflops(faster ? entry : s.kept),
          faster ? s.kept_file : in.file, best_name(faster ? s.kept : entry), best_tflops(faster ? s.kept : entry)));
      if (faster) {
        s.kept = std::move(entry);
        s.kept_file = in.file;
      }
    }
  }
  nlohmann::json entries = nlohmann::json::array();
  for (const Key& key : order) {
    Slot& s = slots.at(key);
    if (s.measurements.size() > 1) {
      const nlohmann::json kept_record = provenance(s.kept, s.kept_file);
      nlohmann::json merged_from = nlohmann::json::array();
      bool marked = false;
      for (nlohmann::json m : s.measurements) {
        m["kept"] = !marked && m == kept_record;
        marked = marked || m["kept"].get<bool>();
        merged_from.push_back(std::move(m));
      }
      s.kept["merged_from"] = std::move(merged_from);
    }
    entries.push_back(std::move(s.kept));
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const nlohmann::json& a, const nlohmann::json& b) { return key_of(a) < key_of(b); });
  nlohmann::json out = inputs.front().document;
  out["schema"] = kResultsSchema;
  out["kind"] = "measured";
  out["updated"] = utc_timestamp();
  out["merged_files"] = std::move(files);
  out["entries"] = std::move(entries);
  return out;
}

nlohmann::json merge_plans(const std::vector<Input>& inputs, std::vector<std::string>& notes) {
  using PlanKey = std::tuple<int, int, int, std::string, std::string, std::string, int>;
  std::map<PlanKey, std::string> seen;  // problem -> the file whose plan was kept
  nlohmann::json problems = nlohmann::json::array();
  nlohmann::json files = nlohmann::json::array();
  nlohmann::json compile = {{"binaries", 0}, {"from_cache", 0},     {"compiled", 0},
                            {"failed", 0},   {"wall_seconds", 0.0}, {"failures", nlohmann::json::array()}};
  for (const Input& in : inputs) {
    const nlohmann::json in_compile = in.document.value("compile", nlohmann::json::object());
    files.push_back({{"file", in.file},
                     {"date", in.document.value("date", "")},
                     {"tool_version", in.document.value("tool_version", "")},
                     {"problems", in.document["problems"].size()},
                     {"compile", in_compile}});
    for (const char* field : {"binaries", "from_cache", "compiled", "failed"})
      compile[field] = compile[field].get<std::size_t>() + in_compile.value(field, std::size_t{0});
    compile["wall_seconds"] = compile["wall_seconds"].get<double>() + in_compile.value("wall_seconds", 0.0);
    for (const auto& failure : in_compile.value("failures", nlohmann::json::array()))
      if (compile["failures"].size() < 20) compile["failures"].push_back(failure);
    for (const auto& problem : in.document["problems"]) {
      const PlanKey key{problem.value("m", 0),         problem.value("n", 0), problem.value("k", 0),
                        problem.value("precision", "fp32"), problem.value("c", "fp32"), layout_of(problem),
                        problem.value("batch", 1)};
      const auto [it, fresh] = seen.emplace(key, in.file);
      if (!fresh) {
        notes.push_back(fmt::format("{}: planned in both {} and {}; kept {}'s", problem_label(problem),
                                    it->second, in.file, it->second));
        continue;
      }
      problems.push_back(problem);
    }
  }
  nlohmann::json out = inputs.front().document;
  out["date"] = utc_timestamp();
  out["compile"] = std::move(compile);  // the tasks' counts summed: a binary two tasks built counts twice
  out["merged_files"] = std::move(files);
  out["problems"] = std::move(problems);
  return out;
}

}  // namespace

MergedFiles merge_result_files(const std::vector<std::filesystem::path>& files) {
  if (files.empty()) throw std::invalid_argument("merge: no files given");
  std::vector<Input> inputs;
  for (const auto& path : files) {
    inputs.push_back(load(path));
    const Input& first = inputs.front();
    const Input& in = inputs.back();
    if (in.kind != first.kind)
      throw std::invalid_argument(fmt::format(
          "cannot merge '{}': a {} file ({}), but '{}' is a {} file ({}); merge files of one kind", in.file,
          in.kind, schema_of(in), first.file, first.kind, schema_of(first)));
    if (in.gpu != first.gpu)
      throw std::invalid_argument(
          fmt::format("cannot merge '{}': its GPU is {}, but '{}' is for {}; merge one GPU model's files",
                      in.file, in.gpu, first.file, first.gpu));
  }
  MergedFiles out;
  out.kind = inputs.front().kind;
  out.gpu = inputs.front().gpu;
  out.document = out.kind == "results" ? merge_results(inputs, out.notes) : merge_plans(inputs, out.notes);
  out.problems = out.document[out.kind == "results" ? "entries" : "problems"].size();
  return out;
}

}  // namespace gemmtune
