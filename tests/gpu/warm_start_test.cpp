// Warm start: a tuning run begins with this GPU's own winners from its results directory, so
// re-tuning a size starts from the known best and never ends without measuring it; --no-warm-start
// turns that off.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpu_test_support.hpp"

namespace {

nlohmann::json only_entry(const std::filesystem::path& results_dir) {
  for (const auto& e : std::filesystem::directory_iterator(results_dir)) {
    if (e.path().extension() != ".json") continue;
    const auto doc = nlohmann::json::parse(std::ifstream(e.path()));
    if (doc.at("entries").size() == 1) return doc.at("entries").at(0);
  }
  ADD_FAILURE() << "no results file with one entry in " << results_dir;
  return {};
}

TEST(WarmStart, RetuningStartsFromTheKnownWinner) {
  GEMMTUNE_REQUIRE_GPU();
  const gemmtune::testing_gpu::TuningScratch scratch("warm");
  const auto& dir = scratch.dir;
  const std::string tune = scratch.tune + " -j 8";
  ASSERT_EQ(std::system((tune + " --strategy exhaustive >/dev/null 2>&1").c_str()), 0);
  const std::string winner = only_entry(dir / "results").at("best").at("name").get<std::string>();

  // One evaluation: with warm start it must be the winner of the first run.
  ASSERT_EQ(std::system((tune + " --budget 1 >/dev/null 2>&1").c_str()), 0);
  const auto warm = only_entry(dir / "results");
  EXPECT_EQ(warm.at("best").at("name").get<std::string>(), winner);
  EXPECT_GE(warm.at("search").at("seeds").get<int>(), 1);

  ASSERT_EQ(std::system((tune + " --budget 1 --no-warm-start >/dev/null 2>&1").c_str()), 0);
  EXPECT_EQ(only_entry(dir / "results").at("search").at("seeds").get<int>(), 0);
}

// A time budget that runs out before the known winner's binary is compiled (a cold compile cache)
// must not replace it with something slower, or with cuBLAS for want of any measurement.
TEST(WarmStart, ARetuneCutShortStillMeasuresTheKnownWinner) {
  GEMMTUNE_REQUIRE_GPU();
  const gemmtune::testing_gpu::TuningScratch scratch("warm-cut");
  const auto& dir = scratch.dir;
  ASSERT_EQ(std::system((scratch.tune + " --strategy exhaustive >/dev/null 2>&1").c_str()), 0);
  const std::string winner = only_entry(dir / "results").at("best").at("name").get<std::string>();

  std::filesystem::remove_all(dir / "cache");
  std::filesystem::remove_all(dir / "results" / "logs");  // nothing measured before: all from scratch
  ASSERT_EQ(std::system((scratch.tune + " --time-budget 0.001 >/dev/null 2>&1").c_str()), 0);
  EXPECT_EQ(only_entry(dir / "results").at("best").at("name").get<std::string>(), winner);
}

}  // namespace
