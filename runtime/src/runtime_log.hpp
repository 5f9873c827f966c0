// Logging for the runtime library: its own logger (never the application's default spdlog logger,
// which a static link would share), level from $GEMMTUNE_LOG_LEVEL, and a filter that makes text from
// untrusted files safe to put in a log line.
#pragma once

#include <spdlog/logger.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace gemmtune {

// "gemmtune" on stderr; level $GEMMTUNE_LOG_LEVEL (trace, debug, info, warn, error, off), default warn.
spdlog::logger& runtime_logger();

// text with every byte outside printable ASCII replaced by '?' and cut to max_bytes (marked "..."),
// so a hostile file cannot forge log lines or send terminal escapes.
std::string printable(std::string_view text, std::size_t max_bytes = 240);

}  // namespace gemmtune
