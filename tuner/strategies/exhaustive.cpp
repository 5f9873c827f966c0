// Exhaustive search: every candidate, most promising first, so a time budget that cuts it short
// still leaves the likeliest winners measured.
#include <algorithm>

#include "search_strategy.hpp"

namespace gemmtune {
namespace {

class Exhaustive : public SearchStrategy {
 public:
  explicit Exhaustive(const StrategyContext& c) : order_(order_by_prior(c)) {
    if (c.budget > 0 && c.budget < order_.size()) order_.resize(c.budget);
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

std::unique_ptr<SearchStrategy> make_exhaustive(StrategyContext context) { return std::make_unique<Exhaustive>(context); }

}  // namespace gemmtune
