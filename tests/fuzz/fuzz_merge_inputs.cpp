// libFuzzer target for `gemm-tune merge`'s inputs: the files of a sharded run, each one from a
// cluster task. The input is written as two shards (the same bytes twice, so a valid input meets
// its own problems again and the merge must choose) and merged: the merge must succeed or refuse
// with std::invalid_argument naming a file; anything else is a bug.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "record/results_merge.hpp"

namespace {

std::filesystem::path shard_path(int shard) {
  return std::filesystem::temp_directory_path() /
         ("gemmtune-fuzz-shard-" + std::to_string(::getpid()) + "-" + std::to_string(shard) + ".json");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const int shard : {0, 1}) {
    std::ofstream out(shard_path(shard), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const gemmtune::MergedFiles merged = gemmtune::merge_result_files({shard_path(0), shard_path(1)});
    (void)merged.document.dump();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
