// Results merging and the tuning log: merge replaces per problem, keeps others, never loses an
// unreadable file, and the log survives a torn last line and refuses another device's log.
#include "core/results_store.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "../temp_dir_test.hpp"
#include "core/atomic_file.hpp"
#include "core/file_formats.hpp"
#include "core/tuning_log.hpp"

namespace gemmtune {
namespace {

nlohmann::json entry(int m, double tflops) {
  return {{"m", m},
          {"n", m},
          {"k", m},
          {"dtype", "f32"},
          {"layout", "row-major"},
          {"best", {{"tflops", tflops}}}};
}

using ResultsStore = testing_paths::TempDirTest;

TEST_F(ResultsStore, MergeReplacesSameProblemAndKeepsOthers) {
  const auto path = dir_ / "gpu.json";
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({entry(512, 1.0), entry(1024, 2.0)}));
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({entry(512, 3.0)}));
  const auto doc = nlohmann::json::parse(*read_whole_file(path));
  EXPECT_EQ(doc["schema"], kResultsSchema);
  EXPECT_EQ(doc["kind"], "measured");
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_EQ(doc["entries"][0]["best"]["tflops"], 3.0);
  EXPECT_EQ(doc["entries"][1]["best"]["tflops"], 2.0);
}

// A 16-bit C is another problem: its entry joins the FP32-C one of the same shape, never replaces it
// (a session-33 tune of c16 decode rows once dropped the FP32-C entries this way).
TEST_F(ResultsStore, SixteenBitCIsKeptApartFromFp32C) {
  const auto path = dir_ / "gpu.json";
  const auto bf16 = [](double tflops, const char* c) {
    nlohmann::json e = entry(512, tflops);
    e.erase("dtype");
    e["precision"] = "bf16";
    if (c) e["c"] = c;
    return e;
  };
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({bf16(1.0, nullptr)}));
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({bf16(2.0, "bf16")}));
  auto doc = nlohmann::json::parse(*read_whole_file(path));
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_FALSE(doc["entries"][0].contains("c"));  // FP32 C sorts first
  EXPECT_EQ(doc["entries"][1]["c"], "bf16");
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({bf16(3.0, "fp32")}));  // spelled out: FP32 C
  doc = nlohmann::json::parse(*read_whole_file(path));
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_EQ(doc["entries"][0]["best"]["tflops"], 3.0);
  EXPECT_EQ(doc["entries"][1]["best"]["tflops"], 2.0);
}

// A cuBLAS fallback (no candidate, every candidate failed) joins the file for a new problem but
// never replaces an earlier run's winner: it measured nothing against it. An earlier fallback it replaces.
TEST_F(ResultsStore, FallbackEntriesKeepAnEarlierWinner) {
  const auto path = dir_ / "gpu.json";
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({entry(512, 1.0)}));
  nlohmann::json fallback_512 = entry(512, 0.0), fallback_8 = entry(8, 0.0);
  for (nlohmann::json* e : {&fallback_512, &fallback_8}) {
    e->erase("best");
    (*e)["winner"] = "cublas";
    (*e)["reason"] = "no candidate passes the constraints";
  }
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({fallback_512, fallback_8}), MergeRule::keep_existing);
  const auto doc = nlohmann::json::parse(*read_whole_file(path));
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_EQ(doc["entries"][0]["m"], 8);
  EXPECT_EQ(doc["entries"][0]["winner"], "cublas");
  EXPECT_FALSE(doc["entries"][0].contains("best"));
  EXPECT_EQ(doc["entries"][1]["best"]["tflops"], 1.0);
  // A later fallback replaces an earlier fallback: it carries the newer cuBLAS timings.
  fallback_8["winner"] = "cublaslt";
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({fallback_8}), MergeRule::keep_existing);
  EXPECT_EQ(nlohmann::json::parse(*read_whole_file(path))["entries"][0]["winner"], "cublaslt");
}

TEST_F(ResultsStore, SchemaOneFilesAreUpgradedWhenNextWritten) {
  const auto path = dir_ / "gpu.json";
  nlohmann::json lost = entry(2048, 1.0), won = entry(512, 2.0);
  lost["ratio_vs_cublas"] = 0.98;
  won["ratio_vs_cublas"] = 1.2;
  {
    std::ofstream(path) << nlohmann::json{{"schema", kResultsSchemaV1}, {"kind", "measured"}, {"entries", {lost, won}}};
  }
  merge_results(path, {{"device", "x"}}, nlohmann::json::array({entry(1024, 5.0)}));
  const auto doc = nlohmann::json::parse(*read_whole_file(path));
  EXPECT_EQ(doc["schema"], kResultsSchema);
  ASSERT_EQ(doc["entries"].size(), 3u);
  for (const auto& e : doc["entries"]) {
    EXPECT_EQ(e["layout"], "nn");
    EXPECT_EQ(e["batch"], 1);
  }
  EXPECT_EQ(doc["entries"][0]["winner"], "kernel");   // 512: 1.2x cuBLAS
  EXPECT_EQ(doc["entries"][2]["winner"], "cublas");   // 2048: 0.98x
  EXPECT_FALSE(doc["entries"][1].contains("winner"));  // 1024: new, as given
}

TEST_F(ResultsStore, PortfolioFilesKeepTheirKind) {
  const auto path = dir_ / "portfolio-gpu.json";
  merge_results(path, {{"device", "x"}, {"kind", "portfolio"}}, nlohmann::json::array({entry(64, 1.0)}));
  EXPECT_EQ(nlohmann::json::parse(*read_whole_file(path))["kind"], "portfolio");
}

TEST_F(ResultsStore, ConcurrentWritersLoseNothing) {
  const auto path = dir_ / "gpu.json";
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i)
        merge_results(path, nlohmann::json::object(),
                      nlohmann::json::array({entry(16 * (t * 10 + i + 1), t)}));
    });
  for (auto& w : writers) w.join();
  EXPECT_EQ(nlohmann::json::parse(*read_whole_file(path))["entries"].size(), 40u);
}

TEST_F(ResultsStore, UnreadableFileIsKeptAside) {
  const auto path = dir_ / "gpu.json";
  { std::ofstream(path) << "{ truncated"; }
  merge_results(path, nlohmann::json::object(), nlohmann::json::array({entry(512, 1.0)}));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "gpu.json.unreadable"));
  EXPECT_EQ(nlohmann::json::parse(*read_whole_file(path))["entries"].size(), 1u);
}

using TuningLogTest = testing_paths::TempDirTest;

TEST_F(TuningLogTest, ResumesAndSkipsTornLines) {
  const auto path = dir_ / "log.jsonl";
  const GemmShape s{512, 512, 512};
  {
    TuningLog log(path, "gpu-a", "t1");
    log.append(s, {{"name", "cfg1"}, {"status", "ok"}, {"median_ms", 0.5}});
    log.append(s, {{"name", "cfg2"}, {"status", "incorrect"}});
  }
  { std::ofstream(path, std::ios::app) << "{\"type\":\"evaluation\",\"name\":\"cf"; }  // killed mid-write
  TuningLog log(path, "gpu-a", "t1");
  ASSERT_NE(log.find(s, "cfg1"), nullptr);
  EXPECT_EQ((*log.find(s, "cfg1"))["median_ms"], 0.5);
  EXPECT_EQ((*log.find(s, "cfg2"))["status"], "incorrect");
  EXPECT_EQ(log.find(s, "cfg3"), nullptr);
  log.append(s, {{"name", "cfg3"}, {"status", "ok"}, {"median_ms", 0.4}});
  TuningLog again(path, "gpu-a", "t1");
  EXPECT_NE(again.find(s, "cfg3"), nullptr);
  // A changed kernel template invalidates old measurements.
  TuningLog other_template(path, "gpu-a", "t2");
  EXPECT_EQ(other_template.find(s, "cfg1"), nullptr);
}

// Each family's records count only for its own template: a changed wgmma template (once logged
// under sgemm's hash) invalidates wgmma measurements and nothing else.
TEST_F(TuningLogTest, EachFamilyKeysOnItsOwnTemplate) {
  const auto path = dir_ / "log.jsonl";
  const GemmShape s{4096, 4096, 4096, Layout::nt, 1, Precision::bf16};
  const std::vector<std::string> names = {"sgemm_cfg", "skinny_cfg", "mma_cfg", "wgmma_cfg"};
  {
    TuningLog log(path, "gpu-a", "s1", "k1", "m1", "w1");
    for (const auto& name : names) log.append(s, {{"name", name}, {"status", "ok"}, {"median_ms", 0.5}});
  }
  const TuningLog same(path, "gpu-a", "s1", "k1", "m1", "w1");
  for (const auto& name : names) EXPECT_NE(same.find(s, name), nullptr) << name;
  const TuningLog wgmma_changed(path, "gpu-a", "s1", "k1", "m1", "w2");
  EXPECT_EQ(wgmma_changed.find(s, "wgmma_cfg"), nullptr);
  for (const auto& name : {"sgemm_cfg", "skinny_cfg", "mma_cfg"}) EXPECT_NE(wgmma_changed.find(s, name), nullptr) << name;
  const TuningLog sgemm_changed(path, "gpu-a", "s2", "k1", "m1", "w1");
  EXPECT_EQ(sgemm_changed.find(s, "sgemm_cfg"), nullptr);
  EXPECT_NE(sgemm_changed.find(s, "wgmma_cfg"), nullptr);
}

TEST_F(TuningLogTest, RefusesAnotherDevicesLog) {
  const auto path = dir_ / "log.jsonl";
  { TuningLog log(path, "gpu-a", "t1"); }
  EXPECT_THROW(TuningLog(path, "gpu-b", "t1"), std::invalid_argument);
}

TEST_F(TuningLogTest, AtomicWriteLeavesNoTemporaries) {
  ASSERT_TRUE(write_file_atomically(dir_ / "f", "hello"));
  EXPECT_EQ(*read_whole_file(dir_ / "f"), "hello");
  std::string error;
  EXPECT_FALSE(write_file_atomically(dir_ / "missing-dir" / "f", "x", &error));
  EXPECT_NE(error.find("cannot create"), std::string::npos);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

}  // namespace
}  // namespace gemmtune
