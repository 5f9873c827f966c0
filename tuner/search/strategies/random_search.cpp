// Random search: a uniform sample without replacement; the honest baseline a guided strategy
// has to beat.
#include <algorithm>
#include <numeric>
#include <random>

#include "search/strategies/search_strategy.hpp"

namespace gemmtune {

std::unique_ptr<SearchStrategy> make_random_search(StrategyContext context) {
  std::vector<std::size_t> order(context.candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(context.seed);
  std::shuffle(order.begin(), order.end(), rng);
  const std::size_t budget =
      context.budget > 0 ? context.budget : std::max<std::size_t>(64, order.size() / 4);
  if (budget < order.size()) order.resize(budget);
  return std::make_unique<FixedOrderStrategy>(std::move(order));
}

}  // namespace gemmtune
