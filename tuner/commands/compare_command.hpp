// `gemm-tune compare FILE FILE...`: reads results, plan and cross files, and writes the comparison
// as a terminal table, Markdown, JSON or a self-contained HTML page.
#pragma once

#include <string>
#include <vector>

#include "commands/command.hpp"

namespace gemmtune {

struct CompareOptions {
  std::vector<std::string> files;
  std::string format = "table";  // table, md, json or html
  std::string output;            // empty: standard output
};

// The report in the requested format. Throws std::invalid_argument (one line naming the file) for
// a file that cannot be compared.
std::string compare_report(const CompareOptions& options);

// Writes the report to options.output or standard output; returns the exit code.
int run_compare(const CompareOptions& options);

// The `compare` subcommand and its options.
Command add_compare_command(CLI::App& app);

}  // namespace gemmtune
