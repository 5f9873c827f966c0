// The gemm-tune binary as users meet it: bad input gets one line naming the problem and exit
// code 2; no GPU gets a one-line reason and exit code 3 (these tests also run on GPU machines,
// where the tune path is exercised by the gpu tier instead).
#include <gtest/gtest.h>

#include <algorithm>

#include <string>

#include "core/device_profile.hpp"
#include "../command_output.hpp"
#include "../test_paths.hpp"

namespace {

using CliRun = gemmtune::testing_paths::CommandOutput;

CliRun run(const std::string& args) { return gemmtune::testing_paths::run_command(gemmtune::testing_paths::cli() + " " + args); }

struct BadInput {
  const char* name;  // the test's name, cited in docs/bad-inputs.md
  const char* args;
  const char* message;
};

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneLineAndExitTwo) {
  const CliRun r = run(GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(GetParam().message), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("terminate"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Arguments, CliBadInput,
    ::testing::Values(
                      BadInput{"ZeroSize", "plan --gpu h100 --sizes 0", "zero"},
                      BadInput{"NegativeSize", "plan --gpu h100 --sizes -4", "negative"},
                      BadInput{"SizeNotANumber", "plan --gpu h100 --sizes abc", "not a number"},
                      BadInput{"SizeTooLarge", "plan --gpu h100 --sizes 99999999", "too large"},
                      BadInput{"SizeJustOverTheLimit", "plan --gpu h100 --sizes 65537", "too large"},
                      BadInput{"EmptySizeList", "plan --gpu h100 --sizes ''", "empty size"},
                      BadInput{"EmptyEntryInSizeList", "plan --gpu h100 --sizes 512,,1024", "empty size"},
                      BadInput{"TwoDimensions", "plan --gpu h100 --sizes 64x64", "must be N or MxNxK"},
                      BadInput{"ZeroInATriple", "plan --gpu h100 --sizes 64x0x64", "zero dimension"},
                      BadInput{"EmptyDimension", "plan --gpu h100 --sizes 64xx64", "empty dimension"},
                      BadInput{"UnknownPrecision", "plan --gpu h100 --sizes 512 --precision fp8", "--precision"},
                      BadInput{"UnknownPrecisionInSize", "plan --gpu h100 --sizes 512:fp8", "nor a precision"},
                      BadInput{"PrecisionTheGpuCannotRun", "plan --gpu t4 --sizes 1024:bf16",
                               "1024:bf16: bf16 needs compute capability 8.0 or newer; the Tesla T4 is 7.5"},
                      BadInput{"UnknownGpu", "plan --gpu v100 --sizes 512", "unknown GPU 'v100'"},
                      BadInput{"ArchitectureTooOld", "plan --gpu sm_60 --sizes 512", "not supported"},
                      BadInput{"PlanWithoutGpu", "plan --sizes 512", "--gpu is required"},
                      BadInput{"EmptyGpuList", "--gpu '' --sizes 512", "no GPU given"},
                      BadInput{"EmptyEntryInGpuList", "--gpu 0,,1 --sizes 512", "empty entry in the GPU list"},
                      BadInput{"RepeatedGpu", "--gpu 0,1,0 --sizes 512", "GPU 0 is listed twice"},
                      BadInput{"NameInGpuList", "--gpu 0,h100 --sizes 512", "'h100' is not a GPU index"},
                      BadInput{"MissingSpaceFile", "plan --gpu h100 --sizes 512 --space /nonexistent.json", "cannot read search space"},
                      BadInput{"EmptySpaceFile", "plan --gpu h100 --sizes 512 --space /dev/null", "malformed JSON"},
                      BadInput{"SpaceIsADirectory", "plan --gpu h100 --sizes 512 --space /tmp", "is a directory"},
                      BadInput{"PlanTopZero", "plan --gpu h100 --sizes 512 --top 0", "--top"},
                      BadInput{"UnknownStrategy", "--strategy magic", "strategy"},
                      BadInput{"ZeroJobs", "--jobs 0", "jobs"},
                      BadInput{"TooManyJobs", "--jobs 5000", "jobs"},
                      BadInput{"NegativeBudget", "--budget -1", "budget"},
                      BadInput{"NegativeTimeBudget", "--time-budget -5", "time-budget"},
                      BadInput{"EvalTimeoutTooShort", "--eval-timeout 0", "eval-timeout"},
                      BadInput{"TopOverFifty", "--top 51", "top"},
                      BadInput{"UnknownLogLevel", "--log-level loud", "log-level"},
                      BadInput{"SeedFromMissingFile", "--seed-from /nonexistent.json", "nonexistent.json"},
                      BadInput{"CrossFromMissingFile", "cross --from /nonexistent.json", "nonexistent.json"},
                      BadInput{"CrossWithoutFrom", "cross", "--from is required"},
                      BadInput{"UnknownOption", "--frobnicate", "frobnicate"},
                      BadInput{"TuneOptionBeforeAnotherCommand", "--results-dir /tmp/elsewhere plan --gpu h100 --sizes 512",
                               "--results-dir before 'plan' is a tuning option"}),
    [](const ::testing::TestParamInfo<BadInput>& param_info) { return std::string(param_info.param.name); });

TEST(Cli, SizesFromARecordFileNamesTheBadLineAndField) {
  const auto bad = [](const std::string& file) {
    return run("--sizes-from " + gemmtune::testing_paths::data(file));
  };
  const CliRun field = bad("record-bad-field.jsonl");
  EXPECT_EQ(field.exit_code, 2) << field.output;
  EXPECT_NE(field.output.find("record-bad-field.jsonl:3: 'k' is not an integer"), std::string::npos) << field.output;
  const CliRun truncated = bad("record-truncated.jsonl");
  EXPECT_EQ(truncated.exit_code, 2) << truncated.output;
  EXPECT_NE(truncated.output.find("record-truncated.jsonl:3: is not one JSON value"), std::string::npos)
      << truncated.output;
  const CliRun missing = run("--sizes-from /nonexistent.jsonl");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  const CliRun both = run("--sizes 512 --sizes-from " + gemmtune::testing_paths::data("record-bad-field.jsonl"));
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_NE(both.output.find("not both"), std::string::npos) << both.output;
}

// --log-level before a command with no common options of its own is where that command takes its
// level from (it has no --log-level after its name); before plan, which has one, it is refused above.
TEST(Cli, LogLevelBeforeACommandWithoutCommonOptions) {
  const auto results = gemmtune::testing_paths::source_dir() / "results";
  const CliRun r = run("--log-level debug compare --format json " + (results / "nvidia-h100-80gb-hbm3.json").string() +
                       " " + (results / "nvidia-h200.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const CliRun plan = run("--log-level debug plan --gpu h100 --sizes 512");
  EXPECT_EQ(plan.exit_code, 2) << plan.output;
  EXPECT_NE(plan.output.find("--log-level before 'plan' is a tuning option"), std::string::npos) << plan.output;
}

TEST(Cli, PortfolioGridMustBePositive) {
  const CliRun r = run("portfolio --grid 0,8");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// A grid value the problem limits refuse would stop the run at its first such point (the default
// grid's 131072 did, 2026-11-27): refused up front, and the default stays within the limits.
TEST(Cli, PortfolioGridWithinTheProblemLimits) {
  const CliRun r = run("portfolio --grid 8,131072");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("65536"), std::string::npos) << r.output;
  const CliRun help = run("portfolio --help");
  EXPECT_NE(help.output.find("32768,65536]"), std::string::npos) << help.output;
}

TEST(Cli, MalformedSpaceFile) {
  const CliRun r = run("plan --gpu h100 --sizes 512 --space " + gemmtune::testing_paths::data("malformed.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("malformed JSON"), std::string::npos) << r.output;
}

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(run("--help").exit_code, 0);
  const CliRun v = run("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.output.find("gemm-tune"), std::string::npos);
}

TEST(Cli, NoGpuSaysSoInOneLine) {
  if (gemmtune::count_devices().count > 0) GTEST_SKIP() << "a GPU is present";
  const CliRun r = run("--gpu auto --sizes 512");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gemm-tune plan"), std::string::npos) << r.output;
}

}  // namespace
