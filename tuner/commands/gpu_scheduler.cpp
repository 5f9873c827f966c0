// A thread per GPU drawing from one queue under one lock. The threads spend their time in tune()
// (GPU work in a worker process, compiles in the shared pool), so the lock is never contended for
// long.
#include "commands/gpu_scheduler.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace gemmtune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

struct Queued {
  std::size_t index;  // into the problems given
  int failures = 0;
  std::exception_ptr last_error;
};

class Dispatcher {
 public:
  Dispatcher(const std::vector<ProblemTuner*>& gpus, const std::vector<GemmShape>& problems,
             const std::function<bool()>& stop)
      : problems_(problems), stop_(stop), active_(gpus.size()), done_(problems.size()), timelines_(gpus.size()) {
    for (std::size_t i = 0; i < problems.size(); ++i) queue_.push_back({i, 0, nullptr});
    for (std::size_t g = 0; g < gpus.size(); ++g) timelines_[g].label = gpus[g]->label();
  }

  void serve(ProblemTuner& gpu, std::size_t slot) {
    GpuTimeline& timeline = timelines_[slot];  // this thread's alone until result()
    for (;;) {
      const std::optional<Queued> job = next();
      if (!job) {
        if (!keep_helping()) break;
        const auto began = Clock::now();
        try {
          timeline.helped += gpu.help([this] { return keep_helping(); });
          timeline.helping += seconds(began, Clock::now());
        } catch (const std::exception& e) {
          timeline.helping += seconds(began, Clock::now());
          retire_helper(gpu, e.what());
          return;
        }
        continue;
      }
      const auto began = Clock::now();
      const auto account = [&] {
        timeline.busy += seconds(began, Clock::now());
        timeline.last_end = seconds(started_, Clock::now());
      };
      try {
        ShapeOutcome outcome = gpu.tune(problems_[job->index]);
        account();
        ++timeline.problems;
        outcome.gpu = gpu.label();
        std::lock_guard<std::mutex> lock(mutex_);
        done_[job->index] = std::move(outcome);
        --in_flight_;
      } catch (const std::exception& e) {
        account();
        retire(gpu, *job, e.what(), std::current_exception());
        return;
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --active_;
  }

  Schedule result() {
    Schedule s;
    s.seconds = seconds(started_, Clock::now());
    s.gpus = timelines_;
    s.retired = std::move(retired_);
    s.error = first_error_;
    for (std::size_t i = 0; i < problems_.size(); ++i) {
      if (done_[i]) {
        s.outcomes.push_back(std::move(*done_[i]));
      } else {
        s.untuned.push_back(problems_[i]);
      }
    }
    // Problems left in the queue because no GPU was left carry the error that retired the last.
    if (!s.error && !queue_.empty()) s.error = queue_.front().last_error;
    return s;
  }

 private:
  std::optional<Queued> next() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty() || stop_()) return std::nullopt;
    Queued job = queue_.front();
    queue_.pop_front();
    ++in_flight_;
    return job;
  }

  // Whether a GPU with no problem should help the others: none waits in the queue, some is being
  // tuned, and the run goes on.
  bool keep_helping() {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.empty() && in_flight_ > 0 && !stop_();
  }

  void retire_helper(ProblemTuner& gpu, const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    --active_;
    retired_.push_back(gpu.label() + ": " + why);
    spdlog::warn("{} is out of the run ({}) while helping the other GPUs", gpu.label(), why);
  }

  void retire(ProblemTuner& gpu, Queued job, const std::string& why, std::exception_ptr error) {
    std::lock_guard<std::mutex> lock(mutex_);
    --active_;
    --in_flight_;
    retired_.push_back(gpu.label() + ": " + why);
    job.last_error = error;
    if (++job.failures < kGpusPerProblem) {
      if (active_ > 0)
        spdlog::warn("{} is out of the run ({}); {} goes to another GPU", gpu.label(), why,
                     problems_[job.index].label());
      queue_.push_front(job);
    } else {
      spdlog::error("{} is out of the run ({}); {} is given up after failing on {} GPUs", gpu.label(), why,
                    problems_[job.index].label(), job.failures);
      if (!first_error_) first_error_ = error;
    }
  }

  const std::vector<GemmShape>& problems_;
  const std::function<bool()>& stop_;
  std::mutex mutex_;
  std::deque<Queued> queue_;
  std::size_t active_;
  std::size_t in_flight_ = 0;  // problems handed out and not yet done or back in the queue
  std::vector<std::optional<ShapeOutcome>> done_;
  std::vector<std::string> retired_;
  std::exception_ptr first_error_;
  std::vector<GpuTimeline> timelines_;
  const Clock::time_point started_ = Clock::now();
};

}  // namespace

std::size_t ProblemTuner::help(const std::function<bool()>& keep_helping) {
  while (keep_helping()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return 0;
}

Schedule tune_on_gpus(const std::vector<ProblemTuner*>& gpus, const std::vector<GemmShape>& problems,
                      const std::function<bool()>& stop) {
  Dispatcher dispatcher(gpus, problems, stop);
  if (gpus.size() == 1) {
    dispatcher.serve(*gpus.front(), 0);  // on this thread: one GPU needs no other
  } else {
    std::vector<std::thread> threads;
    for (std::size_t g = 0; g < gpus.size(); ++g)
      threads.emplace_back([&dispatcher, &gpus, g] { dispatcher.serve(*gpus[g], g); });
    for (std::thread& t : threads) t.join();
  }
  return dispatcher.result();
}

}  // namespace gemmtune
