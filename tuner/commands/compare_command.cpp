// The compare command: load every file first (so a bad file is reported before any output), build
// the comparison, render it in one format.
#include "commands/compare_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "core/result_documents.hpp"
#include "report/compare_report.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/text_report.hpp"

namespace gemmtune {

std::string compare_report(const CompareOptions& options) {
  if (options.files.size() < 2) throw std::invalid_argument("compare needs at least two files");
  std::vector<ResultFile> files;
  for (const std::string& file : options.files) files.push_back(load_result_file(file));
  const Comparison comparison = build_comparison(files);
  if (options.format == "table") return terminal_report(comparison_tables(comparison));
  if (options.format == "md") return markdown_report(comparison_tables(comparison));
  if (options.format == "json")
    return comparison_json(comparison).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (options.format == "html") return html_report(comparison);
  throw std::invalid_argument("unknown report format '" + options.format + "' (table, md, json or html)");
}

int run_compare(const CompareOptions& options) {
  const std::string report = compare_report(options);
  if (options.output.empty()) {
    std::cout << report << std::flush;
    return 0;
  }
  std::string error;
  if (!write_file_atomically(options.output, report, &error))
    throw std::runtime_error("cannot write the report to " + options.output + ": " + error);
  return 0;
}

Command add_compare_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "compare", "Set GPUs' winners side by side: results, plan (predictions), cross and peers files");
  const auto options = std::make_shared<CompareOptions>();
  cmd->add_option("files", options->files,
                  "Two or more files: results (gemmtune.results/3, /2 or /1), plans (gemmtune.plan/1), cross "
                  "(gemmtune.cross/1), "
                  "peers (gemmtune.peers/1: Triton and torch.mm, beside the same GPU's results)")
      ->required();
  cmd->add_option("--format", options->format, "table (terminal), md, json or html (self-contained page)")
      ->check(CLI::IsMember({"table", "md", "json", "html"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", options->output, "Write the report to this file instead of standard output");
  return {cmd, [options] { return run_compare(*options); }, nullptr};
}

}  // namespace gemmtune
