// Warm start: a tuning run begins with this GPU's own winners from its results directory, so
// re-tuning a size starts from the known best; --no-warm-start turns that off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
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

// A candidate whose first two samples are both 25% behind the best so far is timed no further;
// the others get all ten. In the scratch space (32x32 to 128x128 tiles at 1024) both kinds occur.
TEST(EarlyStop, CandidatesFarBehindTheBestStopAfterTwoSamples) {
  GEMMTUNE_REQUIRE_GPU();
  const gemmtune::testing_gpu::TuningScratch scratch("early-stop");
  ASSERT_EQ(std::system((scratch.tune + " -j 8 --strategy exhaustive >/dev/null 2>&1").c_str()), 0);
  std::vector<nlohmann::json> measured;
  for (const auto& e : std::filesystem::directory_iterator(scratch.dir / "results" / "logs")) {
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) {
      const auto record = nlohmann::json::parse(line, nullptr, false);
      if (!record.is_discarded() && record.value("status", "") == "ok") measured.push_back(record);
    }
  }
  ASSERT_FALSE(measured.empty());
  double best = 1e30;
  for (const auto& r : measured) best = std::min(best, r.at("median_ms").get<double>());
  int stopped = 0, full = 0;
  for (const auto& r : measured) {
    const auto samples = r.at("samples_ms").size();
    if (samples == 2) {
      ++stopped;
      EXPECT_GT(r.at("median_ms").get<double>(), 1.25 * best) << r.at("name");
    } else {
      EXPECT_EQ(samples, 10u) << r.at("name");
      ++full;
    }
  }
  EXPECT_GT(stopped, 0);
  EXPECT_GT(full, 0);
}

}  // namespace
