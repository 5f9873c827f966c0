#include "core/precision.hpp"

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

double input_roundoff(Precision p) {
  switch (p) {
    case Precision::tf32: return 1.0 / (1 << 11);  // 10 stored mantissa bits, rounded to nearest
    default: return 1.0 / (1 << 24);
  }
}

int min_compute_capability(Precision p) {
  switch (p) {
    case Precision::fp32: return 0;
    case Precision::fp16: return 75;
    default: return 80;
  }
}

}  // namespace gemmtune
