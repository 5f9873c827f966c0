// What serves a call: the race's winner at the exact problem (kernel or cuBLAS), a tuned problem near
// enough that its margin survives the distance, the portfolio grid around the call, else cuBLAS; and
// the guards: alignment, configs that do not fit the device, layouts and batches without kernels,
// results of other architectures, schema 1 files.
#include "config_selection.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/gemm_launch.hpp"
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

CallShape call(int m, int n, int k, int width = 4) {
  return {{m, n, k}, width};
}

TEST(ConfigSelection, TestConfigsAreValid) {
  for (const auto& c : {kSmall, kLarge, kScalar, kSplit, kAsync})
    EXPECT_FALSE(config_error(c)) << *config_error(c);
}

TEST(ConfigSelection, ExactProblemRunsTheKernelThatWonTheRace) {
  const auto catalog = catalog_of({document_v2(h100(), {raced_entry(1024, 1024, 1024, kLarge, 1.2)})});
  const Selection s = select_config(catalog, h100(), call(1024, 1024, 1024));
  EXPECT_EQ(s.implementation, Implementation::tuned_kernel);
  EXPECT_EQ(s.source, ConfigSource::exact_shape);
  EXPECT_EQ(s.config, kLarge);
  EXPECT_NE(s.reason.find("file0.json"), std::string::npos) << s.reason;
}

TEST(ConfigSelection, ExactProblemRunsCublasWhereCublasWonTheRace) {
  const auto catalog = catalog_of({document_v2(h100(), {raced_entry(4096, 4096, 4096, kLarge, 0.97)})});
  const Selection s = select_config(catalog, h100(), call(4096, 4096, 4096));
  EXPECT_EQ(s.implementation, Implementation::cublas);
  EXPECT_EQ(s.source, ConfigSource::exact_shape);
  EXPECT_NE(s.reason.find("cuBLAS won"), std::string::npos) << s.reason;
}

// A cuBLASLt algorithm that won its race runs at that problem only: as a neighbour it is cuBLAS.
TEST(ConfigSelection, ExactProblemRunsTheCublasLtAlgorithmThatWonTheRace) {
  CublasLtAlgo algo;
  algo.id = 21, algo.tile = 18, algo.stages = 8, algo.split_k = 4, algo.reduction = 2;
  const auto catalog = catalog_of({document_v3(h100(), {cublaslt_entry(16, 4096, 4096, kLarge, algo)})});
  const Selection s = select_config(catalog, h100(), call(16, 4096, 4096));
  EXPECT_EQ(s.implementation, Implementation::cublaslt);
  EXPECT_EQ(s.source, ConfigSource::exact_shape);
  EXPECT_EQ(s.cublaslt, algo);
  EXPECT_NE(s.reason.find("cuBLASLt algo 21"), std::string::npos) << s.reason;
  EXPECT_EQ(select_config(catalog, h100(), call(17, 4096, 4096)).implementation, Implementation::cublas);
}

TEST(ConfigSelection, SchemaOneFilesDecideByTheirRecordedRace) {
  nlohmann::json slower = entry(2048, 2048, 2048, kLarge);
  slower["ratio_vs_cublas"] = 0.98;
  const auto catalog = catalog_of({document(h100(), {slower, entry(512, 512, 512, kSmall)})});
  EXPECT_EQ(select_config(catalog, h100(), call(2048, 2048, 2048)).implementation, Implementation::cublas);
  // No ratio recorded: the kernel runs at its own shape, as schema 1 always did...
  const Selection s = select_config(catalog, h100(), call(512, 512, 512));
  EXPECT_EQ(s.implementation, Implementation::tuned_kernel);
  EXPECT_EQ(s.config, kSmall);
  // ...but an unknown margin earns no trust away from it.
  EXPECT_EQ(select_config(catalog, h100(), call(500, 500, 500)).implementation, Implementation::cublas);
}

TEST(ConfigSelection, MisalignedRowsMustBeWorthWhatTheyCostTheKernel) {
  const auto catalog = catalog_of({document_v2(h100(), {raced_entry(1000, 1000, 1000, kSmall, 1.5)})});
  const Selection s = select_config(catalog, h100(), call(1000, 1000, 1000, 1));
  EXPECT_EQ(s.implementation, Implementation::cublas);  // 1.5 / sqrt(4 / 1) < 1.03
  EXPECT_NE(s.reason.find("aligned"), std::string::npos) << s.reason;
  EXPECT_EQ(select_config(catalog, h100(), call(1000, 1000, 1000, 2)).implementation,
            Implementation::tuned_kernel);  // 1.5 / sqrt(2) > 1.03
  const auto tiny = catalog_of({document_v2(h100(), {raced_entry(3, 3, 3, kSmall, 2.5)})});
  EXPECT_EQ(select_config(tiny, h100(), call(3, 3, 3, 1)).implementation, Implementation::tuned_kernel);
  const auto scalar = catalog_of({document_v2(h100(), {raced_entry(1000, 1000, 1000, kScalar, 1.5)})});
  EXPECT_EQ(select_config(scalar, h100(), call(1000, 1000, 1000, 1)).implementation, Implementation::tuned_kernel);
}

// The race at 4095^3 ran on rows aligned to 1 float, as the call's are: its margin is already net
// of what they cost. A problem raced on aligned rows still pays for them.
TEST(ConfigSelection, AProblemRacedOnUnalignedRowsKeepsItsMargin) {
  const auto catalog = catalog_of({document_v2(h100(), {raced_entry(4095, 4095, 4095, kSmall, 1.2),
                                                        raced_entry(1000, 1000, 1000, kSmall, 1.2)})});
  const Selection unaligned = select_config(catalog, h100(), call(4095, 4095, 4095, 1));
  EXPECT_EQ(unaligned.implementation, Implementation::tuned_kernel) << unaligned.reason;
  EXPECT_EQ(unaligned.source, ConfigSource::exact_shape);
  EXPECT_EQ(select_config(catalog, h100(), call(1000, 1000, 1000, 1)).implementation, Implementation::cublas);
  // A neighbour raced at 4095 lends the same margin to a call at 4093, whose rows are no worse aligned.
  const Selection near = select_config(catalog, h100(), call(4093, 4093, 4093, 1));
  EXPECT_EQ(near.implementation, Implementation::tuned_kernel) << near.reason;
  EXPECT_NE(near.reason.find("4095x4095x4095"), std::string::npos) << near.reason;
}

TEST(ConfigSelection, NearbyTunedKernelRunsWhenItsMarginOutweighsTheDistance) {
  const auto catalog = catalog_of({document_v2(h100(), {raced_entry(1024, 1024, 1024, kLarge, 1.18)})});
  const Selection near = select_config(catalog, h100(), call(1000, 1000, 1000));
  EXPECT_EQ(near.implementation, Implementation::tuned_kernel);
  EXPECT_EQ(near.source, ConfigSource::nearest_shape);
  EXPECT_NE(near.reason.find("1024x1024x1024"), std::string::npos) << near.reason;
  // Far away (the issue's 8x8x100000 took a 64x4096x4096 split-K winner and ran at 0.03x): cuBLAS.
  const Selection far = select_config(catalog, h100(), call(8, 8, 100000));
  EXPECT_EQ(far.implementation, Implementation::cublas);
  EXPECT_EQ(far.source, ConfigSource::built_in_default);
  // A thin margin does not survive even a short distance.
  const auto thin = catalog_of({document_v2(h100(), {raced_entry(1024, 1024, 1024, kLarge, 1.02)})});
  EXPECT_EQ(select_config(thin, h100(), call(1000, 1000, 1000)).implementation, Implementation::cublas);
}

TEST(ConfigSelection, SameArchitectureWhenThisModelHasNothing) {
  const auto catalog = catalog_of({document_v2(h100_pcie(), {raced_entry(1000, 1000, 1000, kLarge, 1.3)})});
  const Selection s = select_config(catalog, h100(), call(1000, 1000, 1000));
  EXPECT_EQ(s.source, ConfigSource::same_architecture);
  EXPECT_EQ(s.config, kLarge);
  EXPECT_NE(s.reason.find("nvidia-h100-pcie"), std::string::npos) << s.reason;
}

TEST(ConfigSelection, OtherArchitecturesNeverAndCublasLast) {
  const auto catalog = catalog_of({document_v2(a100(), {raced_entry(1000, 1000, 1000, kLarge, 1.5)})});
  const Selection s = select_config(catalog, h100(), call(1000, 1000, 1000));
  EXPECT_EQ(s.implementation, Implementation::cublas);
  EXPECT_EQ(s.source, ConfigSource::built_in_default);
  EXPECT_EQ(select_config(ResultsCatalog{}, t4(), call(1, 1, 1, 1)).implementation, Implementation::cublas);
}

TEST(ConfigSelection, ConfigsThatDoNotFitTheDeviceAreSkipped) {
  KernelConfig huge_shared = config(256, 256, 32, 8, 8, 4);
  huge_shared.pad_a = 16;
  EXPECT_TRUE(device_fit_error(huge_shared, t4()));
  EXPECT_TRUE(device_fit_error(kAsync, t4()));  // cp.async needs sm_80
  EXPECT_FALSE(device_fit_error(kAsync, a100()));
  const auto catalog = catalog_of({document_v2(t4(), {raced_entry(512, 512, 512, kAsync, 2.0),
                                                      raced_entry(520, 520, 520, kScalar, 1.5)})});
  const Selection s = select_config(catalog, t4(), call(512, 512, 512));
  EXPECT_EQ(s.source, ConfigSource::nearest_shape);
  EXPECT_EQ(s.config, kScalar);
}

// A results entry for a layout and batch, its configs compiled for that layout.
nlohmann::json entry_for(int m, int n, int k, Layout layout, int batch, KernelConfig c, double ratio) {
  c.layout = layout;
  nlohmann::json e = raced_entry(m, n, k, c, ratio);
  e["layout"] = layout_name(layout);
  e["batch"] = batch;
  return e;
}

TEST(ConfigSelection, EachLayoutRunsKernelsTunedForIt) {
  const auto catalog = catalog_of({document_v2(
      h100(), {raced_entry(1024, 1024, 1024, kLarge, 1.2), entry_for(1024, 1024, 1024, Layout::tn, 1, kSmall, 1.3)})});
  CallShape transposed = call(1024, 1024, 1024);
  transposed.problem.layout = Layout::tn;
  const Selection tn = select_config(catalog, h100(), transposed);
  ASSERT_EQ(tn.implementation, Implementation::tuned_kernel) << tn.reason;
  EXPECT_EQ(tn.config.layout, Layout::tn);
  EXPECT_EQ(tn.config.block_m, kSmall.block_m);
  // No nt result, and the nn and tn kernels read their operands otherwise: cuBLAS.
  transposed.problem.layout = Layout::nt;
  EXPECT_EQ(select_config(catalog, h100(), transposed).implementation, Implementation::cublas);
}

TEST(ConfigSelection, TheBatchIsADistance) {
  const auto catalog =
      catalog_of({document_v2(h100(), {entry_for(512, 512, 64, Layout::nn, 32, kSmall, 1.5)})});
  CallShape batched = call(512, 512, 64);
  batched.problem.batch = 32;
  const Selection exact = select_config(catalog, h100(), batched);
  EXPECT_EQ(exact.implementation, Implementation::tuned_kernel) << exact.reason;
  EXPECT_EQ(exact.source, ConfigSource::exact_shape);
  batched.problem.batch = 30;  // near: the same kernel
  const Selection near = select_config(catalog, h100(), batched);
  EXPECT_EQ(near.implementation, Implementation::tuned_kernel) << near.reason;
  EXPECT_EQ(near.source, ConfigSource::nearest_shape);
  batched.problem.batch = 1;  // 32 times fewer blocks: too far for a 1.5x margin
  EXPECT_EQ(select_config(catalog, h100(), batched).implementation, Implementation::cublas);
}

TEST(ConfigSelection, AnEntryWhoseKernelHasAnotherLayoutIsRefused) {
  nlohmann::json e = raced_entry(1024, 1024, 1024, kLarge, 1.2);
  e["layout"] = "nt";  // the config says nn
  const TunedResults results = parse_results(document_v2(h100(), {e}).dump(), "bad.json");
  EXPECT_TRUE(results.shapes.empty());
  ASSERT_EQ(results.left_out.size(), 1u);
  EXPECT_NE(results.left_out[0].find("layout"), std::string::npos) << results.left_out[0];
}

// A 2 x 2 x 2 portfolio grid at 256 and 1024, kSmall and kLarge raced at every point.
nlohmann::json grid(double large_ratio_at_corner, double small_ratio) {
  std::vector<nlohmann::json> cells;
  for (int m : {256, 1024})
    for (int n : {256, 1024})
      for (int k : {256, 1024}) {
        const double large = m == 1024 && n == 1024 && k == 1024 ? large_ratio_at_corner : 1.25;
        cells.push_back(portfolio_cell(m, n, k, {{kLarge, large}, {kSmall, small_ratio}}));
      }
  return portfolio_document(h100(), cells);
}

TEST(ConfigSelection, PortfolioRunsAKernelThatBeatCublasAtEveryPointAround) {
  const Selection s = select_config(catalog_of({grid(1.1, 0.9)}), h100(), call(700, 500, 300));
  EXPECT_EQ(s.implementation, Implementation::tuned_kernel);
  EXPECT_EQ(s.source, ConfigSource::portfolio);
  EXPECT_EQ(s.config, kLarge);
  EXPECT_NE(s.reason.find("1.100x"), std::string::npos) << s.reason;  // the worst corner
}

TEST(ConfigSelection, PortfolioRunsCublasWhereAnyPointAroundSaysSo) {
  const Selection s = select_config(catalog_of({grid(1.01, 0.9)}), h100(), call(700, 500, 300));
  EXPECT_EQ(s.implementation, Implementation::cublas);
  EXPECT_EQ(s.source, ConfigSource::portfolio);
}

TEST(ConfigSelection, PortfolioNeverExtrapolatesBeyondItsGrid) {
  const auto catalog = catalog_of({grid(1.5, 1.5)});
  EXPECT_EQ(select_config(catalog, h100(), call(4096, 500, 300)).implementation, Implementation::cublas);
  EXPECT_EQ(select_config(catalog, h100(), call(1024, 1024, 1024)).implementation, Implementation::tuned_kernel);
  EXPECT_EQ(select_config(catalog, h100(), call(1024, 256, 512)).implementation, Implementation::tuned_kernel);
}

TEST(ConfigSelection, ShapeDistanceIsSymmetricInLogSpace) {
  const auto device = h100();
  TunedShape tuned;
  tuned.problem.m = tuned.problem.n = tuned.problem.k = 1024;
  tuned.config = kSmall;
  EXPECT_DOUBLE_EQ(shape_distance(call(1024, 1024, 1024), tuned, device).total(), 0.0);
  EXPECT_NEAR(shape_distance(call(1024, 1024, 2048), tuned, device).shape, std::log(2.0), 1e-12);
  EXPECT_NEAR(shape_distance(call(1024, 1024, 512), tuned, device).shape, std::log(2.0), 1e-12);
  EXPECT_NEAR(shape_distance(call(2048, 2048, 1024), tuned, device).shape, std::sqrt(2.0) * std::log(2.0), 1e-12);
  EXPECT_DOUBLE_EQ(shape_distance(call(1024, 1024, 1), tuned, device).waves, 0.0);  // K leaves the grid alone
}

TEST(ConfigSelection, WaveQuantizationIsPenalised) {
  const auto device = h100();
  const long long slots = 132LL * estimated_resident_blocks(kLarge, device);
  ASSERT_GE(slots, 132);
  // A grid of exactly one full wave, and the same grid plus one tile (a nearly empty second wave).
  const int full = static_cast<int>(128 * slots);  // m with slots tiles of 128 rows, n = 128
  TunedShape tuned;
  tuned.problem = {full, 128, 512};
  tuned.config = kLarge;
  EXPECT_NEAR(shape_distance(call(full, 128, 512), tuned, device).waves, 0.0, 1e-12);
  const ShapeDistance spill = shape_distance(call(full + 1, 128, 512), tuned, device);
  EXPECT_LT(spill.shape, 0.01);
  EXPECT_GT(spill.waves, 0.6);  // efficiency almost halves
}

TEST(ConfigSelection, AlignedWidthFollowsTheKernelsTest) {
  alignas(16) static float buffer[8];
  EXPECT_EQ(aligned_width(512, 512, 512, buffer, buffer, buffer), 4);
  EXPECT_EQ(aligned_width(514, 512, 512, buffer, buffer, buffer), 2);
  EXPECT_EQ(aligned_width(513, 512, 512, buffer, buffer, buffer), 1);
  EXPECT_EQ(aligned_width(512, 512, 512, buffer + 2, buffer, buffer), 2);
  EXPECT_EQ(aligned_width(512, 512, 512, buffer, buffer + 1, buffer), 1);
  EXPECT_EQ(aligned_width(512, 512, 510, buffer, buffer, buffer), 2);
  EXPECT_EQ(aligned_width(512, 512, 512, buffer, buffer, buffer + 1), 1);
  EXPECT_EQ(aligned_width(512, 512, 512, buffer, buffer, buffer, 3, 512, 512, 2), 2);
  EXPECT_EQ(aligned_width(512, 512, 512, nullptr, nullptr, nullptr), 4);
}

TEST(ConfigSelection, DeterministicTurnsAtomicSplitKIntoTheWorkspaceReduction) {
  Selection s{Implementation::tuned_kernel, kSplit, ConfigSource::exact_shape, "tuned", {}};
  make_deterministic(s);
  EXPECT_EQ(s.config, kSplit);  // already deterministic: untouched
  EXPECT_EQ(s.reason, "tuned");
  s.config.split_k_atomic = true;
  make_deterministic(s);
  EXPECT_FALSE(s.config.split_k_atomic);
  EXPECT_EQ(s.config.split_k, 4);
  EXPECT_NE(s.reason.find("GEMMTUNE_DETERMINISTIC"), std::string::npos) << s.reason;
}

// The tensor-core families' slices add into C in whatever order they finish: no split at all.
TEST(ConfigSelection, DeterministicDoesNotSplitKOnTheTensorCores) {
  for (const KernelFamily family : {KernelFamily::mma, KernelFamily::wgmma}) {
    KernelConfig split;
    split.family = family, split.precision = Precision::bf16, split.split_k = 4;
    Selection s{Implementation::tuned_kernel, split, ConfigSource::exact_shape, "tuned", {}};
    make_deterministic(s);
    EXPECT_EQ(s.config.split_k, 1) << family_name(family);
    EXPECT_NE(s.reason.find("K not split"), std::string::npos) << s.reason;
  }
}

TEST(ConfigSelection, TiesGoToTheFirstFile) {
  const auto catalog = catalog_of({document_v2(h100(), {raced_entry(512, 512, 512, kSmall, 1.2)}),
                                   document_v2(h100(), {raced_entry(512, 512, 512, kScalar, 1.2)})});
  EXPECT_EQ(select_config(catalog, h100(), call(512, 512, 512)).config, kSmall);
}

}  // namespace
}  // namespace gemmtune

namespace gemmtune {
namespace {

// Schema 3 keys entries by precision too: a bf16 winner serves bf16 calls (exact and near), never
// an FP32 call of the same shape, and a precision nothing was tuned in gets cuBLAS.
TEST(ConfigSelection, APrecisionServesOnlyItsOwnCalls) {
  KernelConfig bf16;
  bf16.family = KernelFamily::mma, bf16.precision = Precision::bf16;
  bf16.block_m = 128, bf16.block_n = 128, bf16.block_k = 32, bf16.warp_m = 64, bf16.warp_n = 64, bf16.stages = 4;
  const auto in = [](nlohmann::json e, Precision p) {
    e.erase("dtype");
    e["precision"] = precision_name(p);
    return e;
  };
  nlohmann::json doc = document_v2(h100(), {in(raced_entry(1024, 1024, 1024, kLarge, 1.5), Precision::fp32),
                                            in(raced_entry(1024, 1024, 1024, bf16, 1.5), Precision::bf16)});
  doc["schema"] = "gemmtune.results/3";
  const auto catalog = catalog_of({doc});
  ASSERT_TRUE(catalog.issues.empty()) << catalog.issues.front().message;
  const auto call_in = [](int size, Precision p) {
    CallShape c = call(size, size, size);
    c.problem.precision = p;
    return c;
  };
  const Selection fp32 = select_config(catalog, h100(), call_in(1024, Precision::fp32));
  EXPECT_EQ(fp32.config, kLarge) << fp32.reason;
  const Selection exact = select_config(catalog, h100(), call_in(1024, Precision::bf16));
  EXPECT_EQ(exact.config, bf16) << exact.reason;
  EXPECT_EQ(exact.source, ConfigSource::exact_shape);
  const Selection near = select_config(catalog, h100(), call_in(1000, Precision::bf16));
  EXPECT_EQ(near.config, bf16) << near.reason;
  EXPECT_EQ(near.source, ConfigSource::nearest_shape);
  EXPECT_EQ(select_config(catalog, h100(), call_in(1024, Precision::tf32)).implementation, Implementation::cublas);
  EXPECT_EQ(select_config(catalog, h100(), call_in(1024, Precision::fp16)).implementation, Implementation::cublas);
}

// A 16-bit C is a key of its own: a c16 winner serves c16 calls only (exact and near), an FP32-C
// winner never a c16 call, and an entry whose kernel writes the other C type is refused.
TEST(ConfigSelection, SixteenBitCServesOnlyItsOwnCalls) {
  KernelConfig fp32_c;
  fp32_c.family = KernelFamily::mma, fp32_c.precision = Precision::bf16;
  fp32_c.block_m = 128, fp32_c.block_n = 128, fp32_c.block_k = 32, fp32_c.warp_m = 64, fp32_c.warp_n = 64;
  fp32_c.stages = 4;
  KernelConfig c16 = fp32_c;
  c16.c16 = true;
  c16.stages = 3;
  const auto bf16 = [](nlohmann::json e, bool c16_entry) {
    e.erase("dtype");
    e["precision"] = "bf16";
    if (c16_entry) e["c"] = "bf16";
    return e;
  };
  nlohmann::json doc = document_v2(h100(), {bf16(raced_entry(1024, 1024, 1024, fp32_c, 1.5), false),
                                            bf16(raced_entry(1200, 1200, 1200, c16, 1.5), true)});
  doc["schema"] = "gemmtune.results/3";
  const auto catalog = catalog_of({doc});
  ASSERT_TRUE(catalog.issues.empty()) << catalog.issues.front().message;
  const auto call_of = [](int size, bool c16_call) {
    CallShape c = call(size, size, size);
    c.problem.precision = Precision::bf16;
    c.problem.c16 = c16_call;
    return c;
  };
  EXPECT_EQ(select_config(catalog, h100(), call_of(1024, false)).config, fp32_c);
  // The FP32-C winner at 1024 is nearer, but writes the wrong C: the c16 entry at 1200 serves.
  const Selection near = select_config(catalog, h100(), call_of(1100, true));
  EXPECT_EQ(near.config, c16) << near.reason;
  EXPECT_EQ(select_config(catalog, h100(), call_of(1200, true)).source, ConfigSource::exact_shape);
  EXPECT_NE(select_config(catalog, h100(), call_of(1200, false)).config, c16);

  nlohmann::json mismatched = document_v2(h100(), {bf16(raced_entry(1024, 1024, 1024, fp32_c, 1.5), true)});
  mismatched["schema"] = "gemmtune.results/3";
  const auto refused = catalog_of({mismatched});  // the entry is left out, the file kept
  ASSERT_EQ(refused.files.size(), 1u);
  EXPECT_TRUE(refused.files[0].shapes.empty());
  ASSERT_EQ(refused.files[0].left_out.size(), 1u);
  EXPECT_NE(refused.files[0].left_out[0].find("16-bit"), std::string::npos) << refused.files[0].left_out[0];
}

// 16-bit A and B: their rows are whole 16-byte vectors only when the leading dimensions are
// multiples of 8 elements, which the width (in 4-byte units) says, so a tensor-core kernel's
// whole-vector binary never runs a call with lda = k + 4 halves.
TEST(ConfigSelection, SixteenBitOperandsCountTheirAlignmentInBytes) {
  EXPECT_EQ(aligned_width(Precision::bf16, 1024, 1024, 1024, nullptr, nullptr, nullptr, 1, 0, 0, 0), 4);
  EXPECT_EQ(aligned_width(Precision::bf16, 1028, 1024, 1024, nullptr, nullptr, nullptr, 1, 0, 0, 0), 2);
  EXPECT_EQ(aligned_width(Precision::fp16, 1027, 1024, 1024, nullptr, nullptr, nullptr, 1, 0, 0, 0), 1);
  EXPECT_EQ(aligned_width(Precision::fp32, 1028, 1024, 1024, nullptr, nullptr, nullptr, 1, 0, 0, 0), 4);
  KernelConfig c;
  c.family = KernelFamily::mma, c.precision = Precision::bf16;
  c.block_m = c.block_n = 128, c.block_k = 32, c.warp_m = c.warp_n = 64, c.stages = 4;
  GemmArguments dense{256, 256, 1024, 1.0f, nullptr, 1024, nullptr, 256, 0.0f, nullptr, 256};
  EXPECT_EQ(kernel_path_for(c, dense), KernelPath::whole_vectors);
  GemmArguments padded = dense;
  padded.lda = 1028;  // rows 2056 bytes apart: not on 16-byte boundaries
  EXPECT_EQ(kernel_path_for(c, padded), KernelPath::general);
  GemmProblem p{256, 256, 1024, 1028, 256, 256};
  p.precision = Precision::bf16;
  EXPECT_EQ(call_shape_of(p, nullptr, nullptr, nullptr).aligned_width, 2);
}

}  // namespace
}  // namespace gemmtune
