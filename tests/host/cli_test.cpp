// The gemm-tune binary as users meet it: bad input gets one line naming the problem and exit
// code 2; no GPU gets a one-line reason and exit code 3 (these tests also run on GPU machines,
// where the tune path is exercised by the gpu tier instead).
#include <gtest/gtest.h>

#include <string>

#include "device_profile.hpp"
#include "../command_output.hpp"
#include "../test_paths.hpp"

namespace {

using CliRun = gemmtune::testing_paths::CommandOutput;

CliRun run(const std::string& args) { return gemmtune::testing_paths::run_command(gemmtune::testing_paths::cli() + " " + args); }

struct BadInput {
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
    ::testing::Values(BadInput{"plan --gpu h100 --sizes 0", "zero"}, BadInput{"plan --gpu h100 --sizes -4", "negative"},
                      BadInput{"plan --gpu h100 --sizes abc", "not a number"},
                      BadInput{"plan --gpu h100 --sizes 99999999", "too large"},
                      BadInput{"plan --gpu v100 --sizes 512", "unknown GPU 'v100'"},
                      BadInput{"plan --sizes 512", "--gpu is required"},
                      BadInput{"plan --gpu h100 --sizes 512 --space /nonexistent.json", "cannot read search space"},
                      BadInput{"--strategy magic", "strategy"}, BadInput{"--jobs 0", "jobs"},
                      BadInput{"--frobnicate", "frobnicate"}));

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
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

}  // namespace
