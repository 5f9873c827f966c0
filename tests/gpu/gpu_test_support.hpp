// Shared by the gpu tier: skip cleanly where no GPU is present, and a scratch directory for tests
// that run the tuner.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../test_paths.hpp"
#include "core/device_profile.hpp"

#define GEMMTUNE_REQUIRE_GPU()                                                     \
  do {                                                                             \
    const auto gemmtune_devices_ = ::gemmtune::count_devices();                    \
    if (gemmtune_devices_.count == 0) GTEST_SKIP() << gemmtune_devices_.reason;    \
  } while (0)

namespace gemmtune::testing_gpu {

// A fresh directory holding a small search space (18 configurations, quick to compile), removed
// again at the end of the test. `tune` is the command line that tunes 1024 in it, with results,
// logs and compile cache kept inside; tests append their own options.
struct TuningScratch {
  std::filesystem::path dir;
  std::string tune;

  explicit TuningScratch(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("gemmtune-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "space.json") << R"({"parameters": {"block_m": [32, 64, 128], "block_n": [32, 64, 128],
        "block_k": [16], "thread_m": [4], "thread_n": [4], "stages": [1, 2], "vector_width": [1]}, "constraints": {}})";
    tune = testing_paths::cli() + " --gpu auto --sizes 1024 --top 1 --results-dir " + (dir / "results").string() +
           " --cache-dir " + (dir / "cache").string() + " --space " + (dir / "space.json").string();
  }
  ~TuningScratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  TuningScratch(const TuningScratch&) = delete;
  TuningScratch& operator=(const TuningScratch&) = delete;
};

}  // namespace gemmtune::testing_gpu
