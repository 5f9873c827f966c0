// Surrogate-guided search: a model of the measurements so far picks what to measure next.
//
// The model predicts log TFLOP/s as a sum of one term per parameter value (block_m = 128, stages =
// 3, ...) plus a multiple of the static model's log prediction, fitted by ridge regression to every
// candidate measured so far; refitted after each generation. Tuning spaces behave roughly like
// that: most parameters shift every configuration by a similar factor, and the interactions the
// sum misses (a tile and its split-K, say) are what the local half of each generation looks for.
//
// Generation 0 is the seeds (warm start, --seed-from), then one candidate per tile shape (block
// and micro-tile), the static model's favourite of each, in order of the model's best for that
// shape: the first measurements spread over the tile families, which the fit then ranks. Every
// later generation takes half its candidates from the neighbourhood of the leaders (one parameter
// changed from the best configuration of each of the best three tile shapes), a quarter from tile
// shapes not measured yet, and the rest from everything not yet measured, highest predicted first
// in each part. A generation is proposed at once so it compiles in parallel
// while the GPU works through it.
//
// Candidates whose binaries are on hand (compiled by an earlier run) rank a little higher: a
// compile costs a core about a second where measuring costs the GPU milliseconds, and a near-tie
// is not worth that. A second run with a warm cache then mostly re-walks the first run's path
// instead of drifting, with the measurements' noise, into candidates nobody compiled.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "search/search_space.hpp"
#include "search/strategies/search_strategy.hpp"

namespace gemmtune {
namespace {

// Solves (A + lambda I) x = b for a symmetric positive semi-definite A by Gaussian elimination with
// partial pivoting; lambda > 0 keeps it regular.
std::vector<double> ridge_solve(std::vector<std::vector<double>> a, std::vector<double> b, double lambda) {
  const std::size_t n = b.size();
  for (std::size_t i = 0; i < n; ++i) a[i][i] += lambda;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    if (std::fabs(a[col][col]) < 1e-12) continue;
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = a[r][col] / a[col][col];
      if (f == 0) continue;
      for (std::size_t c = col; c < n; ++c) a[r][c] -= f * a[col][c];
      b[r] -= f * b[col];
    }
  }
  std::vector<double> x(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    if (std::fabs(a[i][i]) < 1e-12) continue;
    double s = b[i];
    for (std::size_t c = i + 1; c < n; ++c) s -= a[i][c] * x[c];
    x[i] = s / a[i][i];
  }
  return x;
}

class Surrogate : public SearchStrategy {
 public:
  explicit Surrogate(const StrategyContext& c) : rng_(c.seed), prior_order_(order_by_prior(c)) {
    const std::size_t n = c.candidates.size();
    for (std::size_t s : c.seeds)
      if (s < n) seeds_.push_back(s);
    budget_ = std::min(n, c.budget > 0 ? c.budget : std::size_t(120));
    population_ = std::clamp<std::size_t>(budget_ / 6, 8, 24);
    for (const KernelConfig& config : c.candidates) genes_.push_back(parameter_values(config));
    // One feature per value of every parameter that varies, then the prior, then a constant.
    if (n > 0) {
      std::vector<std::set<int>> values(genes_[0].size());
      for (const auto& g : genes_)
        for (std::size_t f = 0; f < g.size(); ++f) values[f].insert(g[f]);
      for (std::size_t f = 0; f < values.size(); ++f) {
        if (values[f].size() < 2) continue;
        for (int v : values[f]) feature_of_.emplace(std::pair(f, v), feature_count_++);
      }
    }
    if (c.prior.size() == n) {
      log_prior_.resize(n);
      for (std::size_t i = 0; i < n; ++i) log_prior_[i] = std::log(std::max(c.prior[i], 1e-3));
      const double mean = std::accumulate(log_prior_.begin(), log_prior_.end(), 0.0) / double(n);
      for (double& p : log_prior_) p -= mean;
      prior_feature_ = feature_count_++;
    }
    bias_feature_ = feature_count_++;
    prediction_ = log_prior_.empty() ? std::vector<double>(n, 0.0) : log_prior_;
    if (c.on_hand.size() == n) on_hand_ = c.on_hand;
  }

  std::vector<std::size_t> propose(std::size_t max_count) override {
    if (outstanding_ > 0 || proposed_.size() >= budget_) return {};
    const std::size_t size = std::min({population_, budget_ - proposed_.size(), max_count});
    std::vector<std::size_t> generation;
    if (measured_.empty()) {
      for (std::size_t i : seeds_) {  // their tile shapes count as measured
        if (generation.size() >= size) break;
        take(i, generation);
        tile_shapes_.insert(tile_shape_of(genes_[i]));
      }
      for (std::size_t i : prior_order_)
        if (generation.size() < size && tile_shapes_.insert(tile_shape_of(genes_[i])).second) take(i, generation);
    } else {
      fit();
      const std::vector<std::size_t> order = by_prediction();
      for (std::size_t i : local_candidates(order, size / 2)) take(i, generation);
      // A quarter to tile shapes not measured yet, the best predicted of each: the fit's view of
      // an unmeasured family rests on other families' terms, which is where it is least sure.
      const std::size_t explore_end = generation.size() + size / 4;
      for (std::size_t i : order)
        if (generation.size() < explore_end && tile_shapes_.insert(tile_shape_of(genes_[i])).second)
          take(i, generation);
      for (std::size_t i : order)
        if (generation.size() < size) take(i, generation);
    }
    outstanding_ = generation.size();
    return generation;
  }

  void observe(std::size_t index, double score) override {
    measured_.emplace_back(index, score);
    if (outstanding_ > 0) --outstanding_;
  }

  std::size_t planned() const override { return budget_; }

 private:
  void take(std::size_t index, std::vector<std::size_t>& generation) {
    if (proposed_.insert(index).second) generation.push_back(index);
  }

  std::vector<std::size_t> features(std::size_t i) const {
    std::vector<std::size_t> f;
    for (std::size_t p = 0; p < genes_[i].size(); ++p)
      if (const auto it = feature_of_.find(std::pair(p, genes_[i][p])); it != feature_of_.end())
        f.push_back(it->second);
    return f;
  }

  // Ridge regression of log TFLOP/s on the features over everything measured.
  void fit() {
    const std::size_t d = feature_count_;
    std::vector<std::vector<double>> xtx(d, std::vector<double>(d, 0.0));
    std::vector<double> xty(d, 0.0);
    std::size_t used = 0;
    double lowest = 0;
    for (const auto& m : measured_)
      if (m.second > 0) lowest = lowest == 0 ? m.second : std::min(lowest, m.second);
    for (const auto& [i, measured_score] : measured_) {
      // A failure (it spilled, or did not fit) counts as half the slowest success: it must pull
      // its parameters' terms down, or the fit keeps proposing its neighbours (a quarter of the
      // budget went to such candidates on the large-tile recording).
      const double score = measured_score > 0 ? measured_score : 0.5 * lowest;
      if (score <= 0) continue;
      ++used;
      std::vector<std::pair<std::size_t, double>> row;
      for (std::size_t f : features(i)) row.emplace_back(f, 1.0);
      if (!log_prior_.empty()) row.emplace_back(prior_feature_, log_prior_[i]);
      row.emplace_back(bias_feature_, 1.0);
      const double y = std::log(score);
      for (const auto& [fa, va] : row) {
        xty[fa] += va * y;
        for (const auto& [fb, vb] : row) xtx[fa][fb] += va * vb;
      }
    }
    if (used == 0) return;
    const std::vector<double> w = ridge_solve(std::move(xtx), std::move(xty), 1.0);
    for (std::size_t i = 0; i < genes_.size(); ++i) {
      double p = w[bias_feature_];
      for (std::size_t f : features(i)) p += w[f];
      if (!log_prior_.empty()) p += w[prior_feature_] * log_prior_[i];
      prediction_[i] = p;
    }
  }

  // Unmeasured candidates, highest predicted first; the predictions get a little noise (the
  // seed's), so near-ties are broken differently from run to run rather than always one way, and
  // binaries on hand their bonus.
  std::vector<std::size_t> by_prediction() {
    std::normal_distribution<double> noise(0.0, kNoise);
    std::vector<std::pair<double, std::size_t>> ranked;
    for (std::size_t i = 0; i < genes_.size(); ++i) {
      if (proposed_.count(i)) continue;
      const double bonus = !on_hand_.empty() && on_hand_[i] ? kOnHandBonus : 0.0;
      ranked.emplace_back(prediction_[i] + noise(rng_) + bonus, i);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::size_t> order;
    for (const auto& r : ranked) order.push_back(r.second);
    return order;
  }

  // Up to count candidates of order (unmeasured, best first) one parameter away from a leader: the
  // best measured configuration of each of the best three tile shapes. Leaders from three shapes,
  // not the best three configurations (mostly of one shape), keep a runner-up family's pipeline
  // variants in play: on the H100 the best of a family is often one variant well above the rest.
  std::vector<std::size_t> local_candidates(const std::vector<std::size_t>& order, std::size_t count) const {
    std::vector<std::pair<double, std::size_t>> best(measured_.size());
    for (std::size_t k = 0; k < measured_.size(); ++k) best[k] = {measured_[k].second, measured_[k].first};
    std::sort(best.begin(), best.end(), std::greater<>());
    std::vector<std::size_t> leaders;
    std::set<std::vector<int>> shapes;
    for (const auto& [score, index] : best)
      if (leaders.size() < kLeaders && shapes.insert(tile_shape_of(genes_[index])).second) leaders.push_back(index);
    std::vector<std::size_t> near;
    for (std::size_t i : order) {
      if (near.size() >= count) break;
      for (std::size_t leader : leaders) {
        std::size_t distance = 0;
        for (std::size_t f = 0; f < genes_[i].size() && distance <= 1; ++f) distance += genes_[leader][f] != genes_[i][f];
        if (distance == 1) {
          near.push_back(i);
          break;
        }
      }
    }
    return near;
  }

  static constexpr double kNoise = 0.01;  // in log TFLOP/s: about 1%, the measurements' own spread
  static constexpr double kOnHandBonus = 0.10;  // a compiled binary is worth 10% of predicted speed
  static constexpr std::size_t kLeaders = 3;

  std::mt19937_64 rng_;
  std::vector<std::size_t> prior_order_;
  std::vector<std::size_t> seeds_;
  std::vector<std::vector<int>> genes_;
  std::map<std::pair<std::size_t, int>, std::size_t> feature_of_;  // (parameter, value) -> feature
  std::size_t feature_count_ = 0, prior_feature_ = 0, bias_feature_ = 0;
  std::vector<double> log_prior_;   // centred; empty without a prior
  std::vector<double> prediction_;  // per candidate, log TFLOP/s (before the first fit: the prior)
  std::vector<bool> on_hand_;       // empty: nothing compiled before this search
  std::vector<std::pair<std::size_t, double>> measured_;
  std::set<std::size_t> proposed_;
  std::set<std::vector<int>> tile_shapes_;
  std::size_t budget_ = 0, population_ = 0, outstanding_ = 0;
};

}  // namespace

std::unique_ptr<SearchStrategy> make_surrogate(StrategyContext context) {
  return std::make_unique<Surrogate>(context);
}

}  // namespace gemmtune
