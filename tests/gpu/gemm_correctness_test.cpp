// Every kind of kernel the space can express, at edge sizes (1, tile +-1, primes, odd leading
// dimensions), against a float64 CPU reference, with beta != 0 (-0.5 and 1) and with beta == 0 over
// NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "cuda_check.hpp"
#include "gemm_launch.hpp"
#include "gpu_test_support.hpp"
#include "kernel_compiler.hpp"
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

// The kernel has two main loops: whole-vector mode (K, N and the leading dimensions of A and B
// multiples of the vector width) and the general path. Both run with partial tiles in M, N and K:
// for the float4 variants the first seven shapes take the general path, the last five whole-vector
// mode, one of them (65x72x40) with ldc > N, so split-K's partials (dense, N wide) and C differ in
// row stride there.
const Shape kShapes[] = {{1, 1, 1, 0, 0, 0},       {17, 33, 9, 0, 0, 0},     {63, 65, 129, 1, 3, 2},
                         {127, 129, 131, 0, 0, 0}, {1, 257, 64, 4, 4, 4},    {97, 101, 7, 2, 0, 1},
                         {300, 1, 77, 0, 0, 0},    {128, 128, 128, 0, 0, 0}, {256, 256, 1000, 0, 0, 0},
                         {100, 36, 20, 0, 0, 0},   {97, 68, 44, 4, 8, 1},    {65, 72, 40, 0, 4, 8}};

TEST(GemmCorrectness, AllVariantsAtEdgeSizes) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceProfile device = query_device(0);
  const KernelCompiler compiler{default_cache_dir()};
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const KernelConfig& config : variants()) {
    if (min_compute_capability(config) > device.compute_capability) continue;
    SCOPED_TRACE(config.name());
    const LoadedKernel kernel(compiler.compile(config, device.arch()), config);
    int launches_scaling_in_gemm = 0;
    for (const Shape& s : kShapes) {
      const int lda = s.k + s.lda_pad, ldb = s.n + s.ldb_pad, ldc = s.n + s.ldc_pad;
      SCOPED_TRACE(testing::Message()
                   << s.m << "x" << s.n << "x" << s.k << " ld " << lda << "," << ldb << "," << ldc);
      std::vector<float> a(std::size_t(s.m) * lda), b(std::size_t(s.k) * ldb), c0(std::size_t(s.m) * ldc);
      for (auto& x : a) x = dist(rng);
      for (auto& x : b) x = dist(rng);
      for (auto& x : c0) x = dist(rng);
      DeviceBuffer da(a.size() * 4), db(b.size() * 4), dc(c0.size() * 4);
      // Atomic split-K's workspace holds a counter per tile: zeroed once, and every launch that
      // scales C in the GEMM adds exactly 2^32 to each. Without a workspace a kernel scales C
      // first: both paths run.
      const std::size_t ws_bytes = workspace_bytes(config, s.m, s.n);
      const bool counters = workspace_holds_counters(config);
      DeviceBuffer ws(std::max<std::size_t>(16, ws_bytes));
      if (counters) GEMMTUNE_CUDA_CHECK(cudaMemset(ws.get(), 0, ws_bytes));
      unsigned long long scaled_in_gemm = 0;
      GEMMTUNE_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), a.size() * 4, cudaMemcpyHostToDevice));
      GEMMTUNE_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), b.size() * 4, cudaMemcpyHostToDevice));
      for (const bool give_workspace : {true, false}) {
        if (!give_workspace && !counters) continue;
        SCOPED_TRACE(give_workspace ? "with workspace" : "without workspace");
        // beta 1 is a path of its own for atomic split-K (nothing scales C first, no counting).
        for (const float beta : {-0.5f, 0.0f, 1.0f}) {
          const float alpha = 1.5f;
          if (beta != 0) {
            GEMMTUNE_CUDA_CHECK(cudaMemcpy(dc.get(), c0.data(), c0.size() * 4, cudaMemcpyHostToDevice));
          } else {
            GEMMTUNE_CUDA_CHECK(cudaMemset(dc.get(), 0xFF, c0.size() * 4));  // NaN: must be overwritten
          }
          const GemmArguments args{s.m, s.n, s.k, alpha, da.get(), lda, db.get(), ldb, beta, dc.get(), ldc};
          float* const workspace = ws_bytes > 0 && give_workspace ? ws.get() : nullptr;
          ASSERT_EQ(kernel.launch(args, workspace, nullptr), cudaSuccess);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          if (counters) {
            if (kernel.gemm_scales_c(args, workspace)) {
              scaled_in_gemm += 1ull << 32;
              ++launches_scaling_in_gemm;
            }
            std::vector<unsigned long long> counted(ws_bytes / sizeof(unsigned long long));
            GEMMTUNE_CUDA_CHECK(cudaMemcpy(counted.data(), ws.get(), ws_bytes, cudaMemcpyDeviceToHost));
            EXPECT_EQ(std::count(counted.begin(), counted.end(), scaled_in_gemm),
                      std::ptrdiff_t(counted.size()))
                << "a tile's counter is off (beta " << beta << ")";
          }
          std::vector<float> got(c0.size());
          GEMMTUNE_CUDA_CHECK(cudaMemcpy(got.data(), dc.get(), got.size() * 4, cudaMemcpyDeviceToHost));
          int bad = 0;
          for (int i = 0; i < s.m && bad < 3; ++i) {
            for (int j = 0; j < s.n && bad < 3; ++j) {
              double ref = 0, mag = 0;
              for (int p = 0; p < s.k; ++p) {
                ref += double(a[std::size_t(i) * lda + p]) * b[std::size_t(p) * ldb + j];
                mag += std::fabs(double(a[std::size_t(i) * lda + p]) * b[std::size_t(p) * ldb + j]);
              }
              const double cij = beta != 0 ? c0[std::size_t(i) * ldc + j] : 0.0;
              const double expected = alpha * ref + beta * cij;
              const double bound =
                  (s.k + 4) * std::ldexp(1.0, -24) * (alpha * mag + std::fabs(beta * cij)) + 1e-30;
              const double value = got[std::size_t(i) * ldc + j];
              if (!(std::fabs(value - expected) <= bound)) {
                ++bad;
                ADD_FAILURE() << "beta " << beta << " C[" << i << "][" << j << "] = " << value
                              << ", expected " << expected;
              }
            }
          }
          // Padding columns of C are never written.
          if (beta != 0) {
            for (int i = 0; i < s.m; ++i) {
              for (int j = s.n; j < ldc; ++j)
                ASSERT_EQ(got[std::size_t(i) * ldc + j], c0[std::size_t(i) * ldc + j]);
            }
          }
        }
      }
    }
    if (workspace_holds_counters(config)) {
      EXPECT_GT(launches_scaling_in_gemm, 0) << "the GEMM never scaled C itself";
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
  GemmArguments bad = empty;
  bad.ldc = 2;  // smaller than n
  EXPECT_EQ(kernel.launch(bad, nullptr, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace gemmtune
