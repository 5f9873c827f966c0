// Every value is checked as untrusted input: the file may be hand-edited, truncated by a full disk or
// come from another machine; a bad line is reported with its number and never half-used.
#include "core/file_formats.hpp"
#include "core/record_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "core/file_lock.hpp"

namespace gemmtune {
namespace {

long long integer_field(const nlohmann::json& line, const char* key, long long low, long long high,
                        const std::string& where) {
  const auto it = line.find(key);
  if (it == line.end()) throw std::invalid_argument(fmt::format("{}: '{}' is missing", where, key));
  if (it->is_number_unsigned()) {
    const auto v = it->get<unsigned long long>();
    if (v >= static_cast<unsigned long long>(low) && v <= static_cast<unsigned long long>(high))
      return static_cast<long long>(v);
  }
  throw std::invalid_argument(fmt::format("{}: '{}' is not an integer in {}..{}", where, key, low, high));
}

RecordedProblem parse_problem(const nlohmann::json& line, const std::string& where) {
  if (!line.is_object()) throw std::invalid_argument(where + ": is not a JSON object");
  RecordedProblem p;
  p.problem.m = static_cast<int>(integer_field(line, "m", 1, INT_MAX, where));
  p.problem.n = static_cast<int>(integer_field(line, "n", 1, INT_MAX, where));
  p.problem.k = static_cast<int>(integer_field(line, "k", 1, INT_MAX, where));
  p.problem.batch = line.contains("batch") ? static_cast<int>(integer_field(line, "batch", 1, INT_MAX, where)) : 1;
  p.aligned_width =
      line.contains("aligned_width") ? static_cast<int>(integer_field(line, "aligned_width", 1, 4, where)) : 4;
  if (p.aligned_width == 3) throw std::invalid_argument(where + ": 'aligned_width' is not 1, 2 or 4");
  p.calls = static_cast<std::uint64_t>(integer_field(line, "calls", 0, LLONG_MAX, where));
  if (const auto layout = line.find("layout"); layout != line.end()) {
    if (!layout->is_string()) throw std::invalid_argument(where + ": 'layout' is not a string");
    try {
      p.problem.layout = parse_layout(layout->get<std::string>());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: 'layout' {}", where, e.what()));
    }
  }
  if (const auto precision = line.find("precision"); precision != line.end()) {
    const auto parsed = precision->is_string() ? parse_precision(precision->get<std::string>()) : std::nullopt;
    if (!parsed) throw std::invalid_argument(where + ": 'precision' is not fp32, 3xtf32, tf32, bf16 or fp16");
    p.problem.precision = *parsed;
  }
  if (const auto c = line.find("c"); c != line.end()) {
    const auto c16 = c->is_string() ? parse_c_type(c->get<std::string>(), p.problem.precision) : std::nullopt;
    if (!c16) throw std::invalid_argument(where + ": 'c' " + kCTypeRule);
    p.problem.c16 = *c16;
  }
  return p;
}

}  // namespace

void add_recorded(std::vector<RecordedProblem>& problems, const RecordedProblem& p) {
  for (RecordedProblem& q : problems)
    if (q.same_problem(p)) {
      q.calls = q.calls > UINT64_MAX - p.calls ? UINT64_MAX : q.calls + p.calls;
      return;
    }
  problems.push_back(p);
}

std::vector<RecordedProblem> parse_record(std::string_view text, const std::string& origin) {
  if (text.size() > kMaxRecordFileBytes)
    throw std::invalid_argument(fmt::format("{}: is larger than {} bytes", origin, kMaxRecordFileBytes));
  std::vector<RecordedProblem> problems;
  bool header = false;
  std::size_t number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = fmt::format("{}:{}", origin, number);
    // A problem takes well under 200 bytes; the bound also keeps hostile nesting from the parser.
    if (line.size() > kMaxRecordLineBytes)
      throw std::invalid_argument(fmt::format("{}: is longer than {} bytes", where, kMaxRecordLineBytes));
    nlohmann::json value;
    try {
      value = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw std::invalid_argument(where + ": is not one JSON value (a truncated or damaged line?)");
    }
    if (!header) {
      // value() would throw json's own type_error for a schema that is not a string.
      const auto schema = value.is_object() ? value.find("schema") : value.end();
      if (!value.is_object() || schema == value.end() || !schema->is_string() || *schema != kRecordSchema)
        throw std::invalid_argument(fmt::format("{}: the first line is not {{\"schema\":\"{}\"}}", where, kRecordSchema));
      header = true;
      continue;
    }
    add_recorded(problems, parse_problem(value, where));
  }
  if (!header) throw std::invalid_argument(origin + ": is empty (no header line)");
  return problems;
}

std::string format_record(std::vector<RecordedProblem> problems) {
  std::stable_sort(problems.begin(), problems.end(),
                   [](const RecordedProblem& a, const RecordedProblem& b) { return a.calls > b.calls; });
  std::string text = nlohmann::json{{"schema", kRecordSchema}}.dump() + '\n';
  for (const RecordedProblem& p : problems) {
    const GemmShape& s = p.problem;
    nlohmann::ordered_json line = {{"m", s.m},         {"n", s.n},
                                   {"k", s.k},         {"layout", layout_name(s.layout)},
                                   {"batch", s.batch}, {"precision", precision_name(s.precision)},
                                   {"aligned_width", p.aligned_width}, {"calls", p.calls}};
    if (s.c16) line["c"] = precision_name(s.precision);  // absent: FP32 C, as before 16-bit C existed
    text += line.dump() + '\n';
  }
  return text;
}

void add_to_record_file(const std::filesystem::path& path, const std::vector<RecordedProblem>& problems) {
  const FileLock lock(path.string() + ".lock");
  std::vector<RecordedProblem> merged;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    const auto text = read_whole_file(path);
    if (!text) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
    merged = parse_record(*text, path.string());
  }
  for (const RecordedProblem& p : problems) add_recorded(merged, p);
  std::string error;
  if (!write_file_atomically(path, format_record(std::move(merged)), &error))
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), error));
}

}  // namespace gemmtune
