// libFuzzer target for results caches (gemmtune.results/1): the runtime library parses every *.json
// in its results directory, or the file $GEMMTUNE_RESULTS names, with parse_results. Any input must
// end in validated results or std::invalid_argument; any other exception or sanitizer report is a
// bug. Every config that is accepted must also pass the template's own rules.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "results_catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const gemmtune::TunedResults results = gemmtune::parse_results(text, "fuzz input");
    for (const auto& shape : results.shapes)
      if (gemmtune::config_error(shape.config) || shape.problem.m < 1 || shape.problem.n < 1 || shape.problem.k < 1)
        __builtin_trap();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
