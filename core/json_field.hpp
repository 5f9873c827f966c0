// Checked reads of a JSON document that came from outside (results, plan, cross and peers files).
// A Field carries the path to its value ("entries[2].best.tflops"), so every complaint names the
// exact spot: "'entries[2].best.tflops' must be a number in 0..1e+06". Each failure throws
// std::invalid_argument with one printable line; callers add the file's name in front.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gemmtune {

class Field {
 public:
  // Strings longer than this are refused: no field of ours is, and a hostile one stays out of logs.
  static constexpr std::size_t kMaxTextLength = 256;

  Field(const nlohmann::json& value, std::string where) : value_(value), where_(std::move(where)) {}

  const nlohmann::json& json() const { return value_; }
  bool has(const char* key) const { return value_.is_object() && value_.contains(key); }

  Field operator[](const char* key) const {
    if (!value_.is_object()) fail("must be an object");
    const auto it = value_.find(key);
    if (it == value_.end()) throw std::invalid_argument(fmt::format("{} lacks '{}'", describe(), key));
    return Field(*it, where_.empty() ? key : where_ + "." + key);
  }

  std::vector<Field> elements() const {
    if (!value_.is_array()) fail("must be an array");
    std::vector<Field> out;
    out.reserve(value_.size());
    for (std::size_t i = 0; i < value_.size(); ++i) out.emplace_back(value_[i], fmt::format("{}[{}]", where_, i));
    return out;
  }

  std::string text() const {
    if (!value_.is_string() || value_.get_ref<const std::string&>().empty() ||
        value_.get_ref<const std::string&>().size() > kMaxTextLength)
      fail(fmt::format("must be a non-empty string of at most {} characters", kMaxTextLength));
    return value_.get<std::string>();
  }

  double number(double lo, double hi) const {
    if (!value_.is_number() || !(value_.get<double>() >= lo) || !(value_.get<double>() <= hi))
      fail(fmt::format("must be a number in {}..{}", lo, hi));
    return value_.get<double>();
  }

  int integer(int lo, int hi) const {
    // Unsigned values above LLONG_MAX would wrap in get<long long>: refused before that.
    const bool in_range = value_.is_number_unsigned() ? value_.get<unsigned long long>() <= static_cast<unsigned long long>(hi) &&
                                                            value_.get<unsigned long long>() >= static_cast<unsigned long long>(lo < 0 ? 0 : lo)
                          : value_.is_number_integer() ? value_.get<long long>() >= lo && value_.get<long long>() <= hi
                                                       : false;
    if (!in_range) fail(fmt::format("must be an integer in {}..{}", lo, hi));
    return static_cast<int>(value_.get<long long>());
  }

  // Conversions that validate themselves (device profiles, kernel configs, cuBLASLt algorithms) get
  // the location added to their message.
  template <typename T>
  T as() const {
    try {
      return value_.get<T>();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: {}", where_.empty() ? "the top level" : where_, e.what()));
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument(fmt::format("{}: {}", where_.empty() ? "the top level" : where_, e.what()));
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(fmt::format("{} {}", describe(), what));
  }

 private:
  std::string describe() const { return where_.empty() ? "the top level" : "'" + where_ + "'"; }

  const nlohmann::json& value_;
  std::string where_;
};

}  // namespace gemmtune
