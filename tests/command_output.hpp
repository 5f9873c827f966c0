// Runs a shell command and collects what it prints (standard output and error together) and its
// exit code, for tests of the gemm-tune binary as users meet it.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace gemmtune::testing_paths {

struct CommandOutput {
  int exit_code;  // -1 when the command did not exit normally
  std::string output;
};

inline CommandOutput run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace gemmtune::testing_paths
