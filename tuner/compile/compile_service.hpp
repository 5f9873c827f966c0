// Background NVRTC compilation on all CPU cores. Callers submit configs (duplicates of one binary
// are compiled once) and get a future; the tuner keeps submitting ahead of the GPU so compilation
// and measurement overlap, and the planner simply waits for everything.
#pragma once

#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kernel_compiler.hpp"

namespace gemmtune {

struct CompileOutcome {
  std::optional<CompiledKernel> kernel;  // empty when compilation failed
  std::string error;                     // one line
  std::string log;                       // NVRTC log of a failed compile
};

class CompileService {
 public:
  CompileService(const KernelCompiler& compiler, std::string arch, unsigned threads);
  ~CompileService();
  CompileService(const CompileService&) = delete;
  CompileService& operator=(const CompileService&) = delete;

  // Urgent jobs (the ones the GPU is about to need) go ahead of background ones (speculative
  // compiles of candidates a search may reach later); an urgent resubmission promotes a queued job.
  std::shared_future<CompileOutcome> submit(const KernelConfig& config, bool urgent = true);

 private:
  void work();

  const KernelCompiler& compiler_;
  std::string arch_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<KernelConfig, std::promise<CompileOutcome>>> queue_;
  std::size_t urgent_count_ = 0;  // urgent jobs sit at the front of queue_
  std::map<std::string, std::shared_future<CompileOutcome>> submitted_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gemmtune
