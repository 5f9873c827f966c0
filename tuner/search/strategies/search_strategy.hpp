// One interface for every search strategy (one file each: exhaustive.cpp, random_search.cpp,
// genetic.cpp, surrogate.cpp). A strategy sees candidates only by index; the driver compiles what it proposes
// ahead of the GPU, evaluates in order and reports scores back. Scores are TFLOP/s, 0 for a
// candidate that failed. Strategies never touch the GPU, so they are tested by replaying logs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel_config.hpp"

namespace gemmtune {

struct StrategyContext {
  std::vector<KernelConfig> candidates;
  std::vector<double> prior;  // per candidate, higher is more promising (static model); may be empty
  std::uint64_t seed = 1;
  std::size_t budget = 0;          // evaluations; 0: strategy default
  std::vector<std::size_t> seeds;  // tried first (e.g. other GPUs' winners, --seed-from)
  // Per candidate: its binary is on hand (in the compile cache), so measuring it costs no compile.
  // May be empty (nothing on hand).
  std::vector<bool> on_hand;
  // Per candidate: on hand only because this run compiled it for one of its other problems (a
  // subset of on_hand). It costs no compile either, but a generation of such binaries is not a
  // rerun of this search, as one of binaries from an earlier run may be. May be empty (none).
  std::vector<bool> on_hand_from_this_run;
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // Up to max_count indices not proposed before. Empty once nothing was proposed and nothing is
  // awaiting observation: the search is over.
  virtual std::vector<std::size_t> propose(std::size_t max_count) = 0;
  virtual void observe(std::size_t index, double score) = 0;
  // A measurement the strategy did not ask for (a launch-time variant of a binary already measured,
  // which cost no compile); it does not count against the budget and is never proposed afterwards.
  virtual void learn(std::size_t /*index*/, double /*score*/) {}
  // The GPU has measured every candidate whose binary is ready and waits for NVRTC: a strategy
  // that holds a generation back until the last of the previous one is measured may propose now.
  virtual void stalled() {}
  // The candidates the strategy expects to propose next, likeliest first: the tuner compiles them
  // on the cores a generation leaves idle. A guess, never a promise; asking changes nothing the
  // strategy proposes later.
  virtual std::vector<std::size_t> likely_next() const { return {}; }
  // Evaluations this strategy intends to make (for progress bars).
  virtual std::size_t planned() const = 0;
};

const std::vector<std::string>& strategy_names();
// Throws std::invalid_argument for an unknown name.
std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, StrategyContext context);

// Implemented in one file each.
std::unique_ptr<SearchStrategy> make_exhaustive(StrategyContext context);
std::unique_ptr<SearchStrategy> make_random_search(StrategyContext context);
std::unique_ptr<SearchStrategy> make_genetic(StrategyContext context);
std::unique_ptr<SearchStrategy> make_surrogate(StrategyContext context);

// A strategy whose whole order is known up front (exhaustive, random): proposes it in sequence and
// learns nothing from observations.
class FixedOrderStrategy : public SearchStrategy {
 public:
  explicit FixedOrderStrategy(std::vector<std::size_t> order) : order_(std::move(order)) {}
  std::vector<std::size_t> propose(std::size_t max_count) override;
  std::vector<std::size_t> likely_next() const override;  // the order's next stretch: no guess at all
  void observe(std::size_t, double) override {}
  std::size_t planned() const override { return order_.size(); }

 private:
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
};

// Indices sorted by prior, best first (stable; the enumeration order breaks ties), seeds first of all.
std::vector<std::size_t> order_by_prior(const StrategyContext& context);

}  // namespace gemmtune
