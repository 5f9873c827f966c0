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

#include "device_profile.hpp"
#include "runtime_log.hpp"

namespace gemmtune {
namespace {

constexpr const char* kResultsSchemaName = "gemmtune.results/1";
constexpr const char* kPlanSchemaName = "gemmtune.plan/1";
constexpr const char* kCrossSchemaName = "gemmtune.cross/1";

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

TunedShape parse_entry(const nlohmann::json& entry, const std::string& where) {
  TunedShape shape;
  shape.m = dimension_member(entry, "m", where);
  shape.n = dimension_member(entry, "n", where);
  shape.k = dimension_member(entry, "k", where);
  const auto& best = member(entry, "best", where);
  if (!best.is_object()) throw std::invalid_argument(where + " 'best' is not an object");
  try {
    from_json(member(best, "config", where + " 'best'"), shape.config);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{} 'best': {}", where, e.what()));
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
  if (schema == kPlanSchemaName)
    throw NotResultsDocument("is a plan (predictions from a static model), not measured results");
  if (schema == kCrossSchemaName)
    throw NotResultsDocument("is a cross-GPU portability report, not tuned results");
  if (schema == "gemmtune.bench/1" || schema == "gemmtune.compare/1")
    throw NotResultsDocument(fmt::format("is a gemm-tune '{}' report, not tuned results", schema));
  if (schema != kResultsSchemaName)
    throw std::invalid_argument(
        fmt::format("has schema '{}', not '{}'", printable(schema, 64), kResultsSchemaName));
  if (string_member(doc, "kind", "the document") != "measured")
    throw std::invalid_argument("is not of kind 'measured'");

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

  const auto& entries = member(doc, "entries", "the document");
  if (!entries.is_array()) throw std::invalid_argument("'entries' is not an array");
  if (entries.size() > kMaxResultsEntries)
    throw std::invalid_argument(fmt::format("has more than {} entries", kMaxResultsEntries));
  std::set<std::tuple<int, int, int>> seen;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string where = fmt::format("entry {}", i);
    const auto& entry = entries[i];
    if (!entry.is_object()) throw std::invalid_argument(where + " is not an object");
    // Other element types or layouts may come with later schemas; this runtime runs only these.
    if (string_member(entry, "dtype", where) != "f32" || string_member(entry, "layout", where) != "row-major")
      continue;
    TunedShape shape = parse_entry(entry, where);
    if (!seen.emplace(shape.m, shape.n, shape.k).second)
      throw std::invalid_argument(
          fmt::format("{} repeats the shape {}x{}x{}", where, shape.m, shape.n, shape.k));
    results.shapes.push_back(shape);
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
