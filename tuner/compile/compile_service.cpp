// Worker threads draining a FIFO of compile jobs. A compile failure is an outcome, not an
// exception: the search records it and moves on.
#include "compile/compile_service.hpp"

#include <algorithm>

namespace gemmtune {

CompileService::CompileService(const KernelCompiler& compiler, std::string arch, unsigned threads)
    : compiler_(compiler), arch_(std::move(arch)) {
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

std::shared_future<CompileOutcome> CompileService::submit(const KernelConfig& config, bool urgent) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = config.name_expression();
  if (auto it = submitted_.find(key); it != submitted_.end()) {
    if (urgent) {
      const auto queued = std::find_if(queue_.begin(), queue_.end(),
                                       [&](const auto& job) { return job.first.name_expression() == key; });
      if (queued != queue_.end() && queued - queue_.begin() >= static_cast<long>(urgent_count_)) {
        auto job = std::move(*queued);
        queue_.erase(queued);
        queue_.insert(queue_.begin() + static_cast<long>(urgent_count_++), std::move(job));
      }
    }
    return it->second;
  }
  std::promise<CompileOutcome> promise;
  auto future = promise.get_future().share();
  submitted_.emplace(key, future);
  if (urgent) {  // behind earlier urgent jobs, ahead of background ones
    queue_.emplace(queue_.begin() + static_cast<long>(urgent_count_++), config, std::move(promise));
  } else {
    queue_.emplace_back(config, std::move(promise));
  }
  wake_.notify_one();
  return future;
}

void CompileService::work() {
  while (true) {
    std::pair<KernelConfig, std::promise<CompileOutcome>> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;  // pending jobs are abandoned: their futures report broken_promise
      job = std::move(queue_.front());
      queue_.pop_front();
      if (urgent_count_ > 0) --urgent_count_;
    }
    CompileOutcome outcome;
    try {
      outcome.kernel = compiler_.compile(job.first, arch_);
    } catch (const CompileError& e) {
      outcome.error = e.what();
      outcome.log = e.log();
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
    job.second.set_value(std::move(outcome));
  }
}

}  // namespace gemmtune
