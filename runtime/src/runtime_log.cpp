// The runtime logger is created on first use and never registered globally, so an application's
// spdlog setup and ours never touch.
#include "runtime_log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>
#include <memory>

namespace gemmtune {

spdlog::logger& runtime_logger() {
  static const std::shared_ptr<spdlog::logger> logger = [] {
    auto created =
        std::make_shared<spdlog::logger>("gemmtune", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    created->set_pattern("[gemmtune] %l: %v");
    const char* level = std::getenv("GEMMTUNE_LOG_LEVEL");
    // from_str maps unknown names to off; an unknown name keeps the default instead.
    const auto parsed = level ? spdlog::level::from_str(level) : spdlog::level::off;
    const bool known = level && (parsed != spdlog::level::off || std::string_view(level) == "off");
    created->set_level(known ? parsed : spdlog::level::warn);
    return created;
  }();
  return *logger;
}

}  // namespace gemmtune
