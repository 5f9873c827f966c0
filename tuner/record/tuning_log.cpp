// TuningLog: reading tolerates a torn last line; writing is one fwrite + fflush + fsync per record.
#include "record/tuning_log.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "core/timestamp.hpp"
#include "measure/candidate_status.hpp"

namespace gemmtune {
namespace {

bool is_dimension(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() && it->get<long long>() >= 1 &&
         it->get<long long>() <= kMaxDimension;
}

// The string at key, or an empty string when it is absent or not a string (value() would throw).
std::string text_field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Every field a resumed run reads from a reused record (commands/shape_tuner.cpp) has the type it
// reads.
bool is_reusable_record(const nlohmann::json& j) {
  if (!is_dimension(j, "m") || !is_dimension(j, "n") || !is_dimension(j, "k") ||
      text_field(j, "name").empty())
    return false;
  if ((j.contains("status") && !j["status"].is_string()) ||
      (j.contains("detail") && !j["detail"].is_string()))
    return false;
  if (parse_status(text_field(j, "status")) != CandidateStatus::ok) return true;
  const auto ms = j.find("median_ms");
  return ms != j.end() && ms->is_number() && ms->get<double>() > 0;
}

}  // namespace

std::string TuningLog::key(const GemmShape& s, const std::string& name) {
  return s.label() + "/" + name;  // the label spells layout and batch, and the name the layout too
}

const std::string& TuningLog::template_hash_of(const std::string& config_name) const {
  if (config_name.rfind("skinny_", 0) == 0) return skinny_template_hash_;
  if (config_name.rfind("wgmma_", 0) == 0) return wgmma_template_hash_;
  return config_name.rfind("mma_", 0) == 0 ? mma_template_hash_ : template_hash_;
}

TuningLog::TuningLog(const std::filesystem::path& path, const std::string& device_slug, std::string template_hash,
                     std::string skinny_template_hash, std::string mma_template_hash,
                     std::string wgmma_template_hash)
    : template_hash_(std::move(template_hash)),
      skinny_template_hash_(std::move(skinny_template_hash)),
      mma_template_hash_(std::move(mma_template_hash)),
      wgmma_template_hash_(std::move(wgmma_template_hash)) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  bool has_header = false;
  std::size_t torn = 0;
  if (std::ifstream in(path); in) {
    std::string line;
    while (std::getline(in, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // records start on a fresh line
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        ++torn;
        continue;
      }
      const std::string type = text_field(j, "type");
      if (type == "header") {
        if (text_field(j, "device") != device_slug)
          throw std::invalid_argument(fmt::format("tuning log {} belongs to device '{}', not '{}'",
                                                  path.string(), text_field(j, "device"), device_slug));
        has_header = true;
      } else if (type == "evaluation" && text_field(j, "template") == template_hash_of(text_field(j, "name"))) {
        // A line of the right template with mistyped fields is unreadable too, never a type_error.
        if (!is_reusable_record(j)) {
          ++torn;
          continue;
        }
        GemmShape s;
        try {
          s = shape_from_json(j);
        } catch (const std::invalid_argument&) {
          ++torn;
          continue;
        }
        const std::string entry_key = key(s, j["name"].get<std::string>());
        entries_[entry_key] = std::move(j);
      }
    }
  }
  if (torn > 0)
    spdlog::warn("tuning log {}: skipped {} unreadable line(s) (an interrupted write)", path.string(), torn);
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw std::runtime_error(fmt::format("cannot append to the tuning log {}", path.string()));
  if (!has_header) {
    const nlohmann::json header = {
        {"type", "header"}, {"device", device_slug}, {"kernel", "sgemm"}, {"created", utc_timestamp()}};
    // A torn line from a crash must not swallow the header: start on a fresh line.
    std::fputs(("\n" + header.dump() + "\n").c_str(), file_);
    std::fflush(file_);
  }
}

TuningLog::~TuningLog() {
  if (file_) std::fclose(file_);
}

const nlohmann::json* TuningLog::find(const GemmShape& shape, const std::string& name) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key(shape, name));
  return it == entries_.end() ? nullptr : &it->second;
}

void TuningLog::append(const GemmShape& shape, nlohmann::json record) {
  record["type"] = "evaluation";
  shape_to_json(record, shape);
  record["template"] = template_hash_of(record.value("name", ""));
  record["time"] = utc_timestamp();
  const std::string line = "\n" + record.dump() + "\n";  // leading newline: never glued to a torn line
  const std::lock_guard<std::mutex> lock(mutex_);
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0 || fsync(fileno(file_)) != 0)
    throw std::runtime_error("cannot write the tuning log (disk full?)");
  const std::string entry_key = key(shape, record["name"].get<std::string>());
  entries_[entry_key] = std::move(record);
}

}  // namespace gemmtune
