// Names as the files spell them. What else a file holds is not repeated in the error: the caller
// names the file and field, and untrusted text stays out of messages.
#include "core/layout.hpp"

#include <stdexcept>

namespace gemmtune {

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::nn:
      return "nn";
    case Layout::nt:
      return "nt";
    case Layout::tn:
      return "tn";
    case Layout::tt:
      return "tt";
  }
  return "nn";
}

Layout parse_layout(std::string_view text) {
  if (text == "nn" || text == "row-major") return Layout::nn;
  if (text == "nt") return Layout::nt;
  if (text == "tn") return Layout::tn;
  if (text == "tt") return Layout::tt;
  throw std::invalid_argument("is not one of nn, nt, tn, tt");
}

}  // namespace gemmtune
