// The template compiles for sm_75, sm_80 and sm_90 over a sample of the search space (the tensor-core
// family in each precision where the GPU has its tensor cores; a 16-bit C in each family that has
// one), resources are read from the compile,
// the disk cache serves a second compile and detects corruption (a garbage cubin, a truncated
// metadata file, a cubin overwritten with the same number of bytes).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>

#include "core/kernel_compiler.hpp"
#include "core/precision.hpp"
#include "core/problem.hpp"
#include "search/device_catalog.hpp"
#include "search/search_space.hpp"

namespace gemmtune {
namespace {

const std::string default_expression = default_config().name_expression(KernelPath::general);

// A deterministic sample of the valid space for the device, always including the extremes that
// stress the compiler most (largest tiles, deepest pipelines).
std::vector<KernelConfig> sample_space(const std::string& device, std::size_t count) {
  const SearchSpace space = load_search_space({});
  std::vector<KernelConfig> all = enumerate(space, load_device_profile(device), nullptr).candidates;
  std::mt19937 rng(7);
  std::shuffle(all.begin(), all.end(), rng);
  std::stable_sort(all.begin(), all.end(), [](const KernelConfig& a, const KernelConfig& b) {
    return a.block_m * a.block_n * a.stages > b.block_m * b.block_n * b.stages;
  });
  std::vector<KernelConfig> out(all.begin(), all.begin() + std::min<std::size_t>(2, all.size()));
  std::shuffle(all.begin() + 2, all.end(), rng);
  for (std::size_t i = 2; i < all.size() && out.size() < count; ++i) out.push_back(all[i]);
  return out;
}

class CompilesFor : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(CompilesFor, SampleOfTheSpace) {
  const KernelCompiler compiler{""};  // no cache: really compile
  for (const KernelConfig& c : sample_space(GetParam().first, 6)) {
    SCOPED_TRACE(c.name());
    for (const KernelPath path : {KernelPath::general, KernelPath::whole_vectors, KernelPath::whole_tiles}) {
      if (path != KernelPath::general && c.vector_width == 1) continue;
      if (path == KernelPath::whole_tiles && !has_whole_tiles_path(c)) continue;
      try {
        const CompiledKernel k = compiler.compile(c, GetParam().second, path);
        EXPECT_GT(k.cubin.size(), 1000u);
        EXPECT_GT(k.resources.registers, 16);
        EXPECT_LE(k.resources.registers, 255);
        EXPECT_NE(k.symbol.find("sgemm"), std::string::npos);
        EXPECT_EQ(k.path, path);
      } catch (const CompileError& e) {
        FAIL() << e.what() << "\n" << e.log();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, CompilesFor,
                         ::testing::Values(std::make_pair("t4", "sm_75"), std::make_pair("a100", "sm_80"),
                                           std::make_pair("h100", "sm_90")));

// The skinny families (kernel_templates/skinny.cuh) for decode-sized problems: a sample of what the
// built-in spaces give m = 3 (general path) and m = 24 (whole vectors) in each layout, for every
// architecture; with bf16 and fp16 operands (the stream kernel alone), m = 3 and m = 8.
TEST(Compile, SkinnyFamiliesOnEveryArchitecture) {
  const KernelCompiler compiler{""};
  const std::vector<SearchSpace> spaces = load_search_spaces({});
  for (const auto& [device, arch] : {std::pair{"t4", "sm_75"}, {"a100", "sm_80"}, {"h100", "sm_90"}})
    for (const Precision precision : {Precision::fp32, Precision::bf16, Precision::fp16})
      for (const Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt})
        for (const int m : {3, precision == Precision::fp32 ? 24 : 8}) {
          const GemmShape shape{m, 4096, 4096, layout, 1, precision};
          std::vector<KernelConfig> all = enumerate(spaces, load_device_profile(device), &shape).candidates;
          all.erase(std::remove_if(all.begin(), all.end(), [](const KernelConfig& c) { return !is_skinny(c.family); }),
                    all.end());
          ASSERT_FALSE(all.empty()) << shape.label() << " on " << device;
          std::mt19937 rng(m + int(precision));
          std::shuffle(all.begin(), all.end(), rng);
          const KernelConfig& c = all.front();
          const KernelPath path = m == 3 ? KernelPath::general : KernelPath::whole_vectors;
          SCOPED_TRACE(testing::Message() << arch << " " << c.name() << " path " << int(path));
          try {
            const CompiledKernel k = compiler.compile(c, arch, path);
            EXPECT_GT(k.cubin.size(), 1000u);
            EXPECT_NE(k.symbol.find("skinny"), std::string::npos);
            EXPECT_EQ(k.reduce, nullptr) << "the skinny kernels reduce split-K in their own launch";
          } catch (const CompileError& e) {
            FAIL() << e.what() << "\n" << e.log();
          }
          EXPECT_THROW(compiler.compile(c, arch, KernelPath::whole_tiles), std::invalid_argument);
        }
}

// The tensor-core family: one candidate of every precision and layout compiles for every GPU with
// that precision's tensor cores (fp16 from the T4's sm_75, the others from sm_80) on both paths,
// with the split-K kernel over C beside it where it splits; a GPU without them gets no candidate.
// On sm_75 the PTX holds the k8 mma and no cp.async (kernel_templates/mma/ptx.cuh's fallbacks).
// (Some spill a little, the general path's 16-bit element copies most: the tuner screens spills.)
TEST(Compile, TensorCoreFamilyForEveryPrecisionAndLayout) {
  const KernelCompiler compiler{""};
  const std::vector<SearchSpace> spaces = load_search_spaces({});
  for (const Precision precision : {Precision::tf32x3, Precision::tf32, Precision::bf16, Precision::fp16})
    for (const auto& [device, arch] : {std::pair{"t4", "sm_75"}, {"a100", "sm_80"}, {"h100", "sm_90"}}) {
      const DeviceProfile profile = load_device_profile(device);
      if (!unsupported_precision(precision, profile.compute_capability, profile.name).empty()) {
        const GemmShape shape{1024, 1024, 1024, Layout::nn, 1, precision};
        EXPECT_TRUE(enumerate(spaces, profile, &shape).candidates.empty())
            << shape.label() << " on " << device;
        continue;
      }
      for (const Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt}) {
        const GemmShape shape{1024, 1024, 4096, layout, 1, precision};
        std::vector<KernelConfig> all = enumerate(spaces, profile, &shape).candidates;
        // (On the H100, layout nt, the wgmma family's candidates too: Compile.WgmmaFamily.)
        all.erase(std::remove_if(all.begin(), all.end(),
                                 [](const KernelConfig& c) { return c.family == KernelFamily::wgmma; }),
                  all.end());
        ASSERT_FALSE(all.empty()) << shape.label() << " on " << device;
        for (const KernelConfig& c : all) ASSERT_EQ(c.family, KernelFamily::mma) << c.name();
        std::mt19937 rng(int(precision) * 4 + int(layout));
        std::shuffle(all.begin(), all.end(), rng);
        for (const KernelPath path : {KernelPath::general, KernelPath::whole_vectors}) {
          const KernelConfig& c = all[int(path)];
          SCOPED_TRACE(testing::Message() << arch << " " << c.name() << " path " << int(path));
          try {
            const CompiledKernel k = compiler.compile(c, arch, path);
            EXPECT_GT(k.cubin.size(), 1000u);
            EXPECT_NE(k.symbol.find("mma_gemm"), std::string::npos);
            EXPECT_EQ(k.reduce != nullptr, c.split_k > 1);
            if (profile.compute_capability < 80) {
              const std::string ptx = compiler.ptx(c, arch, path);
              EXPECT_NE(ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"), std::string::npos);
              EXPECT_EQ(ptx.find("m16n8k16"), std::string::npos);
              EXPECT_EQ(ptx.find("cp.async"), std::string::npos);
            }
          } catch (const CompileError& e) {
            FAIL() << e.what() << "\n" << e.log();
          }
        }
        EXPECT_THROW(compiler.compile(all.front(), arch, KernelPath::whole_tiles), std::invalid_argument);
      }
    }
}

// 3xtf32 with block_k 16 (its tile accumulator summed into FP32 every 16 k: the small-K candidates
// of configs/mma-3xtf32.json): the built-in space offers it, and it compiles for sm_80 and sm_90 in
// every layout on both paths, with the whole-vector path free of spills.
TEST(Compile, ThreeTf32WithBlockK16InEveryLayout) {
  const KernelCompiler compiler{""};
  const GemmShape small_k{512, 512, 512, Layout::nn, 1, Precision::tf32x3};
  const std::vector<KernelConfig> offered = enumerate(load_search_spaces({}), load_device_profile("h100"), &small_k).candidates;
  EXPECT_TRUE(std::any_of(offered.begin(), offered.end(),
                          [](const KernelConfig& c) { return c.family == KernelFamily::mma && c.block_k == 16; }));
  KernelConfig c;
  c.family = KernelFamily::mma;
  c.precision = Precision::tf32x3;
  c.block_m = 128, c.block_n = 64, c.block_k = 16, c.warp_m = 32, c.warp_n = 32, c.stages = 4;
  for (const Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt}) {
    c.layout = layout;
    ASSERT_EQ(config_error(c), std::nullopt) << c.name();
    for (const char* arch : {"sm_80", "sm_90"})
      for (const KernelPath path : {KernelPath::general, KernelPath::whole_vectors}) {
        SCOPED_TRACE(testing::Message() << arch << " " << c.name() << " path " << int(path));
        try {
          const CompiledKernel k = compiler.compile(c, arch, path);
          EXPECT_NE(k.symbol.find("mma_gemm"), std::string::npos);
          if (path == KernelPath::whole_vectors) {
            EXPECT_EQ(k.resources.spill_bytes(), 0);
          }
        } catch (const CompileError& e) {
          FAIL() << e.what() << "\n" << e.log();
        }
      }
  }
}

// The Hopper family: every candidate the built-in spaces give the H100 in every layout
// compiles for sm_90a (asked
// for as sm_90, the device's arch) without spills and within the 168 registers that 384 threads
// may hold at entry; its cache key names sm_90a. Other archs and the general path are refused
// before NVRTC, with the reason. One test a precision: each compiles hundreds of binaries, and apart
// they run side by side and each stays well inside the sanitized tier's time limit.
class WgmmaFamilyForSm90aOnly : public testing::TestWithParam<Precision> {};

TEST_P(WgmmaFamilyForSm90aOnly, EveryCandidateInEveryLayout) {
  const Precision precision = GetParam();
  const KernelCompiler compiler{""};
  const std::vector<SearchSpace> spaces = load_search_spaces({});
  std::vector<GemmShape> shapes;
  for (const Layout layout : {Layout::nt, Layout::nn, Layout::tn, Layout::tt})  // nn, tn, tt: MN-major operands
    shapes.push_back({4096, 4096, 4096, layout, 1, precision});
  // Each binary once: pretranspose candidates outside nt are the nt kernels again.
  std::set<std::string> binaries;
  bool pretransposes = false;
  for (const GemmShape& shape : shapes) {
    std::vector<KernelConfig> all = enumerate(spaces, load_device_profile("h100"), &shape).candidates;
    all.erase(std::remove_if(all.begin(), all.end(),
                             [](const KernelConfig& c) { return c.family != KernelFamily::wgmma; }),
              all.end());
    ASSERT_FALSE(all.empty()) << shape.label();
    for (const KernelConfig& c : all) pretransposes |= c.pretranspose;
    int clean = 0, spilling = 0;
    for (const KernelConfig& c : all) {
      if (!binaries.insert(c.name_expression(KernelPath::whole_vectors)).second) continue;
      SCOPED_TRACE(c.name());
      ASSERT_EQ(kernel_path_for(c, shape), KernelPath::whole_vectors);
      try {
        const CompiledKernel k = compiler.compile(c, "sm_90", KernelPath::whole_vectors);
        EXPECT_GT(k.cubin.size(), 1000u);
        EXPECT_NE(k.symbol.find(wgmma_a_in_registers(c) ? "wgmma_gemm_tf32x" : "wgmma_gemm"), std::string::npos);
        // A few clusters of 2 (the multicast's extra registers) spill a few bytes: the tuner
        // skips those unmeasured (shape_tuner.cpp's resource_rejection); nothing else may.
        if (k.resources.spill_bytes() > 0) {
          EXPECT_EQ(c.cluster, 2) << k.resources.spill_bytes() << " bytes spilled";
          ++spilling;
        } else {
          ++clean;
        }
        EXPECT_LE(k.resources.registers, 65536 / c.threads());
        EXPECT_EQ(k.reduce, nullptr);
        EXPECT_EQ(k.transpose != nullptr, c.pretranspose);
      } catch (const CompileError& e) {
        FAIL() << e.what() << "\n" << e.log();
      }
    }
    EXPECT_GT(clean + spilling == 0 ? 1 : clean, spilling) << shape.label() << ": most candidates must be measurable";
    const KernelConfig& c = all.front();
    EXPECT_EQ(compiler.cache_key(c.family, c.name_expression(KernelPath::whole_vectors), "sm_90").rfind("sm_90a-", 0),
              0u);
    EXPECT_EQ(compiler.cache_key(c.family, c.name_expression(KernelPath::whole_vectors), "sm_90"),
              compiler.cache_key(c.family, c.name_expression(KernelPath::whole_vectors), "sm_90a"));
    for (const char* arch : {"sm_75", "sm_80", "sm_89", "sm_100"}) {
      try {
        compiler.compile(c, arch, KernelPath::whole_vectors);
        ADD_FAILURE() << arch << " accepted";
      } catch (const std::invalid_argument& e) {
        const std::string expected = std::string("need sm_90a (wgmma and TMA, compute capability 9.0 only), not ") + arch;
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      }
    }
    EXPECT_THROW(compiler.compile(c, "sm_90", KernelPath::general), std::invalid_argument);
  }
  // tf32 and 3xtf32 outside nt offer the nt kernels on K-major copies, whose binary brings the copy
  // kernel; bf16 and fp16 read MN-major operands through wgmma's transpose immediates instead.
  EXPECT_EQ(pretransposes, precision == Precision::tf32 || precision == Precision::tf32x3);
}

INSTANTIATE_TEST_SUITE_P(Compile, WgmmaFamilyForSm90aOnly,
                         testing::Values(Precision::bf16, Precision::fp16, Precision::tf32, Precision::tf32x3),
                         [](const testing::TestParamInfo<Precision>& param) {
                           return std::string(precision_name(param.param));
                         });

// K halved in a cluster pair (cluster_k 2): pairs the built-in spaces give the H100 at a skinny
// shape (where load_balance offers them) compile for sm_90a without spills: FP32 C and a 16-bit C,
// K-major and MN-major, each precision; the first six of each, as the rest differ in depth alone.
TEST(Compile, WgmmaClusterPairsAtASkinnyShape) {
  const KernelCompiler compiler{""};
  const std::vector<SearchSpace> spaces = load_search_spaces({});
  for (const GemmShape& shape : {GemmShape{64, 4096, 4096, Layout::nn, 1, Precision::bf16, false},
                                 GemmShape{64, 4096, 4096, Layout::nt, 1, Precision::bf16, true},
                                 GemmShape{64, 4096, 4096, Layout::nn, 1, Precision::fp16, true},
                                 GemmShape{64, 4096, 4096, Layout::nt, 1, Precision::tf32, false}}) {
    int pairs = 0;
    for (const KernelConfig& c : enumerate(spaces, load_device_profile("h100"), &shape).candidates) {
      if (c.cluster_k != 2 || c.swizzle != 1 || c.split_k != 1) continue;  // launch-time variants: one binary
      if (++pairs > 6) break;
      SCOPED_TRACE(c.name());
      try {
        const CompiledKernel k = compiler.compile(c, "sm_90", KernelPath::whole_vectors);
        EXPECT_NE(k.symbol.find("wgmma_gemm"), std::string::npos);
        EXPECT_EQ(k.resources.spill_bytes(), 0);
        EXPECT_LE(k.resources.registers, 65536 / c.threads());
      } catch (const CompileError& e) {
        FAIL() << e.what() << "\n" << e.log();
      }
    }
    EXPECT_GT(pairs, 0) << shape.label();
  }
}

// A copied operand's binary brings the copy kernel, beside the nt kernel of its precision.
TEST(Compile, WgmmaOnKMajorCopies) {
  const KernelCompiler compiler{""};
  KernelConfig copies;
  copies.family = KernelFamily::wgmma, copies.precision = Precision::tf32, copies.layout = Layout::tn;
  copies.block_m = 128, copies.block_n = 256, copies.block_k = 32, copies.consumers = 2, copies.stages = 4;
  copies.pretranspose = true;
  KernelConfig three = copies;
  three.precision = Precision::tf32x3, three.layout = Layout::nn, three.block_n = 128;
  for (const KernelConfig& c : {copies, three}) {
    SCOPED_TRACE(c.name());
    ASSERT_EQ(config_error(c), std::nullopt);
    try {
      const CompiledKernel k = compiler.compile(c, "sm_90", KernelPath::whole_vectors);
      EXPECT_NE(k.symbol.find(c.precision == Precision::tf32x3 ? "wgmma_gemm_tf32x" : "wgmma_gemm"), std::string::npos);
      EXPECT_EQ(k.resources.spill_bytes(), 0);
      ASSERT_NE(k.transpose, nullptr);
      EXPECT_NE(k.transpose->symbol.find("wgmma_transpose"), std::string::npos);
      EXPECT_EQ(k.transpose->resources.spill_bytes(), 0);
    } catch (const CompileError& e) {
      FAIL() << e.what() << "\n" << e.log();
    }
  }
}

// A C in the 16-bit operands' own type (c16): the mma family in bf16 and fp16 for sm_80 and sm_90
// (fp16 also for the T4's sm_75, whose PTX rounds each half alone: no packed cvt there) and the wgmma
// family for sm_90a, split or not, in two layouts, without spills, with the reduction kernel of C's
// type beside a split; the stream kernel in bf16 and fp16 on every architecture (bf16's sm_75 PTX
// rounds in integer arithmetic: no cvt to bf16 before sm_80); and the reduction kernel for a bf16
// and an fp16 C, apart from the FP32 one.
TEST(Compile, SixteenBitCForEveryFamily) {
  const KernelCompiler compiler{""};
  const auto compiles = [&](const KernelConfig& c, const std::string& arch, KernelPath path,
                            const char* symbol) {
    SCOPED_TRACE(testing::Message() << arch << " " << c.name() << " path " << int(path));
    ASSERT_EQ(config_error(c), std::nullopt);
    try {
      const CompiledKernel k = compiler.compile(c, arch, path);
      EXPECT_GT(k.cubin.size(), 1000u);
      EXPECT_NE(k.symbol.find(symbol), std::string::npos);
      // (The stream kernel's spills are its configuration's, the same with an FP32 C.)
      if (c.family != KernelFamily::skinny_stream) {
        EXPECT_EQ(k.resources.spill_bytes(), 0);
      }
      // Split-K with a 16-bit C: the slices' sums go through the workspace and the reduction of C's type.
      const bool reduces = c.split_k > 1 && c.family != KernelFamily::skinny_stream;
      ASSERT_EQ(k.reduce != nullptr, reduces);
      if (reduces) {
        EXPECT_EQ(k.reduce, compiler.reduce_kernel(arch, c.precision == Precision::bf16 ? 1 : 2));
        EXPECT_NE(k.reduce, compiler.reduce_kernel(arch, 0));
      }
      const std::string ptx = compiler.ptx(c, arch, path);
      const bool bf16 = c.precision == Precision::bf16;
      const bool packed = c.family != KernelFamily::skinny_stream && arch != "sm_75";
      if (packed) {
        EXPECT_NE(ptx.find(bf16 ? "cvt.rn.bf16x2.f32" : "cvt.rn.f16x2.f32"), std::string::npos);
      } else {
        EXPECT_EQ(ptx.find(bf16 ? "cvt.rn.bf16x2.f32" : "cvt.rn.f16x2.f32"), std::string::npos);
        if (bf16 && arch == "sm_75") {
          EXPECT_EQ(ptx.find("cvt.rn.bf16"), std::string::npos);
        } else {
          EXPECT_NE(ptx.find(bf16 ? "cvt.rn.bf16.f32" : "cvt.rn.f16.f32"), std::string::npos);
        }
      }
    } catch (const CompileError& e) {
      FAIL() << e.what() << "\n" << e.log();
    }
  };
  for (const Precision p : {Precision::bf16, Precision::fp16})
    for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
      if (p == Precision::bf16 && std::string(arch) == "sm_75") continue;  // no bf16 tensor cores there
      for (const Layout layout : {Layout::nn, Layout::tt})
        for (const int split_k : {1, 3}) {
          KernelConfig c;
          c.family = KernelFamily::mma;
          c.precision = p, c.layout = layout, c.c16 = true;
          c.block_m = 64, c.block_n = 64, c.block_k = 64, c.warp_m = 32, c.warp_n = 32;
          c.stages = std::string(arch) == "sm_75" ? 2 : 3;
          c.split_k = split_k;
          compiles(c, arch, split_k == 1 ? KernelPath::general : KernelPath::whole_vectors, "mma_gemm");
        }
    }
  for (const Precision p : {Precision::bf16, Precision::fp16})
    for (const Layout layout : {Layout::nt, Layout::tn})
      for (const int split_k : {1, 3}) {
        KernelConfig c;
        c.family = KernelFamily::wgmma;
        c.precision = p, c.layout = layout, c.c16 = true;
        c.block_m = 128, c.block_n = 256, c.block_k = 64, c.consumers = 2, c.stages = 4, c.persistent = true;
        c.split_k = split_k;
        compiles(c, "sm_90", KernelPath::whole_vectors, "wgmma_gemm");
      }
  for (const Precision p : {Precision::bf16, Precision::fp16})
    for (const char* arch : {"sm_75", "sm_80", "sm_90"})
      for (const Layout layout : {Layout::nn, Layout::nt}) {
        KernelConfig c;
        c.family = KernelFamily::skinny_stream;
        c.precision = p, c.layout = layout, c.c16 = true;
        c.block_m = 4, c.thread_n = op_b_transposed(layout) ? 4 : 8, c.lanes_k = 4, c.warps_n = 2,
        c.k_groups = 1, c.unroll = 2, c.prefetch = true;
        c.block_n = c.warps_n * (32 / c.lanes_k) * c.thread_n;
        c.split_k = 3;
        compiles(c, arch, KernelPath::general, "skinny");
      }
  for (const char* arch : {"sm_75", "sm_80", "sm_90"})
    for (const int c_type : {1, 2}) {
      if (c_type == 1 && std::string(arch) == "sm_75") continue;  // a bf16 C comes from sm_80's kernels only
      SCOPED_TRACE(testing::Message() << arch << " splitk_reduce C type " << c_type);
      try {
        const auto reduce = compiler.reduce_kernel(arch, c_type);
        ASSERT_NE(reduce, nullptr);
        EXPECT_NE(reduce->symbol.find("splitk_reduce"), std::string::npos);
        EXPECT_NE(reduce->symbol, compiler.reduce_kernel(arch, 0)->symbol);
        EXPECT_EQ(reduce, compiler.reduce_kernel(arch, c_type));  // compiled once
      } catch (const CompileError& e) {
        FAIL() << e.what() << "\n" << e.log();
      }
    }
}

TEST(Compile, DefaultConfigOnEveryArchitecture) {
  const KernelCompiler compiler{""};
  for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_90"})
    EXPECT_NO_THROW(compiler.compile(default_config(), arch)) << arch;
}

// A transposed operand changes every copy path: each layout compiles on every architecture, by the
// register-staged path on sm_75 and by cp.async (A k-major and m-major in shared memory) after.
TEST(Compile, EveryLayoutOnEveryArchitecture) {
  const KernelCompiler compiler{""};
  KernelConfig async = default_config();
  async.async_copy = true;
  async.stages = 3;
  async.pad_b = 4;
  KernelConfig async_a_rows = async;
  async_a_rows.transpose_a = false;
  KernelConfig b_columns = async_a_rows;  // B n-major in shared memory: A and B read in k runs
  b_columns.transpose_b = true;
  KernelConfig b_columns_a_k_major = default_config();
  b_columns_a_k_major.transpose_b = true;
  KernelConfig b_columns_deep = b_columns;  // the 32-deep tile k_tile_depth allows it (m = 32 decode)
  b_columns_deep.block_m = 32, b_columns_deep.block_n = 256, b_columns_deep.block_k = 32;
  b_columns_deep.thread_m = b_columns_deep.thread_n = 8, b_columns_deep.stages = 2;
  const std::pair<const char*, KernelConfig> cases[] = {{"sm_75", default_config()},
                                                        {"sm_75", b_columns_a_k_major},
                                                        {"sm_80", async},
                                                        {"sm_90", async_a_rows},
                                                        {"sm_90", b_columns},
                                                        {"sm_80", b_columns_deep}};
  for (const Layout layout : {Layout::nt, Layout::tn, Layout::tt}) {
    for (auto [arch, config] : cases) {
      config.layout = layout;
      SCOPED_TRACE(testing::Message() << arch << " " << config.name());
      try {
        const CompiledKernel k = compiler.compile(config, arch);
        EXPECT_GT(k.cubin.size(), 1000u);
        EXPECT_EQ(k.resources.spill_store_bytes, 0);
      } catch (const CompileError& e) {
        FAIL() << e.what() << "\n" << e.log();
      }
    }
  }
}

// The atomic epilogue is its own instantiation: vector reductions on sm_90, scalar ones before.
// (The sampled space above has no split-K: it is enumerated without a shape.)
TEST(Compile, AtomicSplitKOnEveryArchitecture) {
  const KernelCompiler compiler{""};
  KernelConfig atomic = default_config();
  atomic.split_k = 4;
  atomic.split_k_atomic = true;
  for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    try {
      const CompiledKernel plain = compiler.compile(default_config(), arch);
      const CompiledKernel k = compiler.compile(atomic, arch);
      EXPECT_NE(k.symbol, plain.symbol);
      EXPECT_NE(k.cubin, plain.cubin);
      // Split-K brings the kernel over C along, compiled once per architecture.
      EXPECT_EQ(plain.reduce, nullptr);
      ASSERT_NE(k.reduce, nullptr);
      EXPECT_NE(k.reduce->symbol.find("splitk_reduce"), std::string::npos);
      EXPECT_EQ(compiler.compile(atomic, arch, KernelPath::whole_vectors).reduce, k.reduce);
    } catch (const CompileError& e) {
      FAIL() << e.what() << "\n" << e.log();
    }
  }
}

TEST(Compile, InvalidInputNeverReachesNvrtc) {
  const KernelCompiler compiler{""};
  KernelConfig bad;
  bad.block_k = 12;
  EXPECT_THROW(compiler.compile(bad, "sm_90"), std::invalid_argument);
  EXPECT_THROW(compiler.compile(default_config(), "sm_90; rm -rf /"), std::invalid_argument);
  EXPECT_THROW(compiler.compile(default_config(), "compute_90"), std::invalid_argument);
  KernelConfig scalar = default_config();
  scalar.vector_width = 1;
  EXPECT_THROW(compiler.compile(scalar, "sm_90", KernelPath::whole_vectors), std::invalid_argument);
  KernelConfig narrow = default_config();
  narrow.thread_n = 2;
  narrow.vector_width = 2;
  ASSERT_FALSE(config_error(narrow)) << *config_error(narrow);
  EXPECT_THROW(compiler.compile(narrow, "sm_90", KernelPath::whole_tiles), std::invalid_argument);
  KernelConfig b_columns = default_config();  // its C columns come one by one: no float4 stores
  b_columns.layout = Layout::nt, b_columns.transpose_b = true, b_columns.pad_b = 4;
  ASSERT_FALSE(config_error(b_columns)) << *config_error(b_columns);
  EXPECT_THROW(compiler.compile(b_columns, "sm_90", KernelPath::whole_tiles), std::invalid_argument);
  EXPECT_EQ(kernel_path_for(b_columns, 32, 4096, 4096, 4), KernelPath::whole_vectors);
  b_columns.transpose_b = false;
  EXPECT_EQ(kernel_path_for(b_columns, 32, 4096, 4096, 4), KernelPath::whole_tiles);
}

TEST(Compile, BrokenTemplateKeepsLogAndOptions) {
  const KernelCompiler compiler{"", "namespace gemmtune { this is not C++ }"};
  try {
    compiler.compile(default_config(), "sm_80");
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_FALSE(e.log().empty());
    EXPECT_NE(std::find(e.options().begin(), e.options().end(), "--gpu-architecture=sm_80"),
              e.options().end());
  }
}

TEST(Compile, ParsesPtxasResources) {
  const std::string log =
      "ptxas info    : Compiling entry function '_Z3fooPf' for 'sm_90'\n"
      "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 128 registers, used 1 barriers\n"
      "ptxas info    : Compiling entry function '_Z3barPf' for 'sm_90'\n"
      "ptxas info    : Used 32 registers\n";
  const KernelResources foo = parse_ptxas_resources(log, "_Z3fooPf");
  EXPECT_EQ(foo.registers, 128);
  EXPECT_EQ(foo.stack_bytes, 8);
  EXPECT_EQ(foo.spill_bytes(), 16);
  EXPECT_EQ(parse_ptxas_resources(log, "_Z3barPf").registers, 32);
  EXPECT_EQ(parse_ptxas_resources(log, "_Z3bazPf").registers, 0);
}

TEST(CompileCache, SecondCompileIsCachedAndCorruptionIsRebuilt) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gemmtune-cache-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const KernelCompiler compiler{dir};
  EXPECT_TRUE(compiler.cached_keys().empty());
  const CompiledKernel first = compiler.compile(default_config(), "sm_80");
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(compiler.cached_keys().count(compiler.cache_key(KernelFamily::sgemm, default_expression, "sm_80")), 1u);
  const CompiledKernel second = compiler.compile(default_config(), "sm_80");
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.resources.registers, first.resources.registers);
  // Different architecture, different key.
  EXPECT_NE(compiler.cache_key(KernelFamily::sgemm, default_expression, "sm_80"), compiler.cache_key(KernelFamily::sgemm, default_expression, "sm_90"));
  // Corrupt the cubin: detected, recompiled, and the entry repaired.
  const auto cubin = dir / (compiler.cache_key(KernelFamily::sgemm, default_expression, "sm_80") + ".cubin");
  { std::ofstream(cubin, std::ios::binary | std::ios::trunc) << "garbage"; }
  const CompiledKernel third = compiler.compile(default_config(), "sm_80");
  EXPECT_FALSE(third.from_cache);
  EXPECT_EQ(third.cubin, first.cubin);
  EXPECT_TRUE(compiler.compile(default_config(), "sm_80").from_cache);
  std::filesystem::remove_all(dir);
}

// The two corruptions a crash or a bad disk leaves that a size check alone would miss or that break
// the metadata itself: a truncated <key>.json, and a cubin overwritten by garbage of the same size.
TEST(CompileCache, TruncatedMetadataAndSameSizeGarbageAreRebuilt) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gemmtune-cache-fault-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const KernelCompiler compiler{dir};
  const CompiledKernel first = compiler.compile(default_config(), "sm_75");
  const std::string key = compiler.cache_key(KernelFamily::sgemm, default_expression, "sm_75");
  const auto metadata = dir / (key + ".json"), cubin = dir / (key + ".cubin");
  const auto metadata_size = std::filesystem::file_size(metadata);
  std::filesystem::resize_file(metadata, metadata_size / 2);
  const CompiledKernel after_truncation = compiler.compile(default_config(), "sm_75");
  EXPECT_FALSE(after_truncation.from_cache);
  EXPECT_EQ(after_truncation.cubin, first.cubin);
  EXPECT_EQ(std::filesystem::file_size(metadata), metadata_size);  // repaired

  const auto cubin_size = std::filesystem::file_size(cubin);
  { std::ofstream(cubin, std::ios::binary | std::ios::trunc) << std::string(cubin_size, '\x5a'); }
  const CompiledKernel after_garbage = compiler.compile(default_config(), "sm_75");
  EXPECT_FALSE(after_garbage.from_cache);
  EXPECT_EQ(after_garbage.cubin, first.cubin);
  EXPECT_TRUE(compiler.compile(default_config(), "sm_75").from_cache);
  std::filesystem::remove_all(dir);
}

// $GEMMTUNE_CACHE_DIR pointing where no directory can be made (under a regular file): compiles
// still succeed, only the cache is lost, and nothing is thrown.
TEST(CompileCache, UnusableCacheDirectoryOnlyLosesTheCache) {
  ::setenv("GEMMTUNE_CACHE_DIR", "/dev/null/gemmtune-cache", 1);
  const KernelCompiler compiler{default_cache_dir()};
  ::unsetenv("GEMMTUNE_CACHE_DIR");
  EXPECT_EQ(compiler.cache_dir(), std::filesystem::path("/dev/null/gemmtune-cache"));
  EXPECT_FALSE(compiler.compile(default_config(), "sm_75").from_cache);
  EXPECT_FALSE(compiler.compile(default_config(), "sm_75").from_cache);
}

}  // namespace
}  // namespace gemmtune
