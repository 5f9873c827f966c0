// The append-only record of every evaluation (results/logs/<gpu-slug>.jsonl). One JSON object per
// line, appended and flushed as soon as a measurement ends, so an interrupted run (Ctrl-C,
// kill -9) loses at most the line being written; a torn last line is skipped on reading. A
// re-run finds its earlier measurements here and does not repeat them. Entries carry their kernel
// template's hash (sgemm's, or that of the skinny, mma or wgmma family for configs named after it): measurements of an
// older template are never reused. The first line names the
// device; a log of another device is refused. The GPUs of one model in a multi-GPU run share one
// log, so find and append may be called from several threads.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "core/problem.hpp"

namespace gemmtune {

class TuningLog {
 public:
  // Opens (creating if needed) the log; throws std::invalid_argument if it belongs to another
  // device, std::runtime_error if it cannot be written.
  // The hashes of the sgemm, skinny, mma and wgmma templates: a record counts only for the template
  // it ran.
  TuningLog(const std::filesystem::path& path, const std::string& device_slug, std::string template_hash,
            std::string skinny_template_hash = {}, std::string mma_template_hash = {},
            std::string wgmma_template_hash = {});
  ~TuningLog();
  TuningLog(const TuningLog&) = delete;
  TuningLog& operator=(const TuningLog&) = delete;

  // Earlier evaluation of this config name at this shape with the current template, or null. The
  // record stays where it is while the log lives (a map keeps its nodes in place).
  const nlohmann::json* find(const GemmShape& shape, const std::string& config_name) const;

  // Appends one evaluation record (adds shape, template hash and time).
  void append(const GemmShape& shape, nlohmann::json record);

  std::size_t reused_entries() const { return entries_.size(); }

 private:
  static std::string key(const GemmShape& s, const std::string& name);
  const std::string& template_hash_of(const std::string& config_name) const;
  std::string template_hash_;
  std::string skinny_template_hash_;
  std::string mma_template_hash_;
  std::string wgmma_template_hash_;
  mutable std::mutex mutex_;  // entries_ and file_
  std::FILE* file_ = nullptr;
  std::map<std::string, nlohmann::json> entries_;
};

}  // namespace gemmtune
