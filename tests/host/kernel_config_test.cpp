// KernelConfig: naming, structural rules, JSON round trips and the validation of untrusted JSON.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/gemm_launch.hpp"
#include "core/kernel_config.hpp"
#include "core/tensor_map.hpp"

namespace gemmtune {
namespace {

TEST(KernelConfig, DefaultIsValidAndNamed) {
  const KernelConfig c = default_config();
  EXPECT_FALSE(config_error(c).has_value());
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.name(), "sgemm_64x64x16_t4x4_w4_p0.0_s2_ta_v4_b1_z1_k1");
  EXPECT_EQ(c.name_expression(KernelPath::general), "gemmtune::sgemm<64,64,16,4,4,4,0,0,2,0,1,4,1,0,0,0,0,0,0>");
  EXPECT_EQ(c.name_expression(KernelPath::whole_vectors), "gemmtune::sgemm<64,64,16,4,4,4,0,0,2,0,1,4,1,0,0,0,0,0,1>");
}

TEST(KernelConfig, FmaOrderIsNamedOnlyWhenNotTheDefault) {
  KernelConfig c = default_config();
  c.fma_order = kFmaOrderColumnsSerpentine;
  EXPECT_EQ(c.name(), "sgemm_64x64x16_t4x4_w4_p0.0_s2_ta_v4_b1_f2_z1_k1");
  EXPECT_EQ(c.name_expression(KernelPath::general), "gemmtune::sgemm<64,64,16,4,4,4,0,0,2,0,1,4,1,2,0,0,0,0,0>");
  EXPECT_FALSE(c.same_binary(default_config()));
}

TEST(KernelConfig, CachesWithoutFmaOrderReadAsRowOrder) {
  KernelConfig c = default_config();
  c.fma_order = kFmaOrderRowsSerpentine;
  nlohmann::json j = c;
  EXPECT_EQ(j.at("fma_order"), 1);
  EXPECT_EQ(j.get<KernelConfig>(), c);
  j.erase("fma_order");  // results files written before the parameter existed
  EXPECT_EQ(j.get<KernelConfig>().fma_order, kFmaOrderRows);
}

TEST(KernelConfig, AtomicSplitKIsNamedAfterTheSplit) {
  KernelConfig c = default_config();
  c.split_k = 4;
  c.split_k_atomic = true;
  EXPECT_EQ(c.name(), "sgemm_64x64x16_t4x4_w4_p0.0_s2_ta_v4_b1_z1_k4a");
  EXPECT_EQ(c.name_expression(KernelPath::general), "gemmtune::sgemm<64,64,16,4,4,4,0,0,2,0,1,4,1,0,1,0,0,0,0>");
  EXPECT_FALSE(c.same_binary(default_config()));
  nlohmann::json j = c;
  EXPECT_EQ(j.at("split_k_atomic"), true);
  EXPECT_EQ(j.get<KernelConfig>(), c);
  j.erase("split_k_atomic");  // results files written before the parameter existed
  EXPECT_FALSE(j.get<KernelConfig>().split_k_atomic);
}

TEST(KernelConfig, SharedBytesFollowLayout) {
  KernelConfig c;
  c.block_m = 128, c.block_n = 64, c.block_k = 16, c.pad_a = 4, c.pad_b = 0, c.stages = 3, c.async_copy = true;
  c.transpose_a = true;
  EXPECT_EQ(c.shared_bytes(), 3u * (16 * (128 + 4) + 16 * 64) * 4);
  c.transpose_a = false;
  EXPECT_EQ(c.shared_bytes(), 3u * (128 * (16 + 4) + 16 * 64) * 4);
}

TEST(KernelConfig, JsonRoundTrip) {
  KernelConfig c;
  c.block_m = 128, c.thread_m = 8, c.thread_n = 8, c.stages = 4, c.async_copy = true, c.swizzle = 8, c.split_k = 4;
  ASSERT_FALSE(config_error(c).has_value()) << *config_error(c);
  const nlohmann::json j = c;
  EXPECT_EQ(j.get<KernelConfig>(), c);
}

TEST(KernelConfig, SameBinaryIgnoresLaunchParameters) {
  KernelConfig a, b;
  b.swizzle = 8;
  b.split_k = 4;
  EXPECT_TRUE(a.same_binary(b));
  EXPECT_NE(a, b);
  b.block_k = 32;
  EXPECT_FALSE(a.same_binary(b));
}

struct BadConfigCase {
  const char* field;
  nlohmann::json value;
  const char* message;
};

class KernelConfigRejects : public ::testing::TestWithParam<BadConfigCase> {};

TEST_P(KernelConfigRejects, EveryBadField) {
  nlohmann::json j = default_config();
  j[GetParam().field] = GetParam().value;
  try {
    (void)j.get<KernelConfig>();
    FAIL() << "accepted " << j.dump();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fields, KernelConfigRejects,
    ::testing::Values(BadConfigCase{"block_m", 48, "block_m"}, BadConfigCase{"block_m", "64", "not an integer"},
                      BadConfigCase{"block_n", -64, "block_n"}, BadConfigCase{"block_k", 3, "block_k"},
                      BadConfigCase{"thread_m", 3, "thread_m"}, BadConfigCase{"warp_rows", 3, "warp_rows"},
                      BadConfigCase{"pad_a", 100, "pad_a"}, BadConfigCase{"stages", 3, "async_copy"},
                      BadConfigCase{"stages", 0, "stages"}, BadConfigCase{"vector_width", 8, "vector_width"},
                      BadConfigCase{"swizzle", 3, "swizzle"}, BadConfigCase{"split_k", 0, "split_k"},
                      BadConfigCase{"async_copy", 1, "boolean"}, BadConfigCase{"min_blocks", 1e12, "integer"},
                      BadConfigCase{"thread_n", 16, "block_n"}, BadConfigCase{"fma_order", 3, "fma_order"},
                      BadConfigCase{"fma_order", -1, "fma_order"}, BadConfigCase{"fma_order", true, "integer"},
                      BadConfigCase{"split_k_atomic", 1, "boolean"}));

TEST(KernelConfig, RejectsMissingFieldsAndNonObjects) {
  nlohmann::json j = default_config();
  j.erase("pad_b");
  EXPECT_THROW((void)j.get<KernelConfig>(), std::invalid_argument);
  EXPECT_THROW((void)nlohmann::json::array().get<KernelConfig>(), std::invalid_argument);
}

TEST(KernelConfig, RejectsUnevenLoads) {
  KernelConfig c;
  c.block_m = 16, c.block_n = 256, c.block_k = 4, c.thread_m = 1, c.thread_n = 4, c.warp_rows = 1;
  // 16*256/4 = 1024 threads; the A tile (64 floats) cannot give each thread a float4.
  const auto err = config_error(c);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("A tile"), std::string::npos) << *err;
}

TEST(KernelConfig, LayoutIsNamedCompiledAndRoundTrips) {
  KernelConfig c = default_config();
  c.layout = Layout::tn;
  EXPECT_EQ(c.name(), default_config().name() + "_tn");
  EXPECT_NE(c, default_config());
  EXPECT_FALSE(c.same_binary(default_config()));
  EXPECT_EQ(c.name_expression(KernelPath::general), "gemmtune::sgemm<64,64,16,4,4,4,0,0,2,0,1,4,1,0,0,1,0,0,0>");
  c.layout = Layout::nt;
  EXPECT_EQ(c.name_expression(KernelPath::general), "gemmtune::sgemm<64,64,16,4,4,4,0,0,2,0,1,4,1,0,0,0,1,0,0>");
  const KernelConfig back = nlohmann::json(c).get<KernelConfig>();
  EXPECT_EQ(back, c);
  nlohmann::json old = default_config();  // written before layouts existed: nn
  old.erase("layout");
  EXPECT_EQ(old.get<KernelConfig>().layout, Layout::nn);
  old["layout"] = "sideways";
  EXPECT_THROW(old.get<KernelConfig>(), std::invalid_argument);
}

// The skinny families: their own names, expressions, thread counts and shared memory, JSON that
// names the family (sgemm entries stay as they were), and fields they do not use kept at defaults.
// A stream kernel of 4 columns a lane, 8 lanes along K, 2 warps along N (block_n 32), unrolled
// twice with prefetch, in layout nt.
KernelConfig nt_stream(Precision precision, int block_m, int k_groups, int split_k) {
  KernelConfig stream;
  stream.family = KernelFamily::skinny_stream;
  stream.precision = precision;
  stream.block_m = block_m, stream.thread_n = 4, stream.lanes_k = 8, stream.warps_n = 2;
  stream.k_groups = k_groups, stream.unroll = 2, stream.prefetch = true, stream.split_k = split_k;
  stream.layout = Layout::nt;
  stream.block_n = 2 * (32 / 8) * 4;
  return stream;
}

TEST(KernelConfig, SkinnyFamiliesAreNamedSizedAndRoundTrip) {
  const KernelConfig stream = nt_stream(Precision::fp32, 8, 4, 4);
  EXPECT_FALSE(config_error(stream).has_value()) << *config_error(stream);
  EXPECT_EQ(stream.name(), "skinny_s8x32_t4_l8_w2x4_u2p_k4_nt");
  EXPECT_EQ(stream.name_expression(KernelPath::whole_vectors), "gemmtune::skinny::stream<0,1,8,4,8,2,4,2,1,1,0,0>");
  EXPECT_EQ(stream.threads(), 256);
  EXPECT_EQ(stream.shared_bytes(), 4u * 8 * 32 * 4);  // the four warps' sums, static
  EXPECT_EQ(stream.dynamic_shared_bytes(), 0u);
  const nlohmann::json j = stream;
  EXPECT_EQ(j["family"], "skinny_stream");
  EXPECT_EQ(j.get<KernelConfig>(), stream);
  EXPECT_FALSE(nlohmann::json(default_config()).contains("family"));

  KernelConfig tiled;
  tiled.family = KernelFamily::skinny_tiled;
  tiled.block_m = 32, tiled.block_n = 128, tiled.block_k = 16, tiled.thread_m = 8, tiled.thread_n = 4;
  tiled.stages = 3, tiled.k_groups = 1, tiled.min_blocks = 4, tiled.split_k = 8;
  EXPECT_FALSE(config_error(tiled).has_value()) << *config_error(tiled);
  EXPECT_EQ(tiled.name(), "skinny_32x128x16_t8x4_s3_g1_b4_k8");
  EXPECT_EQ(tiled.name_expression(KernelPath::general), "gemmtune::skinny::tiled<0,0,32,128,16,8,4,3,1,4,0>");
  EXPECT_EQ(tiled.threads(), 128);
  EXPECT_EQ(tiled.dynamic_shared_bytes(), 3u * (32 * 20 + 16 * 132) * 4);
  EXPECT_EQ(nlohmann::json(tiled).get<KernelConfig>(), tiled);
  EXPECT_FALSE(stream.same_binary(tiled));

  KernelConfig bad = stream;
  bad.fma_order = 1;  // an sgemm field
  EXPECT_NE(config_error(bad).value_or("").find("fma_order"), std::string::npos);
  bad = stream;
  bad.block_n = 64;  // not warps_n * 32 / lanes_k * thread_n
  EXPECT_NE(config_error(bad).value_or("").find("block_n"), std::string::npos);
  bad = stream;
  bad.layout = Layout::nn, bad.thread_n = 2;  // B's rows along n are read as float4
  EXPECT_NE(config_error(bad).value_or("").find("thread_n"), std::string::npos);
  bad = tiled;
  bad.block_m = 64;
  EXPECT_TRUE(config_error(bad).has_value());
  nlohmann::json unknown = tiled;
  unknown["family"] = "hopper";
  EXPECT_THROW(unknown.get<KernelConfig>(), std::invalid_argument);
  nlohmann::json sgemm_with_skinny_field = default_config();
  sgemm_with_skinny_field["lanes_k"] = 4;
  EXPECT_THROW(sgemm_with_skinny_field.get<KernelConfig>(), std::invalid_argument);
}

// The stream kernel with 16-bit operands: the precision in its name, its expression's ELEM and its
// JSON (FP32 entries carry none, as before); B's rows along n need whole 8-column vectors; no
// 3xtf32 or tf32 operands, and the tiled kernel stays FP32.
TEST(KernelConfig, SkinnyStreamTakesSixteenBitOperands) {
  const KernelConfig stream = nt_stream(Precision::bf16, 4, 2, 2);
  EXPECT_FALSE(config_error(stream).has_value()) << *config_error(stream);
  EXPECT_EQ(stream.name(), "skinny_bf16_s4x32_t4_l8_w2x2_u2p_k2_nt");
  EXPECT_EQ(stream.name_expression(KernelPath::whole_vectors), "gemmtune::skinny::stream<0,1,4,4,8,2,2,2,1,1,1,0>");
  const nlohmann::json j = stream;
  EXPECT_EQ(j["precision"], "bf16");
  EXPECT_EQ(j.get<KernelConfig>(), stream);
  KernelConfig fp32 = stream;
  fp32.precision = Precision::fp32;
  EXPECT_FALSE(nlohmann::json(fp32).contains("precision"));
  EXPECT_FALSE(stream.same_binary(fp32));
  KernelConfig half = stream;
  half.precision = Precision::fp16;
  EXPECT_EQ(half.name_expression(KernelPath::general), "gemmtune::skinny::stream<0,1,4,4,8,2,2,2,1,0,2,0>");

  KernelConfig c16 = stream;  // C in bf16: another binary, named and stored
  c16.c16 = true;
  EXPECT_EQ(config_error(c16), std::nullopt);
  EXPECT_EQ(c16.name(), "skinny_bf16_s4x32_t4_l8_w2x2_u2p_k2_c16_nt");
  EXPECT_EQ(c16.name_expression(KernelPath::whole_vectors), "gemmtune::skinny::stream<0,1,4,4,8,2,2,2,1,1,1,1>");
  EXPECT_FALSE(c16.same_binary(stream));
  EXPECT_EQ(nlohmann::json(c16)["c16"], true);
  EXPECT_FALSE(nlohmann::json(stream).contains("c16"));
  EXPECT_EQ(nlohmann::json(c16).get<KernelConfig>(), c16);
  c16.precision = Precision::fp32;  // FP32 operands have no 16-bit C
  EXPECT_NE(config_error(c16).value_or("").find("c16"), std::string::npos);

  KernelConfig bad = stream;
  bad.layout = Layout::nn;  // B's rows along n: 16-byte vectors of 8 halves, thread_n 4 is half of one
  EXPECT_NE(config_error(bad).value_or("").find("thread_n"), std::string::npos);
  bad.thread_n = 8, bad.block_n = 2 * 4 * 8;
  EXPECT_FALSE(config_error(bad).has_value()) << *config_error(bad);
  bad = stream;
  bad.precision = Precision::tf32;
  EXPECT_NE(config_error(bad).value_or("").find("precision"), std::string::npos);
  KernelConfig tiled;
  tiled.family = KernelFamily::skinny_tiled;
  tiled.block_m = 32, tiled.block_n = 128, tiled.block_k = 16, tiled.thread_m = 8, tiled.thread_n = 4;
  tiled.precision = Precision::bf16;
  EXPECT_NE(config_error(tiled).value_or("").find("precision"), std::string::npos);
}

KernelConfig wgmma(Precision precision, int bm, int bn, int consumers, int stages) {
  KernelConfig c;
  c.family = KernelFamily::wgmma;
  c.precision = precision;
  c.layout = Layout::nt;
  c.block_m = bm, c.block_n = bn, c.block_k = operand_bytes(precision) == 4 ? 32 : 64;
  c.consumers = consumers, c.stages = stages, c.persistent = true;
  return c;
}

TEST(KernelConfig, WgmmaIsNamedSizedAndRoundTrips) {
  KernelConfig c = wgmma(Precision::bf16, 128, 256, 2, 4);
  ASSERT_EQ(config_error(c), std::nullopt) << *config_error(c);
  EXPECT_EQ(c.name(), "wgmma_bf16_128x256x64_c2_s4_p1_nt");
  EXPECT_EQ(c.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm<0,128,256,4,2,1,0,1,0>");
  EXPECT_EQ(c.threads(), 384);
  EXPECT_EQ(c.dynamic_shared_bytes(), 4u * 384 * 128 + 4 * 16 + 1024);  // stages, barriers, alignment slack
  const nlohmann::json j = c;
  EXPECT_EQ(j["family"], "wgmma");
  EXPECT_EQ(j.get<KernelConfig>(), c);
  KernelConfig other = c;
  other.persistent = false, other.swizzle = 8;  // launch-time: the same binary
  EXPECT_TRUE(c.same_binary(other));
  EXPECT_EQ(other.name(), "wgmma_bf16_128x256x64_c2_s4_p0_z8_nt");
  other.cluster = 2;
  EXPECT_FALSE(c.same_binary(other));
  EXPECT_EQ(other.name(), "wgmma_bf16_128x256x64_c2_s4_p0_x2_z8_nt");
  EXPECT_EQ(nlohmann::json(other).get<KernelConfig>(), other);
  EXPECT_FALSE(nlohmann::json(c).contains("cluster_k"));  // results from before it read the same
  KernelConfig pair = wgmma(Precision::bf16, 64, 64, 1, 12);  // K split in a cluster pair
  pair.cluster_k = 2;
  ASSERT_EQ(config_error(pair), std::nullopt) << *config_error(pair);
  EXPECT_EQ(pair.name(), "wgmma_bf16_64x64x64_c1_s12_p1_xk2_nt");
  EXPECT_EQ(pair.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm<0,64,64,12,1,1,0,1,0,0,2>");
  // The buffer CTA 1's sums land in, and its two barriers.
  EXPECT_EQ(pair.dynamic_shared_bytes(), 12u * 128 * 128 + 12 * 16 + 1024 + 16 + 64 * 64 * 4);
  EXPECT_FALSE(pair.same_binary(wgmma(Precision::bf16, 64, 64, 1, 12)));
  EXPECT_EQ(nlohmann::json(pair)["cluster_k"], 2);
  EXPECT_EQ(nlohmann::json(pair).get<KernelConfig>(), pair);
  const KernelConfig tf32 = wgmma(Precision::tf32, 256, 128, 2, 3);
  EXPECT_EQ(config_error(tf32), std::nullopt);
  EXPECT_EQ(tf32.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm<1,256,128,3,2,1,0,1,0>");
  EXPECT_EQ(wgmma(Precision::fp16, 128, 128, 1, 5).name_expression(KernelPath::whole_vectors),
            "gemmtune::wgmma_gemm<2,128,128,5,1,1,0,1,0>");
  KernelConfig c16 = c;
  c16.c16 = true;
  EXPECT_EQ(config_error(c16), std::nullopt);
  EXPECT_EQ(c16.name(), "wgmma_bf16_128x256x64_c2_s4_p1_c16_nt");
  EXPECT_EQ(c16.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm<0,128,256,4,2,1,0,1,1>");
  KernelConfig tf32_c16 = tf32;
  tf32_c16.c16 = true;
  EXPECT_NE(config_error(tf32_c16).value_or("").find("c16"), std::string::npos);
}

TEST(KernelConfig, WgmmaRules) {
  const auto rejects = [](KernelConfig c, const char* field) {
    const auto err = config_error(c);
    EXPECT_NE(err.value_or("").find(field), std::string::npos) << c.name() << ": " << err.value_or("accepted");
  };
  KernelConfig c = wgmma(Precision::bf16, 128, 256, 2, 4);
  KernelConfig bad = c;
  bad.layout = Layout::tn;  // 16-bit operands MN-major: the transpose immediates
  EXPECT_EQ(config_error(bad), std::nullopt);
  EXPECT_EQ(bad.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm<0,128,256,4,2,1,1,0,0>");
  bad = c, bad.precision = Precision::fp32;
  rejects(bad, "precision");
  KernelConfig split3 = wgmma(Precision::tf32x3, 128, 128, 2, 4);
  EXPECT_EQ(config_error(split3), std::nullopt);
  EXPECT_EQ(split3.name(), "wgmma_3xtf32_128x128x32_c2_s4_p1_nt");
  EXPECT_EQ(split3.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm_tf32x<3,128,128,4,2,0,1>");
  EXPECT_EQ(split3.dynamic_shared_bytes(), 4u * (128 + 256) * 128 + 4 * 24 + 1024);
  // 3xtf32 serves every layout; B stored k x n (nn, tn) lands in a staging tile of its own.
  for (const Layout layout : {Layout::nn, Layout::tn, Layout::tt}) {
    KernelConfig other = split3;
    other.layout = layout, other.stages = 3;
    EXPECT_EQ(config_error(other), std::nullopt) << other.name();
    const bool staged = !op_b_transposed(layout);
    EXPECT_EQ(other.dynamic_shared_bytes(), 3u * (128 + (staged ? 384 : 256)) * 128 + 3 * 24 + 1024) << other.name();
    EXPECT_EQ(other.name_expression(KernelPath::whole_vectors),
              fmt::format("gemmtune::wgmma_gemm_tf32x<3,128,128,3,2,{},{}>", int(op_a_transposed(layout)),
                          int(op_b_transposed(layout))));
  }
  // tf32 outside nt: the same kernel with one pass (tf32 wgmma reads K-major operands only), its rules.
  KernelConfig tf32_tn = split3;
  tf32_tn.precision = Precision::tf32, tf32_tn.layout = Layout::tn, tf32_tn.stages = 3;
  EXPECT_EQ(config_error(tf32_tn), std::nullopt);
  EXPECT_EQ(tf32_tn.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm_tf32x<1,128,128,3,2,1,0>");
  EXPECT_EQ(tf32_tn.dynamic_shared_bytes(), 3u * (128 + 256) * 128 + 3 * 24 + 1024);  // B staged, no small parts
  bad = tf32_tn, bad.block_m = 256;
  rejects(bad, "block_m 128");
  bad = split3, bad.block_n = 256;  // two accumulator sets of 128
  rejects(bad, "block_n");
  bad = split3, bad.block_m = 192, bad.consumers = 3;  // spills
  rejects(bad, "consumers");
  bad = c, bad.block_k = 32;
  rejects(bad, "block_k");
  bad = c, bad.consumers = 1;  // 256 accumulators a thread
  rejects(bad, "accumulators");
  bad = c, bad.block_m = 192;  // 96 rows a consumer
  rejects(bad, "block_m");
  bad = c, bad.block_n = 96;
  rejects(bad, "block_n");
  bad = c, bad.cluster = 4;
  rejects(bad, "cluster");
  bad = c, bad.cluster_k = 4;
  rejects(bad, "cluster_k 4");
  bad = c, bad.cluster_k = 2, bad.cluster = 2;  // one pair a cluster
  rejects(bad, "along N or along K");
  bad = c, bad.block_n = 128, bad.cluster_k = 2, bad.pingpong = true;
  rejects(bad, "pingpong");
  KernelConfig split = c;  // split-K: launch-time, the same binary; named when on
  split.split_k = 4;
  EXPECT_EQ(config_error(split), std::nullopt);
  EXPECT_TRUE(split.same_binary(c));
  EXPECT_EQ(split.name(), "wgmma_bf16_128x256x64_c2_s4_p1_k4_nt");
  EXPECT_EQ(nlohmann::json(split).get<KernelConfig>(), split);
  bad = c, bad.split_k = 65;
  rejects(bad, "split_k");
  bad = c, bad.warp_m = 32;  // the mma family's
  rejects(bad, "warp_m");
  bad = c, bad.min_blocks = 2;
  rejects(bad, "min_blocks");
  KernelConfig mma_with_consumers;
  mma_with_consumers.family = KernelFamily::mma, mma_with_consumers.precision = Precision::bf16;
  mma_with_consumers.block_k = 32, mma_with_consumers.consumers = 2;
  rejects(mma_with_consumers, "consumers");
}

// tf32 outside nt with pretranspose: the nt kernel (any of its tiles) on K-major copies that the
// launch makes in the workspace, named _pt; nowhere else.
TEST(KernelConfig, WgmmaPretransposeRunsTheNtKernelOnCopies) {
  KernelConfig c = wgmma(Precision::tf32, 128, 256, 2, 4);
  c.layout = Layout::nn, c.pretranspose = true;
  ASSERT_EQ(config_error(c), std::nullopt) << *config_error(c);
  EXPECT_FALSE(wgmma_a_in_registers(c));
  EXPECT_EQ(c.name(), "wgmma_tf32_128x256x32_c2_s4_p1_pt");
  EXPECT_EQ(c.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm<1,128,256,4,2,1,0,1,0>");
  EXPECT_EQ(c.dynamic_shared_bytes(), 4u * 384 * 128 + 4 * 16 + 1024);  // the nt kernel's ring
  EXPECT_EQ(nlohmann::json(c).get<KernelConfig>(), c);
  EXPECT_FALSE(nlohmann::json(wgmma(Precision::tf32, 128, 256, 2, 4)).contains("pretranspose"));  // entries as before
  KernelConfig plain = c;
  plain.pretranspose = false;
  EXPECT_FALSE(c.same_binary(plain));
  EXPECT_TRUE(wgmma_a_in_registers(plain));
  // Which operands are copied: the MN-major ones, A stored k x m and B stored k x n.
  const struct {
    Layout layout;
    bool a, b;
  } copied[] = {{Layout::nn, false, true}, {Layout::tn, true, true}, {Layout::tt, true, false}};
  for (const auto& expect : copied) {
    KernelConfig l = c;
    l.layout = expect.layout;
    EXPECT_EQ(config_error(l), std::nullopt) << l.name();
    EXPECT_EQ(pretransposes_a(l), expect.a) << l.name();
    EXPECT_EQ(pretransposes_b(l), expect.b) << l.name();
  }
  KernelConfig nt = c;
  nt.layout = Layout::nt;  // nothing to copy
  EXPECT_NE(config_error(nt).value_or("").find("pretranspose"), std::string::npos);
  KernelConfig bf16 = wgmma(Precision::bf16, 128, 256, 2, 4);
  bf16.layout = Layout::nn, bf16.pretranspose = true;  // the transpose immediates read it as stored
  EXPECT_NE(config_error(bf16).value_or("").find("pretranspose"), std::string::npos);
}

// 3xtf32 outside nt with pretranspose: its own nt kernel (A's fragments in registers, B split by the
// splitters) on the K-major copies, so B needs no staging tile in shared memory; the A-in-registers
// kernel's rules still hold.
TEST(KernelConfig, ThreeTf32PretransposeRunsItsNtKernelOnCopies) {
  KernelConfig c = wgmma(Precision::tf32x3, 128, 128, 2, 4);
  c.layout = Layout::nn, c.pretranspose = true;
  ASSERT_EQ(config_error(c), std::nullopt) << *config_error(c);
  EXPECT_TRUE(wgmma_a_in_registers(c));
  EXPECT_EQ(c.name(), "wgmma_3xtf32_128x128x32_c2_s4_p1_pt");
  KernelConfig nt = c;
  nt.layout = Layout::nt, nt.pretranspose = false;
  EXPECT_EQ(c.name_expression(KernelPath::whole_vectors), nt.name_expression(KernelPath::whole_vectors));
  EXPECT_EQ(c.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm_tf32x<3,128,128,4,2,0,1>");
  EXPECT_EQ(c.dynamic_shared_bytes(), nt.dynamic_shared_bytes());  // B and its small parts, no staging tile
  KernelConfig plain = c;
  plain.pretranspose = false;
  EXPECT_GT(plain.dynamic_shared_bytes(), c.dynamic_shared_bytes());
  EXPECT_FALSE(c.same_binary(plain));
  EXPECT_EQ(nlohmann::json(c).get<KernelConfig>(), c);
  EXPECT_TRUE(pretransposes_b(c));
  EXPECT_FALSE(pretransposes_a(c));
  KernelConfig wide = c;
  wide.block_n = 256;  // the A-in-registers kernel's rule
  EXPECT_NE(config_error(wide), std::nullopt);
  KernelConfig clustered = c;
  clustered.cluster = 2;
  EXPECT_NE(config_error(clustered), std::nullopt);
}

// Pingpong: the consumers take whole tiles in turn, so a consumer's accumulators cover the tile.
TEST(KernelConfig, WgmmaPingpongGivesEachConsumerWholeTiles) {
  KernelConfig c = wgmma(Precision::bf16, 128, 128, 2, 5);
  c.pingpong = true;
  ASSERT_EQ(config_error(c), std::nullopt) << *config_error(c);
  EXPECT_EQ(wgmma_consumer_rows(c), 128);
  EXPECT_EQ(c.name(), "wgmma_bf16_128x128x64_c2pp_s5_p1_nt");
  EXPECT_EQ(c.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm<0,128,128,5,2,1,0,1,0,1>");
  EXPECT_EQ(c.dynamic_shared_bytes(), 5u * 256 * 128 + 5 * 16 + 1024);
  EXPECT_EQ(nlohmann::json(c).get<KernelConfig>(), c);
  EXPECT_FALSE(nlohmann::json(wgmma(Precision::bf16, 128, 128, 2, 5)).contains("pingpong"));
  KernelConfig shared = c;
  shared.pingpong = false;  // 64 rows a consumer
  EXPECT_EQ(wgmma_consumer_rows(shared), 64);
  EXPECT_FALSE(c.same_binary(shared));
  EXPECT_EQ(shared.name_expression(KernelPath::whole_vectors), "gemmtune::wgmma_gemm<0,128,128,5,2,1,0,1,0>");
  KernelConfig narrow = c;
  narrow.block_m = 64;  // 64 rows each: pingpong only (shared, 32 rows a consumer)
  EXPECT_EQ(config_error(narrow), std::nullopt);
  narrow.pingpong = false;
  EXPECT_NE(config_error(narrow).value_or("").find("block_m"), std::string::npos);
  KernelConfig wide = c;
  wide.block_n = 256;  // 256 accumulators a thread
  EXPECT_NE(config_error(wide).value_or("").find("accumulators"), std::string::npos);
  KernelConfig alone = c;
  alone.consumers = 1;
  EXPECT_NE(config_error(alone).value_or("").find("pingpong"), std::string::npos);
  // A pair of CTAs splits an MN-major A (stored k x m) in whole 64-row boxes: 128 rows at least.
  KernelConfig pair = c;
  pair.block_m = 64, pair.cluster = 2, pair.layout = Layout::tn;
  EXPECT_NE(config_error(pair).value_or("").find("cluster 2"), std::string::npos);
  pair.layout = Layout::nn;  // A stored m x k: boxes of any 8 rows
  EXPECT_EQ(config_error(pair), std::nullopt);
  pair.block_m = 128, pair.layout = Layout::tt;
  EXPECT_EQ(config_error(pair), std::nullopt);
  KernelConfig registers = wgmma(Precision::tf32x3, 128, 128, 2, 3);
  registers.pingpong = true;
  EXPECT_NE(config_error(registers).value_or("").find("pingpong"), std::string::npos);
}

// The copies' room in the workspace: each copied operand's rows of K padded to whole 16-byte
// vectors, for every entry of one launch (A's first).
TEST(KernelConfig, WgmmaPretransposeWorkspaceHoldsTheCopies) {
  KernelConfig c = wgmma(Precision::tf32, 128, 256, 2, 4);
  EXPECT_EQ(workspace_bytes(c, 100, 30, 7, 3), 0u);  // nt, no split: nothing
  c.pretranspose = true;
  c.layout = Layout::nn;  // B: 30 rows of 8
  EXPECT_EQ(workspace_bytes(c, 100, 30, 7, 3), 3u * 30 * 8 * sizeof(float));
  c.layout = Layout::tt;  // A: 100 rows of 8
  EXPECT_EQ(workspace_bytes(c, 100, 30, 7, 3), 3u * 100 * 8 * sizeof(float));
  c.layout = Layout::tn;  // both
  const PretransposeLayout both = pretranspose_layout(c, 100, 30, 7, 3);
  EXPECT_EQ(both.ld, 8);
  EXPECT_EQ(both.a_floats, 3u * 100 * 8);
  EXPECT_EQ(both.b_floats, 3u * 30 * 8);
  EXPECT_EQ(workspace_bytes(c, 100, 30, 7, 3), (both.a_floats + both.b_floats) * sizeof(float));
  EXPECT_EQ(pretranspose_layout(c, 100, 30, 8, 1).ld, 8);  // already whole vectors
  c.split_k = 4;  // tf32's slices add into C: still only the copies
  EXPECT_EQ(workspace_bytes(c, 100, 30, 7, 1), (100u + 30) * 8 * sizeof(float));
  // One launch's entries at most: larger batches reuse it launch after launch.
  EXPECT_EQ(workspace_bytes(c, 4, 4, 4, 100000), std::size_t(kMaxBatchPerLaunch) * 8 * 4 * sizeof(float));
}

// The mma family runs where its precision has tensor cores: fp16 from sm_75 (the T4), the others
// from sm_80.
TEST(KernelConfig, MmaRunsWhereItsPrecisionHasTensorCores) {
  KernelConfig c;
  c.family = KernelFamily::mma;
  c.block_k = 32;
  for (const Precision p : {Precision::tf32x3, Precision::tf32, Precision::bf16, Precision::fp16}) {
    c.precision = p;
    const int needed = p == Precision::fp16 ? 75 : 80;
    EXPECT_EQ(min_compute_capability(c), needed) << precision_name(p);
    EXPECT_TRUE(runs_on(c, needed)) << precision_name(p);
    EXPECT_TRUE(runs_on(c, 90)) << precision_name(p);
    EXPECT_EQ(runs_on(c, 75), p == Precision::fp16) << precision_name(p);
  }
}

TEST(KernelConfig, WgmmaRunsOnComputeCapability90Only) {
  const KernelConfig c = wgmma(Precision::bf16, 128, 128, 1, 4);
  EXPECT_EQ(min_compute_capability(c), 90);
  EXPECT_TRUE(runs_on(c, 90));
  for (const int cc : {75, 80, 86, 89, 100, 120}) EXPECT_FALSE(runs_on(c, cc)) << cc;
  EXPECT_TRUE(runs_on(default_config(), 100));
  EXPECT_EQ(compile_arch(KernelFamily::wgmma, "sm_90"), "sm_90a");
  EXPECT_EQ(compile_arch(KernelFamily::wgmma, "sm_90a"), "sm_90a");
  EXPECT_EQ(compile_arch(KernelFamily::mma, "sm_90"), "sm_90");
  for (const char* arch : {"sm_80", "sm_89", "sm_100"}) {
    try {
      compile_arch(KernelFamily::wgmma, arch);
      ADD_FAILURE() << arch << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("sm_90a"), std::string::npos) << e.what();
    }
  }
}

// The tensor-map arguments the wgmma launch encodes: the stored rows' elements innermost (K, or M
// or N for an MN-major operand), rows, batch entries; 16-byte rule.
TEST(TensorMap, OperandShapes) {
  alignas(16) static char base[16];
  std::string why;
  auto s = operand_map_shape(Precision::bf16, base, 300, 200, 208, 1, 0, 128, &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(s->dims[0], 200u);
  EXPECT_EQ(s->dims[1], 300u);
  EXPECT_EQ(s->dims[2], 1u);
  EXPECT_EQ(s->strides[0], 416u);
  EXPECT_FALSE(s->batched);
  EXPECT_EQ(s->box[0], 64u);
  EXPECT_EQ(s->box[1], 128u);
  s = operand_map_shape(Precision::tf32, base, 64, 9, 12, 5, 64 * 12, 64, &why);
  ASSERT_TRUE(s) << why;
  EXPECT_TRUE(s->batched);
  EXPECT_EQ(s->dims[2], 5u);
  EXPECT_EQ(s->strides[0], 48u);
  EXPECT_EQ(s->strides[1], 64u * 12 * 4);
  EXPECT_EQ(s->box[0], 32u);
  s = operand_map_shape(Precision::fp16, base, 64, 64, 64, 7, 0, 64, &why);  // a shared operand
  ASSERT_TRUE(s) << why;
  EXPECT_FALSE(s->batched);
  EXPECT_EQ(s->dims[2], 1u);
  EXPECT_FALSE(operand_map_shape(Precision::bf16, base, 64, 60, 60, 1, 0, 64, &why));  // 120-byte rows
  EXPECT_NE(why.find("16"), std::string::npos);
  EXPECT_FALSE(operand_map_shape(Precision::bf16, base + 8, 64, 64, 64, 1, 0, 64));
  EXPECT_FALSE(operand_map_shape(Precision::bf16, base, 64, 64, 64, 3, 64 * 64 + 4, 64));  // 8-byte stride step
  EXPECT_FALSE(operand_map_shape(Precision::bf16, base, 64, 0, 64, 1, 0, 64));
  // MN-major 3xtf32 A of a 100 x 70 op(A), stored 70 (k) rows of 100 (ld 104): boxes of 32 x 32.
  s = operand_map_shape(Precision::tf32x3, base, 70, 100, 104, 1, 0, 32, &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(s->dims[0], 100u);
  EXPECT_EQ(s->dims[1], 70u);
  EXPECT_EQ(s->strides[0], 416u);
  EXPECT_EQ(s->box[0], 32u);
  EXPECT_EQ(s->box[1], 32u);
  EXPECT_FALSE(operand_map_shape(Precision::tf32x3, base, 70, 100, 99, 1, 0, 32));  // ld below the width
}

}  // namespace
}  // namespace gemmtune
