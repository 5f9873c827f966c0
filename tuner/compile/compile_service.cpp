// Worker threads draining a queue of compile jobs in three sections (now, soon, later), in two lanes
// (pressing and speculative). A compile failure is an outcome, not an exception: the search records
// it and moves on.
#include "compile/compile_service.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace gemmtune {
namespace {

// The nice value of the speculative lane: a nice-0 thread gets ten times its share of a core.
constexpr int kSpeculativeNice = 10;

}  // namespace

CompileService::CompileService(const KernelCompiler& compiler, unsigned threads) : compiler_(compiler) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) {
    workers_.emplace_back([this] { work(Lane::pressing); });
    workers_.emplace_back([this] { work(Lane::speculative); });
  }
}

CompileService::~CompileService() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_pressing_.notify_all();
  wake_speculative_.notify_all();
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
                                                          KernelPath path, Need need, const void* owner) {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::string key = arch + " " + config.name_expression(path);
  auto count_of = [this](Need n) -> std::size_t* {
    return n == Need::now ? &now_count_ : n == Need::soon ? &soon_count_ : nullptr;
  };
  auto enqueue = [&](Job job, Need as) {
    if (as != Need::later) job.pressing_since = std::chrono::steady_clock::now();
    queue_.insert(queue_.begin() + static_cast<long>(section_end(as)), std::move(job));
    if (std::size_t* count = count_of(as)) ++*count;
    (as == Need::later ? wake_speculative_ : wake_pressing_).notify_one();
  };
  Job job;
  std::shared_future<CompileOutcome> future;
  if (auto it = submitted_.find(key); it != submitted_.end()) {
    // Only a more urgent need can move a queued job, so a speculative resubmission returns at once
    // (when every problem queued its whole space speculatively, scanning the queue here cost
    // minutes before a search began).
    if (need == Need::later) return it->second;
    if (speculated_.erase(key) > 0) ++stats_.speculative_used;
    const auto queued =
        std::find_if(queue_.begin(), queue_.end(), [&](const Job& j) { return j.key == key; });
    if (queued == queue_.end()) return it->second;  // being compiled, or done
    const Need was = need_at(static_cast<std::size_t>(queued - queue_.begin()));
    job = std::move(*queued);
    queue_.erase(queued);
    if (std::size_t* count = count_of(was)) --*count;
    need = std::min(need, was);
    future = it->second;
  } else {
    job = Job{config, arch, path, key, owner, {}, {}};
    future = job.promise.get_future().share();
    submitted_.emplace(key, future);
  }
  if (need == Need::later) {
    enqueue(std::move(job), need);
    return future;
  }
  // A binary the disk cache holds is read here, in the caller, rather than queued behind the
  // speculative compiles that occupy every worker for a second each: with a warm cache that wait,
  // at every generation of a search, was most of a rerun's time.
  lock.unlock();
  std::optional<CompiledKernel> hit;
  try {
    hit = compiler_.cached(job.config, job.arch, job.path);
  } catch (const std::exception&) {
    // an invalid config: the worker reports it as the outcome
  }
  if (hit) {
    {
      const std::lock_guard<std::mutex> relock(mutex_);
      ++stats_.cache_reads;
    }
    CompileOutcome outcome;
    outcome.kernel = std::move(hit);
    job.promise.set_value(std::move(outcome));
    return future;
  }
  lock.lock();
  enqueue(std::move(job), need);
  return future;
}

void CompileService::withdraw(const void* owner) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto later = queue_.begin() + static_cast<long>(section_end(Need::soon));
  const auto kept = std::stable_partition(later, queue_.end(), [&](const Job& j) { return j.owner != owner; });
  for (auto it = kept; it != queue_.end(); ++it) submitted_.erase(it->key);
  stats_.withdrawn += static_cast<std::size_t>(queue_.end() - kept);
  queue_.erase(kept, queue_.end());
}

std::size_t CompileService::queued() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

CompileStats CompileService::stats() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::unordered_set<std::string> CompileService::compiled() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return compiled_;
}

void CompileService::work(Lane lane) {
  // Linux gives each thread its own nice value. Raising it needs no privilege (lowering it back
  // would), so a thread keeps one lane.
  if (lane == Lane::speculative) setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kSpeculativeNice);
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto pressing = [this] { return now_count_ + soon_count_; };
      if (lane == Lane::pressing) {
        wake_pressing_.wait(lock, [&] { return stopping_ || pressing() > 0; });
      } else {
        wake_speculative_.wait(lock, [&] { return stopping_ || queue_.size() > pressing(); });
      }
      if (stopping_) return;  // pending jobs are abandoned: their futures report broken_promise
      const auto next = queue_.begin() + static_cast<long>(lane == Lane::pressing ? 0 : pressing());
      job = std::move(*next);
      queue_.erase(next);
      if (lane == Lane::pressing) {
        --(now_count_ > 0 ? now_count_ : soon_count_);
        const double queued = std::chrono::duration<double>(std::chrono::steady_clock::now() - job.pressing_since).count();
        stats_.queued_seconds += queued;
        stats_.max_queued_seconds = std::max(stats_.max_queued_seconds, queued);
      } else {
        speculated_.insert(job.key);
      }
    }
    const auto started = std::chrono::steady_clock::now();
    CompileOutcome outcome;
    try {
      outcome.kernel = compiler_.compile(job.config, job.arch, job.path);
    } catch (const CompileError& e) {
      outcome.error = e.what();
      outcome.log = e.log();
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
    // Outside the lock: the key is a hash of the template and the options.
    const std::string cache_key =
        outcome.kernel
            ? compiler_.cache_key(job.config.family, job.config.name_expression(job.path), job.arch)
            : "";
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (outcome.kernel) compiled_.insert(cache_key);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (!outcome.kernel) ++stats_.failed;
      if (lane == Lane::pressing) {
        ++stats_.pressing_compiles;
        stats_.pressing_seconds += seconds;
      } else {
        ++stats_.speculative_compiles;
        stats_.speculative_seconds += seconds;
      }
    }
    job.promise.set_value(std::move(outcome));
  }
}

}  // namespace gemmtune
