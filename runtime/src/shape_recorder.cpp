// The registry outlives every static destructor (it is never freed), so a handle destroyed during
// static destruction and the exit hook can both reach it in either order; each source hands out its
// counts once, so nothing is written twice.
#include "shape_recorder.hpp"

#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime_log.hpp"

namespace gemmtune {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<int, std::pair<std::filesystem::path, RecordSource>> sources;
  int next = 1;
};

Registry& registry() {
  static Registry* const instance = [] {
    auto* r = new Registry;  // never freed: see above
    std::atexit([] {
      Registry& reg = registry();
      std::lock_guard<std::mutex> lock(reg.mutex);
      for (const auto& [token, entry] : reg.sources) flush_record(entry.first, entry.second);
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

int register_record_source(RecordSource source) {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  const int token = reg.next++;
  reg.sources.emplace(token, std::make_pair(record_path_requested(), std::move(source)));
  return token;
}

void unregister_record_source(int token) {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  reg.sources.erase(token);
}

void flush_record(const std::filesystem::path& path, const RecordSource& source) noexcept {
  try {
    const std::vector<RecordedProblem> problems = source();
    if (!problems.empty()) add_to_record_file(path, problems);
  } catch (const std::exception& e) {
    runtime_logger().error("GEMMTUNE_RECORD: {}", printable(e.what()));
  } catch (...) {
    runtime_logger().error("GEMMTUNE_RECORD: the record could not be written");
  }
}

}  // namespace gemmtune
