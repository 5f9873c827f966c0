// A hash that is the same on every machine and build (FNV-1a, 64 bit), for cache keys and
// integrity checks that outlive one process. Not for security.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gemmtune {

inline std::uint64_t stable_hash(std::string_view data) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string stable_hash_hex(std::string_view data);

}  // namespace gemmtune
