// Terminal and Markdown writers over the shared tables.
#include "report/text_report.hpp"

#include <algorithm>

namespace gemmtune {
namespace {

// Escape sequences in an untrusted name could rewrite the user's terminal.
std::string printable(const std::string& text) {
  std::string out = text;
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  return out;
}

// Columns are counted in code points, so a non-ASCII GPU name does not shift the ones after it.
std::size_t display_width(const std::string& text) {
  return std::count_if(text.begin(), text.end(),
                       [](char ch) { return (static_cast<unsigned char>(ch) & 0xc0) != 0x80; });
}

std::string padded(const std::string& text, std::size_t width, bool right) {
  const std::string fill(width - std::min(width, display_width(text)), ' ');
  return right ? fill + text : text + fill;
}

// Not escape_xml: Markdown needs <, > and & escaped (it renders inline HTML) but not quotes, which
// as entities would make the raw text of notes like "each GPU's" unreadable; and it needs
// backslashes before the characters that carry Markdown meaning.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char ch : printable(text)) {
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
      case '|':
      case '\\':
      case '`':
      case '*':
      case '[':
      case ']':
      case '#':
        out += '\\';
        out += ch;
        break;
      default:
        out += ch;
    }
  }
  return out;
}

}  // namespace

std::string terminal_report(const std::vector<ReportTable>& tables) {
  std::string out;
  for (const ReportTable& t : tables) {
    std::vector<std::size_t> widths(t.headers.size());
    for (std::size_t c = 0; c < t.headers.size(); ++c) {
      widths[c] = display_width(printable(t.headers[c]));
      for (const auto& row : t.rows) widths[c] = std::max(widths[c], display_width(printable(row[c])));
    }
    const auto line = [&](const std::vector<std::string>& cells) {
      std::string text;
      for (std::size_t c = 0; c < cells.size(); ++c)
        text += (c ? "  " : "") + padded(printable(cells[c]), widths[c], t.right_aligned[c]);
      while (!text.empty() && text.back() == ' ') text.pop_back();
      return text + "\n";
    };
    out += (out.empty() ? "" : "\n") + printable(t.title) + "\n" + printable(t.note) + "\n";
    out += line(t.headers);
    for (const auto& row : t.rows) out += line(row);
  }
  return out;
}

std::string markdown_report(const std::vector<ReportTable>& tables) {
  std::string out = "# GPU comparison (gemm-tune compare)\n";
  for (const ReportTable& t : tables) {
    out += "\n## " + markdown_cell(t.title) + "\n\n" + markdown_cell(t.note) + "\n\n|";
    for (const auto& h : t.headers) out += " " + markdown_cell(h) + " |";
    out += "\n|";
    for (bool right : t.right_aligned) out += right ? "---:|" : "---|";
    out += "\n";
    for (const auto& row : t.rows) {
      out += "|";
      for (const auto& cell : row) out += " " + markdown_cell(cell) + " |";
      out += "\n";
    }
  }
  return out;
}

}  // namespace gemmtune
