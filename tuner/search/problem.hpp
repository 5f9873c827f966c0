// A GEMM problem as the tuner sees it: the shape of C = A * B with densely packed row-major
// operands, and the parsing of the --sizes list ("512", "1024", "64x4096x4096").
#pragma once

#include <string>
#include <vector>

namespace gemmtune {

struct GemmShape {
  int m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * m * n * k; }
  std::string label() const;  // "512" for a cube, else "64x4096x4096"
  friend bool operator==(const GemmShape& a, const GemmShape& b) {
    return a.m == b.m && a.n == b.n && a.k == b.k;
  }
  friend bool operator<(const GemmShape& a, const GemmShape& b);
};

// Largest dimension accepted: keeps every operand addressable with 32-bit leading dimensions and
// each matrix under 4 Gi elements.
inline constexpr int kMaxDimension = 65536;

// Parses "512,1024,MxNxK"; throws std::invalid_argument with a message naming the bad entry.
std::vector<GemmShape> parse_sizes(const std::string& text);
GemmShape parse_shape(const std::string& text);

}  // namespace gemmtune
