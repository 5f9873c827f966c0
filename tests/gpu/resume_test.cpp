// A tuning run killed with SIGKILL mid-search resumes from its log: the second run measures only
// what the first did not, and together they evaluate every candidate exactly once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "gpu_test_support.hpp"

namespace {

std::map<std::string, int> evaluations_by_name(const std::filesystem::path& log) {
  std::map<std::string, int> count;
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.value("type", "") == "evaluation") ++count[j["name"].get<std::string>()];
  }
  return count;
}

TEST(Resume, KilledRunResumesWithoutRepeatingWork) {
  GEMMTUNE_REQUIRE_GPU();
  const gemmtune::testing_gpu::TuningScratch scratch("resume");
  const auto& dir = scratch.dir;
  const std::string tune = scratch.tune + " --strategy exhaustive";
  const auto log = dir / "results" / "logs";
  // First run: SIGKILL once three evaluations are on disk.
  const std::string killer = "(" + tune + " >/dev/null 2>&1 & pid=$!; for i in $(seq 1 1200); do " +
                             "n=$(cat " + log.string() + "/*.jsonl 2>/dev/null | grep -c '\"evaluation\"'); " +
                             "[ \"$n\" -ge 3 ] && break; sleep 0.05; done; kill -9 $pid; wait $pid) 2>/dev/null";
  std::system(killer.c_str());
  std::filesystem::path log_file;
  for (const auto& e : std::filesystem::directory_iterator(log)) log_file = e.path();
  const auto after_kill = evaluations_by_name(log_file);
  ASSERT_GE(after_kill.size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(dir / "results" / (log_file.stem().string() + ".json")))
      << "the killed run should not have reached its results";

  ASSERT_EQ(std::system((tune + " >/dev/null 2>&1").c_str()), 0);
  const auto after_resume = evaluations_by_name(log_file);
  EXPECT_GT(after_resume.size(), after_kill.size());
  for (const auto& [name, n] : after_resume) EXPECT_EQ(n, 1) << name << " was evaluated " << n << " times";
  EXPECT_TRUE(std::filesystem::exists(dir / "results" / (log_file.stem().string() + ".json")));
}

}  // namespace
