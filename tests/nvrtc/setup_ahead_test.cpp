// A search's set-up made ahead of the GPU (commands/setup_ahead.hpp): the same candidates, prior
// and binaries on hand as the search made for itself, seeds appended later get theirs, and each
// planned problem's first generation reaches the compile pool's speculative lane, except what a
// resumed run's log holds. Real NVRTC (the pool compiles), no GPU.
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
  const GemmShape shape{512, 512, 512};
  const Enumeration direct = enumerate(spaces_, h100_, &shape);
  ASSERT_FALSE(direct.candidates.empty());
  const KernelConfig& first = direct.candidates.front();
  const std::unordered_set<std::string> compiled_before = {
      compiler.cache_key(first.family, first.name_expression(kernel_path_for(first, shape)), h100_.arch())};
  const SetupMaker maker(spaces_, compiler, compiled_before);
  ProblemSetup setup = maker.make(h100_, shape);
  EXPECT_EQ(setup.enumeration.candidates, direct.candidates);
  EXPECT_EQ(setup.enumeration.removed, direct.removed);
  EXPECT_EQ(setup.prior, predicted_tflops_before_compile(direct.candidates, h100_, shape,
                                                          spaces_.front().settings.register_overhead));
  ASSERT_EQ(setup.on_hand.size(), direct.candidates.size());
  EXPECT_TRUE(setup.on_hand.front());
  // ... and so are the candidates that share its binary (other split-K and swizzle), no others.
  EXPECT_EQ(std::count(setup.on_hand.begin(), setup.on_hand.end(), true),
            std::count_if(direct.candidates.begin(), direct.candidates.end(),
                          [&](const KernelConfig& c) { return c.same_binary(first); }));
  // A seed from another GPU's results joins at the end, with its prior and on-hand flag.
  setup.enumeration.candidates.push_back(first);
  maker.extend(setup, direct.candidates.size(), h100_, shape);
  EXPECT_EQ(setup.prior.size(), setup.enumeration.candidates.size());
  EXPECT_EQ(setup.prior.back(), setup.prior.front());
  EXPECT_TRUE(setup.on_hand.back());
  // Without anything compiled before the run, nothing is on hand and no key is computed.
  const std::unordered_set<std::string> none;
  EXPECT_TRUE(SetupMaker(spaces_, compiler, none).make(h100_, shape).on_hand.empty());
}

TEST_F(SetupAheadTest, PlannedProblemsCompileTheirFirstGenerationAhead) {
  const KernelCompiler compiler{""};  // no cache: the pool really compiles
  const std::unordered_set<std::string> none;
  const SetupMaker maker(spaces_, compiler, none);
  TuneOptions options;
  options.budget_evaluations = 120;
  options.jobs = 1;
  CompileService pool(compiler, 1);
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
  const SetupMaker maker(spaces_, compiler, none);
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
    log.append(shape, {{"name", ctx.candidates[i].name()}, {"config", ctx.candidates[i]}, {"status", "compile"}});
  CompileService pool(compiler, 1);
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
