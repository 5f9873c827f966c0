// UTC timestamps in ISO 8601 for result and plan files ("2026-11-21T19:40:00Z").
#pragma once

#include <ctime>
#include <string>

namespace gemmtune {

inline std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gemmtune
