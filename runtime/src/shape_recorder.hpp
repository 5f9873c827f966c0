// $GEMMTUNE_RECORD: what a handle was called with, written out when it is destroyed and at exit.
// The call path only bumps a per-shape counter (see DeviceKernels' ResolvedShape::calls); the file is
// written here, never during a call, and a file that cannot be written costs one log line.
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

// Registers a handle's source; the returned token unregisters it. Sources still registered at exit
// are flushed then (a handle that is never destroyed still records).
int register_record_source(RecordSource source);
void unregister_record_source(int token);

// Adds what source reports to path. Never throws: a failure is logged in one line.
void flush_record(const std::filesystem::path& path, const RecordSource& source) noexcept;

}  // namespace gemmtune
