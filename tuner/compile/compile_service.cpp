// Worker threads draining a queue of compile jobs in three sections (now, soon, later). A compile failure is
// an outcome, not an exception: the search records it and moves on.
#include "compile/compile_service.hpp"

#include <algorithm>

namespace gemmtune {

CompileService::CompileService(const KernelCompiler& compiler, unsigned threads) : compiler_(compiler) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) workers_.emplace_back([this] { work(); });
}

CompileService::~CompileService() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

std::size_t CompileService::section_end(Need need) const {
  switch (need) {
    case Need::now:
      return now_count_;
    case Need::soon:
      return now_count_ + soon_count_;
    case Need::later:
      break;
  }
  return queue_.size();
}

CompileService::Need CompileService::need_at(std::size_t position) const {
  if (position < now_count_) return Need::now;
  return position < now_count_ + soon_count_ ? Need::soon : Need::later;
}

std::shared_future<CompileOutcome> CompileService::submit(const KernelConfig& config, const std::string& arch,
                                                          KernelPath path, Need need) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = arch + " " + config.name_expression(path);
  auto count_of = [this](Need n) -> std::size_t* {
    return n == Need::now ? &now_count_ : n == Need::soon ? &soon_count_ : nullptr;
  };
  auto enqueue = [&](Job job) {
    queue_.insert(queue_.begin() + static_cast<long>(section_end(need)), std::move(job));
    if (std::size_t* count = count_of(need)) ++*count;
  };
  if (auto it = submitted_.find(key); it != submitted_.end()) {
    // Only a more urgent need can move a queued job; a speculative resubmission (the background
    // submissions of a problem whose binaries an earlier problem queued already, about 100k for a
    // B^T problem) must not scan a queue as long: that was quadratic, minutes before a search began.
    if (need == Need::later) return it->second;
    const auto queued =
        std::find_if(queue_.begin(), queue_.end(), [&](const Job& job) { return job.key == key; });
    if (queued != queue_.end()) {
      const Need was = need_at(static_cast<std::size_t>(queued - queue_.begin()));
      if (need < was) {
        Job job = std::move(*queued);
        queue_.erase(queued);
        if (std::size_t* count = count_of(was)) --*count;
        enqueue(std::move(job));
      }
    }
    return it->second;
  }
  std::promise<CompileOutcome> promise;
  auto future = promise.get_future().share();
  submitted_.emplace(key, future);
  enqueue(Job{config, arch, path, key, std::move(promise)});
  wake_.notify_one();
  return future;
}

void CompileService::work() {
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;  // pending jobs are abandoned: their futures report broken_promise
      job = std::move(queue_.front());
      queue_.pop_front();
      if (now_count_ > 0) {
        --now_count_;
      } else if (soon_count_ > 0) {
        --soon_count_;
      }
    }
    CompileOutcome outcome;
    try {
      outcome.kernel = compiler_.compile(job.config, job.arch, job.path);
    } catch (const CompileError& e) {
      outcome.error = e.what();
      outcome.log = e.log();
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
    job.promise.set_value(std::move(outcome));
  }
}

}  // namespace gemmtune
