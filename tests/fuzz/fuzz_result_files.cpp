// libFuzzer target for the files `gemm-tune compare` and `merge` read from other machines: results,
// plans, cross measurements and peers (core/result_documents.hpp), told apart by their schema.
// The input is written as a file and loaded as those commands load it: it must be read or refused
// with std::invalid_argument (one line naming the file); anything else is a bug.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/result_documents.hpp"

namespace {

const std::filesystem::path& input_path() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gemmtune-fuzz-file-" + std::to_string(::getpid()) + ".json");
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(input_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)gemmtune::load_result_document(input_path(), "compare");
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
