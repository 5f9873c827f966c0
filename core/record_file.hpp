// The record file of $GEMMTUNE_RECORD: the distinct problems an application called, with call
// counts, which `gemm-tune --sizes-from` tunes. JSON Lines, so an error names its line: a header
// line, then one problem per line:
//   {"schema":"gemmtune.record/1"}
//   {"m":512,"n":512,"k":512,"layout":"nn","batch":1,"aligned_width":4,"calls":1200}
// aligned_width is the widest vector (4, 2 or 1 floats) every row of A and B starts aligned to, as
// the runtime's lookup sees the call. Several processes may record into one file: every write is a
// merge under a lock, and a reader never sees a torn file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"

namespace gemmtune {

inline constexpr std::size_t kMaxRecordFileBytes = 64u << 20;
inline constexpr std::size_t kMaxRecordLineBytes = 1024;

// A problem the application called, how its operands were aligned, and how often.
struct RecordedProblem {
  GemmShape problem;
  int aligned_width = 4;
  std::uint64_t calls = 0;

  bool same_problem(const RecordedProblem& o) const {
    return problem == o.problem && aligned_width == o.aligned_width;
  }
};

// Adds p to problems: its calls to the same problem's, or as a new one.
void add_recorded(std::vector<RecordedProblem>& problems, const RecordedProblem& p);

// Parses a record file; throws std::invalid_argument "<origin>:<line>: <field>: <why>" for the first
// bad line. Repeated problems are summed.
std::vector<RecordedProblem> parse_record(std::string_view text, const std::string& origin);

// The file's text: header, then the problems most called first.
std::string format_record(std::vector<RecordedProblem> problems);

// Adds the counts to the file's (creating it), under <path>.lock, replacing the file atomically.
// Throws std::runtime_error (cannot write) or std::invalid_argument (the file holds something else:
// it is then left alone).
void add_to_record_file(const std::filesystem::path& path, const std::vector<RecordedProblem>& problems);

}  // namespace gemmtune
