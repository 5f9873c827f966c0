// Random search: a uniform sample without replacement; the honest baseline a guided strategy
// has to beat.
#include <algorithm>
#include <numeric>
#include <random>

#include "search_strategy.hpp"

namespace gemmtune {
namespace {

class RandomSearch : public SearchStrategy {
 public:
  explicit RandomSearch(const StrategyContext& c) : order_(c.candidates.size()) {
    std::iota(order_.begin(), order_.end(), 0);
    std::mt19937_64 rng(c.seed);
    std::shuffle(order_.begin(), order_.end(), rng);
    const std::size_t budget = c.budget > 0 ? c.budget : std::max<std::size_t>(64, order_.size() / 4);
    if (budget < order_.size()) order_.resize(budget);
  }
  std::vector<std::size_t> propose(std::size_t max_count) override {
    const std::size_t n = std::min(max_count, order_.size() - next_);
    std::vector<std::size_t> out(order_.begin() + static_cast<long>(next_), order_.begin() + static_cast<long>(next_ + n));
    next_ += n;
    return out;
  }
  void observe(std::size_t, double) override {}
  std::size_t planned() const override { return order_.size(); }

 private:
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<SearchStrategy> make_random_search(StrategyContext context) {
  return std::make_unique<RandomSearch>(context);
}

}  // namespace gemmtune
