// Search strategies replayed against recorded logs of real H100 timings (tests/data/): today's
// default space measured whole at 1024, 2048 and 64x4096x4096, an earlier template's default space at
// 512, 1024 and 4096, and a large-tile subset at 4096. No GPU: the "measurement" of a candidate is
// its recorded median.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "../test_paths.hpp"
#include "core/kernel_path.hpp"
#include "core/problem.hpp"
#include "search/device_catalog.hpp"
#include "search/launch_variants.hpp"
#include "search/search_space.hpp"
#include "search/static_model.hpp"
#include "search/strategies/search_strategy.hpp"

namespace gemmtune {
namespace {

// Candidates asked for at once, as the tuner asks on 16 cores (its look-ahead, shape_tuner.cpp):
// the strategy, not the caller, decides how many make a generation.
constexpr std::size_t kAsked = 32;

struct Recorded {
  GemmShape shape;
  std::vector<KernelConfig> candidates;
  std::vector<double> tflops;  // 0 for failures
  double best = 0;
  std::vector<double> prior;  // the static model's prediction the tuner gives the strategy on this GPU
};

// The lines of a recording, gzip-compressed or plain (zlib reads both).
std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) return lines;
  std::string line;
  char chunk[4096];
  while (gzgets(in, chunk, sizeof chunk)) {
    line += chunk;
    if (line.back() != '\n') continue;
    lines.push_back(std::move(line));
    line.clear();
  }
  if (!line.empty()) lines.push_back(std::move(line));  // a last line without its newline
  gzclose(in);
  return lines;
}

std::map<int, Recorded> load_replay(const std::string& file) {
  std::map<int, Recorded> by_size;
  for (const std::string& line : lines_of(testing_paths::data(file))) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("type", "") != "evaluation") continue;
    const int m = j["m"].get<int>();
    Recorded& r = by_size[m];
    r.shape = {m, j["n"].get<int>(), j["k"].get<int>()};
    r.candidates.push_back(j["config"].get<KernelConfig>());
    const double t =
        j.value("status", "") == "ok" ? r.shape.flops() / (j["median_ms"].get<double>() * 1e-3) / 1e12 : 0.0;
    r.tflops.push_back(t);
    r.best = std::max(r.best, t);
  }
  for (auto& [m, r] : by_size)
    r.prior = predicted_tflops_before_compile(r.candidates, load_device_profile("h100"), r.shape,
                                              load_search_space({}).settings.register_overhead);
  return by_size;
}

// A recording's candidates in the order the tuner enumerates today's default space for that shape,
// as the strategy gets them in a real run; those the space no longer holds last, in recorded order.
// The order is not neutral: ties in the static model (a tile shape's swizzle and split-K variants
// are predicted alike) go to the first enumerated, so it fixes generation 0 and, with the one seed
// every run uses, the path. An exhaustive run logs candidates as their compiles finish: replayed in
// that order, only 10 of the 20 first proposals at 2048 were those of the H100's fresh runs.
void in_enumeration_order(Recorded& r) {
  const Enumeration space = enumerate(load_search_space({}), load_device_profile("h100"), &r.shape);
  std::map<std::vector<int>, std::size_t> rank;
  for (std::size_t i = 0; i < space.candidates.size(); ++i) rank.emplace(parameter_values(space.candidates[i]), i);
  std::vector<std::size_t> order(r.candidates.size());
  std::iota(order.begin(), order.end(), 0);
  const auto rank_of = [&](std::size_t i) {
    const auto it = rank.find(parameter_values(r.candidates[i]));
    return it == rank.end() ? space.candidates.size() : it->second;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank_of(a) < rank_of(b); });
  Recorded sorted = r;
  for (std::size_t k = 0; k < order.size(); ++k) {
    sorted.candidates[k] = r.candidates[order[k]];
    sorted.tflops[k] = r.tflops[order[k]];
    sorted.prior[k] = r.prior[order[k]];
  }
  r = std::move(sorted);
}

const std::map<int, Recorded>& replay() {
  static const std::map<int, Recorded> data = load_replay("h100-exhaustive-replay.jsonl");
  return data;
}

// A second recording, made after fma_order was added: every configuration of a large-tile subset
// of the default space (128 and 256 blocks, 8 and 16 micro-tiles, all pipelines and FMA orders,
// 1032 candidates) at 4096 on the H100. Its optimum is a single spike: one configuration within 1%
// of the best, six within 3%.
const Recorded& large_tiles_4096() {
  static const std::map<int, Recorded> data = load_replay("h100-large-tiles-4096-replay.jsonl");
  return data.at(4096);
}

// Today's template and default space, every candidate measured on the H100 at 1024 (35184) and at
// 64x4096x4096 (44952): `gemm-tune --strategy exhaustive --sizes 1024,64x4096x4096`, 2026-11-25
// 00:02 to 00:33 UTC; and at 2048 (17712), 20:18 to 20:23 UTC the same day. Kept to the fields a
// replay reads.
const std::map<int, Recorded>& default_space() {
  static const std::map<int, Recorded> data = [] {
    std::map<int, Recorded> by_size = load_replay("h100-default-space-replay.jsonl.gz");
    for (auto& [m, r] : by_size) in_enumeration_order(r);
    return by_size;
  }();
  return data;
}

// Runs a strategy to completion against the recording; returns the best TFLOP/s it saw and how
// many it measured. With `variants`, each proposal is followed by that many launch-time variants of
// measured binaries (LaunchVariants), learned as the tuner learns them.
std::pair<double, std::size_t> run(const std::string& name, const Recorded& r, std::uint64_t seed,
                                   std::size_t budget = 0, std::size_t variants = 0) {
  StrategyContext ctx;
  ctx.candidates = r.candidates;
  ctx.prior = r.prior;
  ctx.seed = seed;
  ctx.budget = budget;
  auto strategy = make_strategy(name, ctx);
  LaunchVariants at_hand(r.candidates, r.shape, r.prior);
  std::set<std::size_t> seen;
  double best = 0;
  while (true) {
    const auto batch = strategy->propose(kAsked);
    if (batch.empty()) break;
    for (std::size_t i : batch) at_hand.take(i);
    for (std::size_t i : batch) {
      EXPECT_TRUE(seen.insert(i).second) << name << " proposed " << i << " twice";
      best = std::max(best, r.tflops.at(i));
      strategy->observe(i, r.tflops.at(i));
      at_hand.measured(i, r.tflops.at(i));
      for (std::size_t v = 0; v < variants; ++v) {
        const std::optional<std::size_t> variant = at_hand.next();
        if (!variant) break;
        EXPECT_TRUE(seen.insert(*variant).second) << name << ": variant " << *variant << " measured twice";
        best = std::max(best, r.tflops.at(*variant));
        strategy->learn(*variant, r.tflops.at(*variant));
      }
    }
  }
  EXPECT_LE(seen.size(), strategy->planned() * (1 + variants));
  return {best, seen.size()};
}

TEST(StrategyReplay, RecordingCoversThreeSizes) {
  ASSERT_EQ(replay().size(), 3u) << "missing tests/data/h100-exhaustive-replay.jsonl";
  for (const auto& [m, r] : replay()) {
    EXPECT_GT(r.candidates.size(), 500u) << m;
    EXPECT_GT(r.best, 10.0) << m;
  }
}

TEST(StrategyReplay, ExhaustiveFindsTheRecordedBest) {
  for (const auto& [m, r] : replay()) {
    const auto [best, count] = run("exhaustive", r, 1);
    EXPECT_EQ(count, r.candidates.size());
    EXPECT_DOUBLE_EQ(best, r.best) << m;
  }
}

TEST(StrategyReplay, BudgetsAreRespected) {
  for (const auto& [m, r] : replay()) {
    for (const std::string& name : strategy_names())
      EXPECT_LE(run(name, r, 3, 40).second, 40u) << name << " at " << m;
  }
}

// The genetic search (the default until 2026-11-24) with its default budget (120 evaluations,
// about a fifteenth of the space) lands within 3% of the exhaustive optimum for at least 80% of
// 300 seeds at every size, and never
// more than 6% short. Over 600 seeds the share is 100% at 512 and 4096 and 86% at 1024 (89% before
// the genes covered fma_order, 86.5% once they covered transpose_b, which this recording does not
// vary either: such a change only moves the random draws). 300 seeds, not 60: at 60 the count
// moves by about 3 from one set of draws to another, as much as the margin a 60-seed bound has.
TEST(StrategyReplay, GeneticWithinThreePercentOfExhaustive) {
  for (const auto& [m, r] : replay()) {
    int within = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
      const auto [best, count] = run("genetic", r, seed);
      EXPECT_LE(count, 120u);
      within += best >= 0.97 * r.best;
      EXPECT_GE(best, 0.94 * r.best) << "size " << m << " seed " << seed << ": " << best << " vs " << r.best;
    }
    EXPECT_GE(within, 240) << "size " << m << ": " << within << " of 300 seeds within 3%";
  }
}

// Guided beats blind: over ten seeds, genetic's mean shortfall from the optimum is smaller than
// random search's with the same budget.
TEST(StrategyReplay, GeneticBeatsRandomAtEqualBudget) {
  for (const auto& [m, r] : replay()) {
    double genetic_gap = 0, random_gap = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      genetic_gap += r.best - run("genetic", r, seed, 60).first;
      random_gap += r.best - run("random", r, seed, 60).first;
    }
    EXPECT_LT(genetic_gap, random_gap) << "size " << m;
  }
}

// Breeding must be able to move every parameter. When fma_order was missing from the genes, the
// three orders of a configuration looked identical to the search, and over 600 seeds it came within
// 1% of this spike 8% of the time (within 3%: 39%); with every parameter a gene, 34% (80%); with
// transpose_b a gene too (constant here: only the draws moved), 30% (78%). Bounds over 300 seeds,
// 3 standard deviations below those rates.
TEST(StrategyReplay, GeneticReachesTheLargeTileSpike) {
  const Recorded& r = large_tiles_4096();
  ASSERT_EQ(r.candidates.size(), 1032u);
  int within1 = 0, within3 = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const double best = run("genetic", r, seed).first;
    within1 += best >= 0.99 * r.best;
    within3 += best >= 0.97 * r.best;
  }
  EXPECT_GE(within1, 60) << "of 300 seeds within 1%";
  EXPECT_GE(within3, 210) << "of 300 seeds within 3%";
}

// Shortfall from the optimum over seeds 1..count: 1 - best found / recorded best, sorted. budget 0:
// the strategy's default.
std::vector<double> gaps(const std::string& name, const Recorded& r, int count, std::size_t budget = 0,
                         std::size_t variants = 0) {
  std::vector<double> out;
  for (std::uint64_t seed = 1; seed <= std::uint64_t(count); ++seed)
    out.push_back(1.0 - run(name, r, seed, budget, variants).first / r.best);
  std::sort(out.begin(), out.end());
  return out;
}

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); }

// The surrogate's default budget on this recording (200, or the whole recording if smaller), which
// the other strategies get too where they are compared with it.
std::size_t surrogate_budget(const Recorded& r) {
  StrategyContext ctx;
  ctx.candidates = r.candidates;
  return make_strategy("surrogate", ctx)->planned();
}

// The surrogate search at its default budget (200): its median over 100 seeds is within 1% of the
// optimum at every size, and its mean shortfall is below the genetic search's with the same budget.
// Measured (2026-11-26): medians 0.00% at all three sizes, every seed within 1% (genetic with the
// same budget: 100, 93 and 100 seeds, its 1024 mean 0.20%; with 160, 86 and a mean of 0.48%).
TEST(StrategyReplay, SurrogateWithinOnePercentAndAheadOfGenetic) {
  for (const auto& [m, r] : replay()) {
    const std::size_t budget = surrogate_budget(r);
    const std::vector<double> surrogate = gaps("surrogate", r, 100), genetic = gaps("genetic", r, 100, budget);
    EXPECT_LE(surrogate[50], 0.01) << "size " << m << ": median shortfall";
    EXPECT_LE(mean(surrogate), mean(genetic)) << "size " << m;
  }
}

// Today's template and default space, exhaustively recorded (1024, 2048 and the skinny
// 64x4096x4096), 40 seeds each, asked for candidates as the tuner asks (generations of 20), at the
// default budget of 200, the candidates in enumeration order. The strategy alone (as where cuBLAS
// takes over 1 ms), 2026-11-26: medians 0.00% at 1024, 2048 and 64x4096x4096, 37, 39 and 28 seeds
// within 1%, the worst 2.1%, 2.4% and 1.6% (before the exploring quarter looked for pipelines a
// tile shape had not had: 39, 39 and 32, the worst 2.1%, 1.6% and 1.6%); genetic, same budget:
// medians 2.2%, 2.4% and 2.6%. With the two launch-time variants the tuner measures after each
// proposal elsewhere: medians 0.00%, the worst seeds 0.13%, 0.91% and 0.00%. At the budget of 160
// (with the model's pipeline term, 2026-11-25): 35, 35 and 30 seeds within 1%, the worst with
// variants 0.13%, 0.91% and 1.63%; without the term 2048's worst seed with variants was 3.1%,
// ending in the 64x256x8 family with one buffer, three parameters away from that family's best
// settings, as two of the H100's 20 fresh runs at 2048 did. At the budget of 120 the 64x4096x4096
// medians were 2.6% and 1.63% (recorded order).
TEST(StrategyReplay, SurrogateOnTheDefaultSpace) {
  ASSERT_EQ(default_space().size(), 3u) << "missing tests/data/h100-default-space-replay.jsonl.gz";
  for (const auto& [m, r] : default_space()) {
    EXPECT_GT(r.candidates.size(), 17000u) << m;
    const std::vector<double> surrogate = gaps("surrogate", r, 40),
                              genetic = gaps("genetic", r, 40, surrogate_budget(r));
    const std::vector<double> with_variants = gaps("surrogate", r, 40, 0, kLaunchVariantsPerProposal);
    const auto within_1 = std::count_if(surrogate.begin(), surrogate.end(), [](double g) { return g <= 0.01; });
    std::printf("m %d: median %.2f%%, %ld within 1%%, worst %.2f%%; genetic median %.2f%%; with launch variants median "
                "%.2f%%, worst %.2f%%\n",
                m, 100 * surrogate[20], long(within_1), 100 * surrogate.back(), 100 * genetic[20],
                100 * with_variants[20], 100 * with_variants.back());
    RecordProperty("median_shortfall_m" + std::to_string(m), std::to_string(surrogate[20]));
    EXPECT_LE(surrogate[20], 0.01) << "m " << m << ": median shortfall";
    EXPECT_LE(surrogate.back(), 0.03) << "m " << m << ": worst seed";
    EXPECT_LT(mean(surrogate), mean(genetic)) << "m " << m;
    EXPECT_LE(with_variants[20], 0.01) << "m " << m << ": median with launch variants";
    EXPECT_LE(with_variants.back(), 0.02) << "m " << m << ": worst seed with launch variants";
  }
}

// The large-tile recording's single spike defeats a model of additive effects: at the default budget
// (200) the surrogate's median stops 1.9% short, 1 of 100 seeds reaches the spike and every seed is
// within 2% (the same at 160, 2026-11-26). Genetic does better here: with the same budget its median
// is 0.00% (68 seeds within 1%, 100 within 3%); with 160, 51 and 99; with 120, a median of 2.1% (29
// within 1%, 77 within 3%).
TEST(StrategyReplay, SurrogateNearTheLargeTileSpike) {
  const std::vector<double> surrogate = gaps("surrogate", large_tiles_4096(), 100);
  EXPECT_LE(surrogate[50], 0.025);
  EXPECT_GE(std::count_if(surrogate.begin(), surrogate.end(), [](double g) { return g <= 0.03; }), 90);
}

// A second run of the same search over a warm compile cache: the same seed, but every measurement
// differs by the timing noise (1%, seeded per rerun). Without knowing what is compiled, the rerun
// drifts into candidates the first run never compiled; told which binaries are on hand, it keeps
// to them, and finds as much. (On this 1200-candidate sample a blind rerun drifts little; in the
// default space of 12k to 45k candidates per shape it drifts far more.)
struct Walk {
  std::vector<std::size_t> proposed;
  double best = 0;
  int waits = 0;  // times the GPU waited for NVRTC with nothing else to measure
};

// The order in which a cold run measures a generation: as proposed, or as its compiles finish (any
// order: NVRTC takes a second or more per candidate, and 16 run at once). It decides which launch
// variants the strategy has learned when it fits the next generation.
enum class Order { as_proposed, as_compiled };

// Drives the surrogate as the tuner does (shape_tuner.cpp) over a warm cache: up to kAsked
// candidates pending, the first whose binary is on hand measured next. When only uncompiled ones
// are pending, the strategy hears that the GPU is stalled (if `tell_stalls`) and may propose again;
// if it proposes nothing the GPU waits, and the binaries pending then are compiled. Without
// binaries on hand (a cold run), `order` says which pending candidate is measured next.
// `from_this_run`: of on_hand, the binaries another problem of the same run compiled.
Walk walk(const Recorded& r, std::uint64_t noise_seed, const std::vector<bool>& on_hand,
          bool tell_stalls = true, Order order = Order::as_proposed,
          const std::vector<bool>& from_this_run = {}) {
  StrategyContext ctx;
  ctx.candidates = r.candidates;
  ctx.prior = r.prior;
  ctx.on_hand = on_hand;
  ctx.on_hand_from_this_run = from_this_run;
  auto strategy = make_strategy("surrogate", ctx);
  LaunchVariants at_hand(r.candidates, r.shape, r.prior);
  std::mt19937_64 rng(noise_seed);
  std::normal_distribution<double> noise(0.0, 0.01);
  Walk w;
  std::deque<std::pair<std::size_t, bool>> pending;  // index, binary ready
  const auto ask = [&] {
    if (pending.size() >= kAsked) return false;
    const std::vector<std::size_t> batch = strategy->propose(kAsked - pending.size());
    for (std::size_t i : batch) {
      at_hand.take(i);
      pending.emplace_back(i, on_hand.empty() || on_hand[i]);
    }
    return !batch.empty();
  };
  const auto first_ready = [&] {
    return std::find_if(pending.begin(), pending.end(), [](const auto& p) { return p.second; });
  };
  std::mt19937_64 finish_rng(noise_seed * 31 + 7);
  const auto any_pending = [&] {
    const auto last = static_cast<std::ptrdiff_t>(pending.size()) - 1;
    return pending.begin() + std::uniform_int_distribution<std::ptrdiff_t>(0, last)(finish_rng);
  };
  for (ask(); !pending.empty(); ask()) {
    auto next = order == Order::as_compiled && on_hand.empty() ? any_pending() : first_ready();
    if (next == pending.end()) {
      if (tell_stalls) strategy->stalled();
      if (!tell_stalls || !ask()) {
        ++w.waits;
        for (auto& p : pending) p.second = true;
      }
      next = first_ready();
    }
    const std::size_t i = next->first;
    pending.erase(next);
    w.proposed.push_back(i);
    w.best = std::max(w.best, r.tflops.at(i));
    const double score = r.tflops.at(i) * (1.0 + noise(rng));
    strategy->observe(i, score);
    at_hand.measured(i, score);
    for (std::size_t v = 0; v < kLaunchVariantsPerProposal; ++v)  // as the tuner does
      if (const std::optional<std::size_t> variant = at_hand.next()) {
        w.best = std::max(w.best, r.tflops.at(*variant));
        strategy->learn(*variant, r.tflops.at(*variant) * (1.0 + noise(rng)));
      }
  }
  return w;
}

// The next generation waits for the last measurement of this one, unless the GPU is stalled on a
// few candidates a rerun drifted into: binaries not on hand, still compiling.
TEST(StrategyReplay, SurrogateGoesOnWithoutARerunsUncompiledStragglers) {
  const Recorded& r = replay().begin()->second;
  const auto after_stall = [&](const std::vector<bool>& on_hand, std::size_t stragglers) {
    StrategyContext ctx;
    ctx.candidates = r.candidates;
    ctx.prior = r.prior;
    ctx.on_hand = on_hand;
    auto strategy = make_strategy("surrogate", ctx);
    const std::vector<std::size_t> first = strategy->propose(kAsked);
    for (std::size_t k = 0; k + stragglers < first.size(); ++k) strategy->observe(first[k], r.tflops.at(first[k]));
    EXPECT_TRUE(strategy->propose(kAsked).empty()) << "not stalled: the generation is waited for";
    strategy->stalled();
    return strategy->propose(kAsked).size();
  };
  // The first generation does not depend on what is on hand; its last three are not.
  StrategyContext probe;
  probe.candidates = r.candidates;
  probe.prior = r.prior;
  const std::vector<std::size_t> first = make_strategy("surrogate", probe)->propose(kAsked);
  ASSERT_EQ(first.size(), 20u);
  std::vector<bool> on_hand(r.candidates.size(), true);
  for (std::size_t k = first.size() - 3; k < first.size(); ++k) on_hand[first[k]] = false;
  EXPECT_EQ(after_stall(on_hand, 3), 20u) << "three uncompiled stragglers of a rerun";
  EXPECT_EQ(after_stall(on_hand, 4), 0u) << "a straggler on hand is only a moment away";
  EXPECT_EQ(after_stall(std::vector<bool>(r.candidates.size(), false), 3), 0u) << "a first run waits";
  for (std::size_t k = first.size() - 6; k < first.size(); ++k) on_hand[first[k]] = false;
  EXPECT_EQ(after_stall(on_hand, 6), 0u) << "more than a quarter of a generation";
}

// A first run (nothing on hand) whose generation was small, because the look-ahead had room for
// only a few, waits for its stragglers like any first run. It used to read the empty on-hand list
// there: gemm-tune segfaulted near the end of a bf16 decode search (issue #42, H200, 2026-11-26).
TEST(StrategyReplay, SurrogateColdRunsSmallGenerationWaitsForItsStragglers) {
  const Recorded& r = replay().begin()->second;
  StrategyContext ctx;
  ctx.candidates = r.candidates;
  ctx.prior = r.prior;
  auto strategy = make_strategy("surrogate", ctx);
  const std::vector<std::size_t> few = strategy->propose(4);
  ASSERT_EQ(few.size(), 4u);
  strategy->observe(few[0], r.tflops.at(few[0]));
  strategy->stalled();
  EXPECT_TRUE(strategy->propose(kAsked).empty()) << "three stragglers of a first run are waited for";
  for (std::size_t k = 1; k < few.size(); ++k) strategy->observe(few[k], r.tflops.at(few[k]));
  EXPECT_FALSE(strategy->propose(kAsked).empty()) << "once they are in, the next generation comes";
}

TEST(StrategyReplay, WarmCacheRerunKeepsToCompiledBinaries) {
  for (const auto& [m, r] : default_space()) {
    double share_blind = 0, share_told = 0, best_blind = 0, best_told = 0, best_waiting = 0;
    int waits_told = 0, waits_waiting = 0;
    const int reruns = 20;
    for (int rerun = 1; rerun <= reruns; ++rerun) {
      const Walk first = walk(r, 1000 + rerun, {});
      std::vector<bool> on_hand(r.candidates.size(), false);
      for (std::size_t i : first.proposed) on_hand[i] = true;
      const Walk blind = walk(r, rerun, {}), told = walk(r, rerun, on_hand),
                 waiting = walk(r, rerun, on_hand, false);
      const auto share = [&](const Walk& w) {
        return double(std::count_if(w.proposed.begin(), w.proposed.end(), [&](std::size_t i) { return on_hand[i]; })) /
               double(w.proposed.size());
      };
      share_blind += share(blind) / reruns;
      share_told += share(told) / reruns;
      best_blind += blind.best / r.best / reruns;
      best_told += told.best / r.best / reruns;
      best_waiting += waiting.best / r.best / reruns;
      waits_told += told.waits;
      waits_waiting += waiting.waits;
    }
    RecordProperty("share_" + std::to_string(m), std::to_string(share_blind) + " -> " + std::to_string(share_told));
    std::printf("m %d: compiled share %.3f -> %.3f, best %.4f -> %.4f of the optimum; waits for NVRTC %d -> %d "
                "(best %.4f when every generation waits)\n",
                m, share_blind, share_told, best_blind, best_told, waits_waiting, waits_told, best_waiting);
    // Measured, with three launch variants learned after each proposal as the tuner does: 32.3% ->
    // 19.8% of the rerun's candidates uncompiled at 64x4096x4096, 49.4% -> 21.8% at 1024; the best
    // found as good. (Without the variants and before the best settings were carried to other tile
    // shapes: 12.4% -> 3.0% and 5.9% -> 1.0%; a search that learns more moves more with the noise.)
    // In enumeration order, with two variants (2026-11-25): 37.5% -> 20.4% at 64x4096x4096, 44.1% ->
    // 19.2% at 1024, 57.2% -> 26.3% at 2048.
    // Going on without the uncompiled stragglers (20 reruns, 2026-11-25): the GPU waited for NVRTC
    // 64 times instead of 125 at 64x4096x4096 and 77 instead of 123 at 1024, the best found 0.9902
    // and 0.9999 of the optimum against 0.9896 and 0.9999 when every generation waits. With the
    // model's pipeline term (same day): 70 of 117, 68 of 122 and 98 of 127 at 2048 (92 of 134
    // without it), 71.6% of 2048's rerun on hand (73.7% without). At the budget of 200 (2026-11-26):
    // 88 of 144, 82 of 153 and 109 of 165; on hand 79.3%, 83.1% and 75.9% of the rerun (63.2%,
    // 53.7% and 40.7% blind).
    EXPECT_LE(1.0 - share_told, 0.7 * (1.0 - share_blind)) << "m " << m;
    EXPECT_GE(best_told, best_blind - 0.005) << "m " << m;
    EXPECT_GE(best_told, best_waiting - 0.005) << "m " << m;
    EXPECT_LE(waits_told, 0.8 * waits_waiting) << "m " << m << ": a fifth of the waits saved";
  }
}

// The binary a candidate's measurement needs at its recording's problem, as the compile cache keys
// it (family and name expression, which names the copy path): candidates that differ only at launch
// share one, and so do candidates of two problems whose paths agree.
std::vector<std::string> binaries_of(const Recorded& r) {
  std::vector<std::string> out;
  for (const KernelConfig& c : r.candidates)
    out.push_back(std::to_string(int(c.family)) + " " + c.name_expression(kernel_path_for(c, r.shape)));
  return out;
}

// Two problems of one cold run in sequence (issue #47): B searched with nothing on hand (blind), and
// searched again with the binaries A's search compiled counted as on hand (told), as the tuner
// counts them when a GPU takes B after A. Per rerun, A's and B's measurements get their own noise.
struct Sequence {
  double on_hand_blind = 0, on_hand_told = 0;    // share of B's proposals whose binary A compiled
  double compiles_blind = 0, compiles_told = 0;  // B's new binaries, mean over the reruns
  double best_blind = 0, best_told = 0;          // B's best found, of B's optimum, mean
  double worst_told = 1;                         // B's lowest best found, told
  int waits_blind = 0, waits_told = 0;           // times B's GPU waited for NVRTC, summed
};

Sequence in_sequence(const Recorded& a, const Recorded& b, int reruns) {
  const std::vector<std::string> binaries_a = binaries_of(a), binaries_b = binaries_of(b);
  Sequence s;
  for (int rerun = 1; rerun <= reruns; ++rerun) {
    std::set<std::string> compiled;  // A's binaries
    for (std::size_t i : walk(a, 1000 + rerun, {}).proposed) compiled.insert(binaries_a[i]);
    std::vector<bool> on_hand(b.candidates.size());
    for (std::size_t i = 0; i < on_hand.size(); ++i) on_hand[i] = compiled.count(binaries_b[i]) > 0;
    // Blind: an on-hand list of none, so the walk counts a cold run's waits (one a generation).
    const Walk blind = walk(b, rerun, std::vector<bool>(on_hand.size(), false)),
               told = walk(b, rerun, on_hand, true, Order::as_proposed, on_hand);
    const auto share = [&](const Walk& w) {
      return double(std::count_if(w.proposed.begin(), w.proposed.end(),
                                  [&](std::size_t i) { return on_hand[i]; })) /
             double(w.proposed.size());
    };
    const auto new_binaries = [&](const Walk& w) {
      std::set<std::string> added;
      for (std::size_t i : w.proposed)
        if (!on_hand[i]) added.insert(binaries_b[i]);
      return double(added.size());
    };
    s.on_hand_blind += share(blind) / reruns;
    s.on_hand_told += share(told) / reruns;
    std::set<std::string> blind_binaries;  // blind, every binary is compiled: A's were not counted
    for (std::size_t i : blind.proposed) blind_binaries.insert(binaries_b[i]);
    s.compiles_blind += double(blind_binaries.size()) / reruns;
    s.compiles_told += new_binaries(told) / reruns;
    s.best_blind += blind.best / b.best / reruns;
    s.best_told += told.best / b.best / reruns;
    s.worst_told = std::min(s.worst_told, told.best / b.best);
    s.waits_blind += blind.waits;
    s.waits_told += told.waits;
  }
  return s;
}

// A cold run's later problem counts the binaries its earlier problems compiled as on hand (what a
// GPU taking 2048 after 1024, or 1024 after 2048, is told): it compiles about half as many binaries
// and still finds its optimum. 8 reruns a pair (2026-11-27): 1024 then 2048, on hand 0.172 -> 0.494
// of B's proposals, 184.8 -> 93.4 new binaries, best 1.0000 -> 0.9976 of the optimum (worst
// 0.9973), waits for NVRTC 80 -> 70; 2048 then 1024, 0.163 -> 0.474, 185.6 -> 100.1, 0.9994 ->
// 0.9997 (worst 0.9987), 80 -> 63. Told as binaries of the same run's other problems, B waits for
// its stragglers as a first run does; told them as an earlier run's (no on_hand_from_this_run), it
// went on without them and 2048 then 1024 ended 2.1% short in one of 8 reruns (0.9789). Over 20
// reruns and the skinny shape: docs/multi-gpu.md.
TEST(StrategyReplay, ColdRunsLaterProblemUsesTheEarliersBinaries) {
  const std::map<int, Recorded>& space = default_space();
  ASSERT_EQ(space.size(), 3u);
  for (const auto& [first, then] : {std::pair{1024, 2048}, std::pair{2048, 1024}}) {
    const Sequence s = in_sequence(space.at(first), space.at(then), 8);
    std::printf(
        "%d then %d: on hand %.3f -> %.3f of the proposals, new binaries %.1f -> %.1f, best %.4f -> %.4f "
        "(worst %.4f), waits for NVRTC %d -> %d\n",
        first, then, s.on_hand_blind, s.on_hand_told, s.compiles_blind, s.compiles_told, s.best_blind,
        s.best_told, s.worst_told, s.waits_blind, s.waits_told);
    EXPECT_LE(s.compiles_told, 0.8 * s.compiles_blind)
        << first << " then " << then << ": a fifth fewer compiles";
    EXPECT_GE(s.on_hand_told, 2 * s.on_hand_blind) << first << " then " << then;
    EXPECT_GE(s.best_told, 0.995) << first << " then " << then << ": mean best found, of the optimum";
    EXPECT_GE(s.worst_told, 0.99) << first << " then " << then << ": every rerun within 1%";
    EXPECT_GE(s.best_told, s.best_blind - 0.005) << first << " then " << then;
    EXPECT_LT(s.waits_told, s.waits_blind)
        << first << " then " << then << ": some generations need no compile";
  }
}

// Fresh runs as the tuner makes them: the strategy's seed is always the same (--seed 1); what moves
// a run is the measurements' noise (1% here, drawn per run) and the order in which its compiles
// finish. 100 runs per recording of the default space.
// At 2048 the test asks for 0.5%, not 2%: the H100's fresh runs that ended 0.9% short by the
// recording (64x256x8_t16x8_w4 with three cp.async stages, 99.1% of the optimum) were 2.8% short of
// the shipped winner raced beside it by `cross` (2026-11-25, 7 of 87 runs at the budget of 160).
// Measured at the budget of 200 (2026-11-26), the exploring quarter of each generation trying
// pipelines a tile shape has not had: within 0.5% of the optimum 63 (64x4096x4096, whose runner-up
// is 1.63% short), 100 (1024) and 100 (2048) runs; within 2% all. Over 300 runs, within 0.5%: 186,
// 300 and 299 (the H100's fresh runs at 2048: 2 of 117 more than 2% short of the shipped winner).
// Without that rule 69, 100 and 98; over 300 runs 193, 300 and 293 (the H100: 2 of 39 at 2048 2.9%
// short); at 160, 161, 300 and 269 (the H100: 8% of its runs at 2048 short); at 240, 212, 300 and
// 299, but 2048, 8192 and the skinny shapes then took the H100 84.5 and 89.9 s from nothing (target
// 90), against 73.9 and 77.0 s at 200 on the same machine.
// Before that, at 160 (2026-11-25), with the model's pipeline term: within 2% of the optimum 100,
// 100 and 99 runs, within 1% 54, 100 and 98. Over 300 runs: within 2% 300, 300 and 298 (without the
// pipeline term 298, 300 and 281; with a stages and cp.async term alone 300, 300 and 286). The
// H100's fresh runs at 2048 agreed: 2 of 20 more than 2% short before the term, both in the
// 64x256x8 family with one buffer.
// Tried and not kept (as compiled, then the strategy alone on 40 seeds as in
// SurrogateOnTheDefaultSpace; all before the pipeline term):
// - five leaders' neighbourhoods instead of three: 2048 100 runs, but the strategy alone at
//   64x4096x4096 falls to a median of 1.63% (2 seeds of 40 within 1%, was 31); four: 2048 96;
// - stages and cp.async as one step of the neighbourhood (one buffer to three async stages is one
//   move): 2048 97, but 64x4096x4096 measured as proposed falls from 58 runs within 1% to 36;
// - the second leader's settings carried to the other leading families too: 2048 84.
// With the term (300 runs): four leaders 299 within 2% at 2048 but 64x4096x4096 149 within 1%
// (161 with three); four transplants 240 within 1% at 64x4096x4096 but 2048 296 within 2%.
TEST(StrategyReplay, SurrogateThroughTheNoiseOfFreshRuns) {
  for (const auto& [m, r] : default_space()) {
    std::vector<double> found;
    for (int run = 1; run <= 100; ++run) found.push_back(walk(r, run, {}, true, Order::as_compiled).best / r.best);
    std::sort(found.begin(), found.end());
    const auto within = [&](double f) {
      return std::count_if(found.begin(), found.end(), [&](double x) { return x >= 1 - f; });
    };
    std::printf("m %d: within 0.5%% %ld, within 1%% %ld, within 2%% %ld, median %.2f%% short, worst %.2f%%\n", m,
                long(within(0.005)), long(within(0.01)), long(within(0.02)), 100 * (1 - found[50]), 100 * (1 - found[0]));
    EXPECT_GE(within(0.02), 98) << "m " << m;
    if (m == 2048) {
      EXPECT_GE(within(0.005), 99) << "m " << m << ": runs within 0.5%";
    }
  }
}

// What the surrogate expects to propose next (compiled ahead by the tuner's speculative lane) holds
// a good share of the generation it then proposes, and asking does not change that generation.
// Measured over 20 seeds (2026-11-25): 26% at 1024 and 30% at 64x4096x4096; the static model's
// order of the candidates not yet proposed, 20 more per generation, held 0.4% and 8% (recorded
// order). In enumeration order, over these 5 seeds: 33% at 1024, 36% at 2048, 24% at 64x4096x4096.
TEST(StrategyReplay, SurrogateForeseesMuchOfItsNextGeneration) {
  for (const auto& [m, r] : default_space()) {
    double held = 0;
    int generations = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      StrategyContext ctx;
      ctx.candidates = r.candidates;
      ctx.prior = r.prior;
      ctx.seed = seed;
      auto asked = make_strategy("surrogate", ctx), unasked = make_strategy("surrogate", ctx);
      std::vector<std::size_t> guess;
      while (true) {
        const std::vector<std::size_t> batch = asked->propose(kAsked);
        ASSERT_EQ(batch, unasked->propose(kAsked)) << "m " << m << ": asking moved the search";
        if (batch.empty()) break;
        if (!guess.empty()) {
          held += double(std::count_if(batch.begin(), batch.end(), [&](std::size_t i) {
                    return std::find(guess.begin(), guess.end(), i) != guess.end();
                  })) / double(batch.size());
          ++generations;
        }
        guess = asked->likely_next();
        EXPECT_LE(guess.size(), batch.size()) << "m " << m;
        for (std::size_t i : guess)
          EXPECT_EQ(std::find(batch.begin(), batch.end(), i), batch.end()) << "m " << m << ": guessed a proposed one";
        for (std::size_t i : batch) {
          asked->observe(i, r.tflops.at(i));
          unasked->observe(i, r.tflops.at(i));
        }
      }
      EXPECT_TRUE(asked->likely_next().empty()) << "m " << m << ": a guess beyond the budget";
    }
    ASSERT_GT(generations, 0);
    RecordProperty("next_generation_held_m" + std::to_string(m), std::to_string(held / generations));
    EXPECT_GE(held / generations, 0.15) << "m " << m;
  }
}

TEST(StrategyReplay, FixedOrderForeseesItsNextProposalsExactly) {
  const Recorded& r = replay().begin()->second;
  for (const std::string name : {"exhaustive", "random"}) {
    StrategyContext ctx;
    ctx.candidates = r.candidates;
    ctx.seed = 5;
    auto strategy = make_strategy(name, ctx);
    std::vector<std::size_t> guess = strategy->likely_next();
    ASSERT_FALSE(guess.empty()) << name;
    for (std::vector<std::size_t> batch = strategy->propose(guess.size()); !batch.empty();
         batch = strategy->propose(guess.size())) {
      EXPECT_EQ(batch, guess) << name;
      guess = strategy->likely_next();
    }
    EXPECT_TRUE(guess.empty()) << name;
  }
}

// A pingpong tile is a tile shape of its own, so the surrogate's first generation measures the
// tiles in turn beside the shared ones of the same block. When it shared 128x128's shape, a fresh
// bf16 search at 4096 (H200, 2026-11-29) measured only a shared 128x128 tile, never came back, and
// ended on 128x256 shared tiles at 0.946x cuBLAS where 128x128 in turn ran at 1.000. The one it
// measures is the race's best (6 stages, clusters of 2, raster groups of 16): the static model ties
// the pingpong space's settings, and the enumeration order, the value lists' order, breaks ties.
TEST(StrategyReplay, SurrogateFirstGenerationTriesTheTilesInTurn) {
  for (const Precision p : {Precision::bf16, Precision::fp16, Precision::tf32}) {
    const GemmShape shape{4096, 4096, 4096, Layout::nn, 1, p};
    StrategyContext context;
    context.candidates = enumerate(load_search_spaces({}), load_device_profile("h200"), &shape).candidates;
    context.prior = predicted_tflops_before_compile(context.candidates, load_device_profile("h200"), shape,
                                                    load_search_space({}).settings.register_overhead);
    const std::vector<std::size_t> first = make_strategy("surrogate", context)->propose(kAsked);
    const auto in_turn = std::find_if(first.begin(), first.end(),
                                      [&](std::size_t i) { return context.candidates[i].pingpong; });
    ASSERT_NE(in_turn, first.end()) << shape.label();
    const KernelConfig& c = context.candidates[*in_turn];
    EXPECT_EQ(c.stages, 6) << c.name();
    EXPECT_EQ(c.cluster, 2) << c.name();
    EXPECT_EQ(c.swizzle, 16) << c.name();
    EXPECT_TRUE(std::any_of(first.begin(), first.end(), [&](std::size_t i) {
      const KernelConfig& shared = context.candidates[i];
      return !shared.pingpong && shared.block_m == 128 && shared.block_n == 128;  // mma's or wgmma's
    })) << shape.label();
  }
}

TEST(StrategyReplay, UnknownStrategyIsRefused) {
  EXPECT_THROW(make_strategy("annealing", StrategyContext{}), std::invalid_argument);
}

}  // namespace
}  // namespace gemmtune
