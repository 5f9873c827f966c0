// Results files as untrusted input: the shipped files load; every kind of damaged or hostile file
// (truncated, wrong types, huge numbers, code in config fields, deep nesting, oversized, not a
// regular file) is rejected with a printable one-line reason (the file, or where only an entry is
// bad that entry, the rest serving), and nothing reaches further.
#include "results_catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <climits>
#include <functional>

#include "results_fixtures.hpp"
#include "runtime_log.hpp"
#include "test_paths.hpp"

namespace gemmtune {
namespace {

using namespace testing_results;

std::filesystem::path source_results() {
  return testing_paths::source_dir() / "results";
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

nlohmann::json valid_document() {
  return document(h100(), {entry(512, 512, 512, config(64, 64, 16, 4, 4, 4)),
                           entry(1024, 1024, 1024, config(128, 128, 8, 8, 8, 4))});
}

bool printable_line(const std::string& text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  return true;
}

TEST(ResultsCatalog, ShippedH100ResultsLoad) {
  const ResultsCatalog catalog = load_results(source_results() / "nvidia-h100-80gb-hbm3.json", true);
  ASSERT_TRUE(catalog.issues.empty()) << catalog.issues.front().message;
  ASSERT_EQ(catalog.files.size(), 1u);
  EXPECT_TRUE(catalog.single_file);
  EXPECT_EQ(catalog.files[0].device.slug, "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(catalog.files[0].device.compute_capability, 90);
  // The shapes and winners recorded in the file, whatever the latest tuning run found.
  const auto doc = nlohmann::json::parse(std::ifstream(source_results() / "nvidia-h100-80gb-hbm3.json"));
  ASSERT_EQ(catalog.files[0].shapes.size(), doc["entries"].size());
  EXPECT_EQ(catalog.files[0].shapes[0].problem.m, doc["entries"][0]["m"].get<int>());
  EXPECT_EQ(catalog.files[0].shapes[0].config.name(), doc["entries"][0]["best"]["name"].get<std::string>());
}

// results/ also holds plans, cross, bench, held-out and peer reports: skipped, never issues.
TEST(ResultsCatalog, DirectorySkipsPlansAndReportsWithoutAnIssue) {
  const ResultsCatalog catalog = load_results(source_results(), true);
  EXPECT_TRUE(catalog.issues.empty()) << catalog.issues.front().message;
  EXPECT_FALSE(catalog.single_file);
  ASSERT_GE(catalog.files.size(), 1u);
  bool portfolio = false;
  for (const auto& file : catalog.files) {
    EXPECT_EQ(file.origin.find("plan-"), std::string::npos) << file.origin;
    EXPECT_EQ(file.origin.find("heldout-"), std::string::npos) << file.origin;
    portfolio = portfolio || file.portfolio;
  }
  EXPECT_TRUE(portfolio) << "the shipped portfolio did not load";
}

using ResultsFiles = TempDir;

TEST_F(ResultsFiles, PlanNamedExplicitlyIsAnIssue) {
  const auto plans = source_results();
  for (const auto& f : std::filesystem::directory_iterator(plans)) {
    if (f.path().filename().string().rfind("plan-", 0) != 0) continue;
    const ResultsCatalog catalog = load_results(f.path(), true);
    ASSERT_EQ(catalog.issues.size(), 1u);
    EXPECT_NE(catalog.issues[0].message.find("is a plan"), std::string::npos);
    EXPECT_TRUE(catalog.files.empty());
    return;
  }
  GTEST_SKIP() << "no plan file in results/";
}

TEST_F(ResultsFiles, MissingPathIsAnIssueOnlyWhenAskedFor) {
  EXPECT_TRUE(load_results(dir_ / "absent.json", false).issues.empty());
  const ResultsCatalog asked = load_results(dir_ / "absent.json", true);
  ASSERT_EQ(asked.issues.size(), 1u);
  EXPECT_EQ(asked.issues[0].kind, ResultsIssue::Kind::not_found);
  const ResultsCatalog empty_dir = load_results(dir_, true);
  ASSERT_EQ(empty_dir.issues.size(), 1u);
  EXPECT_EQ(empty_dir.issues[0].kind, ResultsIssue::Kind::not_found);
}

TEST_F(ResultsFiles, OneBadFileDoesNotSpoilTheOthers) {
  write(dir_ / "a-good.json", valid_document().dump());
  write(dir_ / "b-bad.json", "{\"schema\": \"gemmtune.results/1\"");
  write(dir_ / "notes.txt", "not json, not looked at");
  const ResultsCatalog catalog = load_results(dir_, true);
  ASSERT_EQ(catalog.files.size(), 1u);
  EXPECT_EQ(catalog.files[0].shapes.size(), 2u);
  ASSERT_EQ(catalog.issues.size(), 1u);
  EXPECT_EQ(catalog.issues[0].kind, ResultsIssue::Kind::invalid);
  EXPECT_NE(catalog.issues[0].message.find("b-bad.json"), std::string::npos);
}

TEST_F(ResultsFiles, OversizedFileIsRejectedBeforeReading) {
  const auto path = dir_ / "huge.json";
  write(path, "");
  std::filesystem::resize_file(path, kMaxResultsFileBytes + 1);  // sparse: nothing is written
  const ResultsCatalog catalog = load_results(path, true);
  ASSERT_EQ(catalog.issues.size(), 1u);
  EXPECT_NE(catalog.issues[0].message.find("larger than"), std::string::npos);
}

TEST_F(ResultsFiles, PipesAndDevicesAreNeverRead) {
  ASSERT_EQ(::mkfifo((dir_ / "pipe.json").c_str(), 0600), 0);
  const ResultsCatalog in_directory = load_results(dir_, false);  // would block forever if opened
  EXPECT_TRUE(in_directory.files.empty());
  const ResultsCatalog named = load_results(dir_ / "pipe.json", true);
  ASSERT_EQ(named.issues.size(), 1u);
  EXPECT_NE(named.issues[0].message.find("neither a regular file"), std::string::npos);
  EXPECT_EQ(load_results("/dev/zero", true).issues.size(), 1u);
}

TEST(ResultsCatalog, OtherElementTypesAreSkippedNotRejected) {
  nlohmann::json doc = valid_document();
  doc["entries"][0]["dtype"] = "f16";
  const TunedResults r = parse_results(doc.dump(), "x");
  ASSERT_EQ(r.shapes.size(), 1u);
  EXPECT_EQ(r.shapes[0].problem.m, 1024);
}

TEST(ResultsCatalog, NestingIsMeasuredOutsideStrings) {
  EXPECT_EQ(json_nesting_error("[[[]]]", 3), "");
  EXPECT_NE(json_nesting_error("[[[[]]]]", 3), "");
  EXPECT_EQ(json_nesting_error(R"(["[[[[[[", "\"[[[[[["])", 2), "");
}

// One damaged or hostile document: how it is made, and a word its rejection must name.
struct BadDocument {
  const char* label;
  std::string text;
  const char* reason;
};

std::string with(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = valid_document();
  edit(doc);
  return doc.dump();
}

std::vector<BadDocument> bad_documents() {
  const std::string valid = valid_document().dump(2);
  std::vector<BadDocument> docs = {
      {"empty", "", "not valid JSON"},
      {"truncated", valid.substr(0, valid.size() / 2), "not valid JSON"},
      {"not_json", "results: yes", "not valid JSON"},
      {"nan_literal", replace_once(with([](auto& d) { d["entries"][0]["m"] = 7; }), "\"m\":7", "\"m\":NaN"),
       "not valid JSON"},
      {"invalid_utf8", valid_document().dump().insert(1, "\"\xff\xfe\":1,"), "not valid JSON"},
      {"array", "[]", "must be a JSON object"},
      {"no_schema", with([](auto& d) { d.erase("schema"); }), "lacks 'schema'"},
      {"schema_number", with([](auto& d) { d["schema"] = 1; }), "'schema' must be a non-empty string"},
      {"other_schema", with([](auto& d) { d["schema"] = "gemmtune.results/4"; }), "'schema' is 'gemmtune.results/4'"},
      {"v2_without_winner", with([](auto& d) { d["schema"] = "gemmtune.results/2"; }), "lacks 'winner'"},
      {"v3_without_precision", with([](auto& d) { d["schema"] = "gemmtune.results/3"; }), "lacks 'precision'"},
      {"v2_other_winner", with([](auto& d) {
         d["schema"] = "gemmtune.results/2";
         d["entries"][0]["winner"] = "triton";
       }),
       "'entries[0].winner' is 'triton'"},
      {"v3_cublaslt_without_algo", with([](auto& d) {
         d = document_v3(h100(), {cublaslt_entry(64, 4096, 4096, config(64, 64, 16, 4, 4, 4), nullptr)});
         d["entries"][0]["cublaslt"].erase("algo");
       }),
       "lacks 'algo'"},
      {"v3_cublaslt_winner_without_cublaslt", with([](auto& d) {
         d = document_v3(h100(), {cublaslt_entry(64, 4096, 4096, config(64, 64, 16, 4, 4, 4), nullptr)});
         d["entries"][0].erase("cublaslt");
       }),
       "lacks 'cublaslt'"},
      {"v3_cublaslt_algo_id_string", with([](auto& d) {
         nlohmann::json algo = {{"id", "6"},         {"tile", 0},   {"stages", 0},      {"split_k", 1},
                                {"reduction", 0},    {"swizzle", 0}, {"custom", 0},      {"inner_shape", 0},
                                {"cluster_shape", 0}, {"workspace_bytes", 0}};
         d = document_v3(h100(), {cublaslt_entry(64, 4096, 4096, config(64, 64, 16, 4, 4, 4), algo)});
       }),
       "'id'"},
      {"v3_cublaslt_inner_shape_beyond_16_bits", with([](auto& d) {
         nlohmann::json algo = {{"id", 6},           {"tile", 0},   {"stages", 0},      {"split_k", -1},
                                {"reduction", 0},    {"swizzle", 0}, {"custom", 0},      {"inner_shape", 70000},
                                {"cluster_shape", 0}, {"workspace_bytes", 0}};
         d = document_v3(h100(), {cublaslt_entry(64, 4096, 4096, config(64, 64, 16, 4, 4, 4), algo)});
       }),
       "'inner_shape'"},
      {"v2_kernel_winner_without_best", with([](auto& d) {
         d["schema"] = "gemmtune.results/2";
         d["entries"][0]["winner"] = "kernel";
         d["entries"][0].erase("best");
       }),
       "'entries[0]' lacks 'best'"},
      {"v2_batch_zero", with([](auto& d) {
         d["schema"] = "gemmtune.results/2";
         d["entries"][0]["winner"] = "cublas";
         d["entries"][0]["batch"] = 0;
       }),
       "'entries[0].batch'"},
      {"other_layout", with([](auto& d) { d["entries"][0]["layout"] = "column-major"; }), "'entries[0].layout'"},
      {"portfolio_in_v1", with([](auto& d) { d["kind"] = "portfolio"; }), "measured"},
      {"bad_alternative", with([](auto& d) { d["entries"][0]["alternatives"] = {{{"config", {{"block_m", 3}}}}}; }),
       "entries[0].alternatives[0]"},
      {"ratio_negative", with([](auto& d) { d["entries"][0]["ratio_vs_cublas"] = -1; }), "ratio_vs_cublas"},
      {"prediction", with([](auto& d) { d["kind"] = "prediction"; }), "measured"},
      {"no_device", with([](auto& d) { d.erase("device"); }), "lacks 'device'"},
      {"device_cc_string", with([](auto& d) { d["device"]["compute_capability"] = "90"; }),
       "compute_capability"},
      {"device_sm_huge", with([](auto& d) { d["device"]["sm_count"] = 1e300; }), "sm_count"},
      {"entries_object", with([](auto& d) { d["entries"] = nlohmann::json::object(); }), "'entries' must be an array"},
      {"entry_number", with([](auto& d) { d["entries"][0] = 5; }), "'entries[0]' must be an object"},
      {"m_string", with([](auto& d) { d["entries"][0]["m"] = "512"; }), "'entries[0].m'"},
      {"m_zero", with([](auto& d) { d["entries"][0]["m"] = 0; }), "'entries[0].m'"},
      {"m_negative", with([](auto& d) { d["entries"][0]["n"] = -512; }), "'entries[0].n'"},
      {"m_float", with([](auto& d) { d["entries"][0]["k"] = 512.5; }), "'entries[0].k'"},
      {"m_1e30", with([](auto& d) { d["entries"][0]["m"] = 1e30; }), "'entries[0].m'"},
      {"m_2_pow_40", with([](auto& d) { d["entries"][0]["m"] = 1LL << 40; }), "'entries[0].m'"},
      {"m_beyond_uint64",
       replace_once(with([](auto& d) { d["entries"][0]["m"] = 7; }), "\"m\":7",
                    "\"m\":99999999999999999999999"),
       "'entries[0].m'"},
      {"no_best", with([](auto& d) { d["entries"][1].erase("best"); }), "lacks 'best'"},
      {"no_config", with([](auto& d) { d["entries"][1]["best"].erase("config"); }), "lacks 'config'"},
      {"config_array", with([](auto& d) { d["entries"][1]["best"]["config"] = nlohmann::json::array(); }),
       "JSON object"},
      {"code_in_config", with([](auto& d) {
         d["entries"][0]["best"]["config"]["block_m"] = "64, 64>(); asm(\"trap;\"); template<int X";
       }),
       "block_m"},
      {"code_in_bool",
       with([](auto& d) { d["entries"][0]["best"]["config"]["async_copy"] = "true); system(\"x\""; }),
       "async_copy"},
      {"bool_as_int", with([](auto& d) { d["entries"][0]["best"]["config"]["transpose_a"] = 1; }),
       "transpose_a"},
      {"block_wraps_int", with([](auto& d) { d["entries"][0]["best"]["config"]["block_m"] = 4294967360LL; }),
       "block_m"},
      {"block_not_power", with([](auto& d) { d["entries"][0]["best"]["config"]["block_m"] = 96; }),
       "block_m"},
      {"split_k_huge", with([](auto& d) { d["entries"][0]["best"]["config"]["split_k"] = 100000; }),
       "split_k"},
      {"stages_without_async", with([](auto& d) { d["entries"][0]["best"]["config"]["stages"] = 4; }),
       "stages"},
      {"missing_field", with([](auto& d) { d["entries"][0]["best"]["config"].erase("swizzle"); }), "swizzle"},
      {"repeated_shape",
       with([](auto& d) { d["entries"][1]["m"] = d["entries"][1]["n"] = d["entries"][1]["k"] = 512; }),
       "repeats"},
      {"deep_nesting", std::string(100000, '['), "nests deeper"},
      {"deep_inside", with([](auto& d) {
         nlohmann::json deep = 1;
         for (int i = 0; i < 40; ++i) deep = nlohmann::json::array({deep});
         d["extra"] = deep;
       }),
       "nests deeper"},
  };
  return docs;
}

class RejectsBadDocument : public ::testing::TestWithParam<BadDocument> {};

// A bad file is refused with its reason; a bad entry is left out with its reason, and the file's
// good entries serve.
TEST_P(RejectsBadDocument, WithAPrintableReason) {
  try {
    const TunedResults results = parse_results(GetParam().text, "bad.json");
    ASSERT_FALSE(results.left_out.empty()) << "accepted";
    EXPECT_EQ(results.shapes.size() + results.left_out.size(),
              nlohmann::json::parse(GetParam().text)["entries"].size());
    EXPECT_TRUE(std::any_of(results.left_out.begin(), results.left_out.end(),
                            [](const std::string& r) { return r.find(GetParam().reason) != std::string::npos; }))
        << results.left_out[0];
    for (const std::string& reason : results.left_out) EXPECT_TRUE(printable_line(reason)) << reason;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().reason), std::string::npos) << e.what();
    EXPECT_TRUE(printable_line(e.what())) << e.what();
  }
}

// The tuner's commands read the same documents strictly: a bad entry refuses the whole file.
TEST_P(RejectsBadDocument, WholeFileWhereTheReaderIsStrict) {
  EXPECT_THROW(read_results_text(GetParam().text, "bad.json"), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Hostile, RejectsBadDocument, ::testing::ValuesIn(bad_documents()),
                         [](const auto& param_info) { return std::string(param_info.param.label); });

// Each bad document is one issue: a bad file adds nothing, a file with a bad entry adds the rest.
TEST_F(ResultsFiles, BadFilesAndEntriesBecomeIssues) {
  int files_kept = 0;
  for (const BadDocument& bad : bad_documents()) {
    const auto path = dir_ / (std::string(bad.label) + ".json");
    write(path, bad.text);
    const ResultsCatalog catalog = load_results(path, true);
    if (!catalog.files.empty()) {
      ++files_kept;
      EXPECT_FALSE(catalog.files[0].left_out.empty()) << bad.label;
    }
    ASSERT_EQ(catalog.issues.size(), 1u) << bad.label;
    EXPECT_EQ(catalog.issues[0].kind, ResultsIssue::Kind::invalid);
    EXPECT_TRUE(printable_line(catalog.issues[0].message)) << catalog.issues[0].message;
  }
  EXPECT_GT(files_kept, 10);  // the entry-level cases (m, config fields, a repeated problem, ...)
}

// An entry this library cannot use (here a kernel family it does not know, as from a newer tuner)
// costs that problem alone: the file's other entries still serve.
TEST_F(ResultsFiles, AnUnknownKernelFamilyLeavesOnlyItsEntryOut) {
  nlohmann::json doc = valid_document();
  doc["entries"][0]["best"]["config"]["family"] = "tcgen05";
  write(dir_ / "newer.json", doc.dump());
  const ResultsCatalog catalog = load_results(dir_, true);
  ASSERT_EQ(catalog.files.size(), 1u);
  ASSERT_EQ(catalog.files[0].shapes.size(), 1u);
  EXPECT_EQ(catalog.files[0].shapes[0].problem.m, 1024);
  ASSERT_EQ(catalog.issues.size(), 1u);
  EXPECT_NE(catalog.issues[0].message.find("1 entry left out, the rest serve"), std::string::npos)
      << catalog.issues[0].message;
  EXPECT_NE(catalog.issues[0].message.find("'family'"), std::string::npos) << catalog.issues[0].message;
}

TEST(ResultsCatalog, HostileTextCannotForgeLogLines) {
  const std::string doc = with([](auto& d) { d["schema"] = "x\n[gemmtune] info: all good\x1b[2J"; });
  try {
    parse_results(doc, "bad.json");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(printable_line(e.what())) << e.what();
  }
  EXPECT_EQ(printable("a\nb\x1b"
                      "c"),
            "a?b?c");
  EXPECT_EQ(printable(std::string(300, 'x'), 10), "xxxxxxxxxx...");
}

}  // namespace
}  // namespace gemmtune
