// libFuzzer target for search-space files (--space FILE): parse_search_space, then the constraints
// applied with the parsed settings to every config of a small corner of the space, since the
// settings are untrusted numbers that the constraints compute with.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "search/device_catalog.hpp"
#include "search/search_space.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  gemmtune::SearchSpace space;
  try {
    space = gemmtune::parse_search_space(j, "fuzz input");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  static const gemmtune::DeviceProfile device = gemmtune::load_device_profile("h100");
  const gemmtune::GemmShape shape{512, 256, 4096};
  // One value per parameter (the first): the constraints see the settings, never a huge product.
  gemmtune::SearchSpace corner = space;
  for (auto& [name, list] : corner.values) list.resize(1);
  gemmtune::enumerate(corner, device, &shape);
  gemmtune::enumerate(corner, device, nullptr);
  (void)space.cross_product_size();
  return 0;
}
