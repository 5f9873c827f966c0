// A search's set-up made ahead of the GPU (commands/setup_ahead.hpp): the same candidates, prior
// and binaries on hand as the search made for itself, seeds appended later get theirs, binaries the
// run compiled for earlier problems count as on hand for a later one, and each planned problem's
// first generation reaches the compile pool's speculative lane, except what a resumed run's log
// holds. Real NVRTC (the pool compiles), no GPU.
#include "commands/setup_ahead.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "../temp_dir_test.hpp"
#include "commands/tune_command.hpp"
#include "core/kernel_path.hpp"
#include "search/device_catalog.hpp"
#include "search/static_model.hpp"
#include "search/strategies/search_strategy.hpp"

namespace gemmtune {
namespace {

class SetupAheadTest : public testing_paths::TempDirTest {
 protected:
  const std::vector<SearchSpace> spaces_ = load_search_spaces({});
  const DeviceProfile h100_ = load_device_profile("h100");
};

TEST_F(SetupAheadTest, MakesWhatTheSearchMadeForItself) {
  const KernelCompiler compiler{dir_ / "cache"};
  CompileService pool(compiler, 1);
  const GemmShape shape{512, 512, 512};
  const Enumeration direct = enumerate(spaces_, h100_, &shape);
  ASSERT_FALSE(direct.candidates.empty());
  const KernelConfig& first = direct.candidates.front();
  const std::unordered_set<std::string> compiled_before = {
      compiler.cache_key(first.family, first.name_expression(kernel_path_for(first, shape)), h100_.arch())};
  const SetupMaker maker(spaces_, compiler, compiled_before, pool);
  ProblemSetup setup = maker.make(h100_, shape);
  EXPECT_EQ(setup.enumeration.candidates, direct.candidates);
  EXPECT_EQ(setup.enumeration.removed, direct.removed);
  EXPECT_EQ(setup.prior, predicted_tflops_before_compile(direct.candidates, h100_, shape,
                                                          spaces_.front().settings.register_overhead));
  ASSERT_EQ(setup.binaries.size(), direct.candidates.size());
  OnHand on_hand = maker.on_hand(setup);
  ASSERT_EQ(on_hand.flags.size(), direct.candidates.size());
  EXPECT_TRUE(on_hand.flags.front());
  // ... and so are the candidates that share its binary (other split-K and swizzle), no others.
  const auto sharing = std::count_if(direct.candidates.begin(), direct.candidates.end(),
                                     [&](const KernelConfig& c) { return c.same_binary(first); });
  EXPECT_EQ(std::count(on_hand.flags.begin(), on_hand.flags.end(), true), sharing);
  EXPECT_EQ(on_hand.before_run, std::size_t(sharing));
  EXPECT_EQ(on_hand.this_run, 0u);
  EXPECT_TRUE(on_hand.from_this_run.empty());
  // A seed from another GPU's results joins at the end, with its prior and binary.
  setup.enumeration.candidates.push_back(first);
  maker.extend(setup, direct.candidates.size(), h100_, shape);
  EXPECT_EQ(setup.prior.size(), setup.enumeration.candidates.size());
  EXPECT_EQ(setup.prior.back(), setup.prior.front());
  EXPECT_EQ(setup.binaries.back(), setup.binaries.front());
  EXPECT_TRUE(maker.on_hand(setup).flags.back());
  // Without anything compiled before the run or in it, nothing is on hand: an empty list.
  const std::unordered_set<std::string> none;
  on_hand = SetupMaker(spaces_, compiler, none, pool).on_hand(setup);
  EXPECT_TRUE(on_hand.flags.empty());
  EXPECT_EQ(on_hand.before_run + on_hand.this_run, 0u);
}

// A problem taken after the run compiled binaries for an earlier one counts them as on hand (issue
// #47's cold runs), apart from those the cache held before the run; the set-up made ahead is the
// same, only the on-hand list is asked later.
TEST_F(SetupAheadTest, BinariesTheRunCompiledAreOnHandForALaterProblem) {
  const KernelCompiler compiler{dir_ / "cache"};
  CompileService pool(compiler, 1);
  const GemmShape earlier{1024, 1024, 1024}, later{2048, 2048, 2048};
  const std::unordered_set<std::string> none;
  const SetupMaker maker(spaces_, compiler, none, pool);
  const ProblemSetup made_ahead = maker.make(h100_, later);
  EXPECT_TRUE(maker.on_hand(made_ahead).flags.empty()) << "a cold cache, nothing compiled yet";
  // A copy: the set-up is a temporary.
  const KernelConfig compiled = maker.make(h100_, earlier).enumeration.candidates.front();
  const auto outcome =
      pool.submit(compiled, h100_.arch(), kernel_path_for(compiled, earlier), CompileService::Need::now);
  ASSERT_TRUE(outcome.get().kernel) << outcome.get().error;
  const OnHand on_hand = maker.on_hand(made_ahead);
  const std::vector<KernelConfig>& candidates = made_ahead.enumeration.candidates;
  ASSERT_EQ(on_hand.flags.size(), candidates.size());
  std::size_t sharing = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const bool same = candidates[i].same_binary(compiled) &&
                      kernel_path_for(candidates[i], later) == kernel_path_for(compiled, earlier);
    sharing += same;
    EXPECT_EQ(on_hand.flags[i], same) << candidates[i].name();
  }
  EXPECT_GT(sharing, 0u) << "2048 has the candidates of 1024's first binary";
  EXPECT_EQ(on_hand.this_run, sharing);
  EXPECT_EQ(on_hand.before_run, 0u);
  EXPECT_EQ(on_hand.from_this_run, on_hand.flags) << "the strategy hears they are no rerun's";
  // In a later run, the same binary counts as from before the run.
  const std::unordered_set<std::string> next_run = compiler.cached_keys();
  CompileService next_pool(compiler, 1);
  const OnHand again = SetupMaker(spaces_, compiler, next_run, next_pool).on_hand(made_ahead);
  EXPECT_EQ(again.before_run, sharing);
  EXPECT_EQ(again.this_run, 0u);
  EXPECT_TRUE(again.from_this_run.empty());
}

TEST_F(SetupAheadTest, PlannedProblemsCompileTheirFirstGenerationAhead) {
  const KernelCompiler compiler{""};  // no cache: the pool really compiles
  const std::unordered_set<std::string> none;
  CompileService pool(compiler, 1);
  const SetupMaker maker(spaces_, compiler, none, pool);
  TuneOptions options;
  options.budget_evaluations = 120;
  options.jobs = 1;
  TuningLog log(dir_ / "log.jsonl", h100_.slug, "template");
  const GemmShape first{512, 512, 512}, second{2048, 2048, 2048};
  {
    SetupAhead ahead(maker, options, pool);
    ahead.start({h100_, h100_}, {first, second}, [&](const DeviceProfile&) -> TuningLog& { return log; });
    EXPECT_EQ(ahead.take(h100_, second).enumeration.candidates, maker.make(h100_, second).enumeration.candidates);
    const GemmShape unplanned{1024, 1024, 1024};
    EXPECT_EQ(ahead.take(h100_, unplanned).enumeration.candidates,
              enumerate(spaces_, h100_, &unplanned).candidates);
  }  // the compiles ahead are submitted by now
  const CompileStats stats = pool.stats();
  // The surrogate's first generation at 120 evaluations is 15 candidates a problem (some binaries
  // shared between the two problems); the one speculative thread has taken at most a few.
  EXPECT_GE(pool.queued() + stats.speculative_compiles + 1, 20u);
  EXPECT_EQ(stats.pressing_compiles, 0u);
}

// A resumed run measured its first generation before it was killed: none of it is compiled again.
TEST_F(SetupAheadTest, NothingTheTuningLogHoldsIsCompiledAhead) {
  const KernelCompiler compiler{""};
  const std::unordered_set<std::string> none;
  CompileService pool(compiler, 1);
  const SetupMaker maker(spaces_, compiler, none, pool);
  TuneOptions options;
  options.budget_evaluations = 120;
  options.jobs = 1;
  const GemmShape shape{512, 512, 512};
  const ProblemSetup setup = maker.make(h100_, shape);
  StrategyContext ctx;
  ctx.candidates = setup.enumeration.candidates;
  ctx.prior = setup.prior;
  ctx.budget = 120;
  ctx.seed = options.seed;
  TuningLog log(dir_ / "log.jsonl", h100_.slug, "template");
  for (std::size_t i : make_strategy(options.strategy, ctx)->propose(32))
    log.append(shape,
               {{"name", ctx.candidates[i].name()}, {"config", ctx.candidates[i]}, {"status", "compile"}});
  {
    SetupAhead ahead(maker, options, pool);
    ahead.start({h100_}, {shape}, [&](const DeviceProfile&) -> TuningLog& { return log; });
    ahead.take(h100_, shape);
  }
  EXPECT_EQ(pool.queued(), 0u);
  EXPECT_EQ(pool.stats().speculative_compiles, 0u);
}

}  // namespace
}  // namespace gemmtune
