// $GEMMTUNE_RECORD: what a handle was called with, written out when it is destroyed and at exit.
// The call path only bumps a per-shape counter (see DeviceKernels' ResolvedShape::calls); the file is
// written here, never during a call, and a file that cannot be written costs one log line.
// A recording session (gemmtune_record_start/stop, Python's `gemmtune.record`) does the same for
// every handle of the process between two calls; with both on, each count goes to both files.
#pragma once

#include <filesystem>
#include <functional>
#include <vector>

#include "core/record_file.hpp"

namespace gemmtune {

// The path in $GEMMTUNE_RECORD, or empty when recording is off.
std::filesystem::path record_path_requested();

// A source of counts: returns the problems called since its last report (and forgets them).
using RecordSource = std::function<std::vector<RecordedProblem>()>;

// Registers a handle's source with its $GEMMTUNE_RECORD path (may be empty: then only a session
// takes its counts); the returned token unregisters it. Sources still registered at exit are
// flushed then (a handle that is never destroyed still records).
int register_record_source(const std::filesystem::path& path, RecordSource source);
void unregister_record_source(int token);

// Adds what source reports to path and to the session, if one is on. Never throws: a failure is
// logged in one line.
void flush_record(const std::filesystem::path& path, const RecordSource& source) noexcept;

// Whether a session is on: the call path counts calls while it is (one relaxed load).
bool record_session_active() noexcept;

// Starts a session writing to path (what was counted before goes to $GEMMTUNE_RECORD only); a
// session already on is stopped first. Stops it: every count since its start is added to its file.
// Both throw std::runtime_error or std::invalid_argument (record_file.hpp) for a file that cannot
// be written; stopping with no session on throws std::logic_error.
void start_record_session(const std::filesystem::path& path);
void stop_record_session();

}  // namespace gemmtune
