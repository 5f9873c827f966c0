// Escaping of untrusted text (GPU and kernel names, file names from the files being compared) for
// HTML and SVG: text and attribute values alike, so a name such as "<script>" is shown, not run.
#pragma once

#include <string>

namespace gemmtune {

inline std::string escape_xml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in XML 1.0 text, and HTML shows none of them usefully.
        out += (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') ? '?' : ch;
    }
  }
  return out;
}

}  // namespace gemmtune
