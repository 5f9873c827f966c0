// Strategy registry and helpers shared by the strategies.
#include "search/strategies/search_strategy.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gemmtune {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"exhaustive", "random", "genetic", "surrogate"};
  return names;
}

std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, StrategyContext context) {
  if (name == "exhaustive") return make_exhaustive(std::move(context));
  if (name == "random") return make_random_search(std::move(context));
  if (name == "genetic") return make_genetic(std::move(context));
  if (name == "surrogate") return make_surrogate(std::move(context));
  throw std::invalid_argument("unknown strategy '" + name + "' (exhaustive, random, genetic, surrogate)");
}

std::vector<std::size_t> FixedOrderStrategy::propose(std::size_t max_count) {
  const std::size_t n = std::min(max_count, order_.size() - next_);
  const auto first = order_.begin() + static_cast<std::ptrdiff_t>(next_);
  next_ += n;
  return {first, first + static_cast<std::ptrdiff_t>(n)};
}

std::vector<std::size_t> FixedOrderStrategy::likely_next() const {
  // As many as the tuner keeps proposed ahead of the GPU on 16 cores (its look-ahead).
  constexpr std::size_t kAhead = 32;
  const auto first = order_.begin() + static_cast<std::ptrdiff_t>(next_);
  return {first, first + static_cast<std::ptrdiff_t>(std::min(kAhead, order_.size() - next_))};
}

std::vector<std::size_t> order_by_prior(const StrategyContext& c) {
  std::vector<std::size_t> order(c.candidates.size());
  std::iota(order.begin(), order.end(), 0);
  if (c.prior.size() == c.candidates.size())
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return c.prior[a] > c.prior[b]; });
  std::vector<std::size_t> seeded;
  std::vector<bool> placed(order.size(), false);  // a linear search here made this quadratic
  for (std::size_t s : c.seeds)
    if (s < order.size() && !placed[s]) {
      placed[s] = true;
      seeded.push_back(s);
    }
  for (std::size_t i : order)
    if (!placed[i]) seeded.push_back(i);
  return seeded;
}

}  // namespace gemmtune
