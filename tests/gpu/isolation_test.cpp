// Faults in candidates must not end a tuning run. A deliberately faulty template (the real one with
// three injected faults) makes 16-row tiles compute a slightly wrong result (0.1% off: must be
// caught by verification), 32-row tiles write far out of bounds (an illegal address, which poisons
// the CUDA context) and 128-row tiles spin forever (a hang). The tuner must record all three as
// data, restart its worker, and still find and write the best healthy candidate.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "atomic_file.hpp"
#include "embedded_files.hpp"
#include "gpu_test_support.hpp"
#include "../test_paths.hpp"

namespace {

std::string faulty_template() {
  std::string src(gemmtune::embedded_file("kernel_templates/sgemm.cuh"));
  const std::string anchor = "  const int tiles_m = (M + BM - 1) / BM;";
  const auto at = src.find(anchor);
  if (at == std::string::npos) return {};
  src.insert(at,
             "  if (BM == 16) alpha *= 1.001f;  // injected: wrong result\n"
             "  if (BM == 32 && threadIdx.x == 0) C[-(1LL << 40)] = 1.0f;  // injected: illegal address\n"
             "  if (BM == 128) while (clock64() >= 0) {}  // injected: hang (clock64 cannot be optimised away)\n");
  return src;
}

TEST(Isolation, FaultyCandidatesAreRecordedAndTheRunCompletes) {
  GEMMTUNE_REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() / ("gemmtune-isolation-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string tmpl = faulty_template();
  ASSERT_FALSE(tmpl.empty()) << "anchor line not found in the template";
  { std::ofstream(dir / "faulty.cuh") << tmpl; }
  {
    std::ofstream(dir / "space.json") << R"({"parameters": {"block_m": [16, 32, 64, 128], "block_n": [64],
        "block_k": [16], "thread_m": [4], "thread_n": [4], "stages": [2], "vector_width": [1]}, "constraints": {}})";
  }
  const std::string cmd = gemmtune::testing_paths::cli() + " --gpu auto --sizes 256 --strategy exhaustive --top 1" +
                          " --eval-timeout 5 --results-dir " + (dir / "results").string() + " --cache-dir " +
                          (dir / "cache").string() + " --space " + (dir / "space.json").string() + " --template " +
                          (dir / "faulty.cuh").string() + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;

  std::map<int, std::string> status_by_block_m;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "results" / "logs")) {
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.value("type", "") == "evaluation")
        status_by_block_m[j["config"]["block_m"].get<int>()] = j["status"].get<std::string>();
    }
  }
  EXPECT_EQ(status_by_block_m[16], "incorrect") << out;
  EXPECT_EQ(status_by_block_m[32], "launch") << out;
  EXPECT_EQ(status_by_block_m[128], "timeout") << out;
  EXPECT_EQ(status_by_block_m[64], "ok") << out;

  nlohmann::json results;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "results"))
    if (entry.path().extension() == ".json") results = nlohmann::json::parse(*gemmtune::read_whole_file(entry.path()));
  ASSERT_EQ(results["entries"].size(), 1u) << out;
  EXPECT_EQ(results["entries"][0]["best"]["config"]["block_m"], 64);
  EXPECT_GE(results["entries"][0]["search"]["worker_restarts"].get<int>(), 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
