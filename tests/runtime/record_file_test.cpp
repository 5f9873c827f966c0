// The record file of GEMMTUNE_RECORD: its format round-trips, merging adds counts (also from
// several processes writing at once), and bad input names its line and field.
#include "core/record_file.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "core/atomic_file.hpp"
#include "results_fixtures.hpp"

namespace gemmtune {
namespace {

using namespace testing_results;

class RecordFile : public TempDir {};

RecordedProblem problem(int m, int n, int k, std::uint64_t calls, Layout layout = Layout::nn, int width = 4) {
  RecordedProblem p;
  p.problem = {m, n, k, layout};
  p.calls = calls, p.aligned_width = width;
  return p;
}

// The precision is part of a recorded problem: written for every problem, and fp32 where a file of
// an older library says nothing.
TEST_F(RecordFile, PrecisionsAreProblemsOfTheirOwn) {
  RecordedProblem bf16 = problem(8, 4096, 4096, 5), fp32 = problem(8, 4096, 4096, 7);
  bf16.problem.precision = Precision::bf16;
  const auto back = parse_record(format_record({bf16, fp32, bf16}), "calls.jsonl");
  ASSERT_EQ(back.size(), 2u);  // the file lists fp32 (7 calls) first, then bf16 twice (5 + 5)
  EXPECT_EQ(back[0].problem.precision, Precision::fp32);
  EXPECT_EQ(back[1].problem.precision, Precision::bf16);
  EXPECT_EQ(back[1].calls, 10u);
  const auto old = parse_record("{\"schema\":\"gemmtune.record/1\"}\n{\"m\":2,\"n\":3,\"k\":4,\"calls\":1}\n", "old.jsonl");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].problem.precision, Precision::fp32);
  EXPECT_THROW(parse_record("{\"schema\":\"gemmtune.record/1\"}\n{\"m\":2,\"n\":3,\"k\":4,\"calls\":1,"
                            "\"precision\":\"fp8\"}\n",
                            "bad.jsonl"),
               std::invalid_argument);
}

// A 16-bit C too: "c" written only where C is 16-bit, so older files and FP32 C read as before.
TEST_F(RecordFile, SixteenBitCIsAProblemOfItsOwn) {
  RecordedProblem fp32_c = problem(8, 4096, 4096, 7), c16 = problem(8, 4096, 4096, 5);
  fp32_c.problem.precision = c16.problem.precision = Precision::bf16;
  c16.problem.c16 = true;
  const std::string text = format_record({fp32_c, c16});
  EXPECT_EQ(text.find("\"c\":\"bf16\""), text.rfind("\"c\":")) << text;  // on one line only
  const auto back = parse_record(text, "calls.jsonl");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_FALSE(back[0].problem.c16);
  EXPECT_TRUE(back[1].problem.c16);
  EXPECT_THROW(parse_record("{\"schema\":\"gemmtune.record/1\"}\n{\"m\":2,\"n\":3,\"k\":4,\"calls\":1,"
                            "\"c\":\"bf16\"}\n",
                            "fp32-with-c16.jsonl"),
               std::invalid_argument);
}

TEST_F(RecordFile, RoundTripsMostCalledFirst) {
  const std::string text =
      format_record({problem(64, 64, 64, 3), problem(1024, 1024, 1024, 90, Layout::tn), problem(7, 9, 11, 5, Layout::nn, 1)});
  const auto back = parse_record(text, "calls.jsonl");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].problem.m, 1024);
  EXPECT_EQ(back[0].problem.layout, Layout::tn);
  EXPECT_EQ(back[0].calls, 90u);
  EXPECT_EQ(back[1].aligned_width, 1);
  EXPECT_EQ(text.substr(0, text.find('\n')), R"({"schema":"gemmtune.record/1"})");
}

TEST_F(RecordFile, MergingAddsCountsOfTheSameProblem) {
  const auto path = dir_ / "calls.jsonl";
  add_to_record_file(path, {problem(64, 64, 64, 3), problem(128, 128, 128, 1)});
  add_to_record_file(path, {problem(64, 64, 64, 4), problem(64, 64, 64, 1, Layout::nn, 2)});
  const auto problems = parse_record(*read_whole_file(path), path.string());
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].calls, 7u);  // 64^3 aligned: 3 + 4
}

TEST_F(RecordFile, ProcessesWritingAtOnceLoseNothing) {
  const auto path = dir_ / "calls.jsonl";
  constexpr int kProcesses = 4, kWrites = 25;
  for (int p = 0; p < kProcesses; ++p) {
    if (fork() == 0) {
      for (int i = 0; i < kWrites; ++i) add_to_record_file(path, {problem(64, 64, 64, 1), problem(32 + p, 8, 8, 1)});
      _exit(0);
    }
  }
  for (int p = 0; p < kProcesses; ++p) {
    int status = 0;
    wait(&status);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto problems = parse_record(*read_whole_file(path), path.string());
  ASSERT_EQ(problems.size(), 1u + kProcesses);
  EXPECT_EQ(problems[0].calls, std::uint64_t(kProcesses * kWrites));
  for (std::size_t i = 1; i < problems.size(); ++i) EXPECT_EQ(problems[i].calls, std::uint64_t(kWrites));
}

TEST_F(RecordFile, BadInputNamesTheLineAndField) {
  const std::string header = "{\"schema\":\"gemmtune.record/1\"}\n";
  const std::pair<std::string, std::string> cases[] = {
      {"", "is empty"},
      {"{\"schema\":\"gemmtune.results/2\"}\n", "f.jsonl:1: the first line"},
      {header + "{\"m\":1,\"n\":2,\"k\":3,\"calls\":4}\n{\"m\":1,\"n\":2,\"k\":3", "f.jsonl:3: is not one JSON value"},
      {header + "\n{\"m\":0,\"n\":2,\"k\":3,\"calls\":4}\n", "f.jsonl:3: 'm' is not an integer"},
      {header + "{\"m\":1,\"n\":-2,\"k\":3,\"calls\":4}\n", "'n' is not an integer"},
      {header + "{\"m\":1,\"n\":2,\"k\":3.5,\"calls\":4}\n", "'k' is not an integer"},
      {header + "{\"m\":1,\"n\":2,\"k\":3}\n", "'calls' is missing"},
      {header + "{\"m\":1,\"n\":2,\"k\":3,\"calls\":1,\"layout\":\"xx\"}\n", "'layout' is not one of"},
      {header + "{\"m\":1,\"n\":2,\"k\":3,\"calls\":1,\"aligned_width\":3}\n", "'aligned_width' is not 1, 2 or 4"},
      {header + "[1,2,3]\n", "f.jsonl:2: is not a JSON object"},
      {header + std::string(2000, '[') + "\n", "f.jsonl:2: is longer than"},
  };
  for (const auto& [text, expected] : cases) {
    try {
      parse_record(text, "f.jsonl");
      ADD_FAILURE() << "accepted: " << text.substr(0, 80);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

TEST_F(RecordFile, AFileOfSomethingElseIsLeftAlone) {
  const auto path = dir_ / "notes.txt";
  write(path, "my notes\n");
  EXPECT_THROW(add_to_record_file(path, {problem(64, 64, 64, 1)}), std::invalid_argument);
  EXPECT_EQ(*read_whole_file(path), "my notes\n");
}

}  // namespace
}  // namespace gemmtune
