// flock-based locking: advisory, but every gemm-tune process takes it, and it is released by the
// kernel if the holder dies.
#include "record/results_store.hpp"

#include <cuda_runtime.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "atomic_file.hpp"
#include "kernel_compiler.hpp"
#include "record/timestamp.hpp"
#include "version.hpp"

namespace gemmtune {
namespace {

class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0)
      throw std::runtime_error(fmt::format("cannot lock {}: {}", path.string(), std::strerror(errno)));
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }

 private:
  int fd_ = -1;
};

bool same_key(const nlohmann::json& a, const nlohmann::json& b, const std::vector<std::string>& key_fields) {
  for (const auto& key : key_fields)
    if (a.value(key, nlohmann::json()) != b.value(key, nlohmann::json())) return false;
  return true;
}

}  // namespace

void merge_results(const std::filesystem::path& path, const nlohmann::json& header,
                   const nlohmann::json& entries) {
  merge_entries(path, kResultsSchema, header, entries, {"m", "n", "k", "dtype", "layout"});
}

nlohmann::json measured_header(const nlohmann::json& device) {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  return {{"device", device},
          {"cuda_runtime_version", fmt::format("{}.{}", runtime / 1000, (runtime % 1000) / 10)},
          {"nvrtc_version", nvrtc_version()},
          {"tool_version", kGemmtuneVersion},
          {"updated", utc_timestamp()}};
}

void merge_entries(const std::filesystem::path& path, const std::string& schema, const nlohmann::json& header,
                   const nlohmann::json& entries, const std::vector<std::string>& key_fields) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  FileLock lock(path.string() + ".lock");
  nlohmann::json doc = nlohmann::json::object();
  if (const auto text = read_whole_file(path)) {
    auto parsed = nlohmann::json::parse(*text, nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object() && parsed.value("schema", "") == schema) {
      doc = std::move(parsed);
    } else {
      // Never silently drop someone's data: keep the unreadable file beside the new one.
      const auto backup = path.string() + ".unreadable";
      std::filesystem::rename(path, backup, ec);
      spdlog::warn("{} was not a readable results file; moved it to {}", path.string(), backup);
    }
  }
  nlohmann::json merged = doc.value("entries", nlohmann::json::array());
  if (!merged.is_array()) merged = nlohmann::json::array();
  for (const auto& e : entries) {
    bool replaced = false;
    for (auto& old : merged) {
      if (same_key(old, e, key_fields)) {
        old = e;
        replaced = true;
      }
    }
    if (!replaced) merged.push_back(e);
  }
  std::sort(merged.begin(), merged.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return std::make_tuple(a.value("from", std::string()), a.value("m", 0), a.value("n", 0),
                           a.value("k", 0)) <
           std::make_tuple(b.value("from", std::string()), b.value("m", 0), b.value("n", 0), b.value("k", 0));
  });
  nlohmann::json out = header;
  out["schema"] = schema;
  out["kind"] = "measured";
  out["entries"] = merged;
  std::string error;
  if (!write_file_atomically(path, out.dump(2) + "\n", &error))
    throw std::runtime_error(fmt::format("cannot write results {}: {}", path.string(), error));
}

}  // namespace gemmtune
