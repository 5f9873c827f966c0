// Hex form of stable_hash, fixed width so file names sort and compare cleanly.
#include "core/stable_hash.hpp"

#include <fmt/format.h>

namespace gemmtune {

std::string stable_hash_hex(std::string_view data) { return fmt::format("{:016x}", stable_hash(data)); }

}  // namespace gemmtune
