// Size-list parsing: strict, because a typo in --sizes should stop the run before any GPU time is
// spent, with a message that names the entry.
#include "search/problem.hpp"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>
#include <tuple>

namespace gemmtune {
namespace {

int parse_dimension(const std::string& token, const std::string& entry) {
  if (token.empty()) throw std::invalid_argument(fmt::format("size '{}' has an empty dimension", entry));
  if (token[0] == '-') throw std::invalid_argument(fmt::format("size '{}' is negative", entry));
  for (char ch : token)
    if (!std::isdigit(static_cast<unsigned char>(ch)))
      throw std::invalid_argument(fmt::format("size '{}' is not a number (use N or MxNxK)", entry));
  if (token.size() > 9 || std::stol(token) > kMaxDimension)
    throw std::invalid_argument(
        fmt::format("size '{}' is too large (each dimension at most {})", entry, kMaxDimension));
  const int value = std::stoi(token);
  if (value == 0) throw std::invalid_argument(fmt::format("size '{}' has a zero dimension", entry));
  return value;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

std::string GemmShape::label() const {
  if (m == n && n == k) return std::to_string(m);
  return fmt::format("{}x{}x{}", m, n, k);
}

bool operator<(const GemmShape& a, const GemmShape& b) {
  return std::tie(a.m, a.n, a.k) < std::tie(b.m, b.n, b.k);
}

GemmShape parse_shape(const std::string& raw) {
  const std::string entry = trim(raw);
  if (entry.empty()) throw std::invalid_argument("empty size in the size list");
  std::vector<std::string> parts;
  std::string current;
  for (char ch : entry) {
    if (ch == 'x' || ch == 'X') {
      parts.push_back(current);
      current.clear();
    } else {
      current += ch;
    }
  }
  parts.push_back(current);
  if (parts.size() == 1) {
    const int n = parse_dimension(parts[0], entry);
    return {n, n, n};
  }
  if (parts.size() != 3) throw std::invalid_argument(fmt::format("size '{}' must be N or MxNxK", entry));
  return {parse_dimension(parts[0], entry), parse_dimension(parts[1], entry),
          parse_dimension(parts[2], entry)};
}

std::vector<GemmShape> parse_sizes(const std::string& text) {
  std::vector<GemmShape> shapes;
  std::string current;
  for (char ch : text + ",") {
    if (ch == ',') {
      const GemmShape s = parse_shape(current);
      bool seen = false;
      for (const auto& prior : shapes) seen = seen || prior == s;
      if (!seen) shapes.push_back(s);
      current.clear();
    } else {
      current += ch;
    }
  }
  return shapes;
}

}  // namespace gemmtune
