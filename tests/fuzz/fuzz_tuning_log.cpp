// libFuzzer target for the tuning log reader (results/logs/<gpu>.jsonl, read back on every run to
// resume): the input is written as the log file and opened as TuningLog does on start. A log of
// another device may be refused with std::invalid_argument; everything else must be read or skipped.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/tuning_log.hpp"

namespace {

const std::filesystem::path& log_path() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gemmtune-fuzz-log-" + std::to_string(::getpid()) + ".jsonl");
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);  // torn-line warnings on every input would drown the run
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(log_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    // Template hash "t": short, so the fuzzer reaches the entries of the current template.
    const gemmtune::TuningLog log(log_path(), "gpu", "t");
    (void)log.find({1, 1, 1}, "a");
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
