// Reading results caches (gemmtune.results/3, and /2 and /1 as older tuners wrote them) as untrusted input. A file is checked whole before any
// of it is used: size, JSON nesting, schema, types and range of every field the runtime reads, and
// every kernel config through KernelConfig's own validation, so nothing but a config that the
// template accepts can ever reach the compiler. A file that fails is ignored as a whole and reported
// as an issue; nothing here throws for bad input.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/cublaslt_matmul.hpp"
#include "core/kernel_config.hpp"
#include "core/layout.hpp"
#include "core/problem.hpp"

namespace gemmtune {

// Bounds on what a results file may hold. A tuning run writes about 6 KB per shape.
inline constexpr std::size_t kMaxResultsFileBytes = 32u << 20;
inline constexpr int kMaxResultsNesting = 16;  // the schema itself nests 5 deep
inline constexpr std::size_t kMaxResultsEntries = 100000;

// A kernel config and how it fared against cuBLAS in the same race (cuBLAS time / kernel time).
struct RacedConfig {
  KernelConfig config;
  double ratio = 0;  // 0: the file does not say
};

// One problem of a results file and what won it.
struct TunedShape {
  GemmShape problem;
  bool cublas_won = false;  // a cuBLAS call (its default one, or cuBLASLt's) beat every kernel in the final race
  std::optional<CublasLtAlgo> cublaslt;  // the cuBLASLt algorithm that won ("winner": "cublaslt")
  KernelConfig config;      // the template's best (what runs when the kernel won)
  double kernel_ratio = 0;  // the best kernel's ratio vs cuBLAS; 0 when the file does not say
  std::vector<RacedConfig> raced;  // the best and its alternatives (a portfolio cell: the whole menu)
};

// One validated results file: tuned problems ("measured") or a portfolio grid ("portfolio").
struct TunedResults {
  std::string origin;  // the path, printable
  std::string device_slug;
  int compute_capability = 0;
  bool portfolio = false;
  std::vector<TunedShape> shapes;
};

struct ResultsIssue {
  enum class Kind { not_found, invalid };
  Kind kind = Kind::invalid;
  std::string message;  // "<path>: <reason>", printable, one line
};

struct ResultsCatalog {
  std::vector<TunedResults> files;  // in file-name order, so lookups are deterministic
  std::vector<ResultsIssue> issues;
  bool single_file = false;  // the path named a file rather than a directory
};

// Thrown by parse_results for a well-formed document of another known kind (a plan's predictions).
class NotResultsDocument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Validates one document; throws std::invalid_argument (or NotResultsDocument) with a printable
// reason. origin names the document in messages.
TunedResults parse_results(std::string_view text, const std::string& origin);

// Why text nests JSON arrays and objects deeper than max_depth, or an empty string. Runs before the
// parser so hostile nesting never reaches it.
std::string json_nesting_error(std::string_view text, int max_depth);

// Loads a results file, or every *.json file directly in a directory (plans are skipped there).
// must_exist: a missing path or a directory without results files is an issue, not just empty.
ResultsCatalog load_results(const std::filesystem::path& path, bool must_exist);

}  // namespace gemmtune
