// The multi-GPU path of `gemm-tune --gpu LIST` on whatever GPU is present: GEMMTUNE_TEST_SHARE_GPU
// lets `--gpu 0,0` start two workers on GPU 0, so one GPU exercises the scheduler, the shared
// compile pool, the shared tuning log and the results file written by two workers. On a machine
// with several GPUs the same code runs with one worker per GPU.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "gpu_test_support.hpp"

namespace {

constexpr const char* kSizes = "256,384,512,640,768,1024";

// Evaluations per (problem, config) in every log of dir.
std::map<std::string, int> evaluations(const std::filesystem::path& logs) {
  std::map<std::string, int> count;
  for (const auto& file : std::filesystem::directory_iterator(logs)) {
    std::ifstream in(file.path());
    std::string line;
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.value("type", "") == "evaluation")
        ++count[std::to_string(j["m"].get<int>()) + " " + j["name"].get<std::string>()];
    }
  }
  return count;
}

std::set<int> problems_in_results(const std::filesystem::path& results) {
  std::set<int> ms;
  for (const auto& file : std::filesystem::directory_iterator(results)) {
    if (file.path().extension() != ".json") continue;
    std::ifstream in(file.path());
    const auto doc = nlohmann::json::parse(in);
    for (const auto& e : doc.at("entries")) ms.insert(e.at("m").get<int>());
  }
  return ms;
}

std::string run_output(const std::string& command, int* exit_code) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  const int status = ::pclose(pipe);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

std::string two_workers(const gemmtune::testing_gpu::TuningScratch& scratch) {
  std::string tune = scratch.tune;
  tune.replace(tune.find("--gpu auto --sizes 1024"), 23, std::string("--gpu 0,0 --sizes ") + kSizes);
  return "GEMMTUNE_TEST_SHARE_GPU=1 " + tune + " --strategy exhaustive";
}

TEST(MultiGpu, TwoWorkersShareTheProblemsTheLogAndTheResults) {
  GEMMTUNE_REQUIRE_GPU();
  const gemmtune::testing_gpu::TuningScratch scratch("multi-gpu");
  int code = 0;
  const std::string out = run_output(two_workers(scratch), &code);
  ASSERT_EQ(code, 0) << out;
  // Both workers tuned problems (the GPU column of the summary), and every problem is in the one
  // results file of this GPU model, evaluated once per candidate.
  EXPECT_NE(out.find("  GPU 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  GPU 0 worker 2\n"), std::string::npos) << out;
  EXPECT_EQ(problems_in_results(scratch.dir / "results"), (std::set<int>{256, 384, 512, 640, 768, 1024}));
  const auto counted = evaluations(scratch.dir / "results" / "logs");
  std::set<std::string> evaluated_problems;
  for (const auto& [key, n] : counted) {
    EXPECT_EQ(n, 1) << key;
    evaluated_problems.insert(key.substr(0, key.find(' ')));
  }
  EXPECT_EQ(evaluated_problems.size(), 6u);
}

// One problem, two workers: the one with no problem measures candidates for the other (issue #47).
// Over a warm compile cache every binary is ready at once, so the tuning worker has some to hand over.
TEST(MultiGpu, AWorkerWithNoProblemMeasuresForTheOther) {
  GEMMTUNE_REQUIRE_GPU();
  const gemmtune::testing_gpu::TuningScratch scratch("multi-gpu-help");
  int code = 0;
  std::string warming = scratch.tune + " --strategy exhaustive";
  const std::string results = (scratch.dir / "results").string();
  warming.replace(warming.find(results), results.size(), (scratch.dir / "warming").string());
  std::string out = run_output(warming, &code);
  ASSERT_EQ(code, 0) << out;
  std::string tune = "GEMMTUNE_TEST_SHARE_GPU=1 " + scratch.tune + " --strategy exhaustive --log-level debug";
  tune.replace(tune.find("--gpu auto"), 10, "--gpu 0,0");
  out = run_output(tune, &code);
  ASSERT_EQ(code, 0) << out;
  nlohmann::json doc;
  for (const auto& file : std::filesystem::directory_iterator(scratch.dir / "results"))
    if (file.path().extension() == ".json") doc = nlohmann::json::parse(std::ifstream(file.path()));
  ASSERT_EQ(doc.value("entries", nlohmann::json::array()).size(), 1u) << out;
  const auto& search = doc["entries"][0]["search"];
  EXPECT_GT(search.value("measured_by_other_gpus", 0), 0) << out;
  EXPECT_EQ(search["evaluated"], search["candidates"]) << "exhaustive: each candidate once, wherever measured";
  for (const auto& [key, n] : evaluations(scratch.dir / "results" / "logs")) EXPECT_EQ(n, 1) << key;
}

TEST(MultiGpu, InterruptedTwoWorkerRunResumesWithoutRepeatingWork) {
  GEMMTUNE_REQUIRE_GPU();
  const gemmtune::testing_gpu::TuningScratch scratch("multi-gpu-resume");
  const std::string tune = two_workers(scratch);
  const auto logs = scratch.dir / "results" / "logs";
  // SIGINT (what Ctrl-C sends the tuner) once 20 evaluations are on disk: exit code 130.
  const std::string interrupt =
      "(" + tune + " >/dev/null 2>&1 & pid=$!; for i in $(seq 1 2400); do " + "n=$(cat " + logs.string() +
      "/*.jsonl 2>/dev/null | grep -c '\"evaluation\"'); " +
      "[ \"$n\" -ge 20 ] && break; sleep 0.05; done; kill -INT $pid; wait $pid; " + "exit $?) 2>/dev/null";
  const int status = std::system(interrupt.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const auto after_interrupt = evaluations(logs);
  ASSERT_GE(after_interrupt.size(), 20u);
  if (std::filesystem::exists(scratch.dir / "results")) {
    EXPECT_LT(problems_in_results(scratch.dir / "results").size(), 6u) << "interrupted too late to tell";
  }

  int code = 0;
  const std::string out = run_output(tune, &code);
  ASSERT_EQ(code, 0) << out;
  const auto after_resume = evaluations(logs);
  EXPECT_GT(after_resume.size(), after_interrupt.size());
  for (const auto& [key, n] : after_resume) EXPECT_EQ(n, 1) << key << " was evaluated " << n << " times";
  EXPECT_EQ(problems_in_results(scratch.dir / "results"), (std::set<int>{256, 384, 512, 640, 768, 1024}));
}

}  // namespace
