// Parent side of the worker: starts `gemm-tune worker` as a child process, sends requests with a
// watchdog, and replaces the child after a crash, a sticky CUDA error or a timeout. Replies for
// those cases are synthesised here ({"status":"timeout"} or {"status":"launch","detail":...}), so
// callers treat every outcome as data.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gemmtune {

class WorkerProcess {
 public:
  explicit WorkerProcess(std::vector<std::string> arguments);  // arguments after the executable
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sent again to every new child before the next request (e.g. the current "prepare").
  void set_preamble(nlohmann::json request, double timeout_seconds);

  nlohmann::json call(const nlohmann::json& request, double timeout_seconds);

  int restarts() const { return restarts_; }

 private:
  void start();
  void stop();
  nlohmann::json exchange(const nlohmann::json& request, double timeout_seconds);

  std::vector<std::string> arguments_;
  nlohmann::json preamble_;
  double preamble_timeout_ = 0;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  int restarts_ = 0;
  bool started_once_ = false;
};

}  // namespace gemmtune
