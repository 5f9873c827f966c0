// The merge command's edge: file names in, the merged file written atomically (a reader, or a
// second merge into the same file, never sees half of it) and a few lines of what was kept out.
#include "commands/merge_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "record/results_merge.hpp"

namespace gemmtune {

int run_merge(const MergeOptions& o) {
  const MergedFiles merged = merge_result_files({o.files.begin(), o.files.end()});
  const std::filesystem::path out(o.output);
  std::error_code ec;
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path(), ec);
  std::string error;
  if (!write_file_atomically(out, merged.document.dump(2) + "\n", &error))
    throw std::runtime_error(fmt::format("cannot write {}: {}", out.string(), error));
  for (const std::string& note : merged.notes) std::cout << note << '\n';
  std::cout << fmt::format("merged {} {} file(s) for {}: {} problem(s) -> {}\n", o.files.size(), merged.kind,
                           merged.gpu, merged.problems, out.string());
  return 0;
}

Command add_merge_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "merge", "Combine one GPU model's results files (the faster winner per problem) or plan files");
  const auto options = std::make_shared<MergeOptions>();
  cmd->add_option("-o,--output", options->output, "The merged file (written atomically)")->required();
  cmd->add_option("files", options->files,
                  "Results files (gemmtune.results/3, /2 or /1) or plan files (gemmtune.plan/1), one GPU model")
      ->required();
  return {cmd, [options] { return run_merge(*options); }, nullptr};
}

}  // namespace gemmtune
