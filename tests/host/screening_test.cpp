// The shorter K that long problems' candidates are screened on (search/screening.hpp).
#include "search/screening.hpp"

#include <gtest/gtest.h>

#include "search/device_catalog.hpp"
#include "search/search_space.hpp"

namespace gemmtune {
namespace {

std::vector<KernelConfig> default_candidates(const GemmShape& shape) {
  return enumerate(load_search_space({}), load_device_profile("h100"), &shape).candidates;
}

TEST(ScreeningShape, ShortensOnlyK) {
  const GemmShape shape = parse_shape("8192");
  const std::vector<KernelConfig> candidates = default_candidates(shape);
  ASSERT_FALSE(candidates.empty());
  const GemmShape screen = screening_shape(shape, candidates);
  EXPECT_EQ(screen, (GemmShape{8192, 8192, 1024}));  // A and B: 32 MiB each
  EXPECT_EQ(screening_shape(parse_shape("4096"), default_candidates(parse_shape("4096"))),
            (GemmShape{4096, 4096, 2048}));
  // Every candidate runs the same binary (path) there as at the problem itself.
  for (const KernelConfig& c : candidates)
    ASSERT_EQ(kernel_path_for(c, screen), kernel_path_for(c, shape)) << c.name();
}

TEST(ScreeningShape, KeepsKsDivisibilityLayoutAndBatch) {
  for (const char* label : {"8191", "8190x8194x8193:tn", "4096x4096x65535:nt", "2048x2048x8192:b64", "4095"}) {
    const GemmShape shape = parse_shape(label);
    const GemmShape screen = screening_shape(shape, {});
    EXPECT_LT(screen.k, shape.k) << label;
    EXPECT_GE(screen.k, kScreenMinK) << label;
    EXPECT_GE(4.0 * screen.batch * (double(screen.m) + screen.n) * screen.k, kScreenMinOperandBytes) << label;
    EXPECT_EQ((shape.k - screen.k) % 256, 0) << label;
    EXPECT_EQ(screen.m, shape.m);
    EXPECT_EQ(screen.n, shape.n);
    EXPECT_EQ(screen.layout, shape.layout);
    EXPECT_EQ(screen.batch, shape.batch);
  }
  EXPECT_EQ(screening_shape(parse_shape("2048x2048x8192:b64"), {}).k, kScreenMinK);  // 256 would be kScreenFlops
}

TEST(ScreeningShape, LeavesShortProblemsAndSplitKAlone) {
  for (const char* label : {"2048", "3000", "64x4096x4096", "32768x32768x1024", "512x512x64:b32", "4096x4096x2304"}) {
    const GemmShape shape = parse_shape(label);
    EXPECT_EQ(screening_shape(shape, default_candidates(shape)), shape) << label;
  }
  // Where a candidate splits K (a space or GPU where 8192 does not fill the waves), its best split
  // depends on K.
  const GemmShape shape = parse_shape("8192");
  std::vector<KernelConfig> candidates = default_candidates(shape);
  candidates[0].split_k = 2;
  EXPECT_EQ(screening_shape(shape, candidates), shape);
}

}  // namespace
}  // namespace gemmtune
