// The registry outlives every static destructor (it is never freed), so a handle destroyed during
// static destruction and the exit hook can both reach it in either order; each source hands out its
// counts once, so nothing is written twice. A session's counts gather in the registry (from handles
// destroyed while it is on) until it stops, so its file is written once per session, not per handle.
#include "shape_recorder.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include "runtime_log.hpp"

namespace gemmtune {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<int, std::pair<std::filesystem::path, RecordSource>> sources;
  int next = 1;
  std::filesystem::path session;             // empty: no session
  std::vector<RecordedProblem> session_counts;  // gathered since the session started
};

std::atomic<bool> session_on{false};

// Adds problems to the $GEMMTUNE_RECORD file at path (if any); the reg.mutex is held.
void write_record(const std::filesystem::path& path, const std::vector<RecordedProblem>& problems) noexcept {
  if (path.empty() || problems.empty()) return;
  try {
    add_to_record_file(path, problems);
  } catch (const std::exception& e) {
    runtime_logger().error("GEMMTUNE_RECORD: {}", printable(e.what()));
  } catch (...) {
    runtime_logger().error("GEMMTUNE_RECORD: the record could not be written");
  }
}

// Takes a source's counts for its own file and the session; the reg.mutex is held.
void take_locked(Registry& reg, const std::filesystem::path& path, const RecordSource& source) noexcept {
  if (path.empty() && reg.session.empty()) return;
  try {
    const std::vector<RecordedProblem> problems = source();
    write_record(path, problems);
    if (!reg.session.empty())
      for (const RecordedProblem& p : problems) add_recorded(reg.session_counts, p);
  } catch (const std::exception& e) {
    runtime_logger().error("recording: {}", printable(e.what()));
  } catch (...) {
    runtime_logger().error("recording: the counts could not be taken");
  }
}

Registry& registry() {
  static Registry* const instance = [] {
    auto* r = new Registry;  // never freed: see above
    std::atexit([] {
      Registry& reg = registry();
      std::lock_guard<std::mutex> lock(reg.mutex);
      for (const auto& [token, entry] : reg.sources) take_locked(reg, entry.first, entry.second);
      if (!reg.session.empty()) {
        write_record(reg.session, reg.session_counts);
        reg.session.clear();
        session_on.store(false, std::memory_order_relaxed);
      }
    });
    return r;
  }();
  return *instance;
}

}  // namespace

std::filesystem::path record_path_requested() {
  const char* env = std::getenv("GEMMTUNE_RECORD");
  return env && *env ? std::filesystem::path(env) : std::filesystem::path();
}

int register_record_source(const std::filesystem::path& path, RecordSource source) {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  const int token = reg.next++;
  reg.sources.emplace(token, std::make_pair(path, std::move(source)));
  return token;
}

void unregister_record_source(int token) {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  reg.sources.erase(token);
}

void flush_record(const std::filesystem::path& path, const RecordSource& source) noexcept {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  take_locked(reg, path, source);
}

bool record_session_active() noexcept {
  return session_on.load(std::memory_order_relaxed);
}

void start_record_session(const std::filesystem::path& path) {
  if (path.empty()) throw std::invalid_argument("the record file's path is empty");
  if (record_session_active()) stop_record_session();
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  // Counts so far belong to $GEMMTUNE_RECORD alone; the first write proves the file is writable.
  for (const auto& [token, entry] : reg.sources) take_locked(reg, entry.first, entry.second);
  add_to_record_file(path, {});
  reg.session = path;
  reg.session_counts.clear();
  session_on.store(true, std::memory_order_relaxed);
}

void stop_record_session() {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  if (reg.session.empty()) throw std::logic_error("no recording was started");
  for (const auto& [token, entry] : reg.sources) take_locked(reg, entry.first, entry.second);
  const std::filesystem::path path = reg.session;
  std::vector<RecordedProblem> counts = std::move(reg.session_counts);
  reg.session.clear();
  reg.session_counts.clear();
  session_on.store(false, std::memory_order_relaxed);
  if (!counts.empty()) add_to_record_file(path, counts);
}

}  // namespace gemmtune
