// A GEMM problem as the tuner sees it: C = op(A) * op(B) with densely packed row-major operands
// (A as stored is m x k, or k x m when op(A) = A^T; B is k x n, or n x k), over a strided batch of
// such problems laid end to end; and the parsing of the --sizes list.
//
// --sizes syntax, comma-separated entries: N (a cube) or MxNxK, then optionally, in any order,
// :LAYOUT (nn, nt, tn or tt: op(A), op(B) in row-major terms, nn when absent), :bCOUNT (a strided
// batch of COUNT problems, 1 when absent), :PRECISION (fp32, 3xtf32, tf32, bf16, fp16; the list's
// default when absent) and :c16 (C in the operands' 16-bit type, bf16 and fp16 only; FP32 C when
// absent): "512", "64x4096x4096:nt", "512x512x64:b32", "128:tt:b256", "1024:bf16",
// "64x4096x4096:nt:3xtf32", "8x4096x4096:bf16:c16".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/kernel_path.hpp"
#include "core/layout.hpp"
#include "core/precision.hpp"

namespace gemmtune {

// The problem key: everything a result is measured for and looked up by (results entries, record
// files, the runtime's calls), with its label, JSON form, ordering and hash.
struct GemmShape {
  int m = 0, n = 0, k = 0;
  Layout layout = Layout::nn;
  int batch = 1;
  Precision precision = Precision::fp32;
  // C (and its initial value, read where beta != 0) holds the operands' 16-bit type rather than
  // FP32: bf16 and fp16 only. The sums stay FP32; only the stores round.
  bool c16 = false;

  double flops() const { return 2.0 * m * n * k * batch; }
  // "512", "64x4096x4096", "1024:nt", "512x512x64:b32", "1024:bf16", "1024:bf16:c16": parse_shape
  // reads it back
  std::string label() const;
  // Leading dimensions and batch strides of densely packed operands.
  int lda() const { return op_a_transposed(layout) ? m : k; }
  int ldb() const { return op_b_transposed(layout) ? k : n; }
  long long stride_a() const { return static_cast<long long>(m) * k; }
  long long stride_b() const { return static_cast<long long>(k) * n; }
  long long stride_c() const { return static_cast<long long>(m) * n; }

  friend bool operator==(const GemmShape& a, const GemmShape& b) {
    return a.m == b.m && a.n == b.n && a.k == b.k && a.layout == b.layout && a.batch == b.batch &&
           a.precision == b.precision && a.c16 == b.c16;
  }
  friend bool operator!=(const GemmShape& a, const GemmShape& b) { return !(a == b); }
  friend bool operator<(const GemmShape& a, const GemmShape& b);
};

struct GemmShapeHash {
  std::size_t operator()(const GemmShape& s) const noexcept;
};

// Largest dimension accepted: keeps every operand addressable with 32-bit leading dimensions and
// each matrix under 4 Gi elements.
inline constexpr int kMaxDimension = 65536;
// Largest batch accepted, and the most elements one operand of the whole batch may hold (what the
// GPU must hold several times over to time it).
inline constexpr int kMaxBatch = 1 << 20;
inline constexpr long long kMaxBatchedElements = 1LL << 31;

// The widest vector (aligned_width, kernel_path.hpp) every row of the tuner's densely packed
// operands of shape starts aligned to (cudaMalloc'd, so only the leading dimensions count): what a
// race at shape measured its kernels with.
int packed_aligned_width(const GemmShape& shape);

// The path (KernelPath) the tuner's densely packed operands run config with.
KernelPath kernel_path_for(const KernelConfig& config, const GemmShape& shape);

// Parses "512,1024,MxNxK:nt:b8:bf16"; entries without a precision get `precision`. Throws
// std::invalid_argument with a message naming the bad entry. Repeated entries are dropped.
std::vector<GemmShape> parse_sizes(const std::string& text, Precision precision = Precision::fp32);
GemmShape parse_shape(const std::string& text, Precision precision = Precision::fp32);

// The problem's fields in a JSON object (results entries, logs, reports): m, n, k, layout, batch,
// precision, and "c" ("bf16" or "fp16") where C holds the operands' 16-bit type.
void shape_to_json(nlohmann::json& object, const GemmShape& shape);
// A problem's "c" field: "fp32" (FP32 C) or the operands' own 16-bit type (precision bf16 or fp16):
// whether C is 16-bit, or nullopt for anything else.
std::optional<bool> parse_c_type(std::string_view text, Precision precision);
inline constexpr const char* kCTypeRule = "must be \"fp32\" or, for bf16 and fp16 operands, their own type";

// Reads them back; layout, batch, precision and c are optional (nn, 1, fp32, FP32 C), as in files
// written before they existed.
// Throws std::invalid_argument naming the field.
GemmShape shape_from_json(const nlohmann::json& object);

}  // namespace gemmtune
