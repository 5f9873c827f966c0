// libFuzzer target for KernelConfig's from_json, the gate between a results file and NVRTC: a config
// it accepts must satisfy config_error, and must survive to_json/from_json unchanged.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/kernel_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  gemmtune::KernelConfig config;
  try {
    gemmtune::from_json(j, config);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (gemmtune::config_error(config)) __builtin_trap();
  nlohmann::json round_trip;
  gemmtune::to_json(round_trip, config);
  gemmtune::KernelConfig again;
  gemmtune::from_json(round_trip, again);
  if (again != config || again.name() != config.name()) __builtin_trap();
  return 0;
}
