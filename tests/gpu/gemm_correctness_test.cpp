// Every kind of kernel the space can express, at edge sizes (1, tile +-1, primes, odd leading
// dimensions), against a float64 CPU reference, with beta != 0 (-0.5 and 1) and with beta == 0 over
// NaN, and with a bias row (beta 0 and 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <memory>
#include <random>

#include "core/cuda_check.hpp"
#include "core/gemm_launch.hpp"
#include "core/kernel_compiler.hpp"
#include "gpu_test_support.hpp"
#include "measure/gpu_bench.hpp"

namespace gemmtune {
namespace {

KernelConfig make(int bm, int bn, int bk, int tm, int tn, int wr, int stages, bool async, bool trans, int vec,
                  int pad_a = 0, int pad_b = 0, int swizzle = 1, int split_k = 1, int min_blocks = 1) {
  KernelConfig c;
  c.block_m = bm, c.block_n = bn, c.block_k = bk, c.thread_m = tm, c.thread_n = tn, c.warp_rows = wr;
  c.stages = stages, c.async_copy = async, c.transpose_a = trans, c.vector_width = vec;
  c.pad_a = pad_a, c.pad_b = pad_b, c.swizzle = swizzle, c.split_k = split_k, c.min_blocks = min_blocks;
  return c;
}

KernelConfig with_fma_order(KernelConfig c, int order) {
  c.fma_order = order;
  return c;
}

KernelConfig with_atomic_split_k(KernelConfig c) {
  c.split_k_atomic = true;
  return c;
}

std::vector<KernelConfig> variants() {
  return {
      default_config(), make(128, 128, 8, 8, 8, 4, 3, true, true, 4, 4, 0),  // cuBLAS-like, cp.async 3 stages
      with_fma_order(
          make(128, 64, 16, 8, 4, 8, 4, true, false, 4, 4, 4),  // A not transposed, 16-byte cp.async,
          kFmaOrderColumnsSerpentine),                          // FMAs column by column
      make(64, 128, 16, 4, 8, 4, 2, false, false, 4, 1, 0),     // odd padding: scalar shared stores
      make(64, 64, 8, 4, 4, 4, 1, false, true, 1),              // single stage, scalar loads
      with_fma_order(make(32, 64, 16, 2, 4, 4, 2, false, true, 2, 0, 2),  // float2 loads, 2-wide runs,
                     kFmaOrderRowsSerpentine),                            // serpentine rows
      make(64, 64, 16, 4, 4, 4, 2, true, true, 4, 4, 0, 4, 4),            // split-K 4 + swizzle 4
      make(128, 128, 8, 8, 8, 8, 2, false, true, 4, 0, 0, 8, 1, 2),       // 8x4 warps, min 2 blocks
      make(256, 128, 16, 8, 8, 4, 2, true, true, 4, 4, 0, 1, 3),          // split-K 3 (uneven K slices)
      with_atomic_split_k(make(64, 64, 16, 4, 4, 4, 2, true, true, 4, 4, 0, 4, 4)),   // atomic split-K:
                                                                                      // vector adds (sm_90)
      with_atomic_split_k(make(32, 64, 16, 2, 2, 4, 2, false, true, 1, 0, 0, 1, 5)),  // scalar adds
  };
}

struct Shape {
  int m, n, k, lda_pad, ldb_pad, ldc_pad;
};

// The template has three paths (KernelPath), each a binary of its own: general; whole vectors (K,
// N and the leading dimensions of A and B multiples of the vector width, in nn); whole tiles (also
// C aligned and N a multiple of block_n). All run with partial tiles in M and K, the first two in N
// too: for the float4 variants in nn the first seven shapes need the general path (a specialised
// binary must refuse them), the next five take whole vectors, one of them (65x72x40) with ldc > N,
// so split-K's partials (dense, N wide) and C differ in row stride there, and the last two whole
// tiles for every block_n up to 256 (and 128x128x128 and 256x256x1000 for the smaller ones).
const Shape kShapes[] = {{1, 1, 1, 0, 0, 0},       {17, 33, 9, 0, 0, 0},     {63, 65, 129, 1, 3, 2},
                         {127, 129, 131, 0, 0, 0}, {1, 257, 64, 4, 4, 4},    {97, 101, 7, 2, 0, 1},
                         {300, 1, 77, 0, 0, 0},    {128, 128, 128, 0, 0, 0}, {256, 256, 1000, 0, 0, 0},
                         {100, 36, 20, 0, 0, 0},   {97, 68, 44, 4, 8, 1},    {65, 72, 40, 0, 4, 8},
                         {97, 256, 44, 0, 0, 0},   {33, 256, 20, 4, 0, 4}};

// One problem: `batch` entries of op(A) (m x k) times op(B) (k x n) in config's layout, each operand
// stored with its padded leading dimension, entries a stride apart (B's 0 when shared_b, one matrix
// for all, as a weight is). Checked against a float64 reference with a K-scaled bound, for beta
// != 0 (C read) and beta == 0 over NaN (every element written), with and without a workspace for
// atomic split-K. Returns how many launches scaled C inside the GEMM.
int check_problem(const LoadedKernel& kernel, const Shape& s, int batch, bool shared_b, std::mt19937& rng) {
  const KernelConfig& config = kernel.config();
  const bool a_t = op_a_transposed(config.layout), b_t = op_b_transposed(config.layout);
  std::uniform_real_distribution<float> dist(-1, 1);
  // Stored rows: A is m x k or k x m, B is k x n or n x k.
  const int a_rows = a_t ? s.k : s.m, b_rows = b_t ? s.n : s.k;
  const int lda = (a_t ? s.m : s.k) + s.lda_pad, ldb = (b_t ? s.k : s.n) + s.ldb_pad, ldc = s.n + s.ldc_pad;
  // Odd strides between entries: every entry but the first starts misaligned where the padding is.
  const long long stride_a = static_cast<long long>(a_rows) * lda + (batch > 1 ? s.lda_pad : 0);
  const long long stride_b =
      shared_b ? 0 : static_cast<long long>(b_rows) * ldb + (batch > 1 ? s.ldb_pad : 0);
  const long long stride_c = static_cast<long long>(s.m) * ldc + (batch > 1 ? 1 : 0);
  SCOPED_TRACE(testing::Message() << s.m << "x" << s.n << "x" << s.k << " " << layout_name(config.layout)
                                  << " ld " << lda << "," << ldb << "," << ldc << " batch " << batch
                                  << (shared_b ? " (B shared)" : ""));
  if (kernel.path() != KernelPath::general) {
    const GemmArguments aligned{s.m,  s.n,     s.k, 1.0f,  nullptr,  lda,      nullptr, ldb,
                                0.0f, nullptr, ldc, batch, stride_a, stride_b, stride_c};
    if (kernel_path_for(config, aligned) < kernel.path()) {
      DeviceBuffer c(16);
      const GemmArguments args{s.m,  s.n,     s.k, 1.0f,  c.get(),  lda,      c.get(), ldb,
                               0.0f, c.get(), ldc, batch, stride_a, stride_b, stride_c};
      EXPECT_EQ(kernel.launch(args, nullptr, nullptr), cudaErrorInvalidValue)
          << "a specialised binary ran a call it cannot";
      return 0;
    }
  }
  const std::size_t a_count = std::size_t(stride_a) * (batch - 1) + std::size_t(a_rows) * lda;
  const std::size_t b_count = std::size_t(stride_b) * (batch - 1) + std::size_t(b_rows) * ldb;
  const std::size_t c_count = std::size_t(stride_c) * (batch - 1) + std::size_t(s.m) * ldc;
  std::vector<float> a(a_count), b(b_count), c0(c_count);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  for (auto& x : c0) x = dist(rng);
  std::vector<float> bias(s.n);
  for (auto& x : bias) x = dist(rng);
  DeviceBuffer da(a.size() * 4), db(b.size() * 4), dc(c0.size() * 4), dbias(bias.size() * 4);
  GEMMTUNE_CUDA_CHECK(cudaMemcpy(dbias.get(), bias.data(), bias.size() * 4, cudaMemcpyHostToDevice));
  // Atomic split-K's workspace holds a counter per tile: zeroed once, and every launch that scales
  // C in the GEMM adds exactly 2^32 to each. Without a workspace a kernel scales C first: both
  // paths run. The skinny kernels' is all zeros before and after every launch.
  const std::size_t ws_bytes = workspace_bytes(config, s.m, s.n, s.k, batch);
  const bool counters = workspace_kind(config) == WorkspaceKind::counters;
  const bool zeros = workspace_kind(config) == WorkspaceKind::zeros;
  DeviceBuffer ws(std::max<std::size_t>(16, ws_bytes));
  if (counters || zeros) GEMMTUNE_CUDA_CHECK(cudaMemset(ws.get(), 0, ws_bytes));
  unsigned long long scaled_in_gemm = 0;
  int launches_scaling_in_gemm = 0;
  GEMMTUNE_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  GEMMTUNE_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  const auto op_a = [&](int e, int i, int p) {
    return double(a[std::size_t(stride_a) * e + (a_t ? std::size_t(p) * lda + i : std::size_t(i) * lda + p)]);
  };
  const auto op_b = [&](int e, int p, int j) {
    return double(b[std::size_t(stride_b) * e + (b_t ? std::size_t(j) * ldb + p : std::size_t(p) * ldb + j)]);
  };
  // The float64 products and their magnitudes, once for every case below.
  std::vector<double> products(c0.size()), magnitudes(c0.size());
  for (int e = 0; e < batch; ++e)
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double ref = 0, mag = 0;
        for (int p = 0; p < s.k; ++p) {
          const double product = op_a(e, i, p) * op_b(e, p, j);
          ref += product;
          mag += std::fabs(product);
        }
        const std::size_t at = std::size_t(stride_c) * e + std::size_t(i) * ldc + j;
        products[at] = ref, magnitudes[at] = mag;
      }
  for (const bool give_workspace : {true, false}) {
    if (!give_workspace && !counters) continue;
    SCOPED_TRACE(give_workspace ? "with workspace" : "without workspace");
    // beta 1 is a path of its own for atomic split-K (nothing scales C first, no counting), unless a
    // bias must be added first.
    for (const auto& [beta, with_bias] :
         {std::pair{-0.5f, false}, std::pair{0.0f, false}, std::pair{1.0f, false}, std::pair{0.0f, true},
          std::pair{1.0f, true}}) {
      const float alpha = 1.5f;
      if (beta != 0) {
        GEMMTUNE_CUDA_CHECK(cudaMemcpy(dc.get(), c0.data(), c0.size() * 4, cudaMemcpyHostToDevice));
      } else {
        GEMMTUNE_CUDA_CHECK(cudaMemset(dc.get(), 0xFF, c0.size() * 4));  // NaN: must be overwritten
      }
      const GemmArguments args{
          s.m,  s.n,      s.k, alpha, da.get(), lda,      db.get(), ldb,
          beta, dc.get(), ldc, batch, stride_a, stride_b, stride_c, with_bias ? dbias.get() : nullptr};
      float* const workspace = ws_bytes > 0 && give_workspace ? ws.get() : nullptr;
      EXPECT_EQ(kernel.launch(args, workspace, nullptr), cudaSuccess);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      if (counters) {
        if (kernel.gemm_scales_c(args, workspace)) {
          scaled_in_gemm += 1ull << 32;
          ++launches_scaling_in_gemm;
        }
        std::vector<unsigned long long> counted(ws_bytes / sizeof(unsigned long long));
        GEMMTUNE_CUDA_CHECK(cudaMemcpy(counted.data(), ws.get(), ws_bytes, cudaMemcpyDeviceToHost));
        EXPECT_EQ(std::count(counted.begin(), counted.end(), scaled_in_gemm), std::ptrdiff_t(counted.size()))
            << "a tile's counter is off (beta " << beta << ")";
      }
      if (zeros && ws_bytes > 0) {
        std::vector<unsigned> left(ws_bytes / sizeof(unsigned));
        GEMMTUNE_CUDA_CHECK(cudaMemcpy(left.data(), ws.get(), ws_bytes, cudaMemcpyDeviceToHost));
        EXPECT_EQ(std::count(left.begin(), left.end(), 0u), std::ptrdiff_t(left.size()))
            << "the launch left its workspace dirty (beta " << beta << ")";
      }
      std::vector<float> got(c0.size());
      GEMMTUNE_CUDA_CHECK(cudaMemcpy(got.data(), dc.get(), got.size() * 4, cudaMemcpyDeviceToHost));
      int bad = 0;
      for (int e = 0; e < batch; ++e) {
        for (int i = 0; i < s.m && bad < 3; ++i) {
          for (int j = 0; j < s.n && bad < 3; ++j) {
            const std::size_t at = std::size_t(stride_c) * e + std::size_t(i) * ldc + j;
            const double cij = beta != 0 ? c0[at] : 0.0;
            const double bj = with_bias ? bias[j] : 0.0;
            const double expected = alpha * products[at] + beta * cij + bj;
            const double bound = (s.k + 4) * std::ldexp(1.0, -24) *
                                     (alpha * magnitudes[at] + std::fabs(beta * cij) + std::fabs(bj)) +
                                 1e-30;
            if (!(std::fabs(got[at] - expected) <= bound)) {
              ++bad;
              ADD_FAILURE() << "beta " << beta << (with_bias ? " with a bias" : "") << " entry " << e << " C["
                            << i << "][" << j << "] = " << got[at] << ", expected " << expected;
            }
          }
        }
      }
      // Nothing outside the entries' m x n elements is written: C's padding columns and the gaps
      // between entries keep what they held.
      if (beta != 0) {
        std::vector<bool> inside(c0.size(), false);
        for (int e = 0; e < batch; ++e)
          for (int i = 0; i < s.m; ++i)
            for (int j = 0; j < s.n; ++j) inside[std::size_t(stride_c) * e + std::size_t(i) * ldc + j] = true;
        std::size_t first_written = c0.size();
        for (std::size_t x = 0; x < c0.size() && first_written == c0.size(); ++x)
          if (!inside[x] && got[x] != c0[x]) first_written = x;
        EXPECT_EQ(first_written, c0.size()) << "C written outside the problem";
      }
    }
  }
  return launches_scaling_in_gemm;
}

// Compiles every config with each copy path it has on all cores (a test of many layouts compiles
// dozens of kernels), each binary once: configs that differ only in launch-time choices share it, as
// in the tuner's compile service (on the H100 machine, NVRTC's log of the second of two identical
// programs compiled at once lacked ptxas's register count).
std::vector<std::unique_ptr<LoadedKernel>> load_all(const std::vector<KernelConfig>& configs,
                                                    const DeviceProfile& device) {
  const KernelCompiler compiler{default_cache_dir()};
  std::map<std::string, std::shared_future<CompiledKernel>> binaries;
  std::vector<std::pair<KernelConfig, std::shared_future<CompiledKernel>>> compiled;
  for (const KernelConfig& config : configs)
    for (const KernelPath path : {KernelPath::general, KernelPath::whole_vectors, KernelPath::whole_tiles}) {
      if (path != KernelPath::general && config.vector_width == 1) continue;
      if (path == KernelPath::whole_tiles && !has_whole_tiles_path(config)) continue;
      auto& binary =
          binaries[config.name_expression(path) + (needs_reduction(config) ? " with its reduction" : "")];
      if (!binary.valid())
        binary = std::async(std::launch::async, [&compiler, &device, config, path] {
                   return compiler.compile(config, device.arch(), path);
                 }).share();
      compiled.emplace_back(config, binary);
    }
  std::vector<std::unique_ptr<LoadedKernel>> kernels;
  for (auto& [config, binary] : compiled) {
    try {
      kernels.push_back(std::make_unique<LoadedKernel>(binary.get(), config));
    } catch (const CompileError& e) {  // the others are still checked
      ADD_FAILURE() << config.name() << ": " << e.what() << "\n" << e.log().substr(0, 4000);
    }
  }
  return kernels;
}

std::string name_of(const LoadedKernel& kernel) {
  const char* paths[] = {" general", " whole vectors", " whole tiles"};
  return kernel.config().name() + paths[int(kernel.path())];
}

std::vector<KernelConfig> runnable(std::vector<KernelConfig> configs, const DeviceProfile& device) {
  configs.erase(std::remove_if(configs.begin(), configs.end(),
                               [&](const KernelConfig& c) {
                                 return min_compute_capability(c) > device.compute_capability;
                               }),
                configs.end());
  return configs;
}

TEST(GemmCorrectness, AllVariantsAtEdgeSizes) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceProfile device = query_device(0);
  std::mt19937 rng(42);
  for (const auto& kernel : load_all(runnable(variants(), device), device)) {
    SCOPED_TRACE(name_of(*kernel));
    int launches_scaling_in_gemm = 0;
    for (const Shape& s : kShapes) launches_scaling_in_gemm += check_problem(*kernel, s, 1, false, rng);
    if (workspace_kind(kernel->config()) == WorkspaceKind::counters) {
      EXPECT_GT(launches_scaling_in_gemm, 0) << "the GEMM never scaled C itself";
    }
  }
}

// The transposed layouts and strided batches, with every copy path (register-staged, cp.async in
// 16-byte pieces and float by float, float2 and scalar loads, whole-vector and general), split-K
// through a workspace and atomically: each variant in nt, tn and tt at every edge shape, and in all
// four layouts over batches of 3 (B shared, and not) at a few. A B stored transposed is tried in both
// shared layouts: k-major (its copies transpose it) and n-major (copied as it lies).
TEST(GemmCorrectness, EveryLayoutAndBatchAtEdgeSizes) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceProfile device = query_device(0);
  std::vector<KernelConfig> configs;
  for (const KernelConfig& base : variants())
    for (const Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt}) {
      KernelConfig c = base;
      c.layout = layout;
      configs.push_back(c);
      if (op_b_transposed(layout)) {
        c.transpose_b = true;
        c.pad_b = c.pad_b == 0 ? 4 : c.pad_b;
        configs.push_back(c);
      }
    }
  std::mt19937 rng(7);
  const Shape batched_shapes[] = {
      {17, 33, 9, 0, 0, 0}, {63, 65, 129, 1, 3, 2}, {128, 128, 128, 0, 0, 0}, {97, 68, 44, 4, 8, 1}};
  for (const auto& kernel : load_all(runnable(configs, device), device)) {
    SCOPED_TRACE(name_of(*kernel));
    if (kernel->config().layout != Layout::nn)
      for (const Shape& s : kShapes) check_problem(*kernel, s, 1, false, rng);
    for (const Shape& s : batched_shapes)
      for (const bool shared_b : {false, true}) check_problem(*kernel, s, 3, shared_b, rng);
  }
}

// The skinny families (kernel_templates/skinny.cuh) in each layout: each row tile the search picks
// for m (stream for 1 to 8 rows, tiled for 8 to 32), with split-K's in-launch reduction and without,
// on both load paths.
KernelConfig skinny_stream(int rows, int thread_n, int lanes_k, int warps_n, int k_groups, int unroll,
                           bool prefetch, int split_k) {
  KernelConfig c;
  c.family = KernelFamily::skinny_stream;
  c.block_m = rows, c.thread_n = thread_n, c.lanes_k = lanes_k, c.warps_n = warps_n, c.k_groups = k_groups;
  c.unroll = unroll, c.prefetch = prefetch, c.split_k = split_k;
  c.block_n = warps_n * (32 / lanes_k) * thread_n;
  return c;
}

KernelConfig skinny_tiled(int rows, int block_n, int block_k, int thread_m, int stages, int k_groups,
                          int min_blocks, int split_k) {
  KernelConfig c;
  c.family = KernelFamily::skinny_tiled;
  c.block_m = rows, c.block_n = block_n, c.block_k = block_k, c.thread_m = thread_m, c.thread_n = 4;
  c.stages = stages, c.k_groups = k_groups, c.min_blocks = min_blocks, c.split_k = split_k;
  return c;
}

// The row tile the search gives m rows (search_space.cpp's row_tile), with the kernel it would run.
KernelConfig skinny_for(int m, bool split, Layout layout) {
  KernelConfig c = m <= 8 ? skinny_stream(m <= 1   ? 1
                                          : m <= 2 ? 2
                                          : m <= 4 ? 4
                                                   : 8,
                                          4, 8, 2, 4, 2, false, split ? 3 : 1)
                          : skinny_tiled(m <= 16 ? 16 : 32, 128, 32, m <= 16 ? 4 : 8, 4, 2, 2, split ? 5 : 1);
  c.layout = layout;
  return c;
}

TEST(GemmCorrectness, SkinnyKernelsForEveryRowCountLayoutAndBatch) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceProfile device = query_device(0);
  std::vector<KernelConfig> configs;
  for (const Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt})
    for (const bool split : {false, true})
      for (const int m : {1, 2, 3, 4, 5, 8, 9, 16, 17, 32}) {
        const KernelConfig c = skinny_for(m, split, layout);
        if (std::find(configs.begin(), configs.end(), c) == configs.end()) configs.push_back(c);
      }
  for (const Layout layout : {Layout::nn, Layout::nt}) {  // the other kernels of each family's space
    KernelConfig wide = skinny_stream(8, 8, 4, 2, 2, 4, true, 2),
                 tiled8 = skinny_tiled(8, 64, 16, 2, 3, 1, 4, 4);
    // block_k 64: a space may offer it (the built-in one does not; docs/kernel-notes.md, session 36).
    KernelConfig deep = skinny_tiled(32, 128, 64, 8, 3, 2, 1, 3);
    wide.layout = tiled8.layout = deep.layout = layout;
    configs.push_back(wide);
    configs.push_back(tiled8);
    configs.push_back(deep);
  }
  std::mt19937 rng(11);
  for (const auto& kernel : load_all(runnable(configs, device), device)) {
    SCOPED_TRACE(name_of(*kernel));
    const int rows = kernel->config().block_m;
    // The rows it is chosen for (the least and the most), and more than one row tile; odd n and k
    // (the general path) and whole vectors (n, k and the leading dimensions multiples of 4).
    for (const int m : {std::max(1, rows / 2 + 1), rows, rows + 3})
      for (const Shape& s :
           {Shape{m, 1001, 777, 0, 0, 0}, Shape{m, 260, 516, 0, 4, 0}, Shape{m, 37, 4099, 3, 1, 2}})
        check_problem(*kernel, s, 1, false, rng);
    check_problem(*kernel, Shape{rows, 300, 200, 0, 0, 0}, 3, true, rng);
    check_problem(*kernel, Shape{rows, 97, 61, 1, 0, 0}, 2, false, rng);
  }
  // Every m from 1 to 32, in the layout of PyTorch's Linear (nt) and in nn, on odd n and k.
  for (const Layout layout : {Layout::nt, Layout::nn})
    for (int m = 1; m <= 32; ++m) {
      const auto kernels = load_all({skinny_for(m, m % 2 == 1, layout)}, device);
      for (const auto& kernel : kernels) {
        SCOPED_TRACE(name_of(*kernel));
        if (kernel->path() == KernelPath::general)
          check_problem(*kernel, Shape{m, 515, 333, 0, 0, 0}, 1, false, rng);
      }
    }
}

TEST(GemmCorrectness, ZeroSizedProblemsAreNoOps) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceProfile device = query_device(0);
  const KernelCompiler compiler{default_cache_dir()};
  const LoadedKernel kernel(compiler.compile(default_config(), device.arch()), default_config());
  DeviceBuffer c(64);
  const GemmArguments empty{0, 4, 4, 1.0f, nullptr, 4, nullptr, 4, 0.0f, c.get(), 4};
  EXPECT_EQ(kernel.launch(empty, nullptr, nullptr), cudaSuccess);
  GemmArguments no_entries = empty;
  no_entries.m = 4, no_entries.batch = 0;
  EXPECT_EQ(kernel.launch(no_entries, nullptr, nullptr), cudaSuccess);
  GemmArguments bad = empty;
  bad.ldc = 2;  // smaller than n
  EXPECT_EQ(kernel.launch(bad, nullptr, nullptr), cudaErrorInvalidValue);
  bad = no_entries;
  bad.batch = -1;
  EXPECT_EQ(kernel.launch(bad, nullptr, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace gemmtune
