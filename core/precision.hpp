// Names and properties of the precisions (the enum: gemmtune/precision.hpp, public).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gemmtune/precision.hpp"

namespace gemmtune {

inline constexpr Precision kAllPrecisions[] = {Precision::fp32, Precision::tf32x3, Precision::tf32,
                                               Precision::bf16, Precision::fp16};

const char* precision_name(Precision precision);  // "fp32", "3xtf32", "tf32", "bf16", "fp16"
std::optional<Precision> parse_precision(std::string_view text);

// Bytes of one element of A and B as they lie in memory (C: FP32, or this type for a c16 problem).
constexpr int operand_bytes(Precision p) { return p == Precision::bf16 || p == Precision::fp16 ? 2 : 4; }

// Lowest compute capability (major * 10 + minor) with tensor cores for this precision: fp16 mma
// from Turing (7.5), TF32 and bf16 from Ampere (8.0); FP32 runs everywhere (0).
int min_compute_capability(Precision p);

// "bf16 needs compute capability 8.0 or newer; the Tesla T4 is 7.5" where a GPU of that compute
// capability and name cannot run the precision; empty where it can.
std::string unsupported_precision(Precision p, int compute_capability, const std::string& gpu_name);

}  // namespace gemmtune
