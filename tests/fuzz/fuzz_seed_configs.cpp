// libFuzzer target for --seed-from files (another GPU's results, read by seed_configs): the input is
// written as the file and the seeds for one shape are read. Only std::invalid_argument may come out,
// and every seed must be a config the template accepts.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "search/seed_configs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("gemmtune-fuzz-seeds-" + std::to_string(::getpid()) + ".json"))
                                      .string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    for (const auto& config : gemmtune::seed_configs({path}, {1024, 1024, 1024}))
      if (gemmtune::config_error(config)) __builtin_trap();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
