// fork/exec of /proc/self/exe with two pipes. The child's stderr is inherited so its log lines
// reach the user; only stdout carries the protocol.
#include "measure/worker_process.hpp"
#include "core/candidate_status.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace gemmtune {

WorkerProcess::WorkerProcess(std::vector<std::string> arguments) : arguments_(std::move(arguments)) {
  signal(SIGPIPE, SIG_IGN);  // a dead child must not kill the tuner through a write
}

WorkerProcess::~WorkerProcess() {
  stop();
}

void WorkerProcess::set_preamble(nlohmann::json request, double timeout_seconds) {
  preamble_ = std::move(request);
  preamble_timeout_ = timeout_seconds;
}

void WorkerProcess::start() {
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create pipes for the worker: ") + std::strerror(errno));
  // Built before fork: with several GPUs other threads run, and the child only execs.
  std::string exe = "gemm-tune";
  std::vector<char*> argv;
  argv.push_back(exe.data());
  for (auto& a : arguments_) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot start the worker: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  pid_ = pid;
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  buffer_.clear();
  if (started_once_) ++restarts_;
  started_once_ = true;
  if (!preamble_.is_null()) {
    const auto reply = exchange(preamble_, preamble_timeout_);
    if (parse_status(reply.value("status", "")) != CandidateStatus::ok)
      throw std::runtime_error("worker failed to prepare: " +
                               reply.value("detail", reply.value("status", "")));
  }
}

void WorkerProcess::stop() {
  if (pid_ <= 0) return;
  close(to_child_);
  close(from_child_);
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

nlohmann::json WorkerProcess::exchange(const nlohmann::json& request, double timeout_seconds) {
  const std::string line = request.dump() + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = write(to_child_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stop();
      return {{"status", status_name(CandidateStatus::launch)}, {"detail", "the worker process exited"}};
    }
    written += static_cast<std::size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  while (true) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      const std::string reply = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      auto parsed = nlohmann::json::parse(reply, nullptr, false);
      if (parsed.is_discarded()) {
        stop();
        return {{"status", status_name(CandidateStatus::launch)}, {"detail", "the worker sent an unreadable reply"}};
      }
      if (parsed.value("sticky", false)) stop();  // it exits by itself; reap it now
      return parsed;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      stop();
      return {{"status", status_name(CandidateStatus::timeout)},
              {"detail", fmt::format("no answer within {:.0f} s; worker killed", timeout_seconds)}};
    }
    pollfd pfd{from_child_, POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int status = 0;
      stop();
      (void)status;
      return {{"status", status_name(CandidateStatus::launch)}, {"detail", "the worker process died (crash or fatal CUDA error)"}};
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

nlohmann::json WorkerProcess::call(const nlohmann::json& request, double timeout_seconds) {
  if (pid_ <= 0) start();
  return exchange(request, timeout_seconds);
}

}  // namespace gemmtune
