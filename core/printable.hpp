// Text from untrusted files (results, record files) made safe to put in a log line or an error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gemmtune {

// text with every byte outside printable ASCII replaced by '?' and cut to max_bytes (marked "..."),
// so a hostile file cannot forge log lines or send terminal escapes.
std::string printable(std::string_view text, std::size_t max_bytes = 240);

}  // namespace gemmtune
