// The lookup order (exact -> nearest on this GPU model -> same compute capability -> default), the
// distance behind "nearest" (log-space shape, wave quantization, alignment), and the guards: configs
// that do not fit the device, and split-K carried away from the shape it was tuned for.
#include "config_selection.hpp"

#include <gtest/gtest.h>

#include "results_fixtures.hpp"

namespace gemmtune {
namespace {

using namespace testing_results;

ResultsCatalog catalog_of(const std::vector<nlohmann::json>& documents) {
  ResultsCatalog catalog;
  for (std::size_t i = 0; i < documents.size(); ++i)
    catalog.files.push_back(parse_results(documents[i].dump(), "file" + std::to_string(i) + ".json"));
  return catalog;
}

const KernelConfig kSmall = config(64, 64, 16, 4, 4, 4);
const KernelConfig kLarge = config(128, 128, 8, 8, 8, 4);
const KernelConfig kScalar = config(64, 64, 16, 4, 4, 1);
const KernelConfig kSplit = config(64, 64, 16, 4, 4, 4, 4);
const KernelConfig kAsync = config(128, 128, 8, 8, 8, 4, 1, true);

TEST(ConfigSelection, TestConfigsAreValid) {
  for (const auto& c : {kSmall, kLarge, kScalar, kSplit, kAsync})
    EXPECT_FALSE(config_error(c)) << *config_error(c);
}

TEST(ConfigSelection, ExactShapeOnThisModelWins) {
  const auto catalog =
      catalog_of({document(h100(), {entry(512, 512, 512, kSmall), entry(1024, 1024, 1024, kLarge)})});
  const Selection s = select_config(catalog, h100(), {1024, 1024, 1024, 4});
  EXPECT_EQ(s.source, ConfigSource::exact_shape);
  EXPECT_EQ(s.config, kLarge);
  EXPECT_NE(s.reason.find("file0.json"), std::string::npos) << s.reason;
}

TEST(ConfigSelection, NearestShapeOnThisModelBeforeAnotherModelsExactShape) {
  const auto catalog =
      catalog_of({document(h100_pcie(), {entry(1000, 1000, 1000, kSmall)}),
                  document(h100(), {entry(512, 512, 512, kSmall), entry(1024, 1024, 1024, kLarge)})});
  const Selection s = select_config(catalog, h100(), {1000, 1000, 1000, 4});
  EXPECT_EQ(s.source, ConfigSource::nearest_shape);
  EXPECT_EQ(s.config, kLarge);
  EXPECT_NE(s.reason.find("1024x1024x1024"), std::string::npos) << s.reason;
}

TEST(ConfigSelection, SameArchitectureWhenThisModelHasNothing) {
  const auto catalog = catalog_of({document(a100(), {entry(1000, 1000, 1000, kScalar)}),
                                   document(h100_pcie(), {entry(2048, 2048, 2048, kLarge)})});
  const Selection s = select_config(catalog, h100(), {1000, 1000, 1000, 4});
  EXPECT_EQ(s.source, ConfigSource::same_architecture);
  EXPECT_EQ(s.config, kLarge);
  EXPECT_NE(s.reason.find("nvidia-h100-pcie"), std::string::npos) << s.reason;
}

TEST(ConfigSelection, OtherArchitectureNeverAndDefaultLast) {
  const auto catalog = catalog_of({document(a100(), {entry(1000, 1000, 1000, kScalar)})});
  const Selection s = select_config(catalog, h100(), {1000, 1000, 1000, 4});
  EXPECT_EQ(s.source, ConfigSource::built_in_default);
  EXPECT_EQ(s.config, default_config());
  EXPECT_EQ(select_config(ResultsCatalog{}, t4(), {1, 1, 1, 1}).config, default_config());
}

TEST(ConfigSelection, ConfigsThatDoNotFitTheDeviceAreSkipped) {
  KernelConfig huge_shared = config(256, 128, 64, 8, 8, 4, 1, true);
  huge_shared.stages = 8;
  ASSERT_FALSE(config_error(huge_shared));
  EXPECT_TRUE(device_fit_error(huge_shared, t4()));
  EXPECT_TRUE(device_fit_error(kAsync, t4()));  // cp.async needs sm_80
  EXPECT_FALSE(device_fit_error(kAsync, a100()));
  const auto catalog =
      catalog_of({document(t4(), {entry(512, 512, 512, kAsync), entry(600, 600, 600, huge_shared),
                                  entry(4096, 4096, 4096, kScalar)})});
  const Selection exact = select_config(catalog, t4(), {512, 512, 512, 4});
  EXPECT_EQ(exact.source, ConfigSource::nearest_shape);
  EXPECT_EQ(exact.config, kScalar);
}

TEST(ConfigSelection, ShapeDistanceIsSymmetricInLogSpace) {
  const TunedShape tuned{1024, 1024, 1024, kSmall};
  const auto device = h100();
  EXPECT_DOUBLE_EQ(shape_distance({1024, 1024, 1024, 4}, tuned, device).total(), 0.0);
  EXPECT_NEAR(shape_distance({1024, 1024, 2048, 4}, tuned, device).shape, std::log(2.0), 1e-12);
  EXPECT_NEAR(shape_distance({1024, 1024, 512, 4}, tuned, device).shape, std::log(2.0), 1e-12);
  EXPECT_NEAR(shape_distance({2048, 2048, 1024, 4}, tuned, device).shape, std::sqrt(2.0) * std::log(2.0),
              1e-12);
  EXPECT_DOUBLE_EQ(shape_distance({1024, 1024, 1, 4}, tuned, device).waves, 0.0);  // K leaves the grid alone
}

TEST(ConfigSelection, WaveQuantizationIsPenalised) {
  const auto device = h100();
  const long long slots = 132LL * estimated_resident_blocks(kLarge, device);
  ASSERT_GE(slots, 132);
  // A grid of exactly one full wave, and the same grid plus one tile (a nearly empty second wave).
  const int full = static_cast<int>(128 * slots);  // m with slots tiles of 128 rows, n = 128
  const TunedShape tuned{full, 128, 512, kLarge};
  EXPECT_NEAR(shape_distance({full, 128, 512, 4}, tuned, device).waves, 0.0, 1e-12);
  const ShapeDistance spill = shape_distance({full + 1, 128, 512, 4}, tuned, device);
  EXPECT_LT(spill.shape, 0.01);
  EXPECT_GT(spill.waves, 0.6);  // efficiency almost halves
}

TEST(ConfigSelection, MisalignmentPenalisesWideVectors) {
  const auto device = h100();
  EXPECT_EQ(shape_distance({512, 512, 512, 1}, {512, 512, 512, kSmall}, device).alignment, std::log(4.0) / 2);
  EXPECT_EQ(shape_distance({512, 512, 512, 2}, {512, 512, 512, kSmall}, device).alignment, std::log(2.0) / 2);
  EXPECT_EQ(shape_distance({512, 512, 512, 1}, {512, 512, 512, kScalar}, device).alignment, 0.0);
  // Unaligned calls near two tuned shapes take the scalar config although it is a little further away.
  const auto catalog =
      catalog_of({document(h100(), {entry(600, 600, 600, kSmall), entry(640, 640, 640, kScalar)})});
  EXPECT_EQ(select_config(catalog, device, {601, 601, 601, 1}).config, kScalar);
  EXPECT_EQ(select_config(catalog, device, {601, 601, 601, 4}).config, kSmall);
}

TEST(ConfigSelection, AlignedWidthFollowsTheKernelsTest) {
  alignas(16) static float buffer[8];
  EXPECT_EQ(aligned_width(512, 512, buffer, buffer), 4);
  EXPECT_EQ(aligned_width(514, 512, buffer, buffer), 2);
  EXPECT_EQ(aligned_width(513, 512, buffer, buffer), 1);
  EXPECT_EQ(aligned_width(512, 512, buffer + 2, buffer), 2);
  EXPECT_EQ(aligned_width(512, 512, buffer, buffer + 1), 1);
  EXPECT_EQ(aligned_width(512, 512, nullptr, nullptr), 4);
}

TEST(ConfigSelection, SplitKIsKeptWhereTunedAndDroppedWhereTheGridFillsTheGpu) {
  const auto catalog = catalog_of({document(h100(), {entry(512, 512, 512, kSplit)})});
  EXPECT_EQ(select_config(catalog, h100(), {512, 512, 512, 4}).config.split_k, 4);
  EXPECT_EQ(select_config(catalog, h100(), {600, 500, 512, 4}).config.split_k, 4);  // 80 tiles: under a wave
  const Selection big = select_config(catalog, h100(), {8192, 8192, 8192, 4});
  EXPECT_EQ(big.source, ConfigSource::nearest_shape);
  EXPECT_EQ(big.config.split_k, 1);
  EXPECT_NE(big.reason.find("split-K 4 dropped"), std::string::npos) << big.reason;
}

TEST(ConfigSelection, DroppingSplitKDropsItsAtomicReductionToo) {
  KernelConfig atomic = kSplit;
  atomic.split_k_atomic = true;
  const auto catalog = catalog_of({document(h100(), {entry(512, 512, 512, atomic)})});
  EXPECT_TRUE(select_config(catalog, h100(), {512, 512, 512, 4}).config.split_k_atomic);
  const KernelConfig big = select_config(catalog, h100(), {8192, 8192, 8192, 4}).config;
  EXPECT_EQ(big.split_k, 1);
  EXPECT_FALSE(big.split_k_atomic);
}

TEST(ConfigSelection, DeterministicTurnsAtomicSplitKIntoTheWorkspaceReduction) {
  Selection s{kSplit, ConfigSource::exact_shape, "tuned"};
  make_deterministic(s);
  EXPECT_EQ(s.config, kSplit);  // already deterministic: untouched
  EXPECT_EQ(s.reason, "tuned");
  s.config.split_k_atomic = true;
  make_deterministic(s);
  EXPECT_FALSE(s.config.split_k_atomic);
  EXPECT_EQ(s.config.split_k, 4);
  EXPECT_NE(s.reason.find("GEMMTUNE_DETERMINISTIC"), std::string::npos) << s.reason;
}

TEST(ConfigSelection, TiesGoToTheFirstFile) {
  const auto catalog = catalog_of(
      {document(h100(), {entry(512, 512, 512, kSmall)}), document(h100(), {entry(512, 512, 512, kScalar)})});
  EXPECT_EQ(select_config(catalog, h100(), {512, 512, 512, 4}).config, kSmall);
}

}  // namespace
}  // namespace gemmtune
