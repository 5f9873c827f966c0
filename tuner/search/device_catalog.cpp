// Loading named device profiles. Generic "sm_XY" profiles take the limits shared by the
// architecture's data-center part, which is what an unknown GPU of that architecture most
// likely matches; they are marked generic in the name so nobody mistakes them for a real card.
#include "search/device_catalog.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

#include "core/embedded_files.hpp"

namespace gemmtune {
namespace {

const std::vector<std::string> kNames = {"t4", "a100", "h100", "h200"};

DeviceProfile parse_profile(const std::string& text, const std::string& source) {
  try {
    DeviceProfile p;
    from_json(nlohmann::json::parse(text), p);
    return p;
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: malformed JSON ({})", source, e.what()));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", source, e.what()));
  }
}

DeviceProfile generic_profile(int cc) {
  // Start from the closest named profile at or below this architecture, then relabel.
  const char* base = cc >= 90 ? "h100" : cc >= 80 ? "a100" : "t4";
  DeviceProfile p = load_device_profile(base);
  p.name = fmt::format("generic sm_{} (limits of the {} profile)", cc, base);
  p.slug = fmt::format("generic-sm-{}", cc);
  p.compute_capability = cc;
  return p;
}

}  // namespace

std::vector<std::string> known_device_names() {
  return kNames;
}

DeviceProfile load_device_profile(const std::string& raw_name, const std::filesystem::path& devices_dir) {
  std::string name;
  for (char ch : raw_name) name += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  static const std::regex arch_pattern("sm_?([0-9]{2,3})");
  std::smatch m;
  if (std::regex_match(name, m, arch_pattern)) {
    const int cc = std::stoi(m[1]);
    if (cc < 75)
      throw std::invalid_argument(fmt::format("architecture {} is not supported (sm_75 or newer)", raw_name));
    return generic_profile(cc);
  }
  if (!devices_dir.empty()) {
    const auto path = devices_dir / (name + ".json");
    std::ifstream in(path);
    if (in) return parse_profile(std::string(std::istreambuf_iterator<char>(in), {}), path.string());
  }
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) {
    const std::string path = "configs/devices/" + name + ".json";
    return parse_profile(std::string(embedded_file(path)), path);
  }
  throw std::invalid_argument(
      fmt::format("unknown GPU '{}' (known: {}, or sm_XY)", raw_name, fmt::join(kNames, ", ")));
}

}  // namespace gemmtune
