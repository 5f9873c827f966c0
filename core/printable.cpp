#include "core/printable.hpp"

namespace gemmtune {

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  const std::size_t kept = text.size() > max_bytes ? max_bytes : text.size();
  out.reserve(kept + 3);
  for (std::size_t i = 0; i < kept; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (kept < text.size()) out += "...";
  return out;
}

}  // namespace gemmtune
