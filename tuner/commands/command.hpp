// What main() needs from a command: where CLI11 parsed its options, how to run it, and which
// common options (--log-level among them) apply. Each command file registers itself with one
// add_*_command(app) call, so main() reads as a table of commands, and a new command is one file
// pair and one line there.
#pragma once

#include <functional>
#include <memory>

#include "commands/common_options.hpp"

namespace CLI {
class App;
}

namespace gemmtune {

struct Command {
  CLI::App* cli = nullptr;   // its subcommand; the app itself for the default command (tune)
  std::function<int()> run;  // once parsed; errors are thrown, and main() maps them to exit codes
  // Its --sizes, --log-level, ...; null where it has none and the default command's apply.
  std::shared_ptr<const CommonOptions> common;
  // It reads the options given before any command's name (the tune command's, on the app itself).
  bool reads_app_options = false;
};

}  // namespace gemmtune
