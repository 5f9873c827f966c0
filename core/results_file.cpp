// Validation order matters: size and nesting are checked on the raw text, then the parser runs,
// then the structure, field by field through Field, which names the spot of any complaint.
#include "core/results_file.hpp"

#include <fmt/format.h>

#include <climits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "core/file_formats.hpp"
#include "core/json_field.hpp"
#include "core/printable.hpp"

namespace gemmtune {
namespace {

constexpr double kMaxMeasure = 1e6;  // above any TFLOP/s or ratio a GPU of today gives

double optional_number(const Field& object, const char* key) {
  return object.has(key) ? object[key].number(0, kMaxMeasure) : 0.0;
}

RacedConfig read_raced(const Field& raced) {
  RacedConfig out;
  out.config = raced["config"].as<KernelConfig>();
  out.name = raced.has("name") ? raced["name"].text() : out.config.name();
  out.tflops = optional_number(raced, "tflops");
  out.ratio = optional_number(raced, "ratio_vs_cublas");
  return out;
}

// Schema 1 knew only row-major nn, one problem per entry and no winner: the kernel ran whenever it
// was there; its race against cuBLAS is in ratio_vs_cublas, which decides the winner now.
TunedShape read_entry(const Field& entry, int version) {
  TunedShape shape;
  GemmShape& problem = shape.problem;
  // Up to INT_MAX, not the tuner's kMaxDimension: a portfolio grid spans further (k = 131072).
  problem.m = entry["m"].integer(1, INT_MAX);
  problem.n = entry["n"].integer(1, INT_MAX);
  problem.k = entry["k"].integer(1, INT_MAX);
  if (entry.has("layout")) {
    const std::string layout = entry["layout"].text();
    try {
      problem.layout = parse_layout(layout);
    } catch (const std::invalid_argument& e) {
      entry["layout"].fail(printable(e.what()));
    }
  }
  if (entry.has("batch")) problem.batch = entry["batch"].integer(1, kMaxBatch);
  if (version >= 3) {
    const auto precision = parse_precision(entry["precision"].text());
    if (!precision) entry["precision"].fail("must be one of fp32, 3xtf32, tf32, bf16, fp16");
    problem.precision = *precision;
  }
  if (entry.has("c")) {
    const auto c16 = parse_c_type(entry["c"].text(), problem.precision);
    if (!c16) entry["c"].fail(kCTypeRule);
    problem.c16 = *c16;
  }

  if (entry.has("best")) shape.raced.push_back(read_raced(entry["best"]));
  if (entry.has("alternatives"))
    for (const Field& alternative : entry["alternatives"].elements()) shape.raced.push_back(read_raced(alternative));
  if (shape.has_kernel()) shape.config = shape.raced.front().config;
  // A kernel reads the operands in its own layout: one for another layout would compute garbage.
  for (const RacedConfig& raced : shape.raced)
    if (raced.config.layout != problem.layout)
      entry.fail(fmt::format("holds {}, compiled for layout {}, in an entry of layout {}", raced.config.name(),
                             layout_name(raced.config.layout), layout_name(problem.layout)));
  // Nor may one write C in another type than the entry's.
  for (const RacedConfig& raced : shape.raced)
    if (raced.config.c16 != problem.c16)
      entry.fail(fmt::format("holds {}, which writes {} C, in an entry whose C is {}", raced.config.name(),
                             raced.config.c16 ? "16-bit" : "FP32", problem.c16 ? "16-bit" : "FP32"));
  shape.kernel_ratio = optional_number(entry, "ratio_vs_cublas");
  if (entry.has("cublas")) shape.cublas_tflops = optional_number(entry["cublas"], "tflops");
  shape.normwise_error = optional_number(entry, "normwise_error");
  shape.sgemm_normwise_error = optional_number(entry, "sgemm_normwise_error");

  if (version == 1) {
    static_cast<void>(entry["best"]);  // required in schema 1: throws where it is absent
    shape.cublas_won = shape.kernel_ratio > 0 && shape.kernel_ratio < 1;
    shape.winner = shape.cublas_won ? "cublas" : "kernel";
  } else {
    shape.winner = entry["winner"].text();
    if (shape.winner != "kernel" && !is_cublas_winner(shape.winner))
      entry["winner"].fail(fmt::format("is '{}', not kernel, cublas or cublaslt", printable(shape.winner, 32)));
    shape.cublas_won = is_cublas_winner(shape.winner);
    if (shape.winner == "cublaslt") shape.cublaslt = entry["cublaslt"]["algo"].as<CublasLtAlgo>();
    if (!shape.cublas_won) static_cast<void>(entry["best"]);  // the kernel won: throws where it is absent
  }
  // Free text and keys that are only compared, never parsed: kept as printable text.
  if (const auto reason = entry.json().find("reason"); reason != entry.json().end() && reason->is_string())
    shape.reason = printable(reason->get<std::string>());
  if (const auto search = entry.json().find("search"); search != entry.json().end() && search->is_object())
    if (const auto menu = search->find("menu"); menu != search->end() && menu->is_string())
      shape.search_menu = menu->get<std::string>();
  return shape;
}

}  // namespace

TunedResults read_results(const nlohmann::json& document, const std::string& origin, BadEntry bad_entry) {
  const Field top(document, "");
  if (!document.is_object()) top.fail("must be a JSON object");
  TunedResults results;
  results.origin = origin;
  const std::string schema = top["schema"].text();
  if (schema == kPlanSchema)
    throw NotResultsDocument("is a plan (predictions from a static model), not measured results");
  if (schema == kCrossSchema) throw NotResultsDocument("is a cross-GPU portability report, not tuned results");
  // Reports that live beside the results (bench, compare, held-out, peers, ...).
  if (schema.rfind("gemmtune.", 0) == 0 && schema.rfind("gemmtune.results/", 0) != 0)
    throw NotResultsDocument(fmt::format("is a gemm-tune '{}' report, not tuned results", printable(schema, 64)));
  results.schema_version = results_schema_version(schema);
  if (results.schema_version == 0)
    top["schema"].fail(fmt::format("is '{}', not {} (or {}, {})", printable(schema, 64), kResultsSchema,
                                   kResultsSchemaV2, kResultsSchemaV1));
  const std::string kind = top["kind"].text();
  results.portfolio = kind == "portfolio" && results.schema_version >= 2;
  if (kind != "measured" && !results.portfolio)
    top["kind"].fail(fmt::format("must be \"measured\"{} in a {} file",
                                 results.schema_version >= 2 ? " or \"portfolio\"" : "", schema));
  results.device = top["device"].as<DeviceProfile>();
  if (top.has("updated")) results.updated = top["updated"].text();

  const Field entries = top["entries"];
  if (entries.json().is_array() && entries.json().size() > kMaxResultsEntries)
    entries.fail(fmt::format("holds more than {} entries", kMaxResultsEntries));
  std::set<GemmShape> seen;
  for (const Field& entry : entries.elements()) {
    try {
      if (!entry.json().is_object()) entry.fail("must be an object");
      // Schemas 1 and 2 only ever held FP32 ("dtype": "f32"); anything else there is not ours to run.
      if (results.schema_version < 3 && entry.has("dtype") && entry["dtype"].text() != "f32") continue;
      TunedShape shape = read_entry(entry, results.schema_version);
      if (!seen.insert(shape.problem).second) entry.fail(fmt::format("repeats problem {}", shape.problem.label()));
      results.shapes.push_back(std::move(shape));
    } catch (const std::invalid_argument& e) {
      if (bad_entry == BadEntry::refuse_file) throw;
      results.left_out.emplace_back(e.what());
    }
  }
  return results;
}

TunedResults read_results_text(std::string_view text, const std::string& origin, BadEntry bad_entry) {
  if (text.size() > kMaxResultsFileBytes)
    throw std::invalid_argument(fmt::format("is larger than {} bytes", kMaxResultsFileBytes));
  if (const std::string nesting = json_nesting_error(text, kMaxResultsNesting); !nesting.empty())
    throw std::invalid_argument(nesting);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("is not valid JSON: " + printable(e.what(), 160));
  }
  return read_results(document, origin, bad_entry);
}

std::string json_nesting_error(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return fmt::format("nests deeper than {} levels", max_depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return {};
}

void upgrade_results_entry(nlohmann::json& entry) {
  if (!entry.is_object()) return;
  if (!entry.contains("winner")) {  // schema 1
    if (entry.value("layout", "") == "row-major") entry["layout"] = "nn";
    if (!entry.contains("batch")) entry["batch"] = 1;
    const auto ratio = entry.find("ratio_vs_cublas");
    entry["winner"] = ratio != entry.end() && ratio->is_number() && ratio->get<double>() < 1.0 ? "cublas" : "kernel";
  }
  if (!entry.contains("precision")) {  // schemas 1 and 2: "dtype" "f32", FP32 only
    const auto dtype = entry.find("dtype");
    entry["precision"] = dtype == entry.end() || *dtype == "f32" ? nlohmann::json("fp32") : *dtype;
    entry.erase("dtype");
  }
}

}  // namespace gemmtune
