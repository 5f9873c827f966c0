// Bad inputs of the tuner that reach it as files or environment variables rather than as arguments
// (those are in cli_test.cpp): --seed-from files, tuning logs written by something else, and
// $GEMMTUNE_CACHE_DIR. Each one must end in a clear std::invalid_argument or be skipped with a
// warning, never in another exception or undefined behaviour. docs/bad-inputs.md lists them all.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../temp_dir_test.hpp"
#include "core/kernel_compiler.hpp"
#include "record/tuning_log.hpp"
#include "search/device_catalog.hpp"
#include "search/search_space.hpp"
#include "search/seed_configs.hpp"

namespace gemmtune {
namespace {

class BadFiles : public testing_paths::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
};

std::string seed_error(const std::string& path) {
  try {
    seed_configs({path}, {512, 512, 512});
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

// A whole device block, as results files carry one; slug and the numbers that rank relatives set.
std::string device_json(const std::string& slug, int compute_capability, int sm_count, double memory_gbps) {
  DeviceProfile device = load_device_profile("h100");
  device.slug = slug, device.compute_capability = compute_capability, device.sm_count = sm_count;
  device.memory_gbps = memory_gbps;
  return nlohmann::json(device).dump();
}

std::string results_with_entry(const std::string& entry) {
  return R"({"schema": "gemmtune.results/1", "kind": "measured", "device": )" + device_json("h100", 90, 132, 3350) +
         R"(, "entries": [)" + entry + "]}";
}

const char* kValidConfig =
    R"({"block_m": 64, "block_n": 64, "block_k": 16, "thread_m": 4, "thread_n": 4, "warp_rows": 4,
        "pad_a": 0, "pad_b": 0, "stages": 2, "async_copy": false, "transpose_a": true,
        "vector_width": 4, "min_blocks": 1, "swizzle": 1, "split_k": 1})";

using SeedFrom = BadFiles;

// Without --seed-from a search starts from the results of the GPUs most like this one: another
// compute capability counts for more than any SM count or bandwidth, and nothing but other GPUs'
// measured results counts (not this GPU's file, a plan, a bench file or a broken one).
// The nearest size's winner splits K four ways; at 4096 split-K is no candidate, so the seed lands
// on the same tiles and pipeline unsplit; a swizzle the problem allows is kept.
TEST(SeedIndex, LaunchTimeParametersAdaptToTheProblem) {
  const GemmShape shape{4096, 4096, 4096};
  const std::vector<KernelConfig> candidates =
      enumerate(load_search_space({}), load_device_profile("h100"), &shape).candidates;
  KernelConfig winner_at_1024 = candidates.front();
  winner_at_1024.split_k = 4;
  winner_at_1024.split_k_atomic = true;
  ASSERT_EQ(std::find(candidates.begin(), candidates.end(), winner_at_1024), candidates.end());
  const auto index = seed_index(candidates, winner_at_1024);
  ASSERT_TRUE(index.has_value());
  KernelConfig expected = winner_at_1024;
  expected.split_k = 1;
  expected.split_k_atomic = false;
  EXPECT_EQ(candidates[*index], expected);
  EXPECT_EQ(seed_index(candidates, candidates[7]), std::optional<std::size_t>(7));  // a candidate is itself
  KernelConfig foreign = candidates.front();
  foreign.block_k = 64;  // nothing of it is in this space
  EXPECT_FALSE(seed_index(candidates, foreign).has_value());
}

TEST_F(SeedFrom, RelativesAreRankedByArchitecture) {
  const auto results = [](const std::string& slug, int cc, int sms, double gbps, const char* kind) {
    return R"({"schema": "gemmtune.results/2", "kind": ")" + std::string(kind) + R"(", "device": )" +
           device_json(slug, cc, sms, gbps) + R"(, "entries": []})";
  };
  write("a100.json", results("a100", 80, 108, 1555, "measured"));
  write("h100.json", results("h100", 90, 132, 3350, "measured"));
  write("gh200.json", results("gh200", 90, 132, 4000, "measured"));
  write("t4.json", results("t4", 75, 40, 320, "measured"));
  write("h200.json", results("h200", 90, 132, 4800, "measured"));  // this GPU's own file
  write("plan-l4.json", results("l4", 89, 58, 300, "prediction"));
  write("broken.json", "{");
  DeviceProfile h200;
  h200.slug = "h200";
  h200.compute_capability = 90;
  h200.sm_count = 132;
  h200.memory_gbps = 4800;
  const auto names = [](const std::vector<std::string>& paths) {
    std::vector<std::string> out;
    for (const auto& p : paths) out.push_back(std::filesystem::path(p).stem().string());
    return out;
  };
  EXPECT_EQ(names(similar_gpu_results(dir_, h200, 3)), (std::vector<std::string>{"gh200", "h100", "a100"}));
  EXPECT_EQ(names(similar_gpu_results(dir_, h200, 1)), (std::vector<std::string>{"gh200"}));
  EXPECT_TRUE(similar_gpu_results(dir_ / "absent", h200, 2).empty());
}

TEST_F(SeedFrom, UnreadableFileIsNamed) {
  EXPECT_NE(seed_error((dir_ / "absent.json").string()).find("cannot read --seed-from file"),
            std::string::npos);
}

TEST_F(SeedFrom, AnotherSchemaIsRefused) {
  const auto path = write("plan.json", R"({"schema": "gemmtune.plan/1", "entries": []})");
  EXPECT_NE(seed_error(path).find("not a gemmtune.results/3 (or gemmtune.results/2, gemmtune.results/1) file"), std::string::npos);
}

TEST_F(SeedFrom, InvalidConfigIsRefused) {
  const auto path = write("bad.json", results_with_entry(R"({"m": 512, "n": 512, "k": 512, "best": {"config":
      {"block_m": 48}}})"));
  EXPECT_NE(seed_error(path).find("kernel config lacks"), std::string::npos) << seed_error(path);
}

// A dimension written as a huge float once reached a float-to-int conversion (undefined behaviour,
// seen while writing fuzz_seed_configs); mistyped dimensions are refused with the file named.
TEST_F(SeedFrom, MistypedDimensionsAreRefused) {
  for (const char* m : {"1e300", "-1e300", "\"512\"", "512.5", "null"}) {
    const auto path = write(
        "bad.json", results_with_entry(std::string(R"({"m": )") + m +
                                       R"(, "n": 512, "k": 512, "best": {"config": )" + kValidConfig + "}}"));
    const std::string error = seed_error(path);
    EXPECT_NE(error.find("--seed-from " + path), std::string::npos) << m << ": " << error;
    EXPECT_NE(error.find("'entries[0].m'"), std::string::npos) << m << ": " << error;
  }
}

using TuningLogInput = BadFiles;

// An evaluation line with the right template but mistyped fields once escaped as a JSON type_error
// (found by fuzz_tuning_log); it is now skipped like a torn line.
TEST_F(TuningLogInput, MistypedEvaluationLinesAreSkipped) {
  const std::vector<std::string> lines = {
      R"({"type": "header", "device": "gpu"})",
      R"({"type": 7, "device": ["gpu"]})",
      R"({"type": "evaluation", "template": "t", "m": "8", "name": "b"})",
      R"({"type": "evaluation", "template": "t", "m": 8, "name": "c"})",
      R"({"type": "evaluation", "template": "t", "m": 8, "n": 8, "k": 1e300, "name": "d"})",
      R"({"type": "evaluation", "template": "t", "m": 8, "n": 8, "k": 8, "name": 3})",
      R"({"type": "evaluation", "template": "t", "m": 8, "n": 8, "k": 8, "name": "e", "status": 5})",
      R"({"type": "evaluation", "template": "t", "m": 8, "n": 8, "k": 8, "name": "f", "status": "ok"})",
      R"({"type": "evaluation", "template": "t", "m": 8, "n": 8, "k": 8, "name": "a", "status": "ok", "median_ms": 1})"};
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  const TuningLog log(write("gpu.jsonl", text), "gpu", "t");
  EXPECT_EQ(log.reused_entries(), 1u);
  EXPECT_NE(log.find({8, 8, 8}, "a"), nullptr);
}

TEST(CacheDirEnvironment, EmptyValueFallsBackToXdgCacheHome) {
  ::setenv("GEMMTUNE_CACHE_DIR", "", 1);
  ::setenv("XDG_CACHE_HOME", "/somewhere", 1);
  const auto dir = default_cache_dir();
  ::unsetenv("GEMMTUNE_CACHE_DIR");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(dir, std::filesystem::path("/somewhere/gemmtune"));
}

}  // namespace
}  // namespace gemmtune
