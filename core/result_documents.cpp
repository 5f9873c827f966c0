// Validation of plan, cross and peers files, and of results files through core's reader. Each reader
// walks the JSON through Field (core/json_field.hpp), which names the exact spot of any complaint;
// the whole-file error adds the file name in front.
#include "core/result_documents.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/atomic_file.hpp"
#include "core/file_formats.hpp"
#include "core/json_field.hpp"

namespace gemmtune {
namespace {

// Far above any real file (the H100 results with five problems are 30 KB); refusing larger ones
// keeps a wrong path (a log, a disk image) from being read into memory.
constexpr std::uintmax_t kMaxFileBytes = 64u << 20;
constexpr double kMaxTflops = 1e6;

GemmShape read_shape(const Field& entry) {
  GemmShape shape{entry["m"].integer(1, kMaxDimension), entry["n"].integer(1, kMaxDimension),
                  entry["k"].integer(1, kMaxDimension)};
  if (entry.has("layout")) {
    const std::string layout = entry["layout"].text();
    try {
      shape.layout = parse_layout(layout);
    } catch (const std::invalid_argument& e) {
      entry["layout"].fail(e.what());
    }
  }
  if (entry.has("batch")) shape.batch = entry["batch"].integer(1, kMaxBatch);
  if (entry.has("precision")) {
    const auto precision = parse_precision(entry["precision"].text());
    if (!precision) entry["precision"].fail("must be one of fp32, 3xtf32, tf32, bf16, fp16");
    shape.precision = *precision;
  } else if (entry.has("dtype") && entry["dtype"].text() != "f32") {  // schemas 1 and 2
    entry["dtype"].fail("must be \"f32\" (the only element type before results schema 3)");
  }
  if (entry.has("c")) {
    const auto c16 = parse_c_type(entry["c"].text(), shape.precision);
    if (!c16) entry["c"].fail(kCTypeRule);
    shape.c16 = *c16;
  }
  return shape;
}

void require_kind(const Field& top, const char* schema, const char* kind) {
  if (top["kind"].text() != kind) top["kind"].fail(fmt::format("must be \"{}\" in a {} file", kind, schema));
}

// compare shows tuned winners only: a portfolio grid is refused as before core read it too.
TunedResults read_measured(const Field& top, const std::filesystem::path& path) {
  TunedResults results = read_results(top.json(), path.string());
  if (results.portfolio) require_kind(top, kResultsSchema, "measured");
  return results;
}

PlanPredictions read_plan(const Field& top, const std::filesystem::path& path) {
  require_kind(top, kPlanSchema, "prediction");
  PlanPredictions out{path, top["device"].as<DeviceProfile>(), top["date"].text(), {}};
  std::set<GemmShape> seen;
  for (const Field& problem : top["problems"].elements()) {
    const GemmShape shape = read_shape(problem);
    if (!seen.insert(shape).second) problem.fail(fmt::format("repeats problem {}", shape.label()));
    const std::vector<Field> ranked = problem["ranked"].elements();
    if (ranked.empty()) continue;  // nothing fit this problem on that GPU: no prediction to show
    out.winners.push_back({shape, ranked[0]["name"].text(), ranked[0]["config"].as<KernelConfig>(),
                           ranked[0]["predicted_tflops"].number(0, kMaxTflops)});
  }
  return out;
}

CrossMeasurements read_cross(const Field& top, const std::filesystem::path& path) {
  require_kind(top, kCrossSchema, "measured");
  // `gemm-tune cross` writes "updated", as results files do; "date" was the first draft of the format.
  const char* written = top.has("updated") ? "updated" : "date";
  CrossMeasurements out{path, top["device"].as<DeviceProfile>(), top[written].text(), {}};
  std::set<std::pair<std::string, GemmShape>> seen;
  for (const Field& entry : top["entries"].elements()) {
    CrossRun run{slugify(entry["from"].text()),
                 read_shape(entry),
                 entry["name"].text(),
                 entry["config"].as<KernelConfig>(),
                 entry["tflops"].number(0, kMaxTflops),
                 entry["own_best_tflops"].number(0, kMaxTflops),
                 entry["percent_of_own_best"].number(0, 1e6)};
    if (!seen.emplace(run.from, run.shape).second)
      entry.fail(fmt::format("repeats problem {} from {}", run.shape.label(), run.from));
    out.runs.push_back(std::move(run));
  }
  return out;
}

PeerMeasurements read_peers(const Field& top, const std::filesystem::path& path) {
  require_kind(top, kPeersSchema, "measured");
  const Field device = top["device"];
  PeerMeasurements out{path,
                       device["name"].text(),
                       slugify(device["slug"].text()),
                       device.has("fp32_tflops") ? device["fp32_tflops"].number(0, kMaxTflops) : 0.0,
                       "",  // the peer's name, from the entries below
                       top["cublas_via"].text(),
                       top["updated"].text(),
                       {}};
  std::set<GemmShape> seen;
  std::string implementation;  // of the first entry
  for (const Field& entry : top["entries"].elements()) {
    // One peer per file (scripts/peers/ names the file after it), so every entry names the same one.
    const std::string this_one = entry["implementation"].text();
    if (implementation.empty()) implementation = this_one;
    if (this_one != implementation)
      entry["implementation"].fail(fmt::format("differs from the first entry's ('{}')", implementation));
    PeerRun run{read_shape(entry), entry["status"].text(), "", 0, 0, 0};
    if (!seen.insert(run.shape).second) entry.fail(fmt::format("repeats problem {}", run.shape.label()));
    if (entry.has("tuned") && entry["tuned"].has("name")) run.name = entry["tuned"]["name"].text();
    if (run.passed()) {
      run.tflops = entry["tuned"]["tflops"].number(0, kMaxTflops);
      run.baseline_tflops = entry["cublas"]["tflops"].number(0, kMaxTflops);
      run.ratio_vs_baseline = entry["ratio_vs_cublas"].number(0, kMaxTflops);
    }
    out.runs.push_back(std::move(run));
  }
  if (out.runs.empty()) top["entries"].fail("must hold at least one entry");
  const std::string version_key = implementation + "_version";
  out.peer =
      top.has(version_key.c_str()) ? implementation + " " + top[version_key.c_str()].text() : implementation;
  return out;
}

ResultFile read_document(const nlohmann::json& document, const std::filesystem::path& path) {
  const Field top(document, "");
  if (!document.is_object()) top.fail("must be a JSON object");
  const std::string schema = top["schema"].text();
  if (is_results_schema(schema)) return read_measured(top, path);
  if (schema == kPlanSchema) return read_plan(top, path);
  if (schema == kCrossSchema) return read_cross(top, path);
  if (schema == kPeersSchema) return read_peers(top, path);
  throw std::invalid_argument(fmt::format("unknown schema '{}' (expected {}, {}, {} or {})", schema,
                                          kResultsSchema, kPlanSchema, kCrossSchema, kPeersSchema));
}

}  // namespace

ResultFile load_result_file(const std::filesystem::path& path) {
  return load_result_document(path, "compare").content;
}

LoadedResultFile load_result_document(const std::filesystem::path& path, const std::string& verb) {
  const auto fail = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("cannot {} '{}': {}", verb, path.string(), why));
  };
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw fail("no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw fail("not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxFileBytes)
    throw fail(
        fmt::format("larger than {} MiB, not a results, plan, cross or peers file", kMaxFileBytes >> 20));
  const std::optional<std::string> text = read_whole_file(path);
  if (!text) throw fail("cannot be read");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    throw fail(fmt::format("malformed JSON (byte {})", e.byte));
  } catch (const nlohmann::json::out_of_range&) {
    throw fail("malformed JSON (a number too large for a double)");
  }
  try {
    ResultFile content = read_document(document, path);
    return {std::move(document), std::move(content)};
  } catch (const std::invalid_argument& e) {
    throw fail(e.what());
  }
}

}  // namespace gemmtune
