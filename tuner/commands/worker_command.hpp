// `gemm-tune worker --device N`: the hidden subcommand that starts the GPU evaluation process
// (measure/worker.hpp); the tuner's GPU session (measure/worker_process.hpp) is its only caller.
#pragma once

#include "commands/command.hpp"

namespace gemmtune {

Command add_worker_command(CLI::App& app);

}  // namespace gemmtune
