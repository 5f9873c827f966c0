// LaunchVariants: which candidates share a binary, and the order the tuner measures them in.
#include "search/launch_variants.hpp"

#include <gtest/gtest.h>

namespace gemmtune {
namespace {

KernelConfig config(int block_m, int split_k, int swizzle, bool atomic = false) {
  KernelConfig c;
  c.block_m = block_m;
  c.split_k = split_k;
  c.swizzle = swizzle;
  c.split_k_atomic = atomic;
  return c;
}

TEST(LaunchVariants, OffersTheOtherLaunchChoicesOfMeasuredBinariesFastestFirst) {
  const GemmShape shape{1024, 1024, 1024};
  const std::vector<KernelConfig> candidates = {config(64, 1, 1),      config(64, 2, 1),
                                                config(64, 1, 8),                          // binary 1
                                                config(128, 1, 1),     config(128, 4, 8),  // binary 2
                                                config(64, 2, 1, true)};  // atomic: a binary of its own
  const std::vector<double> prior = {1, 2, 3, 1, 1, 9};
  LaunchVariants variants(candidates, shape, prior);
  EXPECT_FALSE(variants.next()) << "nothing measured yet";
  variants.take(1);  // proposed by the strategy: never offered
  variants.measured(0, 10.0);
  variants.measured(3, 20.0);  // the faster binary's variant first
  EXPECT_EQ(variants.next(), std::optional<std::size_t>(4));
  EXPECT_EQ(variants.next(), std::optional<std::size_t>(2));
  EXPECT_FALSE(variants.next()) << "index 1 was proposed, index 5 is another binary";
  variants.measured(5, 30.0);
  EXPECT_FALSE(variants.next()) << "a binary with one candidate has no variants";
}

TEST(LaunchVariants, FailuresOfferNothing) {
  const std::vector<KernelConfig> candidates = {config(64, 1, 1), config(64, 2, 1)};
  LaunchVariants variants(candidates, GemmShape{1024, 1024, 1024}, {});
  variants.measured(0, 0.0);
  EXPECT_FALSE(variants.next());
}

}  // namespace
}  // namespace gemmtune
