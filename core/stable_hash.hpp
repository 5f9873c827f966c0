// A hash that is the same on every machine and build (FNV-1a, 64 bit), for cache keys and
// integrity checks that outlive one process. Not for security.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gemmtune {

inline constexpr std::uint64_t kStableHashStart = 1469598103934665603ULL;

// state: kStableHashStart, or the hash of what comes before data (hashing a long common prefix once).
inline std::uint64_t stable_hash(std::string_view data, std::uint64_t state = kStableHashStart) {
  std::uint64_t h = state;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string stable_hash_hex(std::string_view data);

}  // namespace gemmtune
