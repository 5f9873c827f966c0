// The runtime's catalog of results files: one file, or every *.json file of a directory, each read
// whole by core's results reader before any of it is used. A file whose own fields fail is ignored
// as a whole, an entry that fails is left out of its file, and either is reported as an issue;
// nothing here throws for bad input.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/results_file.hpp"

namespace gemmtune {

struct ResultsIssue {
  enum class Kind { not_found, invalid };
  Kind kind = Kind::invalid;
  std::string message;  // "<path>: <reason>", printable, one line
};

struct ResultsCatalog {
  std::vector<TunedResults> files;  // in file-name order, so lookups are deterministic
  std::vector<ResultsIssue> issues;
  bool single_file = false;  // the path named a file rather than a directory
};

// Validates one document (core/results_file.hpp), leaving out the entries that fail (their reasons
// in left_out); throws std::invalid_argument (or NotResultsDocument) with a printable reason where
// the file's own fields fail. origin names the document in messages.
TunedResults parse_results(std::string_view text, const std::string& origin);

// Loads a results file, or every *.json file directly in a directory (plans are skipped there).
// must_exist: a missing path or a directory without results files is an issue, not just empty.
ResultsCatalog load_results(const std::filesystem::path& path, bool must_exist);

}  // namespace gemmtune
