// File helpers for data that must never be seen half-written: results caches, compile-cache
// entries. A write goes to a unique temporary file in the same directory, is flushed to disk and
// renamed over the target, so readers (and a process killed mid-write) see the old or the new
// content, never a mix.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace gemmtune {

// Returns false (and leaves the target untouched) if anything fails: a full disk, a read-only
// directory. error, if given, receives the reason.
bool write_file_atomically(const std::filesystem::path& path, const std::string& data, std::string* error = nullptr);

// The whole file, or nullopt if it cannot be opened.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

}  // namespace gemmtune
