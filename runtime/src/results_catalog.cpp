// Validation order matters: size and nesting are checked on the raw bytes, then the parser runs
// (its errors are made printable before they are logged), then the structure, field by field. Only
// a file that passes everything is added to the catalog.
#include "results_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/device_profile.hpp"
#include "core/file_formats.hpp"
#include "runtime_log.hpp"

namespace gemmtune {
namespace {


const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end()) throw std::invalid_argument(fmt::format("{} lacks '{}'", where, key));
  return *it;
}

std::string string_member(const nlohmann::json& object, const char* key, const std::string& where) {
  const auto& value = member(object, key, where);
  if (!value.is_string()) throw std::invalid_argument(fmt::format("{} '{}' is not a string", where, key));
  return value.get<std::string>();
}

int dimension_member(const nlohmann::json& object, const char* key, const std::string& where) {
  const auto& value = member(object, key, where);
  // The parser stores every non-negative integer as unsigned; negative ones and floats fail here.
  if (value.is_number_unsigned()) {
    const unsigned long long v = value.get<unsigned long long>();
    if (v >= 1 && v <= static_cast<unsigned long long>(INT_MAX)) return static_cast<int>(v);
  }
  throw std::invalid_argument(fmt::format("{} '{}' is not an integer in 1..{}", where, key, INT_MAX));
}

// A ratio vs cuBLAS, where present: finite and positive (0 where absent).
double ratio_member(const nlohmann::json& object, const std::string& where) {
  const auto it = object.find("ratio_vs_cublas");
  if (it == object.end()) return 0;
  if (!it->is_number() || !(it->get<double>() > 0) || !(it->get<double>() < 1e6))
    throw std::invalid_argument(where + " 'ratio_vs_cublas' is not a positive number");
  return it->get<double>();
}

RacedConfig raced_config(const nlohmann::json& object, const std::string& where) {
  if (!object.is_object()) throw std::invalid_argument(where + " is not an object");
  RacedConfig raced;
  try {
    from_json(member(object, "config", where), raced.config);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", where, e.what()));
  }
  raced.ratio = ratio_member(object, where);
  return raced;
}

// version 1 knew only row-major nn, one problem per entry and no winner: the kernel ran whenever
// it was there; its race against cuBLAS is in ratio_vs_cublas, which decides the winner now.
TunedShape parse_entry(const nlohmann::json& entry, const std::string& where, int version) {
  TunedShape shape;
  GemmShape& problem = shape.problem;
  problem.m = dimension_member(entry, "m", where);
  problem.n = dimension_member(entry, "n", where);
  problem.k = dimension_member(entry, "k", where);
  try {
    problem.layout = parse_layout(string_member(entry, "layout", where));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{} 'layout': {}", where, e.what()));
  }
  if (version >= 2 && entry.contains("batch")) problem.batch = dimension_member(entry, "batch", where);
  if (version >= 3) {
    const std::string precision = string_member(entry, "precision", where);
    const auto parsed = parse_precision(precision);
    if (!parsed)
      throw std::invalid_argument(fmt::format("{} 'precision' is '{}', not fp32, 3xtf32, tf32, bf16 or fp16", where,
                                              printable(precision, 32)));
    problem.precision = *parsed;
  }
  const auto best = entry.find("best");
  if (best != entry.end()) {
    const RacedConfig raced = raced_config(*best, where + " 'best'");
    shape.config = raced.config;
    shape.raced.push_back(raced);
  }
  shape.kernel_ratio = ratio_member(entry, where);
  if (const auto alternatives = entry.find("alternatives"); alternatives != entry.end()) {
    if (!alternatives->is_array()) throw std::invalid_argument(where + " 'alternatives' is not an array");
    for (std::size_t i = 0; i < alternatives->size(); ++i)
      shape.raced.push_back(raced_config((*alternatives)[i], fmt::format("{} alternative {}", where, i)));
  }
  // A kernel reads the operands in its own layout: one for another layout would compute garbage.
  for (const RacedConfig& raced : shape.raced)
    if (raced.config.layout != problem.layout)
      throw std::invalid_argument(fmt::format("{}: {} is compiled for layout {}, the entry is {}", where,
                                              raced.config.name(), layout_name(raced.config.layout),
                                              layout_name(problem.layout)));
  if (version == 1) {
    if (best == entry.end()) static_cast<void>(member(entry, "best", where));  // throws: required in 1
    shape.cublas_won = shape.kernel_ratio > 0 && shape.kernel_ratio < 1;
  } else {
    const std::string winner = string_member(entry, "winner", where);
    if (winner != "kernel" && !is_cublas_winner(winner))
      throw std::invalid_argument(fmt::format("{} 'winner' is '{}', not 'kernel', 'cublas' or 'cublaslt'", where,
                                              printable(winner, 32)));
    shape.cublas_won = is_cublas_winner(winner);
    if (winner == "cublaslt") {
      const nlohmann::json& lt = member(entry, "cublaslt", where);
      try {
        shape.cublaslt = member(lt, "algo", where + " 'cublaslt'").get<CublasLtAlgo>();
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("{} 'cublaslt': {}", where, e.what()));
      }
    }
    if (!shape.cublas_won && best == entry.end())
      throw std::invalid_argument(where + " names the kernel as winner but has no 'best'");
  }
  return shape;
}

// Reads at most limit + 1 bytes, so a file that grows while being read is still bounded.
std::string read_bounded(const std::filesystem::path& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot be opened");
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw std::invalid_argument("cannot be read");
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > limit) throw std::invalid_argument(fmt::format("is larger than {} bytes", limit));
  return text;
}

TunedResults load_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw std::invalid_argument("cannot be read: " + ec.message());
  if (size > kMaxResultsFileBytes)
    throw std::invalid_argument(fmt::format("is larger than {} bytes", kMaxResultsFileBytes));
  return parse_results(read_bounded(path, kMaxResultsFileBytes), printable(path.string()));
}

void add_issue(ResultsCatalog& catalog, ResultsIssue::Kind kind, std::string message) {
  runtime_logger().warn("results {}", message);
  catalog.issues.push_back({kind, std::move(message)});
}

}  // namespace

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

TunedResults parse_results(std::string_view text, const std::string& origin) {
  if (const std::string nesting = json_nesting_error(text, kMaxResultsNesting); !nesting.empty())
    throw std::invalid_argument(nesting);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("is not valid JSON: " + printable(e.what(), 160));
  }
  if (!doc.is_object()) throw std::invalid_argument("is not a JSON object");
  const std::string schema = string_member(doc, "schema", "the document");
  if (schema == kPlanSchema)
    throw NotResultsDocument("is a plan (predictions from a static model), not measured results");
  if (schema == kCrossSchema)
    throw NotResultsDocument("is a cross-GPU portability report, not tuned results");
  // Reports that live beside the results (bench, compare, held-out, peers, ...): skipped in a directory.
  if (schema.rfind("gemmtune.", 0) == 0 && schema.rfind("gemmtune.results/", 0) != 0)
    throw NotResultsDocument(fmt::format("is a gemm-tune '{}' report, not tuned results", printable(schema, 64)));
  const int version = results_schema_version(schema);
  if (version == 0)
    throw std::invalid_argument(fmt::format("has schema '{}', not '{}' (or '{}', '{}')", printable(schema, 64),
                                            kResultsSchema, kResultsSchemaV2, kResultsSchemaV1));
  const std::string kind = string_member(doc, "kind", "the document");
  if (kind != "measured" && !(version >= 2 && kind == "portfolio"))
    throw std::invalid_argument(fmt::format("is of kind '{}', not 'measured'{}", printable(kind, 32),
                                            version >= 2 ? " or 'portfolio'" : ""));

  DeviceProfile device;
  try {
    from_json(member(doc, "device", "the document"), device);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(printable(e.what()));
  }
  TunedResults results;
  results.origin = origin;
  results.device_slug = device.slug;
  results.compute_capability = device.compute_capability;
  results.portfolio = kind == "portfolio";

  const auto& entries = member(doc, "entries", "the document");
  if (!entries.is_array()) throw std::invalid_argument("'entries' is not an array");
  if (entries.size() > kMaxResultsEntries)
    throw std::invalid_argument(fmt::format("has more than {} entries", kMaxResultsEntries));
  std::set<GemmShape> seen;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string where = fmt::format("entry {}", i);
    const auto& entry = entries[i];
    if (!entry.is_object()) throw std::invalid_argument(where + " is not an object");
    // Schemas 1 and 2 only ever held FP32 ("dtype": "f32"); anything else there is not ours to run.
    if (version < 3 && string_member(entry, "dtype", where) != "f32") continue;
    TunedShape shape = parse_entry(entry, where, version);
    if (!seen.insert(shape.problem).second)
      throw std::invalid_argument(fmt::format("{} repeats the problem {}", where, shape.problem.label()));
    results.shapes.push_back(std::move(shape));
  }
  return results;
}

ResultsCatalog load_results(const std::filesystem::path& path, bool must_exist) {
  ResultsCatalog catalog;
  const std::string shown = printable(path.string());
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    if (must_exist) add_issue(catalog, ResultsIssue::Kind::not_found, shown + ": does not exist");
    return catalog;
  }

  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(status)) {
    for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      // is_regular_file follows links and excludes devices and pipes, which could block a read.
      std::error_code entry_ec;
      if (it->path().extension() == ".json" && it->is_regular_file(entry_ec)) files.push_back(it->path());
    }
    if (ec)
      add_issue(catalog, ResultsIssue::Kind::invalid, shown + ": cannot list the directory: " + ec.message());
    std::sort(files.begin(), files.end());
  } else if (std::filesystem::is_regular_file(status)) {
    catalog.single_file = true;
    files.push_back(path);
  } else {
    add_issue(catalog, ResultsIssue::Kind::invalid, shown + ": is neither a regular file nor a directory");
    return catalog;
  }

  for (const auto& file : files) {
    const std::string file_shown = printable(file.string());
    try {
      catalog.files.push_back(load_file(file));
      runtime_logger().debug("results {}: {} shapes for {} (sm_{})", file_shown,
                             catalog.files.back().shapes.size(), catalog.files.back().device_slug,
                             catalog.files.back().compute_capability);
    } catch (const NotResultsDocument& e) {
      if (catalog.single_file) {
        add_issue(catalog, ResultsIssue::Kind::invalid, file_shown + ": " + e.what());
      } else {
        runtime_logger().debug("results {}: skipped, {}", file_shown, e.what());
      }
    } catch (const std::invalid_argument& e) {
      add_issue(catalog, ResultsIssue::Kind::invalid, file_shown + ": " + e.what());
    }
  }
  if (must_exist && files.empty())
    add_issue(catalog, ResultsIssue::Kind::not_found, shown + ": holds no *.json results file");
  return catalog;
}

}  // namespace gemmtune
