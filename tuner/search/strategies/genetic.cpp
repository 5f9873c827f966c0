// Genetic search: a generation is proposed at once (so all of it compiles in parallel while the
// GPU works through it). Half of each new generation refines the best few measured so far (one
// parameter moved to a neighbouring value); the other half crosses parents picked by tournament
// among everything measured (each parameter from either parent, sometimes with a mutation); a
// quarter of each generation after the first goes to tile shapes not tried yet. Generation 0 is
// the seeds (warm start, --seed-from) and the static model's favourites, mixed with random picks, so
// a wrong model costs little. Children that are not in the (constrained) candidate set, or were
// already proposed, are re-drawn; when that keeps failing, the next unproposed candidate in prior
// order is taken instead.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "search/search_space.hpp"
#include "search/strategies/search_strategy.hpp"

namespace gemmtune {
namespace {

using Genes = std::vector<int>;

// Every parameter, from the search space's own list, so a new parameter cannot be left out (one
// was: three FMA orders then shared one set of genes and breeding could reach only one of them).
Genes genes_of(const KernelConfig& c) {
  return parameter_values(c);
}

class Genetic : public SearchStrategy {
 public:
  explicit Genetic(const StrategyContext& c) : rng_(c.seed), prior_order_(order_by_prior(c)) {
    const std::size_t n = c.candidates.size();
    budget_ = std::min(n, c.budget > 0 ? c.budget : std::size_t(120));
    population_ = std::clamp<std::size_t>(budget_ / 6, 8, 24);
    for (std::size_t i = 0; i < n; ++i) {
      genes_.push_back(genes_of(c.candidates[i]));
      index_of_.emplace(genes_.back(), i);
    }
    if (n > 0) {
      values_.resize(genes_[0].size());
      for (const auto& g : genes_)
        for (std::size_t f = 0; f < g.size(); ++f) values_[f].insert(g[f]);
      for (std::size_t f = 0; f < values_.size(); ++f)
        if (values_[f].size() > 1) movable_.push_back(f);
    }
  }

  std::vector<std::size_t> propose(std::size_t max_count) override {
    if (outstanding_ > 0 || proposed_.size() >= budget_) return {};
    std::vector<std::size_t> generation;
    const std::size_t size = std::min({population_, budget_ - proposed_.size(), max_count});
    if (scores_.empty()) {
      // Generation 0: half the model's favourites, half random.
      for (std::size_t i = 0; i < prior_order_.size() && generation.size() < (size + 1) / 2; ++i)
        take(prior_order_[i], generation);
      std::uniform_int_distribution<std::size_t> any(0, genes_.size() - 1);
      for (int tries = 0; generation.size() < size && tries < 1000; ++tries) take(any(rng_), generation);
    } else {
      // A quarter of every generation explores tile shapes no one has tried yet, the static
      // model's favourite of each first: breeding alone stalls in the first good basin it finds.
      for (std::size_t i = 0; i < prior_order_.size() && generation.size() < size / 2; ++i) {
        const std::size_t c = prior_order_[i];
        if (!tried_shapes_.count(tile_shape_of(genes_[c]))) take(c, generation);
      }
      for (int tries = 0; generation.size() < size && tries < 20 * int(size); ++tries) {
        if (const auto child = repair(breed())) take(*child, generation);
      }
    }
    for (std::size_t i = 0; i < prior_order_.size() && generation.size() < size; ++i)
      take(prior_order_[i], generation);
    outstanding_ = generation.size();
    return generation;
  }

  void observe(std::size_t index, double score) override {
    scores_.emplace_back(score, index);
    if (outstanding_ > 0) --outstanding_;
  }

  std::size_t planned() const override { return budget_; }

 private:
  void take(std::size_t index, std::vector<std::size_t>& generation) {
    if (proposed_.insert(index).second) {
      generation.push_back(index);
      tried_shapes_.insert(tile_shape_of(genes_[index]));
    }
  }

  // The constraints leave holes in the space: a child that moved block_m may need block_k or the
  // micro-tile to move too before it is valid. Such a child is replaced by the closest candidate
  // not proposed yet (fewest parameters different, ties broken at random), keeping the value that
  // changed. Without this, search stalls on the ridges between valid regions.
  std::optional<std::size_t> repair(const Genes& child) {
    if (const auto it = index_of_.find(child); it != index_of_.end())
      return proposed_.count(it->second) ? std::nullopt : std::optional<std::size_t>(it->second);
    std::vector<std::size_t> closest;
    std::size_t best_distance = child.size() + 1;
    for (std::size_t i = 0; i < genes_.size(); ++i) {
      if (proposed_.count(i) || (mutated_field_ && genes_[i][*mutated_field_] != child[*mutated_field_]))
        continue;
      std::size_t distance = 0;
      for (std::size_t f = 0; f < child.size(); ++f) distance += genes_[i][f] != child[f];
      if (distance < best_distance) closest.clear(), best_distance = distance;
      if (distance == best_distance) closest.push_back(i);
    }
    if (closest.empty() || best_distance > 3) return std::nullopt;
    return closest[std::uniform_int_distribution<std::size_t>(0, closest.size() - 1)(rng_)];
  }

  std::size_t tournament() {
    std::uniform_int_distribution<std::size_t> pick(0, scores_.size() - 1);
    auto best = scores_[pick(rng_)];
    for (int i = 1; i < 3; ++i) best = std::max(best, scores_[pick(rng_)]);
    return best.second;
  }

  // Half the children refine one of the best few (a single parameter moved: local search), half
  // mix two tournament winners (crossover, sometimes with a mutation: exploration).
  Genes breed() {
    mutated_field_.reset();
    if (std::bernoulli_distribution(0.5)(rng_)) {
      std::vector<std::pair<double, std::size_t>> top(scores_);
      const std::size_t elite = std::min<std::size_t>(3, top.size());
      std::partial_sort(top.begin(), top.begin() + static_cast<long>(elite), top.end(), std::greater<>());
      Genes child = genes_[top[std::uniform_int_distribution<std::size_t>(0, elite - 1)(rng_)].second];
      mutate(child);
      return child;
    }
    const Genes& a = genes_[tournament()];
    const Genes& b = genes_[tournament()];
    Genes child(a.size());
    std::bernoulli_distribution coin(0.5);
    for (std::size_t f = 0; f < a.size(); ++f) child[f] = coin(rng_) ? a[f] : b[f];
    if (std::bernoulli_distribution(0.4)(rng_)) mutate(child);
    return child;
  }

  // Moves one parameter that has a choice (a fixed one would make the mutation a no-op) to a
  // neighbouring value of its range.
  void mutate(Genes& g) {
    if (movable_.empty()) return;
    const std::size_t f = movable_[std::uniform_int_distribution<std::size_t>(0, movable_.size() - 1)(rng_)];
    mutated_field_ = f;
    const auto& vals = values_[f];
    auto it = vals.find(g[f]);
    const bool up = std::bernoulli_distribution(0.5)(rng_);
    if (up && std::next(it) != vals.end()) {
      g[f] = *std::next(it);
    } else if (it != vals.begin()) {
      g[f] = *std::prev(it);
    } else {
      g[f] = *std::next(it);
    }
  }

  std::mt19937_64 rng_;
  std::vector<std::size_t> prior_order_;
  std::vector<Genes> genes_;
  std::map<Genes, std::size_t> index_of_;
  std::vector<std::set<int>> values_;  // per parameter, the values its candidates take
  std::vector<std::size_t> movable_;   // the parameters with more than one value
  std::vector<std::pair<double, std::size_t>> scores_;
  std::set<std::size_t> proposed_;
  std::set<Genes> tried_shapes_;
  std::size_t budget_ = 0;
  std::size_t population_ = 0;
  std::size_t outstanding_ = 0;
  std::optional<std::size_t> mutated_field_;  // the parameter the last mutation moved
};

}  // namespace

std::unique_ptr<SearchStrategy> make_genetic(StrategyContext context) {
  return std::make_unique<Genetic>(context);
}

}  // namespace gemmtune
