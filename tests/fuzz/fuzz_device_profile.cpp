// libFuzzer target for device profiles (configs/devices/*.json, or a user's own through the devices
// directory): the JSON text as the device catalog reads it, then DeviceProfile's from_json. Only
// malformed JSON or std::invalid_argument may come out; an accepted profile must round-trip.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/device_profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  gemmtune::DeviceProfile profile;
  try {
    gemmtune::from_json(j, profile);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  nlohmann::json round_trip;
  gemmtune::to_json(round_trip, profile);
  gemmtune::DeviceProfile again;
  gemmtune::from_json(round_trip, again);
  if (again.slug != profile.slug || again.compute_capability != profile.compute_capability ||
      again.arch() != profile.arch())
    __builtin_trap();
  return 0;
}
