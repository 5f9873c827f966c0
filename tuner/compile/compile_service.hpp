// Background NVRTC compilation on all CPU cores. Callers submit configs for an architecture
// (duplicates of one binary are compiled once) and get a future; the tuner keeps submitting ahead
// of the GPU so compilation and measurement overlap, and the planner simply waits for everything.
// One pool serves every GPU of a run: GPUs of one model share each binary, and the jobs the GPUs
// are waiting for go first, in the order they were asked for. A binary the disk cache holds is
// read at once by the caller that needs it soon, never queued behind compiles.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "core/kernel_compiler.hpp"

namespace gemmtune {

struct CompileOutcome {
  std::optional<CompiledKernel> kernel;  // empty when compilation failed
  std::string error;                     // one line
  std::string log;                       // NVRTC log of a failed compile
};

// What the pool did so far (the tune command's debug summary, issue #47).
struct CompileStats {
  std::size_t pressing_compiles = 0;     // compiles a search asked for (now or soon)
  std::size_t speculative_compiles = 0;  // compiles of later jobs
  std::size_t speculative_used = 0;      // of those, binaries a search then asked for
  std::size_t failed = 0;                // of all compiles, failures (an outcome like any other)
  std::size_t cache_reads = 0;           // binaries the callers read from the disk cache
  std::size_t withdrawn = 0;             // later jobs dropped before a worker took them
  double pressing_seconds = 0;           // thread seconds in NVRTC, by lane
  double speculative_seconds = 0;
  double queued_seconds = 0;  // summed over pressing compiles: from becoming pressing to a worker taking it
  double max_queued_seconds = 0;
};

class CompileService {
 public:
  CompileService(const KernelCompiler& compiler, unsigned threads);
  ~CompileService();
  CompileService(const CompileService&) = delete;
  CompileService& operator=(const CompileService&) = delete;

  // How soon a GPU needs a binary. The queue runs now, then soon, then later jobs, each in the
  // order submitted: `now` is a job a GPU is waiting for this moment, `soon` the candidates a search
  // has picked to measure next (the GPUs' look-ahead), `later` speculative compiles of candidates a
  // search may reach. A resubmission with a more pressing need moves a queued job up.
  enum class Need { now = 0, soon = 1, later = 2 };
  // owner: whose speculative compile a later job is, for withdraw(); any address unique to the
  // submitter while its jobs are queued.
  std::shared_future<CompileOutcome> submit(const KernelConfig& config, const std::string& arch, KernelPath path,
                                            Need need = Need::soon, const void* owner = nullptr);

  // Drops owner's later jobs that are still queued (their futures report broken_promise). A search
  // calls it when it replaces its guess of what comes next, and when it ends: the later section is
  // first come, first served, so an old guess would occupy the workers ahead of the new one, or
  // through the next problem's search.
  void withdraw(const void* owner);

  // Jobs queued and not yet taken by a worker.
  std::size_t queued();

  CompileStats stats();

  // The cache keys (KernelCompiler::cache_key) of the binaries this pool has compiled so far, and
  // compiled successfully: a copy, so a caller reads it without holding the pool's lock. A search
  // that starts later counts them as on hand (commands/setup_ahead.hpp), as it counts what the
  // cache held when the run began.
  std::unordered_set<std::string> compiled();

 private:
  // Two lanes of `threads` workers each. The pressing lane takes only now and soon jobs, at the
  // process's priority; the speculative lane takes only later jobs, at a lower one (nice 10), so it
  // has the cores a search is not using and yields them the moment a generation arrives. Before,
  // all but two threads took either kind at one priority: most of a generation waited for
  // speculative compiles a second long to finish, and the tuner's thread and the GPU worker
  // process shared the cores with every NVRTC thread alike.
  enum class Lane { pressing, speculative };
  void work(Lane lane);

  struct Job {
    KernelConfig config;
    std::string arch;
    KernelPath path;
    std::string key;  // arch and name expression (with the path)
    const void* owner = nullptr;
    std::promise<CompileOutcome> promise;
    std::chrono::steady_clock::time_point pressing_since;  // when it became now or soon
  };

  const KernelCompiler& compiler_;
  std::mutex mutex_;
  std::condition_variable wake_pressing_;     // a now or soon job queued
  std::condition_variable wake_speculative_;  // a later job queued
  std::deque<Job> queue_;
  // queue_ holds the now jobs, then the soon ones, then the later ones: section_end(need) is where
  // a job of that need goes.
  std::size_t section_end(Need need) const;
  Need need_at(std::size_t position) const;
  std::size_t now_count_ = 0;
  std::size_t soon_count_ = 0;
  std::map<std::string, std::shared_future<CompileOutcome>> submitted_;
  std::set<std::string> speculated_;  // keys the speculative lane took that no search asked for yet
  CompileStats stats_;
  std::unordered_set<std::string> compiled_;  // cache keys of the binaries compiled successfully
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gemmtune
