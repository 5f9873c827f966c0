// The one reader of results files (results/<gpu>.json and results/portfolio-<gpu>.json, schema
// gemmtune.results/3, and /2 and /1 as older tuners wrote them), for the runtime and for every
// tuner command that reads them (compare, merge, cross, bench, portfolio, --seed-from). Results
// files are input from other machines and other people: every field used is checked here, once,
// with a message naming the exact spot ("'entries[2].best.config': kernel config 'block_m' ..."),
// and every kernel config through KernelConfig's own validation, so nothing but a config the
// template accepts can reach the compiler. The writer is core/results_store.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/cublaslt_matmul.hpp"
#include "core/device_profile.hpp"
#include "core/kernel_config.hpp"
#include "core/problem.hpp"

namespace gemmtune {

// Bounds on what a results file may hold. A tuning run writes about 6 KB per problem.
inline constexpr std::size_t kMaxResultsFileBytes = 32u << 20;
inline constexpr int kMaxResultsNesting = 16;  // the schema itself nests 5 deep
inline constexpr std::size_t kMaxResultsEntries = 100000;

// A kernel config and how it fared against cuBLAS in the same race.
struct RacedConfig {
  KernelConfig config;
  std::string name;   // as the file names it (the config's own name where the file gives none)
  double tflops = 0;  // 0: the file does not say
  double ratio = 0;   // cuBLAS time / kernel time; 0: the file does not say
};

// One problem of a results file and what won it.
struct TunedShape {
  GemmShape problem;
  std::string winner;       // "kernel", "cublas" or "cublaslt" (schema 1: decided by the ratio)
  bool cublas_won = false;  // a cuBLAS call (its default one, or cuBLASLt's) beat every kernel in the final race
  std::optional<CublasLtAlgo> cublaslt;  // the cuBLASLt algorithm that won ("winner": "cublaslt")
  KernelConfig config;      // the template's best (what runs when the kernel won)
  double kernel_ratio = 0;  // the best kernel's ratio vs cuBLAS; 0 when the file does not say
  double cublas_tflops = 0;  // cuBLAS's default call in the final race; 0 when not raced
  std::string reason;        // why cuBLAS was recorded without a race (a fallback), or empty
  std::string search_menu;   // a portfolio cell's menu key ("search"."menu"), or empty
  std::vector<RacedConfig> raced;  // the best and its alternatives (a portfolio cell: the whole menu)
  // ||C - R||_F / ||R||_F against the float64 reference from the same (rounded) inputs, at the
  // problem itself; 0 where not measured (fp32 is checked against cuBLAS SGEMM instead, and files
  // before these fields say nothing). The best kernel's, and cuBLAS SGEMM's on the same inputs
  // (3xtf32 only: the accuracy a 3xtf32 kernel must match).
  double normwise_error = 0;
  double sgemm_normwise_error = 0;

  bool has_kernel() const { return !raced.empty(); }
};

// What read_results does with an entry that fails its checks. The tuner's commands refuse the whole
// file (they rewrite and merge it: nothing may be dropped silently); the runtime leaves the entry
// out and serves the rest, so an entry it cannot use (a kernel family a newer tuner wrote, one
// damaged problem) costs that problem alone, not every call.
enum class BadEntry { refuse_file, leave_out };

// One validated results file: tuned problems ("measured") or a portfolio grid ("portfolio").
struct TunedResults {
  std::string origin;  // the path, printable
  int schema_version = 0;
  DeviceProfile device;
  std::string updated;  // when the file was last written, as it says; may be empty
  bool portfolio = false;
  std::vector<TunedShape> shapes;  // in file order; schema 1 and 2 entries of other element types are left out
  std::vector<std::string> left_out;  // BadEntry::leave_out: why each entry that failed was left out
};

// Thrown by read_results for a document of another gemm-tune kind (a plan, a cross report, a bench
// report): these live beside results files, and a directory of results skips them.
class NotResultsDocument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Reads a parsed results document of any results schema. Throws std::invalid_argument with one
// line naming the first problem found: wrong schema or kind, a missing field, a wrong type, a value
// out of range, a kernel of another layout than its entry, or a problem listed twice; with
// BadEntry::leave_out only for the file's own fields, an entry's failure going to left_out.
TunedResults read_results(const nlohmann::json& document, const std::string& origin,
                          BadEntry bad_entry = BadEntry::refuse_file);

// The same from text, bounded before the parser sees it: larger than kMaxResultsFileBytes or nested
// deeper than kMaxResultsNesting is refused, as is text that is not JSON.
TunedResults read_results_text(std::string_view text, const std::string& origin,
                                BadEntry bad_entry = BadEntry::refuse_file);

// Why text nests JSON arrays and objects deeper than max_depth, or an empty string. Runs before the
// parser so hostile nesting never reaches it.
std::string json_nesting_error(std::string_view text, int max_depth);

// A schema 1 or 2 entry rewritten in schema 3's terms, for the writer: layout "row-major" is "nn",
// batch 1, the winner is what its recorded race says (cuBLAS where the kernel's ratio is below 1),
// and "dtype" "f32" is "precision" "fp32".
void upgrade_results_entry(nlohmann::json& entry);

}  // namespace gemmtune
