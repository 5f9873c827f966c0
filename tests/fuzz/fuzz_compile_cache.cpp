// libFuzzer target for compile-cache entries (<key>.json metadata beside <key>.cubin, in a cache
// directory that $GEMMTUNE_CACHE_DIR may point anywhere). The input is the metadata text, then a NUL
// byte, then the cubin. decode_cache_entry must return an entry or nullopt, never throw or crash,
// and an entry it returns must be the cubin it was given.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/kernel_compiler.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);  // a warning per rejected entry would drown the run
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find('\0');
  const std::string metadata(input.substr(0, split));
  const std::string cubin(split == std::string_view::npos ? std::string_view() : input.substr(split + 1));
  const auto entry = gemmtune::decode_cache_entry(metadata, cubin, "fuzz");
  if (entry && (entry->cubin != cubin || !entry->from_cache)) __builtin_trap();
  return 0;
}
