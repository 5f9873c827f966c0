// libFuzzer target for record files ($GEMMTUNE_RECORD, read back by `gemm-tune --sizes-from` and by
// the library when it adds to a file): parse_record must accept a file or refuse it with
// std::invalid_argument naming the line. Whatever it accepts must be problems of positive size, and
// must come back the same through the writer (format_record), as the next recording rewrites it.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/record_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<gemmtune::RecordedProblem> problems;
  try {
    problems = gemmtune::parse_record(text, "fuzz input");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  for (const auto& p : problems)
    if (p.problem.m < 1 || p.problem.n < 1 || p.problem.k < 1 || p.problem.batch < 1) __builtin_trap();
  const auto again = gemmtune::parse_record(gemmtune::format_record(problems), "rewritten");
  if (again.size() != problems.size()) __builtin_trap();
  return 0;
}
