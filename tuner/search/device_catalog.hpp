// Device profiles by name for planning without the GPU: "t4", "a100", "h100", "h200" (the embedded
// configs/devices/*.json, or a --devices-dir), or a bare architecture "sm_XY" with generic limits.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/device_profile.hpp"

namespace gemmtune {

// Throws std::invalid_argument naming the known profiles when the name is unknown.
DeviceProfile load_device_profile(const std::string& name, const std::filesystem::path& devices_dir = {});

std::vector<std::string> known_device_names();

}  // namespace gemmtune
