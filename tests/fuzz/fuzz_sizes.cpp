// libFuzzer target for the --sizes list (parse_sizes): every accepted shape must have dimensions in
// 1..kMaxDimension and appear once, and its label must parse back to the same shape.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/problem.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<gemmtune::GemmShape> shapes;
  try {
    shapes = gemmtune::parse_sizes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::invalid_argument&) {
    return 0;
  }
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& s = shapes[i];
    for (const int d : {s.m, s.n, s.k})
      if (d < 1 || d > gemmtune::kMaxDimension) __builtin_trap();
    for (std::size_t j = 0; j < i; ++j)
      if (shapes[j] == s) __builtin_trap();
    if (!(gemmtune::parse_shape(s.label()) == s)) __builtin_trap();
  }
  return 0;
}
