// Device profiles: the shipped ones load and are consistent, bad ones are refused, and occupancy
// follows the CUDA rules.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "search/device_catalog.hpp"
#include "search/occupancy.hpp"

namespace gemmtune {
namespace {

TEST(DeviceProfiles, ShippedProfilesLoad) {
  const std::map<std::string, int> expected_cc = {{"t4", 75}, {"a100", 80}, {"h100", 90}, {"h200", 90}};
  for (const auto& name : known_device_names()) {
    const DeviceProfile p = load_device_profile(name);
    EXPECT_EQ(p.compute_capability, expected_cc.at(name)) << name;
    EXPECT_GT(p.sm_count, 0);
    EXPECT_GE(p.shared_bytes_per_sm, p.shared_bytes_per_block) << name;
    EXPECT_EQ(p.arch(), "sm_" + std::to_string(p.compute_capability));
    const nlohmann::json j = p;
    EXPECT_EQ(j.get<DeviceProfile>().sm_count, p.sm_count);
  }
  EXPECT_EQ(load_device_profile("H100").slug, "nvidia-h100-80gb-hbm3");
}

TEST(DeviceProfiles, GenericArchitectures) {
  EXPECT_EQ(load_device_profile("sm_86").compute_capability, 86);
  EXPECT_EQ(load_device_profile("sm90").arch(), "sm_90");
  EXPECT_THROW(load_device_profile("sm_60"), std::invalid_argument);
}

TEST(DeviceProfiles, UnknownNameListsKnownOnes) {
  try {
    load_device_profile("v100");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown GPU 'v100'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("h100"), std::string::npos);
  }
}

TEST(DeviceProfiles, BadFieldsAreRefused) {
  nlohmann::json j = load_device_profile("a100");
  j["sm_count"] = -1;
  EXPECT_THROW((void)j.get<DeviceProfile>(), std::invalid_argument);
  j = load_device_profile("a100");
  j.erase("registers_per_sm");
  EXPECT_THROW((void)j.get<DeviceProfile>(), std::invalid_argument);
  j = load_device_profile("a100");
  j["name"] = 5;
  EXPECT_THROW((void)j.get<DeviceProfile>(), std::invalid_argument);
}

TEST(Slugify, MakesFileNames) {
  EXPECT_EQ(slugify("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(slugify("  Tesla T4 "), "tesla-t4");
  EXPECT_EQ(slugify("../../etc"), "etc");
  EXPECT_EQ(slugify("***"), "unknown-gpu");
}

TEST(Occupancy, FollowsTheLimits) {
  const DeviceProfile h100 = load_device_profile("h100");
  KernelConfig c;  // 256 threads, 2 stages of 64x8 + 8x64 floats
  Occupancy o = compute_occupancy(c, 64, h100);
  EXPECT_EQ(o.blocks_per_sm, 4);  // 64 regs * 256 threads = 16K of 64K registers
  EXPECT_STREQ(o.limited_by, "registers");
  o = compute_occupancy(c, 32, h100);
  EXPECT_EQ(o.blocks_per_sm, 8);  // 2048 threads per SM
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  o = compute_occupancy(c, 255, h100);
  EXPECT_EQ(o.blocks_per_sm, 1);
}

}  // namespace
}  // namespace gemmtune
