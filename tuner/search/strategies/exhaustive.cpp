// Exhaustive search: every candidate (or the first `budget`), most promising first, so a time
// budget that cuts it short still leaves the likeliest winners measured.
#include "search/strategies/search_strategy.hpp"

namespace gemmtune {

std::unique_ptr<SearchStrategy> make_exhaustive(StrategyContext context) {
  std::vector<std::size_t> order = order_by_prior(context);
  if (context.budget > 0 && context.budget < order.size()) order.resize(context.budget);
  return std::make_unique<FixedOrderStrategy>(std::move(order));
}

}  // namespace gemmtune
