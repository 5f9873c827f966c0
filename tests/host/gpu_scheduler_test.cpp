// The scheduler that hands problems to GPUs, with fake GPUs: of different speeds (the fast one
// takes more problems: handed out as GPUs free up, not split in advance), one that dies part-way
// (its problem moves to another GPU), a problem that kills every GPU it meets (given up after
// kGpusPerProblem), and a stop. Every fake writes its winner into one shared results file through
// the real results store, as ShapeTuner does: nothing may be lost and no problem tuned twice.
#include "commands/gpu_scheduler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "../temp_dir_test.hpp"
#include "core/atomic_file.hpp"
#include "core/results_store.hpp"

namespace gemmtune {
namespace {

// What all fake GPUs saw, shared like the results file.
struct Ledger {
  std::mutex mutex;
  std::map<int, int> tuned_times;  // by m
  std::map<std::string, int> per_gpu;
  std::set<int> fatal;  // problems a fake GPU died on
};

class FakeGpu : public ProblemTuner {
 public:
  FakeGpu(std::string label, int ms_per_problem, Ledger& ledger, std::filesystem::path results,
          int dies_on_problem = -1, int poison_m = -1)
      : label_(std::move(label)),
        ms_(ms_per_problem),
        ledger_(ledger),
        results_(std::move(results)),
        dies_on_problem_(dies_on_problem),
        poison_m_(poison_m) {}

  std::string label() const override { return label_; }

  ShapeOutcome tune(const GemmShape& shape) override {
    ++started_;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    // A GPU dies of its own cause, not the problem's, so never on a problem another GPU died on:
    // two deaths on one problem make the scheduler give it up (kGpusPerProblem), which is the
    // poison test's case, not this one.
    if (dies_on_problem_ > 0 && started_ >= dies_on_problem_ && !died_) {
      std::lock_guard<std::mutex> lock(ledger_.mutex);
      died_ = ledger_.fatal.insert(shape.m).second;
    }
    if (died_) throw std::runtime_error("the GPU worker could not prepare (fake)");
    if (shape.m == poison_m_) throw std::runtime_error("poison " + shape.label());
    merge_results(results_, {{"device", "fake"}},
                  nlohmann::json::array({{{"m", shape.m},
                                          {"n", shape.n},
                                          {"k", shape.k},
                                          {"dtype", "f32"},
                                          {"layout", "nn"},
                                          {"batch", 1},
                                          {"best", {{"tflops", 1.0}, {"gpu", label_}}}}}));
    {
      std::lock_guard<std::mutex> lock(ledger_.mutex);
      ++ledger_.tuned_times[shape.m];
      ++ledger_.per_gpu[label_];
    }
    ShapeOutcome o;
    o.shape = shape;
    o.best_name = "fake";
    o.complete = true;
    return o;
  }

 private:
  std::string label_;
  int ms_;
  Ledger& ledger_;
  std::filesystem::path results_;
  int started_ = 0;
  int dies_on_problem_;
  int poison_m_;
  bool died_ = false;
};

std::vector<GemmShape> problems(int count) {
  std::vector<GemmShape> p;
  for (int i = 1; i <= count; ++i) p.push_back({i, 64, 64});
  return p;
}

std::set<int> ms_in_results(const std::filesystem::path& path) {
  std::set<int> ms;
  const nlohmann::json doc = nlohmann::json::parse(*read_whole_file(path));
  for (const auto& e : doc.at("entries")) ms.insert(e.at("m").get<int>());
  return ms;
}

const std::function<bool()> kNeverStop = [] { return false; };

class GpuScheduler : public testing_paths::TempDirTest {
 protected:
  std::filesystem::path results() const { return dir_ / "fake.json"; }
  Ledger ledger_;
};

TEST_F(GpuScheduler, OneGpuTunesEveryProblemInOrder) {
  FakeGpu gpu("GPU 0", 0, ledger_, results());
  const Schedule s = tune_on_gpus({&gpu}, problems(5), kNeverStop);
  ASSERT_EQ(s.outcomes.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.outcomes[static_cast<std::size_t>(i)].shape.m, i + 1);
  EXPECT_EQ(s.outcomes[0].gpu, "GPU 0");
  EXPECT_TRUE(s.untuned.empty());
  EXPECT_FALSE(s.error);
  EXPECT_EQ(ms_in_results(results()).size(), 5u);
}

TEST_F(GpuScheduler, FasterGpusTakeMoreProblemsAndEachIsTunedOnce) {
  FakeGpu fast("GPU 0", 2, ledger_, results()), medium("GPU 1", 8, ledger_, results()),
      slow("GPU 2", 30, ledger_, results());
  const Schedule s = tune_on_gpus({&fast, &medium, &slow}, problems(40), kNeverStop);
  ASSERT_EQ(s.outcomes.size(), 40u);
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(s.outcomes[static_cast<std::size_t>(i)].shape.m, i + 1);  // input order
  EXPECT_TRUE(s.untuned.empty());
  EXPECT_TRUE(s.retired.empty());
  EXPECT_FALSE(s.error);
  for (int m = 1; m <= 40; ++m) EXPECT_EQ(ledger_.tuned_times[m], 1) << m;
  EXPECT_GT(ledger_.per_gpu["GPU 0"], ledger_.per_gpu["GPU 2"]);
  EXPECT_GT(ledger_.per_gpu["GPU 0"], 40 / 3);  // more than a static third
  EXPECT_GE(ledger_.per_gpu["GPU 2"], 1);
  EXPECT_EQ(ms_in_results(results()).size(), 40u);  // every winner merged into the one file
}

// The debug log's time breakdown (issue #47): each GPU's busy time is its problems' time, the rest
// of the schedule is idle, and a GPU that runs out of problems first is idle at the end.
TEST_F(GpuScheduler, EachGpusBusyAndIdleTimeIsAccountedFor) {
  FakeGpu fast("GPU 0", 10, ledger_, results()), slow("GPU 1", 60, ledger_, results());
  const Schedule s = tune_on_gpus({&fast, &slow}, problems(4), kNeverStop);
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].label, "GPU 0");
  EXPECT_EQ(s.gpus[0].problems + s.gpus[1].problems, 4u);
  for (const GpuTimeline& gpu : s.gpus) {
    EXPECT_GE(gpu.busy, 0.009 * double(gpu.problems));
    EXPECT_LE(gpu.busy, gpu.last_end + 1e-6);
    EXPECT_LE(gpu.last_end, s.seconds + 1e-6);
  }
  EXPECT_EQ(s.gpus[0].problems, 3u);  // 10 + 10 + 10 ms while the slow one takes 60
  EXPECT_GT(s.seconds - s.gpus[0].last_end, 0.015) << "the fast GPU waits for the slow one at the end";
  ProblemTimes t;
  t.gather = 0.5;
  t.compile_wait = 2;
  t.gpu = 1;
  EXPECT_DOUBLE_EQ(t.other(4.0), 0.5);
}

TEST_F(GpuScheduler, ADyingGpuLosesNothing) {
  FakeGpu healthy("GPU 0", 5, ledger_, results()),
      dying("GPU 1", 5, ledger_, results(), /*dies_on_problem=*/3);
  const Schedule s = tune_on_gpus({&healthy, &dying}, problems(12), kNeverStop);
  EXPECT_EQ(s.outcomes.size(), 12u);
  EXPECT_TRUE(s.untuned.empty());
  ASSERT_EQ(s.retired.size(), 1u);
  EXPECT_EQ(s.retired[0], "GPU 1: the GPU worker could not prepare (fake)");
  EXPECT_FALSE(s.error);  // the problem it held was tuned elsewhere
  EXPECT_EQ(ledger_.per_gpu["GPU 1"], 2);
  for (int m = 1; m <= 12; ++m) EXPECT_EQ(ledger_.tuned_times[m], 1) << m;
  EXPECT_EQ(ms_in_results(results()).size(), 12u);
}

TEST_F(GpuScheduler, AProblemThatKillsEveryGpuIsGivenUpAfterTwo) {
  FakeGpu a("GPU 0", 3, ledger_, results(), -1, /*poison_m=*/2), b("GPU 1", 3, ledger_, results(), -1, 2),
      c("GPU 2", 3, ledger_, results(), -1, 2);
  const Schedule s = tune_on_gpus({&a, &b, &c}, problems(9), kNeverStop);
  EXPECT_EQ(s.retired.size(), static_cast<std::size_t>(kGpusPerProblem));
  ASSERT_EQ(s.untuned.size(), 1u);
  EXPECT_EQ(s.untuned[0].m, 2);
  EXPECT_EQ(s.outcomes.size(), 8u);  // the third GPU tuned the rest
  ASSERT_TRUE(s.error);
  EXPECT_THROW(std::rethrow_exception(s.error), std::runtime_error);
  for (int m = 1; m <= 9; ++m) EXPECT_EQ(ledger_.tuned_times[m], m == 2 ? 0 : 1) << m;
}

TEST_F(GpuScheduler, WhenTheOnlyGpuDiesTheRestIsUntunedWithItsError) {
  FakeGpu gpu("GPU 0", 0, ledger_, results(), /*dies_on_problem=*/2);
  const Schedule s = tune_on_gpus({&gpu}, problems(4), kNeverStop);
  EXPECT_EQ(s.outcomes.size(), 1u);
  EXPECT_EQ(s.untuned.size(), 3u);
  ASSERT_TRUE(s.error);
  try {
    std::rethrow_exception(s.error);
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the GPU worker could not prepare (fake)");
  }
}

TEST_F(GpuScheduler, EightGpusTwoOfWhichDieTuneTwoHundredProblemsOnceEach) {
  std::vector<std::unique_ptr<FakeGpu>> fakes;
  std::vector<ProblemTuner*> gpus;
  // Every GPU takes at least a millisecond a problem, and the two that die do so early in the run
  // (at their second and third problems): with GPUs of 0 ms and a ninth problem to die on, the fast
  // ones once took all 200 before GPU 5 got there (16 cores, 2026-11-25).
  for (int i = 0; i < 8; ++i) {
    const int dies_on_problem = i == 2 ? 2 : (i == 5 ? 3 : -1);
    fakes.push_back(
        std::make_unique<FakeGpu>("GPU " + std::to_string(i), 1 + i % 3, ledger_, results(), dies_on_problem));
    gpus.push_back(fakes.back().get());
  }
  const Schedule s = tune_on_gpus(gpus, problems(200), kNeverStop);
  EXPECT_EQ(s.outcomes.size(), 200u);
  EXPECT_TRUE(s.untuned.empty());
  EXPECT_EQ(s.retired.size(), 2u);
  EXPECT_FALSE(s.error);
  for (int m = 1; m <= 200; ++m) EXPECT_EQ(ledger_.tuned_times[m], 1) << m;
  EXPECT_EQ(ms_in_results(results()).size(), 200u);
}

// A fake GPU that, with no problem left, helps: counts its turns until told to stop, or fails.
class HelpingGpu : public FakeGpu {
 public:
  using FakeGpu::FakeGpu;
  std::size_t help(const std::function<bool()>& keep_helping) override {
    if (fail_) throw std::runtime_error("the worker died while helping (fake)");
    std::size_t turns = 0;
    for (; keep_helping(); ++turns) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return turns;
  }
  bool fail_ = false;
};

TEST_F(GpuScheduler, AGpuWithNoProblemLeftHelpsUntilTheLastEnds) {
  HelpingGpu a("GPU 0", 80, ledger_, results()), b("GPU 1", 80, ledger_, results());
  const Schedule s = tune_on_gpus({&a, &b}, problems(1), kNeverStop);
  ASSERT_EQ(s.outcomes.size(), 1u);
  const GpuTimeline& tuner = s.gpus[0].problems == 1 ? s.gpus[0] : s.gpus[1];
  const GpuTimeline& helper = s.gpus[0].problems == 1 ? s.gpus[1] : s.gpus[0];
  EXPECT_EQ(helper.problems, 0u);
  EXPECT_GT(helper.helping, 0.05) << "it helps while the other tunes";
  EXPECT_LE(helper.helping, s.seconds + 1e-6);
  EXPECT_GT(helper.helped, 10u);
  EXPECT_EQ(tuner.helping, 0.0) << "nothing is left to help with once its problem ends";
}

TEST_F(GpuScheduler, AHelperTakesAProblemThatGoesBackToTheQueue) {
  // GPU 1 dies on its first problem; GPU 0, helping by then, tunes that problem.
  HelpingGpu helper("GPU 0", 5, ledger_, results()), dying("GPU 1", 60, ledger_, results(), /*dies_on_problem=*/1);
  const Schedule s = tune_on_gpus({&helper, &dying}, problems(3), kNeverStop);
  EXPECT_EQ(s.outcomes.size(), 3u);
  EXPECT_TRUE(s.untuned.empty());
  EXPECT_GT(s.gpus[0].helping, 0.03);
  for (int m = 1; m <= 3; ++m) EXPECT_EQ(ledger_.tuned_times[m], 1) << m;
}

TEST_F(GpuScheduler, AGpuThatFailsWhileHelpingIsRetiredAndNothingIsLost) {
  HelpingGpu failing("GPU 0", 5, ledger_, results()), slow("GPU 1", 50, ledger_, results());
  failing.fail_ = true;
  const Schedule s = tune_on_gpus({&failing, &slow}, problems(2), kNeverStop);
  EXPECT_EQ(s.outcomes.size(), 2u);
  ASSERT_EQ(s.retired.size(), 1u);
  EXPECT_EQ(s.retired[0], "GPU 0: the worker died while helping (fake)");
  EXPECT_FALSE(s.error);
}

TEST_F(GpuScheduler, AStopHandsOutNothingMore) {
  std::atomic<int> asked{0};
  FakeGpu a("GPU 0", 5, ledger_, results()), b("GPU 1", 5, ledger_, results());
  const Schedule s = tune_on_gpus({&a, &b}, problems(10), [&] { return ++asked > 4; });
  EXPECT_EQ(s.outcomes.size(), 4u);
  EXPECT_EQ(s.untuned.size(), 6u);
  EXPECT_FALSE(s.error);
  for (const auto& [m, times] : ledger_.tuned_times) EXPECT_EQ(times, 1) << m;
}

}  // namespace
}  // namespace gemmtune
