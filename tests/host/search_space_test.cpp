// Search-space parsing and enumeration: counts add up, each constraint removes what it should,
// and bad files are refused with a message naming the problem.
#include "search/search_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>

#include "search/device_catalog.hpp"

namespace gemmtune {
namespace {

SearchSpace tiny_space(const std::string& constraints_json) {
  return parse_search_space(nlohmann::json::parse(R"({"parameters": {
      "block_m": [32, 64, 128], "block_n": [64, 128], "block_k": [8, 16], "thread_m": [4, 8], "thread_n": [4, 8],
      "stages": [1, 2, 3], "async_copy": [false, true], "swizzle": [1, 4], "split_k": [1, 4],
      "split_k_atomic": [false, true]},
      "constraints": )" + constraints_json + "}"),
                            "test");
}

// The built-in spaces of one kernel family (and, where given, one precision).
std::vector<SearchSpace> built_in_spaces(KernelFamily family, std::optional<Precision> precision = std::nullopt) {
  std::vector<SearchSpace> spaces;
  for (SearchSpace& s : load_search_spaces({}))
    if (s.family == family && (!precision || s.precision == *precision)) spaces.push_back(std::move(s));
  return spaces;
}

TEST(SearchSpace, CountsAddUp) {
  const SearchSpace space = load_search_space({});
  const DeviceProfile h100 = load_device_profile("h100");
  const GemmShape shape{1024, 1024, 1024};
  const Enumeration e = enumerate(space, h100, &shape);
  std::size_t removed = 0;
  for (const auto& [name, count] : e.removed) removed += count;
  // B's padding and n-major layout stay at their defaults for a B not stored transposed.
  EXPECT_EQ(e.total * space.values.at("pad_b").size() * space.values.at("transpose_b").size(),
            space.cross_product_size());
  const GemmShape b_transposed{1024, 1024, 1024, Layout::nt, 1};
  EXPECT_EQ(enumerate(space, h100, &b_transposed).total, space.cross_product_size());
  EXPECT_EQ(e.candidates.size() + removed, e.total);
  EXPECT_GT(e.candidates.size(), 50u);
  for (const auto& c : e.candidates) EXPECT_FALSE(config_error(c).has_value()) << c.name();
}

TEST(SearchSpace, WithoutShapeOneEntryPerBinary) {
  const SearchSpace space = load_search_space({});
  const Enumeration e = enumerate(space, load_device_profile("h100"), nullptr);
  for (const auto& c : e.candidates) {
    EXPECT_EQ(c.swizzle, 1);
    EXPECT_EQ(c.split_k, 1);
  }
}

// Strategies tell configurations apart by their parameter values: every distinct candidate of the
// default space must have distinct values, and each value must be the one the space lists.
TEST(SearchSpace, ParameterValuesIdentifyEveryCandidate) {
  const SearchSpace space = load_search_space({});
  const GemmShape shape{1024, 1024, 1024};
  const Enumeration e = enumerate(space, load_device_profile("h100"), &shape);
  ASSERT_EQ(parameter_names().size(), space.values.size());
  std::set<std::vector<int>> seen;
  for (const auto& c : e.candidates) {
    const std::vector<int> values = parameter_values(c);
    ASSERT_EQ(values.size(), parameter_names().size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto& allowed = space.values.at(parameter_names()[i]);
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), values[i]), allowed.end()) << parameter_names()[i];
    }
    EXPECT_TRUE(seen.insert(values).second)
        << c.name() << " shares its parameter values with another candidate";
  }
  EXPECT_EQ(seen.size(), e.candidates.size());
}

TEST(SearchSpace, ArchitectureRemovesAsyncCopyOnTuring) {
  const SearchSpace space = tiny_space(R"({"architecture": {}})");
  const GemmShape shape{512, 512, 512};
  const Enumeration t4 = enumerate(space, load_device_profile("t4"), &shape);
  const Enumeration a100 = enumerate(space, load_device_profile("a100"), &shape);
  EXPECT_GT(t4.removed.at("architecture"), 0u);
  EXPECT_EQ(a100.removed.count("architecture"), 0u);
  for (const auto& c : t4.candidates) EXPECT_FALSE(c.async_copy);
}

TEST(SearchSpace, EachConstraintRemovesWhatItShould) {
  const DeviceProfile t4 = load_device_profile("t4");
  const GemmShape shape{96, 512, 4096};
  {
    const SearchSpace s = tiny_space(R"({"thread_count": {"min": 128, "max": 256}})");
    for (const auto& c : enumerate(s, t4, &shape).candidates) {
      EXPECT_GE(c.threads(), 128);
      EXPECT_LE(c.threads(), 256);
    }
  }
  {
    const SearchSpace s = tiny_space(R"({"shared_memory": {}})");
    for (const auto& c : enumerate(s, t4, &shape).candidates) EXPECT_LE(c.shared_bytes(), 65536u);
  }
  {
    const SearchSpace s = tiny_space(R"({"register_estimate": {"overhead": 28}})");
    for (const auto& c : enumerate(s, t4, &shape).candidates)
      EXPECT_LE(estimated_registers(c, 28) * c.threads() * c.min_blocks, 65536);
  }
  {
    const SearchSpace s = tiny_space(R"({"load_balance": {"max_tile_waste": 0.2, "min_k_per_split": 2048}})");
    const Enumeration e = enumerate(s, t4, &shape);
    EXPECT_GT(e.removed.at("load_balance"), 0u);
    for (const auto& c : e.candidates) {
      EXPECT_NE(c.block_m, 128) << "128-row tiles waste a third of a 96-row problem";
      if (c.split_k > 1) {
        EXPECT_GE(shape.k / c.split_k, 2048);
      }
    }
  }
  {
    const SearchSpace s = tiny_space(R"({"no_effect": {}})");
    for (const auto& c : enumerate(s, t4, &shape).candidates) {
      if (c.swizzle > 1) {
        EXPECT_GT((shape.m + c.block_m - 1) / c.block_m, c.swizzle);
      }
      EXPECT_FALSE(c.split_k_atomic && c.split_k == 1) << c.name() << ": nothing to add atomically";
    }
  }
}

TEST(SearchSpace, RejectingConstraintNamesTheRule) {
  const SearchSpace space = load_search_space({});
  KernelConfig c;
  c.async_copy = true;
  c.stages = 3;
  EXPECT_EQ(rejecting_constraint(space, c, load_device_profile("t4"), nullptr), "architecture");
  EXPECT_EQ(rejecting_constraint(space, c, load_device_profile("a100"), nullptr), "");
  c.block_k = 12;
  EXPECT_EQ(rejecting_constraint(space, c, load_device_profile("a100"), nullptr), "divisibility");
}

class BadSpace : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(BadSpace, IsRefusedWithReason) {
  try {
    parse_search_space(nlohmann::json::parse(GetParam().first), "bad.json");
    FAIL() << "accepted " << GetParam().first;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().second), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, BadSpace,
    ::testing::Values(
        std::make_pair("[]", "JSON object"), std::make_pair("{}", "parameters"),
        std::make_pair(R"({"parameters": {"block_q": [1]}})", "unknown parameter 'block_q'"),
        std::make_pair(R"({"parameters": {"block_m": []}})", "list of 1 to 64"),
        std::make_pair(R"({"parameters": {"block_m": ["64"]}})", "integers"),
        std::make_pair(R"({"parameters": {"async_copy": [1]}})", "true/false"),
        std::make_pair(R"({"parameters": {}, "constraints": {"magic": {}}})", "unknown constraint 'magic'"),
        std::make_pair(R"({"parameters": {}, "constraints": {"thread_count": {"min": "x"}}})", "number"),
        // Found by fuzz_search_space: a huge float reached an int conversion.
        std::make_pair(R"({"parameters": {}, "constraints": {"register_estimate": {"overhead": 7e37}}})",
                       "'overhead' must be a whole number in 0..1000000"),
        std::make_pair(R"({"parameters": {}, "constraints": {"micro_tile": {"max_aspect": 2147483647}}})",
                       "'max_aspect' must be a whole number"),
        std::make_pair(R"({"parameters": {}, "constraints": {"thread_count": {"min": 64.5}}})",
                       "'min' must be a whole number"),
        std::make_pair(R"({"parameters": {}, "constraints": {"load_balance": {"max_tile_waste": -1}}})",
                       "'max_tile_waste' must be a number in 0..1000000")));

TEST(SearchSpace, MissingAndMalformedFiles) {
  EXPECT_THROW(load_search_space("/nonexistent/space.json"), std::invalid_argument);
  const auto path = std::filesystem::temp_directory_path() / "gemmtune-malformed-space.json";
  { std::ofstream(path) << "{ \"parameters\": "; }
  try {
    load_search_space(path);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos);
  }
  std::filesystem::remove(path);
}

// Decode-sized problems: the built-in spaces give every m from 1 to 32 skinny candidates whose
// row tile is the least that holds m (stream up to 8 rows, tiled from 4 to 32: below 4 rows its
// 8-row tile is mostly waste), none above 32, and the sgemm space alone leaves m = 8 nothing (issue
// #42's first report).
TEST(SearchSpace, DecodeProblemsGetSkinnyCandidatesWithTheirRowTile) {
  const std::vector<SearchSpace> all = load_search_spaces({});
  // sgemm, the two skinny families, the stream kernel in bf16 and fp16, mma and wgmma in four precisions
  // each, and wgmma's pingpong spaces in bf16, fp16 and tf32
  ASSERT_EQ(all.size(), 16u);
  const std::vector<SearchSpace> skinny(all.begin() + 1, all.begin() + 3);
  const DeviceProfile h100 = load_device_profile("h100");
  for (const Layout layout : {Layout::nn, Layout::nt})
    for (int m = 1; m <= 40; ++m) {
      const GemmShape shape{m, 4096, 4096, layout, 1};
      const Enumeration e = enumerate(skinny, h100, &shape);
      std::set<std::pair<KernelFamily, int>> tiles;
      for (const KernelConfig& c : e.candidates)
        if (is_skinny(c.family)) tiles.insert({c.family, c.block_m});
      const int rows = m <= 8 ? 1 << int(std::ceil(std::log2(m))) : 0;
      const int tiled_rows = m < 4 ? 0 : m <= 8 ? 8 : m <= 16 ? 16 : m <= 32 ? 32 : 0;
      std::set<std::pair<KernelFamily, int>> expected;
      if (rows) expected.insert({KernelFamily::skinny_stream, rows});
      if (tiled_rows) expected.insert({KernelFamily::skinny_tiled, tiled_rows});
      EXPECT_EQ(tiles, expected) << shape.label();
      if (m <= 32) {
        EXPECT_GT(e.removed.at("row_tile"), 0u) << shape.label();
      }
    }
  const GemmShape decode{8, 4096, 4096, Layout::nn, 1};
  EXPECT_TRUE(enumerate(all.front(), h100, &decode).candidates.empty());
  // Without a shape (plan's binaries), every row tile is there.
  EXPECT_GT(enumerate(all[1], h100, nullptr).candidates.size(), 0u);
}

// bf16 and fp16 decode problems: the stream kernel's 16-bit spaces give m from 1 to 8 the least row
// tile that holds it, in every layout, with thread_n 8 where B's rows run along n; from 9 rows the
// tensor-core tiles of 32 rows (mma; an A stored k-major needs 64 of its 16-bit rows) remain, and
// nothing skinny.
TEST(SearchSpace, SixteenBitDecodeProblemsGetTheStreamKernel) {
  const std::vector<SearchSpace> all = load_search_spaces({});
  const DeviceProfile h100 = load_device_profile("h100");
  for (const Precision p : {Precision::bf16, Precision::fp16})
    for (const Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt})
      for (const int m : {1, 3, 8, 16, 32}) {
        const GemmShape shape{m, 4096, 4096, layout, 1, p};
        const Enumeration e = enumerate(all, h100, &shape);
        std::set<int> stream_rows;
        bool mma32 = false;
        for (const KernelConfig& c : e.candidates) {
          EXPECT_EQ(c.precision, p) << c.name();
          if (c.family == KernelFamily::skinny_stream) {
            stream_rows.insert(c.block_m);
            if (!op_b_transposed(layout)) {
              EXPECT_EQ(c.thread_n, 8) << c.name();
            }
          }
          EXPECT_NE(c.family, KernelFamily::skinny_tiled) << c.name();
          mma32 = mma32 || (c.family == KernelFamily::mma && c.block_m == 32);
        }
        const std::set<int> expected = m <= 8 ? std::set<int>{m == 1 ? 1 : m <= 4 ? 4 : 8} : std::set<int>{};
        EXPECT_EQ(stream_rows, expected) << shape.label();
        if (m >= 16 && !op_a_transposed(layout)) {
          EXPECT_TRUE(mma32) << shape.label();
        }
      }
}

// The T4 (sm_75) has tensor cores for fp16 alone: the built-in spaces give it mma candidates in fp16
// in every layout, all of 2 stages (without cp.async a deeper pipeline only holds shared memory; the
// architecture constraint removes the rest) and within its 64 KB and 1024 threads per SM; bf16, tf32
// and 3xtf32 get none. The A100 keeps the deeper pipelines alone, as before the T4 joined (3 and 4).
TEST(SearchSpace, TensorCoresOnTuringInFp16Only) {
  const std::vector<SearchSpace> all = load_search_spaces({});
  const DeviceProfile t4 = load_device_profile("t4");
  for (const Precision p : {Precision::tf32x3, Precision::tf32, Precision::bf16, Precision::fp16})
    for (const Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt}) {
      const GemmShape shape{1024, 1024, 1024, layout, 1, p};
      const Enumeration e = enumerate(all, t4, &shape);
      EXPECT_GT(e.removed.at("architecture"), 0u) << shape.label();
      if (p != Precision::fp16) {
        EXPECT_TRUE(e.candidates.empty()) << shape.label();
        continue;
      }
      EXPECT_FALSE(e.candidates.empty()) << shape.label();
      for (const KernelConfig& c : e.candidates) {
        EXPECT_EQ(c.family, KernelFamily::mma) << c.name();
        EXPECT_EQ(c.stages, 2) << c.name();
        EXPECT_LE(c.shared_bytes(), 65536u) << c.name();
        EXPECT_LE(c.threads() * c.min_blocks, 1024) << c.name();
      }
    }
  const GemmShape fp16{1024, 1024, 1024, Layout::nn, 1, Precision::fp16};
  const std::vector<KernelConfig> a100 = enumerate(all, load_device_profile("a100"), &fp16).candidates;
  EXPECT_FALSE(a100.empty());
  for (const KernelConfig& c : a100) {
    if (c.family == KernelFamily::mma) {
      EXPECT_GT(c.stages, 2) << c.name();
    }
  }
}

// The built-in wgmma spaces: candidates on the H100 (compute capability 9.0) in every layout; the
// architecture constraint removes them all on the A100 (and would on any later GPU: sm_90a code
// runs on 9.0 alone), divisibility (the template's layout rule) for the other layouts, alignment
// where the operands' rows are not 16-byte aligned.
TEST(SearchSpace, WgmmaOnlyOnComputeCapability90AndItsLayouts) {
  const std::vector<SearchSpace> hopper = built_in_spaces(KernelFamily::wgmma);
  ASSERT_EQ(hopper.size(), 7u);  // four precisions, and bf16, fp16 and tf32 again with consumers in turn
  DeviceProfile later = load_device_profile("h100");
  later.compute_capability = 100;
  for (const Precision p : {Precision::bf16, Precision::fp16, Precision::tf32, Precision::tf32x3}) {
    const GemmShape nt{4096, 4096, 4096, Layout::nt, 1, p};
    const Enumeration h100 = enumerate(hopper, load_device_profile("h100"), &nt);
    EXPECT_GE(h100.candidates.size(), 3u) << nt.label();
    for (const KernelConfig& c : h100.candidates) {
      EXPECT_EQ(c.family, KernelFamily::wgmma);
      EXPECT_EQ(c.precision, p);
      EXPECT_EQ(config_error(c), std::nullopt) << c.name();
    }
    for (const DeviceProfile& d : {load_device_profile("a100"), later}) {
      const Enumeration other = enumerate(hopper, d, &nt);
      EXPECT_TRUE(other.candidates.empty()) << nt.label() << " on " << d.name;
      EXPECT_GT(other.removed.at("architecture"), 0u);
    }
    for (const Layout layout : {Layout::nn, Layout::tn, Layout::tt}) {
      const GemmShape other_layout{4096, 4096, 4096, layout, 1, p};
      const Enumeration h100_other = enumerate(hopper, load_device_profile("h100"), &other_layout);
      // MN-major operands: transposed by wgmma (16-bit) or by the splitters (tf32, 3xtf32).
      EXPECT_GE(h100_other.candidates.size(), 2u) << other_layout.label();
    }
    // Rows of K = 4095 elements do not start on 16-byte boundaries: no tensor map reads them.
    const GemmShape odd_k{4096, 4096, 4095, Layout::nt, 1, p};
    const Enumeration h100_odd = enumerate(hopper, load_device_profile("h100"), &odd_k);
    EXPECT_TRUE(h100_odd.candidates.empty());
    EXPECT_GT(h100_odd.removed.at("alignment"), 0u);
  }
}

// Decode rows count as min_counted_rows (16 in the 16-bit mma spaces) for the tile waste: m = 4 and 8
// get the 32-row tensor-core tiles (and no wider ones), which the plain rule refused.
TEST(SearchSpace, DecodeRowsGetTheSmallestTensorCoreTile) {
  const std::vector<SearchSpace> mma = built_in_spaces(KernelFamily::mma, Precision::bf16);
  ASSERT_EQ(mma.size(), 1u);
  const DeviceProfile h100 = load_device_profile("h100");
  for (const int m : {4, 8, 16}) {
    const GemmShape decode{m, 4096, 4096, Layout::nt, 1, Precision::bf16};
    const Enumeration e = enumerate(mma, h100, &decode);
    EXPECT_FALSE(e.candidates.empty()) << decode.label();
    for (const KernelConfig& c : e.candidates) EXPECT_EQ(c.block_m, 32) << c.name();
  }
  SearchSpace plain = mma[0];
  plain.settings.min_counted_rows = 0;
  const GemmShape eight{8, 4096, 4096, Layout::nt, 1, Precision::bf16};
  EXPECT_TRUE(enumerate({plain}, h100, &eight).candidates.empty());
}

// Problems of fewer tiles than SMs (64x4096x4096, 1024) get wgmma candidates, row-by-row raster
// and split-K among them (and, in the K-major kernel's spaces, K halved in cluster pairs); a problem of
// many tiles is never split.
TEST(SearchSpace, WgmmaSplitsKOnlyWhereTilesAreFew) {
  const std::vector<SearchSpace> hopper = built_in_spaces(KernelFamily::wgmma);
  const DeviceProfile h100 = load_device_profile("h100");
  for (const Precision p : {Precision::bf16, Precision::tf32x3}) {
    for (const GemmShape& few :
         {GemmShape{64, 4096, 4096, Layout::nn, 1, p}, GemmShape{1024, 1024, 1024, Layout::nn, 1, p}}) {
      const Enumeration e = enumerate(hopper, h100, &few);
      const auto split = std::count_if(e.candidates.begin(), e.candidates.end(),
                                       [](const KernelConfig& c) { return c.split_k > 1; });
      EXPECT_GT(split, 0) << few.label();
      EXPECT_LT(split, static_cast<long>(e.candidates.size())) << few.label();
      // K halved in a cluster pair is a split too: the K-major kernel's spaces offer it where they
      // offer split-K (the A-in-registers kernel, 3xtf32's, has no pairs).
      const auto pairs = std::count_if(e.candidates.begin(), e.candidates.end(),
                                       [](const KernelConfig& c) { return c.cluster_k == 2; });
      if (p == Precision::bf16) {
        EXPECT_GT(pairs, 0) << few.label();
      } else {
        EXPECT_EQ(pairs, 0) << few.label();
      }
      for (const KernelConfig& c : e.candidates)  // min_k_per_split, over both kinds of slice
        EXPECT_GE(few.k / (c.split_k * c.cluster_k), 256) << c.name();
    }
    const GemmShape many{8192, 8192, 8192, Layout::nn, 1, p};
    for (const KernelConfig& c : enumerate(hopper, h100, &many).candidates) {
      EXPECT_EQ(c.split_k, 1) << c.name();
      EXPECT_EQ(c.cluster_k, 1) << c.name();
    }
  }
}

// The 16-bit wgmma spaces' rings go as deep as shared memory lets each tile: 12 stages of 64x64
// (16 KB a stage) at small shapes, where cuBLAS runs 8 to 16 (ncu, H200, 2026-11-29), while the
// shared_memory constraint, not the config rule, keeps 128x256 tiles at 4 stages.
TEST(SearchSpace, WgmmaRingDepthIsBoundedBySharedMemory) {
  const std::vector<SearchSpace> hopper = built_in_spaces(KernelFamily::wgmma, Precision::bf16);
  ASSERT_EQ(hopper.size(), 2u);  // shared tiles, and tiles in turn (128x128 only)
  const DeviceProfile h100 = load_device_profile("h100");
  const GemmShape small{512, 512, 512, Layout::nn, 1, Precision::bf16};
  const Enumeration e = enumerate(hopper, h100, &small);
  const auto deepest = [&](int bm, int bn) {
    int stages = 0;
    for (const KernelConfig& c : e.candidates)
      if (c.block_m == bm && c.block_n == bn) stages = std::max(stages, c.stages);
    return stages;
  };
  EXPECT_EQ(deepest(64, 64), 12);
  EXPECT_EQ(deepest(128, 64), 8);
  EXPECT_GT(e.removed.at("shared_memory"), 0u);
  const GemmShape large{4096, 4096, 4096, Layout::nn, 1, Precision::bf16};
  for (const KernelConfig& c : enumerate(hopper, h100, &large).candidates) {
    if (c.block_m * c.block_n == 128 * 256) {
      EXPECT_LE(c.stages, 4) << c.name();
    }
  }
}

}  // namespace
}  // namespace gemmtune
