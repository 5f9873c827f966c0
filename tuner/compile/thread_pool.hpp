// Runs a function over [0, count) on a fixed number of threads. Enough for parallel NVRTC, which
// is CPU-bound and independent per candidate; no futures or queues needed.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace gemmtune {

inline unsigned default_parallelism() {
  return std::max(1u, std::thread::hardware_concurrency());
}

// fn(i) must not throw; each index runs exactly once.
inline void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) fn(i);
  };
  std::vector<std::thread> pool;
  const unsigned n = static_cast<unsigned>(std::min<std::size_t>(threads, count));
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace gemmtune
