// Sharded runs and their merge, without a GPU: which problems a shard takes (from --shard or a
// Slurm array job's environment), the refusal of bad shard values at the command line, and
// `gemm-tune merge` over real results and plan files split the way a sharded run writes them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "../command_output.hpp"
#include "../temp_dir_test.hpp"
#include "../test_paths.hpp"
#include "core/result_documents.hpp"
#include "record/results_merge.hpp"
#include "search/shard.hpp"

namespace gemmtune {
namespace {

using testing_paths::run_command;

std::vector<GemmShape> six_sizes() {
  return parse_sizes("64,96,128,192,256,320");
}

TEST(Shard, ParsesIndexOfCount) {
  const Shard s = parse_shard("2/4");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(parse_shard("0/1").count, 1);
}

TEST(Shard, RefusesBadText) {
  for (const char* bad : {"4/4", "5/4", "0/0", "-1/4", "1/-4", "a/b", "1", "1/", "/4", "", "1/4/2", " 1/4",
                          "1.0/4", "99999999999/4"})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
  try {
    parse_shard("4/4");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("outside 0..3"), std::string::npos) << e.what();
  }
}

TEST(Shard, EveryProblemInExactlyOneShardInItsOrder) {
  const auto all = six_sizes();
  EXPECT_EQ(select_shard(all, {0, 4}), (std::vector<GemmShape>{all[0], all[4]}));
  EXPECT_EQ(select_shard(all, {1, 4}), (std::vector<GemmShape>{all[1], all[5]}));
  EXPECT_EQ(select_shard(all, {3, 4}), (std::vector<GemmShape>{all[3]}));
  EXPECT_TRUE(select_shard(all, {6, 8}).empty());
  EXPECT_EQ(select_shard(all, {0, 1}), all);
  std::map<int, int> seen;
  for (int i = 0; i < 4; ++i)
    for (const auto& s : select_shard(all, {i, 4})) ++seen[s.m];
  EXPECT_EQ(seen.size(), all.size());
  for (const auto& [m, times] : seen) EXPECT_EQ(times, 1) << m;
}

EnvironmentLookup environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(Shard, FromSlurmArrayEnvironment) {
  const auto s = choose_shard(std::nullopt,
                              environment({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->label(), "2/4");
  // --array=4-7: ids from SLURM_ARRAY_TASK_MIN.
  const auto shifted = choose_shard(std::nullopt, environment({{"SLURM_ARRAY_TASK_ID", "5"},
                                                               {"SLURM_ARRAY_TASK_COUNT", "4"},
                                                               {"SLURM_ARRAY_TASK_MIN", "4"}}));
  ASSERT_TRUE(shifted);
  EXPECT_EQ(shifted->label(), "1/4");
  EXPECT_FALSE(choose_shard(std::nullopt, environment({})));
  EXPECT_FALSE(
      choose_shard(std::nullopt, environment({{"SLURM_ARRAY_TASK_ID", "2"}})));  // not both: no shard
}

TEST(Shard, ExplicitOptionWinsOverTheEnvironment) {
  const auto env = environment({{"SLURM_ARRAY_TASK_ID", "junk"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  EXPECT_EQ(choose_shard(std::string("1/2"), env)->label(), "1/2");
  EXPECT_THROW(choose_shard(std::nullopt, env), std::invalid_argument);
  EXPECT_THROW(choose_shard(std::string(""), environment({})), std::invalid_argument);  // given, but empty
}

TEST(Shard, RefusesBadSlurmValues) {
  const std::vector<std::map<std::string, std::string>> bad = {
      {{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}},  // --array=1-4 without TASK_MIN
      {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "0"}},
      {{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "4"}},
      {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "2"}},
      {{"SLURM_ARRAY_TASK_ID", "6"},
       {"SLURM_ARRAY_TASK_COUNT", "3"},
       {"SLURM_ARRAY_TASK_MIN", "1"}},  // 1,3,6
  };
  for (const auto& vars : bad)
    EXPECT_THROW(choose_shard(std::nullopt, environment(vars)), std::invalid_argument);
}

// The binary with no Slurm array variables but those a test sets.
testing_paths::CommandOutput cli(const std::string& env, const std::string& args) {
  return run_command("env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_MIN " + env +
                     " " + testing_paths::cli() + " " + args);
}

TEST(ShardCli, BadShardIsOneLineAndExitTwo) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plan --gpu h100 --sizes 64 --shard 4/4", "outside 0..3"},
      {"plan --gpu h100 --sizes 64 --shard 0/0", "at least 1"},
      {"plan --gpu h100 --sizes 64 --shard x", "expected I/N"},
      {"plan --gpu h100 --sizes 64 --shard ''", "expected I/N"},
      {"--sizes 64 --shard 2/2", "outside 0..1"},
      {"--sizes 64 --shard 1/-2", "expected I/N"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = cli("", args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << ": " << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << ": " << r.output;
  }
  const auto env = cli("SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_COUNT=4", "plan --gpu h100 --sizes 64");
  EXPECT_EQ(env.exit_code, 2) << env.output;
  EXPECT_NE(env.output.find("SLURM_ARRAY_TASK_ID=4"), std::string::npos) << env.output;
}

TEST(ShardCli, EmptyShareSaysSoAndExitsZero) {
  // Neither needs a GPU or a compiler: an empty share stops before either.
  const auto plan = cli("", "plan --gpu h100 --sizes 64,96 --shard 2/3");
  EXPECT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("shard 2/3 has no problems"), std::string::npos) << plan.output;
  const auto tune = cli("", "--sizes 64 --shard 1/2");
  EXPECT_EQ(tune.exit_code, 0) << tune.output;
  EXPECT_NE(tune.output.find("shard 1/2 has no problems"), std::string::npos) << tune.output;
  // From Slurm's environment, ids counted from SLURM_ARRAY_TASK_MIN.
  const auto slurm =
      cli("SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=2", "--sizes 64");
  EXPECT_EQ(slurm.exit_code, 0) << slurm.output;
  EXPECT_NE(slurm.output.find("shard 1/2 has no problems"), std::string::npos) << slurm.output;
  // --shard wins over a broken environment.
  const auto wins = cli("SLURM_ARRAY_TASK_ID=junk SLURM_ARRAY_TASK_COUNT=2", "--sizes 64 --shard 1/2");
  EXPECT_EQ(wins.exit_code, 0) << wins.output;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string shipped(const std::string& name) {
  return (testing_paths::source_dir() / "results" / name).string();
}

class Merge : public testing_paths::TempDirTest {
 protected:
  std::string write(const std::string& name, const nlohmann::json& doc) {
    const auto path = (dir_ / name).string();
    std::ofstream(path) << doc.dump(2);
    return path;
  }
  // The shipped H100 results (schema 1) with the entries whose index % count == index only.
  nlohmann::json h100_share(std::size_t index, std::size_t count) {
    auto doc = read_json(shipped("nvidia-h100-80gb-hbm3.json"));
    nlohmann::json kept = nlohmann::json::array();
    for (std::size_t i = index; i < doc["entries"].size(); i += count) {
      kept.push_back(doc["entries"][i]);
      kept.back().erase("merged_from");  // the shipped file's own provenance: a shard starts afresh
    }
    doc["entries"] = kept;
    return doc;
  }
  // The shipped file with its 512^3 nn entry alone.
  nlohmann::json h100_512() {
    auto doc = read_json(shipped("nvidia-h100-80gb-hbm3.json"));
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& e : doc["entries"])
      if (e["m"] == 512 && e["n"] == 512 && e["k"] == 512 && e["layout"] == "nn" && e["batch"] == 1 &&
          e.value("precision", "fp32") == "fp32")
        kept.push_back(e);
    doc["entries"] = kept;
    return doc;
  }
  static const nlohmann::json& entry_of(const nlohmann::json& doc, int m, int n, int k) {
    for (const auto& e : doc["entries"])
      if (e["m"] == m && e["n"] == n && e["k"] == k && e.value("precision", "fp32") == "fp32") return e;
    throw std::runtime_error("no such entry");
  }
};

TEST_F(Merge, ShardsOfResultsMergeIntoEveryProblemOnce) {
  const auto all = read_json(shipped("nvidia-h100-80gb-hbm3.json"));
  const MergedFiles merged =
      merge_result_files({write("task-0.json", h100_share(0, 3)), write("task-1.json", h100_share(1, 3)),
                          write("task-2.json", h100_share(2, 3))});
  EXPECT_EQ(merged.kind, "results");
  EXPECT_EQ(merged.gpu, "nvidia-h100-80gb-hbm3");
  EXPECT_TRUE(merged.notes.empty());
  ASSERT_EQ(merged.problems, all["entries"].size());
  EXPECT_EQ(merged.document["schema"], "gemmtune.results/3");
  EXPECT_EQ(merged.document["merged_files"].size(), 3u);
  for (const auto& e : merged.document["entries"]) {
    EXPECT_TRUE(e["layout"] == "nn" || e["layout"] == "nt" || e["layout"] == "tn" || e["layout"] == "tt");
    EXPECT_FALSE(e.contains("merged_from"));
  }
  // What merge writes is a results file compare accepts.
  const auto out = write("merged.json", merged.document);
  const ResultFile reread = load_result_file(out);
  ASSERT_TRUE(std::holds_alternative<TunedResults>(reread));
  EXPECT_EQ(std::get<TunedResults>(reread).shapes.size(), all["entries"].size());
}

TEST_F(Merge, KeepsTheFasterWinnerAndBothMeasurements) {
  auto slower = read_json(shipped("nvidia-h100-80gb-hbm3.json"));
  auto faster = h100_512();
  auto& e = faster["entries"][0];
  ASSERT_EQ(e["m"], 512);
  const double old_tflops = e["best"]["tflops"].get<double>();
  e["best"]["tflops"] = old_tflops * 1.25;
  e["date"] = "2027-01-01T00:00:00Z";
  const auto a = write("a.json", slower), b = write("b.json", faster);
  for (const auto& files :
       {std::vector<std::filesystem::path>{a, b}, std::vector<std::filesystem::path>{b, a}}) {
    const MergedFiles merged = merge_result_files(files);
    EXPECT_EQ(merged.problems, slower["entries"].size());
    const auto& kept = entry_of(merged.document, 512, 512, 512);
    EXPECT_DOUBLE_EQ(kept["best"]["tflops"].get<double>(), old_tflops * 1.25);
    ASSERT_EQ(kept["merged_from"].size(), 2u) << kept["merged_from"].dump();
    int kept_count = 0;
    for (const auto& m : kept["merged_from"]) {
      const bool is_b = m["file"] == b;
      EXPECT_EQ(m["kept"].get<bool>(), is_b);
      EXPECT_DOUBLE_EQ(m["tflops"].get<double>(), is_b ? old_tflops * 1.25 : old_tflops);
      EXPECT_EQ(m["date"], is_b ? "2027-01-01T00:00:00Z" : h100_512()["entries"][0]["date"]);
      EXPECT_FALSE(m["name"].get<std::string>().empty());
      kept_count += m["kept"].get<bool>();
    }
    EXPECT_EQ(kept_count, 1);
    ASSERT_EQ(merged.notes.size(), 1u);
    EXPECT_NE(merged.notes[0].find("512: kept " + b), std::string::npos) << merged.notes[0];
  }
}

// The shipped H200 file holds bf16 decode rows with an FP32 C and with a 16-bit C: two problems each,
// which merging shards of it keeps apart (keyed without C's type, one replaced the other).
TEST_F(Merge, SixteenBitCEntriesAreProblemsOfTheirOwn) {
  const auto all = read_json(shipped("nvidia-h200.json"));
  std::size_t c16 = 0;
  for (const auto& e : all["entries"]) c16 += e.contains("c");
  ASSERT_GT(c16, 0u);
  nlohmann::json even = all, odd = all;
  even["entries"] = odd["entries"] = nlohmann::json::array();
  for (std::size_t i = 0; i < all["entries"].size(); ++i) (i % 2 ? odd : even)["entries"].push_back(all["entries"][i]);
  const MergedFiles merged = merge_result_files({write("even.json", even), write("odd.json", odd)});
  EXPECT_EQ(merged.problems, all["entries"].size());
  std::size_t merged_c16 = 0;
  for (const auto& e : merged.document["entries"]) merged_c16 += e.contains("c");
  EXPECT_EQ(merged_c16, c16);
}

TEST_F(Merge, SlowerRemeasurementDoesNotReplace) {
  auto slower = h100_512();
  const double old_tflops = slower["entries"][0]["best"]["tflops"].get<double>();
  slower["entries"][0]["best"]["tflops"] = old_tflops * 0.5;
  const auto merged = merge_result_files({write("b.json", slower), write("a.json", h100_share(0, 1))});
  const auto& kept = entry_of(merged.document, 512, 512, 512);
  EXPECT_DOUBLE_EQ(kept["best"]["tflops"].get<double>(), old_tflops);
  EXPECT_EQ(kept["merged_from"].size(), 2u);
}

TEST_F(Merge, PlansMergeByProblemAndKeepTheFirstOfARepeat) {
  auto plan = read_json(shipped("plan-nvidia-a100-sxm4-40gb.json"));
  ASSERT_EQ(plan["problems"].size(), 3u);
  auto first = plan, second = plan;
  first["problems"] = {plan["problems"][0], plan["problems"][1]};
  second["problems"] = {plan["problems"][1], plan["problems"][2]};
  second["problems"][0]["ranked_count"] = 12345;  // the repeat, told apart
  const auto a = write("plan-0.json", first), b = write("plan-1.json", second);
  const MergedFiles merged = merge_result_files({a, b});
  EXPECT_EQ(merged.kind, "plan");
  ASSERT_EQ(merged.problems, 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(merged.document["problems"][i]["ranked"], plan["problems"][i]["ranked"]) << i;
  EXPECT_EQ(merged.document["problems"][1]["ranked_count"], plan["problems"][1]["ranked_count"]);
  ASSERT_EQ(merged.notes.size(), 1u);
  EXPECT_NE(merged.notes[0].find("kept " + a), std::string::npos) << merged.notes[0];
  EXPECT_EQ(merged.document["merged_files"].size(), 2u);
  EXPECT_TRUE(
      std::holds_alternative<PlanPredictions>(load_result_file(write("merged.json", merged.document))));
}

TEST_F(Merge, RefusesMixedKindsGpusAndBadFiles) {
  const auto expect_refused = [](const std::vector<std::filesystem::path>& files,
                                 const std::string& message) {
    try {
      merge_result_files(files);
      ADD_FAILURE() << "merged: " << message;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  const auto h100 = shipped("nvidia-h100-80gb-hbm3.json");
  expect_refused({h100, shipped("plan-nvidia-a100-sxm4-40gb.json")}, "merge files of one kind");
  expect_refused({h100, shipped("nvidia-h200.json")}, "merge one GPU model's files");
  auto plan_h100 = read_json(shipped("plan-nvidia-a100-sxm4-40gb.json"));
  plan_h100["device"] = read_json(h100)["device"];
  expect_refused({shipped("plan-nvidia-a100-sxm4-40gb.json"), write("plan-h100.json", plan_h100)},
                 "merge one GPU model's files");
  expect_refused({h100, testing_paths::data("malformed.json")}, "malformed JSON");
  expect_refused({h100, (dir_ / "missing.json").string()}, "no such file");
  expect_refused({testing_paths::data("synthetic-cross.json")}, "a cross file");
  expect_refused({shipped("peers-triton-nvidia-h100-80gb-hbm3.json")}, "a peers file");
}

TEST_F(Merge, CliWritesTheFileOrRefusesInOneLine) {
  const auto out = (dir_ / "sub" / "merged.json").string();
  const auto ok = run_command(testing_paths::cli() + " merge -o " + out + " " +
                              write("t0.json", h100_share(0, 2)) + " " + write("t1.json", h100_share(1, 2)));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  const std::size_t problems = read_json(shipped("nvidia-h100-80gb-hbm3.json"))["entries"].size();
  EXPECT_NE(ok.output.find(fmt::format("merged 2 results file(s) for nvidia-h100-80gb-hbm3: {} problem(s)", problems)),
            std::string::npos)
      << ok.output;
  EXPECT_EQ(read_json(out)["entries"].size(), problems);
  const auto mixed = run_command(testing_paths::cli() + " merge -o " + (dir_ / "x.json").string() + " " +
                                 shipped("nvidia-h100-80gb-hbm3.json") + " " + shipped("nvidia-h200.json"));
  EXPECT_EQ(mixed.exit_code, 2) << mixed.output;
  EXPECT_EQ(std::count(mixed.output.begin(), mixed.output.end(), '\n'), 1) << mixed.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.json"));
  const auto no_output = run_command(testing_paths::cli() + " merge " + shipped("nvidia-h200.json"));
  EXPECT_EQ(no_output.exit_code, 2) << no_output.output;
}

}  // namespace
}  // namespace gemmtune
