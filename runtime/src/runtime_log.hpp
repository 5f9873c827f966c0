// Logging for the runtime library: its own logger (never the application's default spdlog logger,
// which a static link would share), level from $GEMMTUNE_LOG_LEVEL. Text quoted from untrusted
// files goes through printable() first.
#pragma once

#include <spdlog/logger.h>

#include "core/printable.hpp"

namespace gemmtune {

// "gemmtune" on stderr; level $GEMMTUNE_LOG_LEVEL (trace, debug, info, warn, error, off), default warn.
spdlog::logger& runtime_logger();

}  // namespace gemmtune
