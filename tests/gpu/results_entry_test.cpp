// What a results entry says of its search: the spaces its candidates came from are the ones that
// serve the problem's precision (a bf16 problem names the bf16 spaces of its families, never the
// tf32 or fp16 spaces the same families also have).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/device_profile.hpp"
#include "gpu_test_support.hpp"

namespace {

TEST(ResultsEntry, NamesOnlyTheSpacesOfItsPrecision) {
  GEMMTUNE_REQUIRE_GPU();
  if (gemmtune::query_device(0).compute_capability < 80) GTEST_SKIP() << "bf16 candidates need sm_80";
  const gemmtune::testing_gpu::TuningScratch scratch("entry-space");
  const auto results = scratch.dir / "results";
  const std::string cmd = gemmtune::testing_paths::cli() + " --gpu auto --sizes 512 --precision bf16 --budget 4 --top 1" +
                          " --results-dir " + results.string() + " --cache-dir " + (scratch.dir / "cache").string() +
                          " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  for (const auto& file : std::filesystem::directory_iterator(results)) {
    if (file.path().extension() != ".json") continue;
    const auto doc = nlohmann::json::parse(std::ifstream(file.path()));
    ASSERT_EQ(doc.at("entries").size(), 1u);
    const std::string space = doc.at("entries").at(0).at("search").at("space").get<std::string>();
    EXPECT_NE(space.find("bf16"), std::string::npos) << space;
    for (const char* other : {"tf32", "fp16", "sgemm.json"}) EXPECT_EQ(space.find(other), std::string::npos) << space;
    return;
  }
  FAIL() << "no results file in " << results;
}

}  // namespace
