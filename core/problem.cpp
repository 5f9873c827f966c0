// Size-list parsing: strict, because a typo in --sizes should stop the run before any GPU time is
// spent, with a message that names the entry.
#include "core/problem.hpp"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>

namespace gemmtune {
namespace {

int parse_number(const std::string& token, const std::string& entry, const char* what, int max) {
  if (token.empty()) throw std::invalid_argument(fmt::format("size '{}' has an empty {}", entry, what));
  if (token[0] == '-') throw std::invalid_argument(fmt::format("size '{}' is negative", entry));
  for (char ch : token)
    if (!std::isdigit(static_cast<unsigned char>(ch)))
      throw std::invalid_argument(
          fmt::format("size '{}' is not a number (use N or MxNxK, then :nn|nt|tn|tt, :bCOUNT, :PRECISION and :c16)", entry));
  if (token.size() > 9 || std::stol(token) > max)
    throw std::invalid_argument(fmt::format("size '{}' is too large (each {} at most {})", entry, what, max));
  const int value = std::stoi(token);
  if (value == 0) throw std::invalid_argument(fmt::format("size '{}' has a zero {}", entry, what));
  return value;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char ch : text) {
    if (ch == separator) {
      parts.emplace_back();
    } else {
      parts.back() += ch;
    }
  }
  return parts;
}

}  // namespace

std::string GemmShape::label() const {
  std::string text = m == n && n == k ? std::to_string(m) : fmt::format("{}x{}x{}", m, n, k);
  if (layout != Layout::nn) text += std::string(":") + layout_name(layout);
  if (batch != 1) text += fmt::format(":b{}", batch);
  if (precision != Precision::fp32) text += std::string(":") + precision_name(precision);
  if (c16) text += ":c16";
  return text;
}

bool operator<(const GemmShape& a, const GemmShape& b) {
  return std::tie(a.precision, a.c16, a.m, a.n, a.k, a.layout, a.batch) <
         std::tie(b.precision, b.c16, b.m, b.n, b.k, b.layout, b.batch);
}

std::size_t GemmShapeHash::operator()(const GemmShape& s) const noexcept {
  std::size_t h = static_cast<std::size_t>(s.m) * 0x9E3779B97F4A7C15ull;
  for (const long long v : {static_cast<long long>(s.n), static_cast<long long>(s.k), static_cast<long long>(s.batch),
                            static_cast<long long>(s.layout) * 16 + static_cast<long long>(s.precision) * 2 + (s.c16 ? 1 : 0)})
    h ^= static_cast<std::size_t>(v) + 0x9E3779B9ull + (h << 6) + (h >> 2);
  return h;
}

GemmShape parse_shape(const std::string& raw, Precision precision) {
  const std::string entry = trim(raw);
  if (entry.empty()) throw std::invalid_argument("empty size in the size list");
  const std::vector<std::string> fields = split(entry, ':');
  std::vector<std::string> dims;
  for (const std::string& d : split(fields[0], 'x'))
    for (const std::string& part : split(d, 'X')) dims.push_back(part);
  GemmShape shape;
  shape.precision = precision;
  if (dims.size() == 1) {
    shape.m = shape.n = shape.k = parse_number(dims[0], entry, "dimension", kMaxDimension);
  } else if (dims.size() == 3) {
    shape.m = parse_number(dims[0], entry, "dimension", kMaxDimension);
    shape.n = parse_number(dims[1], entry, "dimension", kMaxDimension);
    shape.k = parse_number(dims[2], entry, "dimension", kMaxDimension);
  } else {
    throw std::invalid_argument(fmt::format("size '{}' must be N or MxNxK", entry));
  }
  bool layout_seen = false, batch_seen = false, precision_seen = false;
  for (std::size_t i = 1; i < fields.size(); ++i) {
    const std::string& field = fields[i];
    if (field == "c16") {
      if (shape.c16) throw std::invalid_argument(fmt::format("size '{}' gives c16 twice", entry));
      shape.c16 = true;
    } else if (const auto p = parse_precision(field)) {
      if (precision_seen) throw std::invalid_argument(fmt::format("size '{}' gives the precision twice", entry));
      precision_seen = true;
      shape.precision = *p;
    } else if (!field.empty() && (field[0] == 'b' || field[0] == 'B') && field != "bf16") {
      if (batch_seen) throw std::invalid_argument(fmt::format("size '{}' gives the batch twice", entry));
      batch_seen = true;
      shape.batch = parse_number(field.substr(1), entry, "batch", kMaxBatch);
    } else {
      if (layout_seen) throw std::invalid_argument(fmt::format("size '{}' gives the layout twice", entry));
      layout_seen = true;
      if (field != "nn" && field != "nt" && field != "tn" && field != "tt")
        throw std::invalid_argument(
            fmt::format("size '{}': '{}' is neither a layout (nn, nt, tn, tt), a batch (bCOUNT), c16 nor a "
                        "precision (fp32, 3xtf32, tf32, bf16, fp16)",
                        entry, field));
      shape.layout = parse_layout(field);
    }
  }
  if (shape.c16 && operand_bytes(shape.precision) != 2)
    throw std::invalid_argument(fmt::format("size '{}': c16 (C in the operands' 16-bit type) needs bf16 or fp16, "
                                            "not {}",
                                            entry, precision_name(shape.precision)));
  const long long largest = std::max({static_cast<long long>(shape.m) * shape.k,
                                      static_cast<long long>(shape.k) * shape.n,
                                      static_cast<long long>(shape.m) * shape.n});
  if (largest * shape.batch > kMaxBatchedElements)
    throw std::invalid_argument(fmt::format("size '{}' is too large: an operand of the whole batch holds more "
                                            "than {} elements",
                                            entry, kMaxBatchedElements));
  return shape;
}

std::vector<GemmShape> parse_sizes(const std::string& text, Precision precision) {
  std::vector<GemmShape> shapes;
  for (const std::string& entry : split(text, ',')) {
    const GemmShape s = parse_shape(entry, precision);
    bool seen = false;
    for (const auto& prior : shapes) seen = seen || prior == s;
    if (!seen) shapes.push_back(s);
  }
  return shapes;
}

void shape_to_json(nlohmann::json& object, const GemmShape& shape) {
  object["m"] = shape.m;
  object["n"] = shape.n;
  object["k"] = shape.k;
  object["layout"] = layout_name(shape.layout);
  object["batch"] = shape.batch;
  object["precision"] = precision_name(shape.precision);
  if (shape.c16) {
    object["c"] = precision_name(shape.precision);
  } else {
    object.erase("c");  // FP32 C: no field, as before 16-bit C existed
  }
}

GemmShape shape_from_json(const nlohmann::json& object) {
  auto integer = [&](const char* key, int max) {
    const auto it = object.find(key);
    if (it == object.end()) throw std::invalid_argument(fmt::format("lacks '{}'", key));
    if (!it->is_number_integer() || it->get<long long>() < 1 || it->get<long long>() > max)
      throw std::invalid_argument(fmt::format("'{}' must be an integer in 1..{}", key, max));
    return it->get<int>();
  };
  if (!object.is_object()) throw std::invalid_argument("a problem must be a JSON object");
  GemmShape shape{integer("m", kMaxDimension), integer("n", kMaxDimension), integer("k", kMaxDimension)};
  if (const auto it = object.find("layout"); it != object.end()) {
    if (!it->is_string()) throw std::invalid_argument("'layout' must be a string");
    try {
      shape.layout = parse_layout(it->get<std::string>());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("'layout' ") + e.what());
    }
  }
  if (object.contains("batch")) shape.batch = integer("batch", kMaxBatch);
  if (const auto it = object.find("precision"); it != object.end()) {
    const auto p = it->is_string() ? parse_precision(it->get<std::string>()) : std::nullopt;
    if (!p) throw std::invalid_argument("'precision' must be one of fp32, 3xtf32, tf32, bf16, fp16");
    shape.precision = *p;
  }
  if (const auto it = object.find("c"); it != object.end()) {
    const auto c16 = it->is_string() ? parse_c_type(it->get<std::string>(), shape.precision) : std::nullopt;
    if (!c16) throw std::invalid_argument(std::string("'c' ") + kCTypeRule);
    shape.c16 = *c16;
  }
  return shape;
}

std::optional<bool> parse_c_type(std::string_view text, Precision precision) {
  if (text == "fp32") return false;
  if (operand_bytes(precision) == 2 && text == precision_name(precision)) return true;
  return std::nullopt;
}

int packed_aligned_width(const GemmShape& shape) {
  return aligned_width(shape.precision, shape.lda(), shape.ldb(), shape.n, nullptr, nullptr, nullptr, shape.batch,
                       shape.stride_a(), shape.stride_b(), shape.stride_c());
}

KernelPath kernel_path_for(const KernelConfig& config, const GemmShape& shape) {
  return kernel_path_for(config, shape.m, shape.n, shape.k, packed_aligned_width(shape));
}

}  // namespace gemmtune
