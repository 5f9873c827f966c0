// The layouts of a GEMM problem in row-major terms, op(A) then op(B): nn, nt, tn, tt. Part of every
// problem key: results entries, record files, the runtime's lookup.
#pragma once

#include <string_view>

namespace gemmtune {

enum class Layout : int { nn = 0, nt = 1, tn = 2, tt = 3 };

const char* layout_name(Layout layout);

// "nn".."tt"; "row-major" (results schema 1's only layout) is nn. Throws std::invalid_argument.
Layout parse_layout(std::string_view text);

}  // namespace gemmtune
