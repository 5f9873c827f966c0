// The layouts of a GEMM problem in row-major terms, op(A) then op(B): nn, nt, tn, tt. Part of every
// problem key: results entries, record files, the runtime's lookup.
#pragma once

#include <string_view>

namespace gemmtune {

enum class Layout : int { nn = 0, nt = 1, tn = 2, tt = 3 };

const char* layout_name(Layout layout);

// Whether op(A) (op(B)) is the operand as stored transposed.
constexpr bool op_a_transposed(Layout layout) { return layout == Layout::tn || layout == Layout::tt; }
constexpr bool op_b_transposed(Layout layout) { return layout == Layout::nt || layout == Layout::tt; }
constexpr Layout layout_of(bool a_transposed, bool b_transposed) {
  return static_cast<Layout>(int(a_transposed) * 2 + int(b_transposed));
}

// "nn".."tt"; "row-major" (results schema 1's only layout) is nn. Throws std::invalid_argument.
Layout parse_layout(std::string_view text);

}  // namespace gemmtune
