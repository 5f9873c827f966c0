// The worker's options are the parent's to set, not a user's: the subcommand is hidden from help.
#include "commands/worker_command.hpp"

#include <CLI/CLI.hpp>

#include "measure/worker.hpp"

namespace gemmtune {

Command add_worker_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("worker", "Internal: the GPU evaluation process");
  cmd->group("");  // hidden
  const auto options = std::make_shared<WorkerOptions>();
  cmd->add_option("--device", options->device_index)->required();
  cmd->add_option("--cache-dir", options->cache_dir);
  cmd->add_option("--template", options->template_path);
  return {cmd, [options] { return run_worker(*options); }, nullptr};
}

}  // namespace gemmtune
