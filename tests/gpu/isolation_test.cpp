// Faults in candidates must not end a tuning run. A deliberately faulty template (the real one with
// three injected faults) makes 16-row tiles compute a slightly wrong result (0.1% off: must be
// caught by verification), 32-row tiles write far out of bounds (an illegal address, which poisons
// the CUDA context) and 128-row tiles spin forever (a hang). The tuner must record all three as
// data, restart its worker, and still find and write the best healthy candidate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/embedded_files.hpp"
#include "core/file_formats.hpp"
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

// One bad problem never stops a run of many: a problem no candidate fits and a problem whose every
// candidate fails are recorded with cuBLAS as the winner and the reason, the others are tuned, the
// run exits 0, and a fallback never replaces an earlier run's winner.
TEST(Isolation, ProblemsWithoutAWinningKernelFallBackToCublasAndTheRunGoesOn) {
  GEMMTUNE_REQUIRE_GPU();
  const gemmtune::testing_gpu::TuningScratch scratch("fallback");
  const auto& dir = scratch.dir;
  // Tiles of 64 rows waste 7/8 of themselves at m = 8: load_balance leaves nothing.
  std::ofstream(dir / "space.json") << R"({"parameters": {"block_m": [64], "block_n": [64], "block_k": [16],
      "thread_m": [4], "thread_n": [4], "stages": [2], "vector_width": [1]},
      "constraints": {"load_balance": {"max_tile_waste": 0.5}}})";
  std::string wrong(gemmtune::embedded_file("kernel_templates/sgemm.cuh"));
  const std::string anchor = "  const int tiles_m = (M + BM - 1) / BM;";
  ASSERT_NE(wrong.find(anchor), std::string::npos) << "anchor line not found in the template";
  wrong.insert(wrong.find(anchor), "  alpha *= 1.001f;  // injected: every kernel is wrong\n");
  { std::ofstream(dir / "wrong.cuh") << wrong; }
  const auto run = [&](const std::string& args, std::string& out) {
    const std::string cmd = gemmtune::testing_paths::cli() + " --gpu auto --strategy exhaustive --top 1 --results-dir " +
                            (dir / "results").string() + " --cache-dir " + (dir / "cache").string() + " --space " +
                            (dir / "space.json").string() + " " + args + " 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    char buf[4096];
    while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    return pclose(pipe);
  };
  const auto entries_by_m = [&] {
    std::map<int, nlohmann::json> by_m;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "results")) {
      if (entry.path().extension() != ".json") continue;
      const nlohmann::json doc = nlohmann::json::parse(*gemmtune::read_whole_file(entry.path()));
      for (const auto& e : doc["entries"]) by_m[e["m"].get<int>()] = e;
    }
    return by_m;
  };

  std::string out;
  int status = run("--sizes 8x256x256,256", out);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  EXPECT_NE(out.find("8x256x256: cuBLAS recorded as the winner: no candidate passes the constraints"),
            std::string::npos) << out;
  auto by_m = entries_by_m();
  ASSERT_EQ(by_m.size(), 2u) << out;
  // cuBLAS's default call or cuBLASLt's fastest contestant, whichever was faster.
  EXPECT_TRUE(gemmtune::is_cublas_winner(by_m[8]["winner"].get<std::string>())) << by_m[8];
  EXPECT_FALSE(by_m[8].contains("best"));
  ASSERT_TRUE(by_m[8].contains("cublaslt")) << by_m[8];
  EXPECT_GT(by_m[8]["cublaslt"]["median_ms"].get<double>(), 0.0) << by_m[8];
  EXPECT_TRUE(by_m[8]["cublaslt"]["algo"].contains("id")) << by_m[8];
  EXPECT_TRUE(by_m[8]["cublaslt"]["heuristic_first"].contains("algo")) << by_m[8];
  EXPECT_NE(by_m[8]["reason"].get<std::string>().find("load_balance"), std::string::npos) << by_m[8];
  EXPECT_GT(by_m[8]["cublas"]["median_ms"].get<double>(), 0.0) << by_m[8];
  ASSERT_TRUE(by_m[256].contains("best")) << out;
  {  // the winner beat both baselines in the same race
    const nlohmann::json& e = by_m[256];
    const double kernel = e["best"]["median_ms"].get<double>(), cublas = e["cublas"]["median_ms"].get<double>();
    const double lt = e.contains("cublaslt") ? e["cublaslt"]["median_ms"].get<double>() : 1e300;
    if (e["winner"] == "kernel") {
      EXPECT_LT(kernel, std::min(cublas, lt)) << e;
    } else {
      EXPECT_TRUE(gemmtune::is_cublas_winner(e["winner"].get<std::string>())) << e;
      EXPECT_GE(kernel, std::min(cublas, lt)) << e;
    }
  }

  // Every kernel of the template is wrong: 128 falls back, 256 keeps the first run's winner.
  out.clear();
  status = run("--sizes 256,128 --template " + (dir / "wrong.cuh").string(), out);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  by_m = entries_by_m();
  ASSERT_EQ(by_m.size(), 3u) << out;
  EXPECT_TRUE(gemmtune::is_cublas_winner(by_m[128]["winner"].get<std::string>())) << by_m[128];
  EXPECT_EQ(by_m[128]["reason"].get<std::string>().rfind("every candidate failed (incorrect", 0), 0u) << by_m[128];
  EXPECT_TRUE(by_m[256].contains("best")) << "a fallback replaced the earlier winner: " << by_m[256];
}

}  // namespace
