#include "core/precision.hpp"

#include <fmt/format.h>

namespace gemmtune {

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::fp32: return "fp32";
    case Precision::tf32x3: return "3xtf32";
    case Precision::tf32: return "tf32";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) {
  for (Precision p : kAllPrecisions)
    if (text == precision_name(p)) return p;
  return std::nullopt;
}

int min_compute_capability(Precision p) {
  switch (p) {
    case Precision::fp32: return 0;
    case Precision::fp16: return 75;
    default: return 80;
  }
}

std::string unsupported_precision(Precision p, int compute_capability, const std::string& gpu_name) {
  const int needed = min_compute_capability(p);
  if (compute_capability >= needed) return {};
  return fmt::format("{} needs compute capability {}.{} or newer; the {} is {}.{}", precision_name(p), needed / 10,
                     needed % 10, gpu_name, compute_capability / 10, compute_capability % 10);
}

}  // namespace gemmtune
