// The public C++ interface as an application sees it (linked against libgemmtune.so; internal types
// only help write results files): results checking without a GPU, statuses and messages for missing and
// hostile results, argument errors, and a handle that reports "no device" cleanly on a machine without one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <gemmtune/gemmtune.hpp>

#include "results_fixtures.hpp"
#include "test_paths.hpp"

namespace gemmtune {
namespace {

using namespace testing_results;

bool has_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

TEST(PublicApi, NamesOfEveryStatusAndSource) {
  EXPECT_STREQ(status_name(Status::success), "success");
  EXPECT_STREQ(status_name(Status::invalid_results), "invalid_results");
  EXPECT_STREQ(status_name(Status::internal_error), "internal_error");
  EXPECT_STREQ(status_name(static_cast<Status>(99)), "unknown_status");
  EXPECT_STREQ(config_source_name(ConfigSource::exact_shape), "exact_shape");
  EXPECT_STREQ(config_source_name(ConfigSource::built_in_default), "built_in_default");
}

TEST(PublicApi, CheckResultsAcceptsTheShippedResults) {
  std::string message = "unchanged";
  EXPECT_EQ(check_results((testing_paths::source_dir() / "results").string(), &message), Status::success);
  EXPECT_EQ(message, "");
}

using PublicApiFiles = TempDir;

TEST_F(PublicApiFiles, CheckResultsNamesTheBadFile) {
  write(dir_ / "good.json", document(h100(), {entry(64, 64, 64, default_config())}).dump());
  write(
      dir_ / "hostile.json",
      R"({"schema": "gemmtune.results/1", "kind": "measured", "entries": [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]})");
  std::string message;
  EXPECT_EQ(check_results(dir_.string(), &message), Status::invalid_results);
  EXPECT_NE(message.find("hostile.json"), std::string::npos) << message;
  EXPECT_EQ(message.find("good.json"), std::string::npos) << message;
  EXPECT_EQ(check_results((dir_ / "absent").string(), nullptr), Status::results_not_found);
}

TEST_F(PublicApiFiles, HandleReportsBadResultsAndNeverThrows) {
  write(dir_ / "bad.json", "{\"schema\": \"gemmtune.results/1\", \"entries\": ");
  const Handle handle((dir_ / "bad.json").string());
  EXPECT_EQ(handle.status(), has_gpu() ? Status::invalid_results : Status::no_device);
  EXPECT_NE(handle.status_message().find("bad.json"), std::string::npos) << handle.status_message();
}

TEST_F(PublicApiFiles, EnvironmentVariableNamesTheResults) {
  ::setenv("GEMMTUNE_RESULTS", (dir_ / "absent").c_str(), 1);
  const Handle handle;
  ::unsetenv("GEMMTUNE_RESULTS");
  EXPECT_NE(handle.status_message().find("absent: does not exist"), std::string::npos)
      << handle.status_message();
  EXPECT_EQ(handle.status(), has_gpu() ? Status::results_not_found : Status::no_device);
}

// $GEMMTUNE_RESULTS naming something that is not a results file or directory: the handle's message
// names it and says why, and nothing is thrown.
TEST_F(PublicApiFiles, EnvironmentVariableNamingNonsense) {
  write(dir_ / "garbage.json", std::string("\x00\xff\x1b[2J", 6));
  std::filesystem::create_directories(dir_ / "empty");
  for (const auto& [path, reason] : std::vector<std::pair<std::string, std::string>>{
           {"/dev/null", "is neither a regular file nor a directory"},
           {(dir_ / "empty").string(), "holds no *.json results file"},
           {(dir_ / "garbage.json").string(), "is not valid JSON"}}) {
    ::setenv("GEMMTUNE_RESULTS", path.c_str(), 1);
    const Handle handle;
    ::unsetenv("GEMMTUNE_RESULTS");
    EXPECT_NE(handle.status_message().find(path + ": " + reason), std::string::npos) << handle.status_message();
    EXPECT_EQ(handle.status_message().find('\x1b'), std::string::npos);
  }
}

TEST(PublicApi, ArgumentErrorsComeBeforeTheDevice) {
  const Handle handle((testing_paths::source_dir() / "results").string());
  float dummy = 0;
  EXPECT_EQ(handle.sgemm({4, 4, 4, 3, 4, 4}, 1, &dummy, &dummy, 0, &dummy, nullptr),
            Status::invalid_argument);
  EXPECT_EQ(handle.sgemm({-1, 4, 4, 4, 4, 4}, 1, &dummy, &dummy, 0, &dummy, nullptr),
            Status::invalid_argument);
  EXPECT_EQ(handle.sgemm({4, 4, 4, 4, 4, 4}, 1, nullptr, &dummy, 0, &dummy, nullptr),
            Status::invalid_argument);
  EXPECT_EQ(handle.sgemm({0, 4, 4, 4, 4, 4}, 1, nullptr, nullptr, 0, &dummy, nullptr),
            Status::success);  // no-op
  float bias[2] = {};
  const void* misaligned = reinterpret_cast<const char*>(bias) + 1;
  EXPECT_EQ(handle.gemm_bias({4, 4, 4, 4, 4, 4}, 1, &dummy, &dummy, 0, misaligned, &dummy, nullptr),
            Status::invalid_argument);
  KernelChoice choice;
  EXPECT_EQ(handle.choose({4, 4, 4, 4, 3, 4}, nullptr, nullptr, choice), Status::invalid_argument);
}

TEST(PublicApi, WithoutAGpuEveryCallSaysNoDevice) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  const Handle handle((testing_paths::source_dir() / "results").string());
  EXPECT_EQ(handle.status(), Status::no_device);
  EXPECT_FALSE(handle.status_message().empty());
  EXPECT_EQ(handle.device_slug(), "");
  float dummy = 0;
  EXPECT_EQ(handle.sgemm({4, 4, 4, 4, 4, 4}, 1, &dummy, &dummy, 0, &dummy, nullptr), Status::no_device);
  KernelChoice choice;
  EXPECT_EQ(handle.choose({4, 4, 4, 4, 4, 4}, nullptr, nullptr, choice), Status::no_device);
}

TEST(PublicApi, MovedFromHandleIsEmptyNotBroken) {
  Handle first((testing_paths::source_dir() / "results").string());
  const Status status = first.status();
  Handle second(std::move(first));
  EXPECT_EQ(second.status(), status);
  EXPECT_EQ(first.status(),
            Status::invalid_argument);  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_FALSE(first.status_message().empty());
  float dummy = 0;
  EXPECT_EQ(first.sgemm({4, 4, 4, 4, 4, 4}, 1, &dummy, &dummy, 0, &dummy, nullptr), Status::invalid_argument);
}

}  // namespace
}  // namespace gemmtune
