// --sizes parsing: cubes, MxNxK, duplicates, and every kind of bad entry.
#include "core/problem.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

TEST(ParseSizes, LayoutsAndBatches) {
  const auto s = parse_sizes("1024:nt,64x4096x4096:tt,512x512x64:b32,128:b256:tn,128:nn:b1");
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0], (GemmShape{1024, 1024, 1024, Layout::nt, 1}));
  EXPECT_EQ(s[1], (GemmShape{64, 4096, 4096, Layout::tt, 1}));
  EXPECT_EQ(s[2], (GemmShape{512, 512, 64, Layout::nn, 32}));
  EXPECT_EQ(s[3], (GemmShape{128, 128, 128, Layout::tn, 256}));
  EXPECT_EQ(s[4], (GemmShape{128, 128, 128}));
  // Labels read back as the same problem; nn and batch 1 are left out.
  for (const GemmShape& shape : s) EXPECT_EQ(parse_shape(shape.label()), shape) << shape.label();
  EXPECT_EQ(s[3].label(), "128:tn:b256");
  EXPECT_EQ(s[4].label(), "128");
  // Dense operands: the leading dimension is the stored row's length.
  EXPECT_EQ(s[0].lda(), 1024);
  EXPECT_EQ((GemmShape{64, 32, 16, Layout::tt, 1}.lda()), 64);
  EXPECT_EQ((GemmShape{64, 32, 16, Layout::tt, 1}.ldb()), 16);
  EXPECT_EQ((GemmShape{64, 32, 16, Layout::nn, 1}.ldb()), 32);
  EXPECT_DOUBLE_EQ(s[2].flops(), 2.0 * 512 * 512 * 64 * 32);
}

TEST(ParseSizes, ProblemsThroughJson) {
  nlohmann::json j;
  shape_to_json(j, GemmShape{3, 5, 7, Layout::tn, 9});
  EXPECT_EQ(shape_from_json(j), (GemmShape{3, 5, 7, Layout::tn, 9}));
  EXPECT_EQ(shape_from_json(nlohmann::json{{"m", 3}, {"n", 5}, {"k", 7}}), (GemmShape{3, 5, 7}));
  EXPECT_THROW(shape_from_json(nlohmann::json{{"m", 3}, {"n", 5}, {"k", 7}, {"layout", "xy"}}), std::invalid_argument);
  EXPECT_THROW(shape_from_json(nlohmann::json{{"m", 3}, {"n", 5}, {"k", 7}, {"batch", 0}}), std::invalid_argument);
}

// The precision is part of the key: named in any position, the list's default elsewhere; the label
// spells it unless it is fp32, and JSON without it (results schema 2 and older) reads as fp32.
TEST(ParseSizes, Precisions) {
  const auto s = parse_sizes("1024:bf16,64x4096x4096:nt:3xtf32,512:b4:fp16:tt,256,128:fp32", Precision::tf32);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0], (GemmShape{1024, 1024, 1024, Layout::nn, 1, Precision::bf16}));
  EXPECT_EQ(s[1], (GemmShape{64, 4096, 4096, Layout::nt, 1, Precision::tf32x3}));
  EXPECT_EQ(s[2], (GemmShape{512, 512, 512, Layout::tt, 4, Precision::fp16}));
  EXPECT_EQ(s[3], (GemmShape{256, 256, 256, Layout::nn, 1, Precision::tf32}));
  EXPECT_EQ(s[4], (GemmShape{128, 128, 128}));
  EXPECT_EQ(s[1].label(), "64x4096x4096:nt:3xtf32");
  EXPECT_EQ(s[4].label(), "128");
  for (const GemmShape& shape : s) EXPECT_EQ(parse_shape(shape.label()), shape) << shape.label();
  // One problem in two precisions is two problems, and they sort and hash apart.
  EXPECT_EQ(parse_sizes("512:bf16,512:fp16,512:bf16").size(), 2u);
  EXPECT_NE(GemmShapeHash{}(s[0]), GemmShapeHash{}(GemmShape{1024, 1024, 1024}));
  EXPECT_TRUE((GemmShape{1024, 1024, 1024} < s[0]));
  nlohmann::json j;
  shape_to_json(j, s[1]);
  EXPECT_EQ(j["precision"], "3xtf32");
  EXPECT_EQ(shape_from_json(j), s[1]);
  EXPECT_EQ(shape_from_json(nlohmann::json{{"m", 3}, {"n", 5}, {"k", 7}}).precision, Precision::fp32);
  EXPECT_THROW(shape_from_json(nlohmann::json{{"m", 3}, {"n", 5}, {"k", 7}, {"precision", "fp8"}}),
               std::invalid_argument);
  for (const Precision p : kAllPrecisions) EXPECT_EQ(parse_precision(precision_name(p)), p);
  EXPECT_EQ(parse_precision("f32"), std::nullopt);
}

// A 16-bit C is part of the key too: ":c16" on bf16 and fp16 problems, "c" in JSON (absent: FP32 C,
// as in every file from before it existed).
TEST(ParseSizes, SixteenBitC) {
  const auto s = parse_sizes("8x4096x4096:bf16:c16,8x4096x4096:bf16,512:c16:fp16:nt,1024:c16", Precision::bf16);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_TRUE(s[0].c16);
  EXPECT_FALSE(s[1].c16);
  EXPECT_NE(s[0], s[1]);
  EXPECT_NE(GemmShapeHash{}(s[0]), GemmShapeHash{}(s[1]));
  EXPECT_TRUE(s[1] < s[0] || s[0] < s[1]);
  EXPECT_EQ(s[2], (GemmShape{512, 512, 512, Layout::nt, 1, Precision::fp16, true}));
  EXPECT_EQ(s[3], (GemmShape{1024, 1024, 1024, Layout::nn, 1, Precision::bf16, true}));
  EXPECT_EQ(s[0].label(), "8x4096x4096:bf16:c16");
  for (const GemmShape& shape : s) EXPECT_EQ(parse_shape(shape.label()), shape) << shape.label();
  nlohmann::json j;
  shape_to_json(j, s[2]);
  EXPECT_EQ(j["c"], "fp16");
  EXPECT_EQ(shape_from_json(j), s[2]);
  shape_to_json(j, s[1]);
  EXPECT_FALSE(j.contains("c"));
  const nlohmann::json base = {{"m", 3}, {"n", 5}, {"k", 7}, {"precision", "bf16"}};
  for (const auto& [c, c16] : {std::pair<const char*, bool>{"bf16", true}, {"fp32", false}}) {
    nlohmann::json with_c = base;
    with_c["c"] = c;
    EXPECT_EQ(shape_from_json(with_c).c16, c16) << c;
  }
  for (const char* bad : {"fp16", "f32", ""}) {
    nlohmann::json with_c = base;
    with_c["c"] = bad;
    EXPECT_THROW(shape_from_json(with_c), std::invalid_argument) << bad;
  }
  EXPECT_THROW(shape_from_json(nlohmann::json{{"m", 3}, {"n", 5}, {"k", 7}, {"c", "bf16"}}), std::invalid_argument);
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
                      std::make_pair("1x2x3x4", "MxNxK"), std::make_pair("4xx4", "empty dimension"),
                      std::make_pair("512:xy", "neither a layout"), std::make_pair("512:nt:tt", "layout twice"),
                      std::make_pair("512:b0", "zero batch"), std::make_pair("512:b", "empty batch"),
                      std::make_pair("512:b4:b8", "batch twice"), std::make_pair("512:bx", "not a number"),
                      std::make_pair("512:b2000000", "too large"), std::make_pair("4096:b1000", "too large"),
                      std::make_pair("512:", "neither a layout"), std::make_pair("512:fp8", "nor a precision"),
                      std::make_pair("512:bf16:fp16", "precision twice"),
                      std::make_pair("512:c16", "needs bf16 or fp16"), std::make_pair("512:tf32:c16", "not tf32"),
                      std::make_pair("512:bf16:c16:c16", "c16 twice")));

}  // namespace
}  // namespace gemmtune
