// --sizes parsing: cubes, MxNxK, duplicates, and every kind of bad entry.
#include "search/problem.hpp"

#include <gtest/gtest.h>

namespace gemmtune {
namespace {

TEST(ParseSizes, CubesAndTriples) {
  const auto s = parse_sizes("512, 64x4096x4096,1024X8X16");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], (GemmShape{512, 512, 512}));
  EXPECT_EQ(s[1], (GemmShape{64, 4096, 4096}));
  EXPECT_EQ(s[2], (GemmShape{1024, 8, 16}));
  EXPECT_EQ(s[0].label(), "512");
  EXPECT_EQ(s[1].label(), "64x4096x4096");
}

TEST(ParseSizes, DuplicatesCollapse) {
  EXPECT_EQ(parse_sizes("512,512,512x512x512").size(), 1u);
}

class BadSize : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(BadSize, NamesTheProblem) {
  try {
    parse_sizes(GetParam().first);
    FAIL() << "accepted " << GetParam().first;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().second), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Entries, BadSize,
    ::testing::Values(std::make_pair("0", "zero"), std::make_pair("-5", "negative"),
                      std::make_pair("abc", "not a number"), std::make_pair("12.5", "not a number"),
                      std::make_pair("99999999999", "too large"), std::make_pair("70000", "too large"),
                      std::make_pair("", "empty"), std::make_pair("512,,1024", "empty"),
                      std::make_pair("4x4", "MxNxK"), std::make_pair("4x4x0", "zero"),
                      std::make_pair("1x2x3x4", "MxNxK"), std::make_pair("4xx4", "empty dimension")));

}  // namespace
}  // namespace gemmtune
