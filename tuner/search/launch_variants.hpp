// Candidates that share one binary and differ only in launch-time choices (split-K, swizzle). Once
// one of them is compiled, measuring the others costs the GPU milliseconds and no compile (a cold
// search spends most of its time waiting for NVRTC): after each proposal the tuner measures a few
// variants of the binaries it has, fastest binary first, and the strategy learns them.
#pragma once

#include <cstddef>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"

namespace gemmtune {

// Variants measured after each proposal. With the surrogate's 160 proposals (200 since
// 2026-11-26), two keep the default-space replays' medians at 0.13% (1024) and 0.00% (64x4096x4096; 74 of 100 seeds within
// 1%, with three 71, with one 13) and the GPU's share of a search where 120 proposals and three
// variants had it: each measurement is eleven batches of launches (a warm-up and ten samples), and
// the variants are most of a search's measurements.
inline constexpr std::size_t kLaunchVariantsPerProposal = 2;

class LaunchVariants {
 public:
  // prior: per candidate, higher first within a binary (may be empty: enumeration order).
  LaunchVariants(const std::vector<KernelConfig>& candidates, const GemmShape& shape,
                 const std::vector<double>& prior);

  // Candidate `index` was measured at `tflops`: its binary's other candidates may be offered, after
  // those of faster binaries (none for a failure).
  void measured(std::size_t index, double tflops);
  // Never offered: the strategy proposed it, or it was measured.
  void take(std::size_t index);
  // The next variant to measure (taken by this call), or nullopt when none is waiting.
  std::optional<std::size_t> next();

 private:
  std::vector<std::size_t> group_;                 // per candidate, its binary
  std::vector<std::vector<std::size_t>> members_;  // per binary, its candidates, best prior first
  std::vector<bool> taken_;
  std::priority_queue<std::pair<double, std::size_t>> ready_;  // (TFLOP/s measured, binary)
};

}  // namespace gemmtune
