// gemm-tune: command-line entry. A table of the commands (each registers its own options, in
// commands/), then the one mapping of errors to a one-line message and an exit code (2: bad input,
// 3: no usable GPU, 1: anything else) that every command shares.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "commands/bench_command.hpp"
#include "commands/command.hpp"
#include "commands/compare_command.hpp"
#include "commands/cross_command.hpp"
#include "commands/merge_command.hpp"
#include "commands/plan_command.hpp"
#include "commands/portfolio_command.hpp"
#include "commands/tune_command.hpp"
#include "commands/worker_command.hpp"
#include "core/version.hpp"

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitNoDevice = 3;

}  // namespace

int main(int argc, char** argv) {
  using namespace gemmtune;
  auto logger = spdlog::stderr_color_mt("gemm-tune");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%^%l%$: %v");

  CLI::App app{"gemm-tune: search CUDA SGEMM kernel configurations and keep the best per GPU and size"};
  app.set_version_flag("--version", std::string("gemm-tune ") + kGemmtuneVersion);
  app.require_subcommand(0, 1);

  // Plain `gemm-tune --sizes ...` tunes: the default command's options sit on the app itself.
  // bench tunes the shapes it has no results for with those same options.
  const auto tune_options = std::make_shared<TuneOptions>();
  const Command tune = add_tune_command(app, tune_options);
  const Command subcommands[] = {
      add_plan_command(app),                 // rank a space for a GPU, without the GPU
      add_cross_command(app),                // other GPUs' winners measured here
      add_bench_command(app, tune_options),  // tuned kernels against cuBLAS
      add_compare_command(app),              // GPUs' results side by side
      add_portfolio_command(app),            // kernels against cuBLAS over a grid of shapes
      add_merge_command(app),                // a sharded run's files combined into one
      add_worker_command(app),               // hidden: the GPU evaluation process
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }

  const Command* chosen = &tune;
  for (const Command& command : subcommands)
    if (command.cli->parsed()) chosen = &command;
  // Options before a command's name are the tune command's: a command that does not read them
  // would drop them without a word (`gemm-tune --results-dir X plan` writing to results/). The one
  // exception: a command with no common options of its own (cross, portfolio, compare, merge)
  // takes its log level from there (below), so `gemm-tune --log-level debug portfolio` stays.
  if (!chosen->reads_app_options)
    for (const CLI::Option* option : app.get_options())
      if (option->count() > 0 && !(option->get_name() == "--log-level" && !chosen->common)) {
        const std::string name = chosen->cli->get_name();
        std::fprintf(stderr, "gemm-tune: %s before '%s' is a tuning option; give %s's own options after its name (gemm-tune %s --help)\n",
                     option->get_name().c_str(), name.c_str(), name.c_str(), name.c_str());
        return kExitBadInput;
      }
  spdlog::set_level(spdlog::level::from_str((chosen->common ? chosen->common : tune.common)->log_level));
  try {
    return chosen->run();
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr,
                 "gemm-tune: %s. To plan for a GPU without one: gemm-tune plan --gpu h100 --sizes %s\n",
                 e.what(), tune.common->sizes.c_str());
    return kExitNoDevice;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gemm-tune: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm-tune: error: %s\n", e.what());
    return 1;
  }
}
