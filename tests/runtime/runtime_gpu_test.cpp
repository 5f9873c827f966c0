// The runtime library on a real GPU, through its public interface only: each lookup path (exact,
// nearest, portfolio, same architecture, cuBLAS) picks what it should and computes correct results
// against a float64 CPU reference, at odd shapes and alignments, with split-K workspaces (partial
// sums, and atomic split-K's counters), every layout and strided batches (stride 0 too) through the
// row-major and the column-major calls, from several threads on several streams at once, right
// behind a kernel still writing its inputs or reading its output (programmatic launches on sm_90),
// GEMMTUNE_RECORD from many threads and two processes, every split-K workspace kind captured
// into CUDA graphs (replays equal to eager calls), and stored cuBLASLt winners. Skips where no GPU
// is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <gemmtune/gemmtune.hpp>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <thread>

#include "core/atomic_file.hpp"
#include "core/cublaslt_matmul.hpp"
#include "core/record_file.hpp"
#include "runtime/src/stream_workspaces.hpp"

#include "results_fixtures.hpp"

namespace gemmtune {
namespace {

using namespace testing_results;

constexpr int kCublasLtCandidatesForTest = 8;

// Configs that every sm_75+ GPU runs; distinct names so the tests can see which one was chosen.
const KernelConfig kFloat2 = config(32, 64, 16, 2, 4, 2);
const KernelConfig kSplitK = config(64, 64, 16, 4, 4, 4, 4);
const KernelConfig kWide = config(128, 64, 16, 8, 4, 4);

struct Problem {
  int m, n, k, lda, ldb, ldc;
  int a_offset = 0, b_offset = 0;  // floats: misaligns the pointers
};

Problem dense(int m, int n, int k) {
  return {m, n, k, k, n, n};
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t floats) {
    EXPECT_EQ(cudaMalloc(&data_, std::max<std::size_t>(floats, 1) * sizeof(float)), cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* get() const { return data_; }

 private:
  float* data_ = nullptr;
};

// Runs one problem through handle on stream and checks every element of C (and that the padding of
// C is untouched) against a float64 reference. beta == 0 runs over a C full of NaN. with_bias: through
// gemm_bias, a row of n floats added to every row.
::testing::AssertionResult runs_correctly(const Handle& handle, const Problem& p, float beta,
                                          cudaStream_t stream, unsigned seed = 1, bool with_bias = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(std::size_t(p.m) * p.lda + p.a_offset), b(std::size_t(p.k) * p.ldb + p.b_offset),
      c0(std::size_t(p.m) * p.ldc);
  std::vector<float> bias(p.n, 0.0f);
  for (auto* v : {&a, &b, &c0, &bias})
    for (float& x : *v) x = uniform(rng);
  if (!with_bias) std::fill(bias.begin(), bias.end(), 0.0f);
  if (beta == 0) std::fill(c0.begin(), c0.end(), NAN);
  DeviceBuffer da(a.size()), db(b.size()), dc(c0.size()), dbias(bias.size());
  cudaMemcpyAsync(da.get(), a.data(), a.size() * 4, cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(db.get(), b.data(), b.size() * 4, cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(dc.get(), c0.data(), c0.size() * 4, cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(dbias.get(), bias.data(), bias.size() * 4, cudaMemcpyHostToDevice, stream);
  const float alpha = 1.25f;
  const GemmProblem problem{p.m, p.n, p.k, p.lda, p.ldb, p.ldc};
  const Status status = with_bias ? handle.gemm_bias(problem, alpha, da.get() + p.a_offset, db.get() + p.b_offset,
                                                     beta, dbias.get(), dc.get(), stream)
                                  : handle.sgemm(problem, alpha, da.get() + p.a_offset, db.get() + p.b_offset, beta,
                                                 dc.get(), stream);
  if (status != Status::success) return ::testing::AssertionFailure() << "sgemm: " << status_name(status);
  std::vector<float> got(c0.size());
  cudaMemcpyAsync(got.data(), dc.get(), got.size() * 4, cudaMemcpyDeviceToHost, stream);
  if (const cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess)
    return ::testing::AssertionFailure() << cudaGetErrorString(err);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.ldc; ++j) {
      const float value = got[std::size_t(i) * p.ldc + j];
      if (j >= p.n) {  // padding: never written
        const float before = c0[std::size_t(i) * p.ldc + j];
        if (!(value == before || (std::isnan(value) && std::isnan(before))))
          return ::testing::AssertionFailure() << "padding C[" << i << "][" << j << "] was written";
        continue;
      }
      double sum = 0, magnitude = 0;
      for (int q = 0; q < p.k; ++q) {
        const double term =
            double(a[p.a_offset + std::size_t(i) * p.lda + q]) * b[p.b_offset + std::size_t(q) * p.ldb + j];
        sum += term;
        magnitude += std::fabs(term);
      }
      const double c_in = beta != 0 ? c0[std::size_t(i) * p.ldc + j] : 0.0;
      const double expected = alpha * sum + beta * c_in + bias[j];
      const double bound =
          (p.k + 4) * std::ldexp(1.0, -24) * (alpha * magnitude + std::fabs(beta * c_in) + std::fabs(bias[j])) +
          1e-30;
      if (!(std::fabs(value - expected) <= bound))
        return ::testing::AssertionFailure() << p.m << "x" << p.n << "x" << p.k << ": C[" << i << "][" << j
                                             << "] = " << value << ", expected " << expected;
    }
  }
  return ::testing::AssertionSuccess();
}

// Any layout and batch, row-major through sgemm or column-major through sgemm_strided_batched_cm
// (the same memory seen transposed), checked element by element against a float64 reference.
::testing::AssertionResult general_runs_correctly(const Handle& handle, const GemmProblem& p, float beta,
                                                  bool column_major, unsigned seed = 3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const int a_rows = p.op_a == Op::n ? p.m : p.k, b_rows = p.op_b == Op::n ? p.k : p.n;
  const std::size_t batches = std::max(1, p.batch);
  auto extent = [&](long long stride, std::size_t one) { return std::size_t(stride) * (batches - 1) + one; };
  std::vector<float> a(extent(p.stride_a, std::size_t(a_rows) * p.lda)),
      b(extent(p.stride_b, std::size_t(b_rows) * p.ldb)), c0(extent(p.stride_c, std::size_t(p.m) * p.ldc));
  for (auto* v : {&a, &b, &c0})
    for (float& x : *v) x = uniform(rng);
  if (beta == 0) std::fill(c0.begin(), c0.end(), NAN);
  DeviceBuffer da(a.size()), db(b.size()), dc(c0.size());
  cudaMemcpy(da.get(), a.data(), a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db.get(), b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dc.get(), c0.data(), c0.size() * 4, cudaMemcpyHostToDevice);
  const float alpha = 0.75f;
  const Status status =
      column_major ? handle.sgemm_strided_batched_cm(p.op_b, p.op_a, p.n, p.m, p.k, &alpha, db.get(), p.ldb,
                                                     p.stride_b, da.get(), p.lda, p.stride_a, &beta, dc.get(), p.ldc,
                                                     p.stride_c, p.batch)
                   : handle.sgemm(p, alpha, da.get(), db.get(), beta, dc.get(), nullptr);
  if (status != Status::success) return ::testing::AssertionFailure() << "call: " << status_name(status);
  std::vector<float> got(c0.size());
  if (const cudaError_t err = cudaMemcpy(got.data(), dc.get(), got.size() * 4, cudaMemcpyDeviceToHost);
      err != cudaSuccess)
    return ::testing::AssertionFailure() << cudaGetErrorString(err);
  for (std::size_t e = 0; e < batches; ++e) {
    const float* ea = a.data() + e * p.stride_a;
    const float* eb = b.data() + e * p.stride_b;
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        double sum = 0, magnitude = 0;
        for (int q = 0; q < p.k; ++q) {
          const double x = p.op_a == Op::n ? ea[std::size_t(i) * p.lda + q] : ea[std::size_t(q) * p.lda + i];
          const double y = p.op_b == Op::n ? eb[std::size_t(q) * p.ldb + j] : eb[std::size_t(j) * p.ldb + q];
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        const std::size_t at = e * p.stride_c + std::size_t(i) * p.ldc + j;
        const double c_in = beta != 0 ? c0[at] : 0.0;
        const double expected = alpha * sum + beta * c_in;
        const double bound = (p.k + 4) * std::ldexp(1.0, -24) * (alpha * magnitude + std::fabs(beta * c_in)) + 1e-30;
        if (!(std::fabs(got[at] - expected) <= bound))
          return ::testing::AssertionFailure() << "batch " << e << " C[" << i << "][" << j << "] = " << got[at]
                                               << ", expected " << expected;
      }
  }
  return ::testing::AssertionSuccess();
}

class RuntimeGpu : public TempDir {
 protected:
  void SetUp() override {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no CUDA device";
    TempDir::SetUp();
    int device = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    device_ = query_device(device);
  }

  // A results file for this GPU (or one that pretends to be another GPU model) with the given entries.
  std::string results(const std::vector<nlohmann::json>& entries, const std::string& name = "",
                      int compute_capability = 0) {
    DeviceProfile device = device_;
    if (!name.empty()) {
      device.name = name;
      device.slug = slugify(name);
    }
    if (compute_capability) device.compute_capability = compute_capability;
    const auto path = dir_ / (device.slug + ".json");
    write(path, document(device, entries).dump());
    return path.string();
  }

  // Like results(), in schema 2: entries from raced_entry, or a portfolio grid.
  std::string results_v2(const nlohmann::json& document) {
    const auto path = dir_ / (device_.slug + (document["kind"] == "portfolio" ? "-portfolio.json" : ".json"));
    write(path, document.dump());
    return path.string();
  }

  KernelChoice choice(const Handle& handle, const Problem& p) {
    KernelChoice c;
    EXPECT_EQ(handle.choose({p.m, p.n, p.k, p.lda, p.ldb, p.ldc}, nullptr, nullptr, c), Status::success);
    return c;
  }

  DeviceProfile device_;
};

TEST_F(RuntimeGpu, ExactAndNearestShapesRunTheTunedConfig) {
  const Handle handle(results_v2(document_v2(
      device_, {raced_entry(200, 300, 100, kFloat2, 2.0), raced_entry(2000, 2000, 2000, kWide, 2.0)})));
  ASSERT_EQ(handle.status(), Status::success) << handle.status_message();
  EXPECT_EQ(handle.device_slug(), device_.slug);
  const KernelChoice exact = choice(handle, dense(200, 300, 100));
  EXPECT_EQ(exact.source, ConfigSource::exact_shape);
  EXPECT_EQ(exact.config_name, kFloat2.name());
  EXPECT_TRUE(runs_correctly(handle, dense(200, 300, 100), 0.5f, nullptr));
  const KernelChoice near = choice(handle, dense(190, 310, 120));
  EXPECT_EQ(near.source, ConfigSource::nearest_shape);
  EXPECT_EQ(near.config_name, kFloat2.name()) << near.reason;
  EXPECT_TRUE(runs_correctly(handle, dense(190, 310, 120), 0.5f, nullptr));
  EXPECT_EQ(choice(handle, dense(1900, 2100, 1800)).config_name, kWide.name());
  EXPECT_TRUE(runs_correctly(handle, dense(1900, 2100, 180), -1.0f, nullptr));
  for (const float beta : {0.0f, 0.5f})  // a bias row: added by the kernel as it stores C
    EXPECT_TRUE(runs_correctly(handle, {190, 310, 120, 121, 311, 313}, beta, nullptr, 2, true));
}

TEST_F(RuntimeGpu, SameArchitectureThenCublas) {
  nlohmann::json sibling_entry = entry(256, 256, 256, kFloat2);
  sibling_entry["ratio_vs_cublas"] = 2.0;
  const Handle sibling(results({sibling_entry}, "Some Other GPU Of This Architecture"));
  EXPECT_EQ(sibling.status(), Status::results_for_other_device);
  const KernelChoice from_sibling = choice(sibling, dense(250, 260, 270));
  EXPECT_EQ(from_sibling.source, ConfigSource::same_architecture);
  EXPECT_EQ(from_sibling.config_name, kFloat2.name());
  EXPECT_TRUE(runs_correctly(sibling, dense(250, 260, 270), 0.0f, nullptr));

  const Handle stranger(results({entry(256, 256, 256, kFloat2)}, "A GPU Of Another Architecture", 61));
  EXPECT_EQ(stranger.status(), Status::results_for_other_device);
  EXPECT_EQ(choice(stranger, dense(256, 256, 256)).source, ConfigSource::built_in_default);
  EXPECT_TRUE(runs_correctly(stranger, dense(256, 256, 256), 0.5f, nullptr));

  const Handle nothing((dir_ / "empty").string());
  EXPECT_EQ(nothing.status(), Status::results_not_found);
  const KernelChoice fallback = choice(nothing, dense(100, 100, 100));
  EXPECT_EQ(fallback.source, ConfigSource::built_in_default);
  EXPECT_EQ(fallback.implementation, Implementation::cublas);
  EXPECT_EQ(fallback.config_name, "cublas");
  EXPECT_TRUE(runs_correctly(nothing, dense(100, 100, 100), 0.5f, nullptr));
}

// cuBLAS serves every path that can end in it, with correct results: a problem whose race cuBLAS won,
// a call too far from anything tuned, a portfolio cell where no kernel beat it, an unaligned call.
TEST_F(RuntimeGpu, CublasRunsWhereNoKernelIsExpectedToWin) {
  std::vector<nlohmann::json> cells;
  for (int m : {64, 256})
    for (int n : {64, 256})
      for (int k : {64, 256}) cells.push_back(portfolio_cell(m, n, k, {{kWide, 1.01}, {kFloat2, 0.8}}));
  results_v2(portfolio_document(device_, cells));
  results_v2(
      document_v2(device_, {raced_entry(300, 200, 100, kWide, 0.95), raced_entry(1000, 1000, 1000, kWide, 1.5)}));
  const Handle handle(dir_.string());  // both files
  ASSERT_EQ(handle.status(), Status::success) << handle.status_message();
  const std::pair<Problem, ConfigSource> cases[] = {{dense(300, 200, 100), ConfigSource::exact_shape},
                                                    {dense(7, 9, 20000), ConfigSource::built_in_default},
                                                    {dense(100, 150, 200), ConfigSource::portfolio},
                                                    {{1000, 1000, 1000, 1001, 1000, 1000}, ConfigSource::exact_shape}};
  for (const auto& [p, source] : cases) {
    SCOPED_TRACE(::testing::Message() << p.m << "x" << p.n << "x" << p.k);
    const KernelChoice c = choice(handle, p);
    EXPECT_EQ(c.implementation, Implementation::cublas) << c.reason;
    EXPECT_EQ(c.source, source) << c.reason;
    EXPECT_TRUE(runs_correctly(handle, p, 0.0f, nullptr));
    EXPECT_TRUE(runs_correctly(handle, p, 0.5f, nullptr));
    // A bias row: C = beta * C + bias first (LoadedBiasPass), then cuBLAS with beta = 1.
    EXPECT_TRUE(runs_correctly(handle, p, 0.0f, nullptr, 4, true));
    EXPECT_TRUE(runs_correctly(handle, p, -0.5f, nullptr, 5, true));
  }
  EXPECT_EQ(choice(handle, dense(1000, 1000, 1000)).implementation, Implementation::tuned_kernel);
}

// A stored cuBLASLt winner runs at its problem (choose says so) and computes correctly; an
// algorithm this cuBLAS refuses is replaced by the heuristic's first choice (the reason says so);
// a call with other leading dimensions runs cuBLAS's default call, as correctly.
TEST_F(RuntimeGpu, CublasLtWinnersRunAndRefusedOnesFallBack) {
  cublasLtHandle_t lt = nullptr;
  ASSERT_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  CublasLtAlgo stored;
  {
    const CublasLtMatmul matmul(lt, Layout::nn, Precision::fp32, false,
                                GemmArguments{48, 320, 272, 1, nullptr, 272, nullptr, 320, 0, nullptr, 320});
    const std::vector<CublasLtChoice> choices = matmul.heuristic(kCublasLtCandidatesForTest);
    ASSERT_FALSE(choices.empty());
    stored = matmul.written_down(choices.back());  // not the first choice, where there are several
  }
  cublasLtDestroy(lt);
  CublasLtAlgo refused = stored;
  refused.id = 999999;
  results_v2(document_v3(device_, {cublaslt_entry(48, 320, 272, kWide, stored),
                                   cublaslt_entry(40, 320, 272, kWide, refused)}));
  const Handle handle(dir_.string());
  ASSERT_EQ(handle.status(), Status::success) << handle.status_message();
  const KernelChoice runs = choice(handle, dense(48, 320, 272));
  EXPECT_EQ(runs.implementation, Implementation::cublaslt) << runs.reason;
  EXPECT_EQ(runs.config_name, "cublaslt");
  EXPECT_TRUE(runs_correctly(handle, dense(48, 320, 272), 0.0f, nullptr));
  EXPECT_TRUE(runs_correctly(handle, dense(48, 320, 272), 0.5f, nullptr));
  EXPECT_TRUE(runs_correctly(handle, dense(48, 320, 272), 0.0f, nullptr, 6, true));  // the bias first
  const KernelChoice first = choice(handle, dense(40, 320, 272));
  EXPECT_EQ(first.implementation, Implementation::cublaslt) << first.reason;
  EXPECT_NE(first.reason.find("refused"), std::string::npos) << first.reason;
  EXPECT_TRUE(runs_correctly(handle, dense(40, 320, 272), 0.5f, nullptr));
  const Problem padded{48, 320, 272, 280, 328, 330};
  const KernelChoice other = choice(handle, padded);
  EXPECT_EQ(other.implementation, Implementation::cublas) << other.reason;
  EXPECT_TRUE(runs_correctly(handle, padded, 0.0f, nullptr));
  EXPECT_TRUE(runs_correctly(handle, padded, 0.5f, nullptr));
}

// Every layout, batches with and without a shared (stride 0) B, at edge sizes, through both calls.
// Kernels tuned for every layout and batch run those calls (choose says so), through the row-major
// call and cublasSgemmStridedBatched's column-major one alike, with odd leading dimensions and
// strides; and in a layout nobody tuned, cuBLAS runs them just as correctly.
TEST_F(RuntimeGpu, EveryLayoutAndStridedBatchesThroughBothCalls) {
  struct Case {
    int m, n, k, batch;
    bool shared_b;
  };
  const Case cases[] = {{1, 1, 1, 1, false},   {65, 63, 129, 1, false}, {64, 64, 64, 1, false},
                        {17, 31, 7, 3, false}, {33, 65, 64, 4, true},   {127, 129, 131, 2, true}};
  // A margin that survives the misaligned rows' discount.
  std::vector<nlohmann::json> entries;
  for (const Case& c : cases)
    for (const Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt}) {
      KernelConfig config = kWide;
      config.layout = layout;
      nlohmann::json e = raced_entry(c.m, c.n, c.k, config, 5.0);
      e["layout"] = layout_name(layout);
      e["batch"] = c.batch;
      entries.push_back(e);
    }
  const Handle handle(results_v2(document_v2(device_, entries)));
  for (const Case& c : cases)
    for (const Op op_a : {Op::n, Op::t})
      for (const Op op_b : {Op::n, Op::t})
        for (const bool column_major : {false, true}) {
          GemmProblem p;
          p.m = c.m, p.n = c.n, p.k = c.k, p.op_a = op_a, p.op_b = op_b, p.batch = c.batch;
          p.lda = (op_a == Op::n ? c.k : c.m) + 3;  // odd leading dimensions
          p.ldb = (op_b == Op::n ? c.n : c.k) + 1;
          p.ldc = c.n + 2;
          p.stride_a = static_cast<long long>(op_a == Op::n ? c.m : c.k) * p.lda + 5;
          p.stride_b = c.shared_b ? 0 : static_cast<long long>(op_b == Op::n ? c.k : c.n) * p.ldb;
          p.stride_c = static_cast<long long>(c.m) * p.ldc;
          SCOPED_TRACE(::testing::Message() << c.m << "x" << c.n << "x" << c.k << " batch " << c.batch << " op_a "
                                            << int(op_a) << " op_b " << int(op_b) << " column-major "
                                            << column_major);
          KernelChoice chosen;
          ASSERT_EQ(handle.choose(p, nullptr, nullptr, chosen), Status::success);
          EXPECT_EQ(chosen.implementation, Implementation::tuned_kernel) << chosen.reason;
          EXPECT_TRUE(general_runs_correctly(handle, p, 0.0f, column_major));
          EXPECT_TRUE(general_runs_correctly(handle, p, -0.5f, column_major));
        }
  // Nothing tuned for these: cuBLAS, as correct.
  const Handle untuned(results_v2(document_v2(device_, {raced_entry(64, 64, 64, kWide, 2.0)})));
  for (const Op op_a : {Op::n, Op::t}) {
    GemmProblem p;
    p.m = 65, p.n = 63, p.k = 129, p.op_a = op_a, p.op_b = Op::t, p.batch = 2;
    p.lda = op_a == Op::n ? p.k : p.m, p.ldb = p.k, p.ldc = p.n;
    p.stride_a = static_cast<long long>(p.m) * p.k, p.stride_b = 0, p.stride_c = static_cast<long long>(p.m) * p.n;
    KernelChoice chosen;
    ASSERT_EQ(untuned.choose(p, nullptr, nullptr, chosen), Status::success);
    EXPECT_EQ(chosen.implementation, Implementation::cublas) << chosen.reason;
    EXPECT_TRUE(general_runs_correctly(untuned, p, -0.5f, false));
  }
  // Invalid arguments never launch.
  GemmProblem bad;
  bad.m = bad.n = bad.k = 8, bad.lda = 7, bad.ldb = 8, bad.ldc = 8;
  alignas(16) static float x[64];
  EXPECT_EQ(handle.sgemm(bad, 1, x, x, 0, x, nullptr), Status::invalid_argument);
  bad.lda = 8, bad.batch = 2, bad.stride_c = 8;
  EXPECT_EQ(handle.sgemm(bad, 1, x, x, 0, x, nullptr), Status::invalid_argument);
  bad.batch = -1;
  EXPECT_EQ(handle.sgemm(bad, 1, x, x, 0, x, nullptr), Status::invalid_argument);
  const float one = 1;
  EXPECT_EQ(handle.sgemm_cm(Op::n, Op::n, 8, 8, 8, &one, x, 7, x, 8, &one, x, 8), Status::invalid_argument);
  EXPECT_EQ(handle.sgemm_cm(Op::n, Op::n, 8, 8, 8, nullptr, x, 8, x, 8, &one, x, 8), Status::invalid_argument);
}

TEST_F(RuntimeGpu, OddShapesAlignmentsAndEmptyK) {
  // Each problem tuned with a scalar kernel, so the kernels (not cuBLAS) meet the edges.
  const KernelConfig scalar = config(32, 64, 16, 2, 4, 1);
  const Problem problems[] = {dense(1, 1, 1),
                              dense(17, 33, 9),
                              {63, 65, 129, 130, 66, 67},
                              {1, 257, 64, 68, 261, 260},
                              dense(300, 1, 77),
                              {97, 101, 7, 9, 101, 102},
                              {128, 128, 128, 128, 128, 128, 1, 2},
                              {65, 129, 33, 33, 129, 130, 3, 1},
                              {40, 50, 0, 1, 50, 50}};
  std::vector<nlohmann::json> entries = {raced_entry(128, 128, 128, kFloat2, 2.0)};
  for (const Problem& p : problems)
    if (p.k > 0 && !(p.m == 128 && p.n == 128 && p.k == 128)) entries.push_back(raced_entry(p.m, p.n, p.k, scalar, 2.0));
  const Handle handle(results_v2(document_v2(device_, entries)));
  for (const Problem& p : problems) {
    for (const float beta : {0.0f, -0.5f}) {
      SCOPED_TRACE(::testing::Message() << p.m << "x" << p.n << "x" << p.k << " offsets " << p.a_offset << ","
                                        << p.b_offset << " beta " << beta);
      EXPECT_TRUE(runs_correctly(handle, p, beta, nullptr));
    }
  }
  // An unaligned call is a different lookup from the aligned one of the same shape.
  KernelChoice aligned, unaligned;
  ASSERT_EQ(handle.choose({128, 128, 128, 128, 128, 128}, nullptr, nullptr, aligned), Status::success);
  ASSERT_EQ(handle.choose({128, 128, 128, 129, 128, 128}, nullptr, nullptr, unaligned), Status::success);
  EXPECT_EQ(aligned.source, ConfigSource::exact_shape);
  EXPECT_EQ(aligned.implementation, Implementation::tuned_kernel);
  EXPECT_EQ(unaligned.source, ConfigSource::exact_shape);
  // kFloat2 loads 2 floats; its 2x margin survives what scalar rows may cost it (sqrt(2)).
  EXPECT_EQ(unaligned.implementation, Implementation::tuned_kernel) << unaligned.reason;
}

TEST_F(RuntimeGpu, SplitKWorkspaceGrowsOnTheSameStream) {
  const Handle handle(results({entry(96, 80, 700, kSplitK), entry(300, 200, 1000, kSplitK)}));
  EXPECT_EQ(choice(handle, dense(96, 80, 700)).config_name, kSplitK.name());
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.5f, stream));
  EXPECT_TRUE(runs_correctly(handle, dense(300, 200, 1000), 0.0f, stream));  // larger workspace
  EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.5f, stream, 7));
  EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.5f, cudaStreamPerThread, 8));
  cudaStreamDestroy(stream);
}

// Atomic split-K runs as tuned (correct, no workspace), and GEMMTUNE_DETERMINISTIC, read when a
// handle is created, turns it into the workspace reduction (a fixed order of additions).
TEST_F(RuntimeGpu, AtomicSplitKAndDeterministicMode) {
  KernelConfig atomic = kSplitK;
  atomic.split_k_atomic = true;
  const std::string path = results({entry(96, 80, 700, atomic)});
  {
    const Handle handle(path);
    EXPECT_EQ(choice(handle, dense(96, 80, 700)).config_name, atomic.name());
    EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.5f, nullptr));
    EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.0f, nullptr));
    EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 1.0f, nullptr));  // nothing scales C first
    for (const float beta : {0.0f, 1.0f})  // with a bias the kernel over C adds it first, whatever beta
      EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), beta, nullptr, 7, true));
  }
  ASSERT_EQ(setenv("GEMMTUNE_DETERMINISTIC", "1", 1), 0);
  const Handle handle(path);
  ASSERT_EQ(unsetenv("GEMMTUNE_DETERMINISTIC"), 0);
  const KernelChoice chosen = choice(handle, dense(96, 80, 700));
  EXPECT_EQ(chosen.config_name, kSplitK.name());
  EXPECT_NE(chosen.reason.find("GEMMTUNE_DETERMINISTIC"), std::string::npos) << chosen.reason;
  EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.5f, nullptr));
  EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.5f, nullptr, 8, true));  // the reduction adds it
}

// A kernel that lets programmatic dependents launch at once, then stays busy for a while before it
// copies src to dst: whatever the library launches after it may start long before the copy, and
// must wait for it (griddepcontrol.wait) before touching dst or src.
class LateCopy {
 public:
  explicit LateCopy(const std::string& arch) {
    const char* source = R"(
extern "C" __global__ void late_copy(float* dst, const float* src, long long n, unsigned long long busy_ns) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); while (now - start < busy_ns);
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[i];
})";
    nvrtcProgram program = nullptr;
    EXPECT_EQ(nvrtcCreateProgram(&program, source, "late_copy.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
    const std::string option = "--gpu-architecture=" + arch;
    const char* options[] = {option.c_str()};
    EXPECT_EQ(nvrtcCompileProgram(program, 1, options), NVRTC_SUCCESS);
    std::size_t size = 0;
    EXPECT_EQ(nvrtcGetCUBINSize(program, &size), NVRTC_SUCCESS);
    std::string cubin(size, '\0');
    EXPECT_EQ(nvrtcGetCUBIN(program, cubin.data()), NVRTC_SUCCESS);
    nvrtcDestroyProgram(&program);
    EXPECT_EQ(cudaLibraryLoadData(&library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              cudaSuccess);
    EXPECT_EQ(cudaLibraryGetKernel(&kernel_, library_, "late_copy"), cudaSuccess);
  }
  ~LateCopy() { cudaLibraryUnload(library_); }

  // A few blocks only, so the library's kernels find room on the GPU while this one is busy.
  cudaError_t launch(float* dst, const float* src, long long n, cudaStream_t stream) const {
    unsigned long long busy_ns = 200000;
    void* params[] = {&dst, &src, &n, &busy_ns};
    return cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(4), dim3(256), params, 0, stream);
  }

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
};

// On sm_90 every kernel the library launches is a programmatic dependent of the stream's previous
// kernel, so it may start before that kernel ends and must wait for it before touching memory. For
// each reduction (none, the workspace, atomic split-K with its scaling kernel): a kernel still
// copying A's values into A when the call is made (read after write), and one still saving C's
// old values when the call overwrites C (write after read). A starts as NaN. Without the waits
// both fail (checked with a build that leaves them out); before sm_90 there is nothing to test.
TEST_F(RuntimeGpu, EveryCallWaitsForTheKernelBeforeIt) {
  if (device_.compute_capability < 90) GTEST_SKIP() << "no programmatic dependent launch before sm_90";
  KernelConfig atomic = kSplitK;
  atomic.split_k_atomic = true;
  const int m = 256, k = 512;
  const std::pair<int, KernelConfig> cases[] = {{256, kWide}, {192, kSplitK}, {128, atomic}};  // n, config
  std::vector<nlohmann::json> entries;
  for (const auto& [n, config] : cases) entries.push_back(entry(m, n, k, config));
  const Handle handle(results(entries));
  const LateCopy late_copy(device_.arch());

  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * 256), c_old(std::size_t(m) * 256);
  for (auto* v : {&a, &b, &c_old})
    for (float& x : *v) x = uniform(rng);
  const std::vector<float> nan(a.size(), NAN);
  DeviceBuffer da(a.size()), da_source(a.size()), db(b.size()), dc(c_old.size()), dc_saved(c_old.size());
  cudaMemcpy(da_source.get(), a.data(), a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db.get(), b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (const auto& [n, config] : cases) {
    SCOPED_TRACE(config.name());
    ASSERT_EQ(choice(handle, dense(m, n, k)).config_name, config.name());
    cudaMemcpy(da.get(), nan.data(), nan.size() * 4, cudaMemcpyHostToDevice);
    ASSERT_EQ(late_copy.launch(da.get(), da_source.get(), static_cast<long long>(a.size()), stream),
              cudaSuccess);
    ASSERT_EQ(handle.sgemm({m, n, k, k, n, n}, 1.0f, da.get(), db.get(), 0.0f, dc.get(), stream),
              Status::success);
    std::vector<float> c(std::size_t(m) * n);
    cudaMemcpyAsync(c.data(), dc.get(), c.size() * 4, cudaMemcpyDeviceToHost, stream);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    // One failure per case and direction is enough, and every case still runs.
    auto first_wrong_element = [&]() -> std::string {
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double sum = 0, magnitude = 0;
          for (int q = 0; q < k; ++q) {  // B is k x n with ldb n, in a buffer sized for the widest case
            const double term = double(a[std::size_t(i) * k + q]) * b[std::size_t(q) * n + j];
            sum += term;
            magnitude += std::fabs(term);
          }
          const float got = c[std::size_t(i) * n + j];
          if (!(std::fabs(got - sum) <= (k + 4) * std::ldexp(1.0, -24) * magnitude))
            return "C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(got) +
                   ", expected " + std::to_string(sum);
        }
      return "";
    };
    const std::string wrong = first_wrong_element();
    EXPECT_EQ(wrong, "") << "read A before the kernel before the call had written it";

    cudaMemcpy(dc.get(), c_old.data(), std::size_t(m) * n * 4, cudaMemcpyHostToDevice);
    ASSERT_EQ(late_copy.launch(dc_saved.get(), dc.get(), static_cast<long long>(m) * n, stream), cudaSuccess);
    ASSERT_EQ(handle.sgemm({m, n, k, k, n, n}, 1.0f, da.get(), db.get(), 0.0f, dc.get(), stream),
              Status::success);
    std::vector<float> saved(std::size_t(m) * n);
    cudaMemcpyAsync(saved.data(), dc_saved.get(), saved.size() * 4, cudaMemcpyDeviceToHost, stream);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_TRUE(std::equal(saved.begin(), saved.end(), c_old.begin()))
        << "overwrote C before the kernel before the call had read it";
  }
  cudaStreamDestroy(stream);
}

TEST_F(RuntimeGpu, ManyThreadsAndStreamsAtOnce) {
  const Handle handle(
      results({entry(96, 80, 700, kSplitK), entry(200, 300, 100, kFloat2), entry(512, 256, 64, kWide)}));
  const Problem problems[] = {dense(96, 80, 700),  dense(200, 300, 100), dense(512, 256, 64),
                              dense(150, 250, 90), dense(33, 47, 500),   {61, 67, 71, 73, 69, 70, 1, 3}};
  constexpr int kThreads = 8;
  std::vector<cudaStream_t> streams(kThreads, nullptr);
  for (int t = 0; t < kThreads; ++t) {
    if (t % 4 == 1)
      streams[t] = cudaStreamPerThread;  // one handle value, a different stream per thread
    else if (t % 4 == 2)
      streams[t] = nullptr;  // the legacy default stream, shared by these threads
    else
      ASSERT_EQ(cudaStreamCreateWithFlags(&streams[t], cudaStreamNonBlocking), cudaSuccess);
  }
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 6; ++round) {
        for (std::size_t i = 0; i < std::size(problems); ++i) {
          const Problem& p = problems[(i + t) % std::size(problems)];
          if (!runs_correctly(handle, p, round % 2 ? 0.0f : 0.75f, streams[t], unsigned(t * 100 + round)))
            ++failures[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], 0) << "thread " << t;
    if (t % 4 == 0 || t % 4 == 3) cudaStreamDestroy(streams[t]);
  }
}

TEST_F(RuntimeGpu, HostileResultsStillComputeCorrectly) {
  nlohmann::json doc = document(device_, {entry(128, 128, 128, kWide)});
  doc["entries"][0]["best"]["config"]["block_m"] = "128>(); __trap(); template<int";
  write(dir_ / "hostile.json", doc.dump());
  const Handle handle((dir_ / "hostile.json").string());
  EXPECT_EQ(handle.status(), Status::invalid_results);
  EXPECT_EQ(choice(handle, dense(128, 128, 128)).source, ConfigSource::built_in_default);
  EXPECT_TRUE(runs_correctly(handle, dense(128, 128, 128), 0.5f, nullptr));
}

// The calls one process makes for GEMMTUNE_RECORD tests: 8 threads, every problem 25 times each.
const Problem kRecorded[] = {dense(96, 80, 700), dense(200, 300, 100), {61, 67, 71, 73, 69, 70, 1, 3}};
constexpr int kRecordThreads = 8, kRecordRounds = 25;

void make_recorded_calls(const Handle& handle) {
  DeviceBuffer a(1 << 20), b(1 << 20), c(1 << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < kRecordThreads; ++t)
    threads.emplace_back([&] {
      for (int round = 0; round < kRecordRounds; ++round)
        for (const Problem& p : kRecorded)
          EXPECT_EQ(handle.sgemm({p.m, p.n, p.k, p.lda, p.ldb, p.ldc}, 1, a.get() + p.a_offset, b.get() + p.b_offset,
                                 0, c.get(), cudaStreamPerThread),
                    Status::success);
      cudaStreamSynchronize(cudaStreamPerThread);
    });
  for (auto& thread : threads) thread.join();
}

::testing::AssertionResult recorded_counts_are(const std::filesystem::path& path, std::uint64_t each) {
  const auto text = read_whole_file(path);
  if (!text) return ::testing::AssertionFailure() << "no record file " << path;
  const std::vector<RecordedProblem> problems = parse_record(*text, path.string());
  if (problems.size() != std::size(kRecorded))
    return ::testing::AssertionFailure() << problems.size() << " problems recorded:\n" << *text;
  for (const RecordedProblem& r : problems) {
    if (r.calls != each) return ::testing::AssertionFailure() << "a problem has " << r.calls << " calls:\n" << *text;
    const bool known = std::any_of(std::begin(kRecorded), std::end(kRecorded), [&](const Problem& p) {
      return p.m == r.problem.m && p.n == r.problem.n && p.k == r.problem.k && r.aligned_width == (p.a_offset ? 1 : 4);
    });
    if (!known) return ::testing::AssertionFailure() << "unexpected problem:\n" << *text;
  }
  return ::testing::AssertionSuccess();
}

TEST_F(RuntimeGpu, RecordsEveryProblemFromManyThreads) {
  const auto path = dir_ / "calls.jsonl";
  ASSERT_EQ(setenv("GEMMTUNE_RECORD", path.c_str(), 1), 0);
  {
    const Handle handle(results({entry(96, 80, 700, kSplitK)}));
    ASSERT_EQ(unsetenv("GEMMTUNE_RECORD"), 0);
    make_recorded_calls(handle);
  }  // written here
  EXPECT_TRUE(recorded_counts_are(path, kRecordThreads * kRecordRounds));
  {
    ASSERT_EQ(setenv("GEMMTUNE_RECORD", path.c_str(), 1), 0);
    const Handle again(results({entry(96, 80, 700, kSplitK)}));
    ASSERT_EQ(unsetenv("GEMMTUNE_RECORD"), 0);
    make_recorded_calls(again);
  }
  EXPECT_TRUE(recorded_counts_are(path, 2 * kRecordThreads * kRecordRounds));  // merged, not replaced
}

// Run by RecordsFromTwoProcessesAtOnce in child processes only (GEMMTUNE_RECORD_CHILD set).
TEST_F(RuntimeGpu, RecordChild) {
  if (!std::getenv("GEMMTUNE_RECORD_CHILD")) GTEST_SKIP() << "a child of RecordsFromTwoProcessesAtOnce";
  static const Handle* leaked = new Handle(std::string{});  // never destroyed: the exit hook writes it
  make_recorded_calls(*leaked);
}

TEST_F(RuntimeGpu, RecordsFromTwoProcessesAtOnce) {
  const auto path = dir_ / "two.jsonl";
  const std::string record = "GEMMTUNE_RECORD=" + path.string();
  char filter[] = "--gtest_filter=RuntimeGpu.RecordChild";
  char child_flag[] = "GEMMTUNE_RECORD_CHILD=1";
  std::vector<char> record_env(record.begin(), record.end());
  record_env.push_back('\0');
  char* argv[] = {const_cast<char*>("/proc/self/exe"), filter, nullptr};
  char* envp[] = {record_env.data(), child_flag, nullptr};
  pid_t children[2];
  for (pid_t& child : children)
    ASSERT_EQ(posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv, envp), 0);
  for (const pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  EXPECT_TRUE(recorded_counts_are(path, 2 * kRecordThreads * kRecordRounds));
}

// ---- CUDA graphs: every workspace kind captured, replayed on any stream, equal to eager calls ----

KernelConfig skinny_stream_split() {  // 4 rows, split-K reduced inside the launch (zeros workspace)
  KernelConfig c;
  c.family = KernelFamily::skinny_stream;
  c.block_m = 4, c.thread_n = 4, c.lanes_k = 8, c.warps_n = 2, c.k_groups = 4, c.unroll = 2, c.split_k = 3;
  c.block_n = c.warps_n * (32 / c.lanes_k) * c.thread_n;
  return c;
}

KernelConfig skinny_tiled_split() {  // 16 rows, split-K reduced inside the launch (zeros workspace)
  KernelConfig c;
  c.family = KernelFamily::skinny_tiled;
  c.block_m = 16, c.block_n = 128, c.block_k = 32, c.thread_m = 4, c.thread_n = 4;
  c.stages = 4, c.k_groups = 2, c.min_blocks = 2, c.split_k = 5;
  return c;
}

KernelConfig atomic_split_k() {  // counters workspace
  KernelConfig c = kSplitK;
  c.split_k_atomic = true;
  return c;
}

std::map<cudaGraphNodeType, int> node_types(cudaGraph_t graph) {
  std::size_t count = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  EXPECT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
  std::map<cudaGraphNodeType, int> types;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    EXPECT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
    ++types[type];
  }
  return types;
}

// One dense problem's operands: C starts as c0 (copied in on the stream before each call) and the
// call computes C = 1.25 A B + beta C.
struct GraphCase {
  GraphCase(const Problem& problem, float beta_value, unsigned seed)
      : p(problem), beta(beta_value), a(std::size_t(p.m) * p.k), b(std::size_t(p.k) * p.n), c0(std::size_t(p.m) * p.n),
        da(a.size()), db(b.size()), dc0(c0.size()), eager(c0.size()), graph(c0.size()) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (auto* v : {&a, &b, &c0})
      for (float& x : *v) x = uniform(rng);
    cudaMemcpy(da.get(), a.data(), a.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db.get(), b.data(), b.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dc0.get(), c0.data(), c0.size() * 4, cudaMemcpyHostToDevice);
  }
  Status run(const Handle& handle, float* c, cudaStream_t stream) const {
    if (cudaMemcpyAsync(c, dc0.get(), c0.size() * 4, cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
      return Status::cuda_error;
    return handle.sgemm({p.m, p.n, p.k, p.k, p.n, p.n}, 1.25f, da.get(), db.get(), beta, c, stream);
  }
  std::vector<float> read(const DeviceBuffer& c) const {
    std::vector<float> got(c0.size());
    EXPECT_EQ(cudaMemcpy(got.data(), c.get(), got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    return got;
  }
  // got against a float64 reference within the K-scaled bound.
  ::testing::AssertionResult correct(const std::vector<float>& got) const {
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        double sum = 0, magnitude = 0;
        for (int q = 0; q < p.k; ++q) {
          const double term = double(a[std::size_t(i) * p.k + q]) * b[std::size_t(q) * p.n + j];
          sum += term;
          magnitude += std::fabs(term);
        }
        const double c_in = c0[std::size_t(i) * p.n + j];
        const double expected = 1.25 * sum + beta * c_in;
        const double bound = (p.k + 4) * std::ldexp(1.0, -24) * (1.25 * magnitude + std::fabs(beta * c_in)) + 1e-30;
        const float value = got[std::size_t(i) * p.n + j];
        if (!(std::fabs(value - expected) <= bound))
          return ::testing::AssertionFailure() << p.m << "x" << p.n << "x" << p.k << " C[" << i << "][" << j
                                               << "] = " << value << ", expected " << expected;
      }
    return ::testing::AssertionSuccess();
  }

  Problem p;
  float beta;
  std::vector<float> a, b, c0;
  DeviceBuffer da, db, dc0, eager, graph;
};

// Warm-up is a choose() per problem (what gemmtune_warmup does): no eager call on the capture
// stream, so no stream workspace exists there. Between replays, eager calls on the capture stream
// grow its workspaces (freeing the ones before), which a captured pointer to them would not survive.
TEST_F(RuntimeGpu, EverySplitKWorkspaceKindCapturesIntoACudaGraph) {
  const KernelConfig atomic = atomic_split_k(), stream_k = skinny_stream_split(), tiled_k = skinny_tiled_split();
  const Handle handle(results({entry(96, 80, 700, atomic), entry(300, 200, 1000, kSplitK),
                               entry(4, 512, 2048, stream_k), entry(16, 512, 2048, tiled_k),
                               entry(1024, 1040, 128, kSplitK)}));
  ASSERT_EQ(handle.status(), Status::success) << handle.status_message();
  std::vector<std::unique_ptr<GraphCase>> cases;
  cases.push_back(std::make_unique<GraphCase>(dense(96, 80, 700), 0.5f, 1));   // atomic, scales C first
  cases.push_back(std::make_unique<GraphCase>(dense(96, 80, 700), 1.0f, 2));   // atomic, adds into C
  cases.push_back(std::make_unique<GraphCase>(dense(300, 200, 1000), 0.5f, 3));  // partial sums
  cases.push_back(std::make_unique<GraphCase>(dense(4, 512, 2048), 0.0f, 4));  // skinny stream
  cases.push_back(std::make_unique<GraphCase>(dense(16, 512, 2048), 0.75f, 5));  // skinny tiled
  cases.push_back(std::make_unique<GraphCase>(dense(1024, 1040, 128), 1.0f, 6));  // partial sums, 17 MB
  const std::string expected[] = {atomic.name(),   atomic.name(),  kSplitK.name(),
                                  stream_k.name(), tiled_k.name(), kSplitK.name()};
  ASSERT_GT(workspace_bytes(kSplitK, 1024, 1040, 512, 1), StreamWorkspaces::kGraphOwnedScratchBytes);
  ASSERT_LE(workspace_bytes(kSplitK, 300, 200, 512, 1), StreamWorkspaces::kGraphOwnedScratchBytes);
  for (std::size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(choice(handle, cases[i]->p).config_name, expected[i]);

  cudaStream_t eager = nullptr, capture = nullptr, replay = nullptr;
  for (cudaStream_t* s : {&eager, &capture, &replay})
    ASSERT_EQ(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking), cudaSuccess);
  for (const auto& c : cases) ASSERT_EQ(c->run(handle, c->eager.get(), eager), Status::success);
  ASSERT_EQ(cudaStreamSynchronize(eager), cudaSuccess);

  ASSERT_EQ(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal), cudaSuccess);
  for (const auto& c : cases) EXPECT_EQ(c->run(handle, c->graph.get(), capture), Status::success);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(capture, &graph), cudaSuccess);
  // The counters, zeros and small partial sums' workspaces are the graph's own, zeroed once: no
  // memset or memory node replays with them. Only the large partial sums' workspace is allocated
  // (and freed) in the graph.
  const std::map<cudaGraphNodeType, int> nodes = node_types(graph);
  EXPECT_EQ(nodes.count(cudaGraphNodeTypeMemset), 0u);
  EXPECT_EQ(nodes.at(cudaGraphNodeTypeMemcpy), 6);  // the cases' C0
  EXPECT_EQ(nodes.at(cudaGraphNodeTypeMemAlloc), 1);
  EXPECT_EQ(nodes.at(cudaGraphNodeTypeMemFree), 1);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

  for (int round = 0; round < 3; ++round) {
    if (round == 1) {  // eager calls on the capture stream, growing its stream workspaces
      EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.5f, capture, 11));
      EXPECT_TRUE(runs_correctly(handle, dense(300, 200, 1000), 0.0f, capture, 12));
      EXPECT_TRUE(runs_correctly(handle, dense(16, 512, 2048), 0.0f, capture, 13));
    }
    for (const auto& c : cases) ASSERT_EQ(cudaMemset(c->graph.get(), 0xff, c->c0.size() * 4), cudaSuccess);  // NaN
    const cudaStream_t on = round == 2 ? capture : replay;
    ASSERT_EQ(cudaGraphLaunch(exec, on), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(on), cudaSuccess);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const GraphCase& c = *cases[i];
      const std::vector<float> got = c.read(c.graph);
      EXPECT_TRUE(c.correct(got)) << "replay " << round << ", " << expected[i];
      if (expected[i] == kSplitK.name() || expected[i] == stream_k.name()) {  // a fixed order of additions
        EXPECT_EQ(got, c.read(c.eager)) << "replay " << round << ", " << expected[i];
      }
    }
  }
  for (const auto& c : cases) EXPECT_TRUE(c->correct(c->read(c->eager)));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  for (cudaStream_t s : {eager, capture, replay}) cudaStreamDestroy(s);
}

// A graph's own workspace lives as long as the graph or an executable graph made from it, and is
// freed after both are destroyed: capturing and destroying many graphs holds no more memory. The
// stream kernel's zeros workspace here is 6 MB; a graph grows it once (a second, larger call).
TEST_F(RuntimeGpu, GraphWorkspacesLiveAsLongAsTheirGraphs) {
  const KernelConfig stream_k = skinny_stream_split();
  const Handle handle(results({entry(4, 131072, 256, stream_k), entry(4, 128, 64, stream_k)}));
  ASSERT_EQ(handle.status(), Status::success) << handle.status_message();
  GraphCase big(dense(4, 131072, 256), 0.0f, 41), small(dense(4, 128, 64), 0.5f, 42);
  EXPECT_EQ(choice(handle, big.p).config_name, stream_k.name());
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  const auto free_bytes = [&] {
    EXPECT_TRUE(runs_correctly(handle, dense(4, 128, 64), 0.5f, stream, 43));  // an eager call frees
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the memory pool gives freed memory back
    std::size_t free = 0, total = 0;
    EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    return free;
  };
  const std::size_t before = free_bytes();
  for (int round = 0; round < 40; ++round) {
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    EXPECT_EQ(small.run(handle, small.graph.get(), stream), Status::success);
    EXPECT_EQ(big.run(handle, big.graph.get(), stream), Status::success);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);  // the executable graph keeps the buffers
    for (int replay = 0; replay < 2; ++replay) {
      ASSERT_EQ(cudaMemset(big.graph.get(), 0xff, big.c0.size() * 4), cudaSuccess);  // NaN
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      if (round % 20 == 0) {
        EXPECT_TRUE(big.correct(big.read(big.graph))) << "round " << round << ", replay " << replay;
        EXPECT_TRUE(small.correct(small.read(small.graph))) << "round " << round << ", replay " << replay;
      }
    }
    ASSERT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  }
  // CUDA releases a graph's user objects on its own thread, soon after the destroy.
  std::size_t after = free_bytes();
  for (int wait = 0; wait < 50 && after + (64u << 20) < before; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    after = free_bytes();
  }
  EXPECT_LT(before, after + (64u << 20)) << "40 graphs of a 6 MB workspace: " << (before - after) / 1e6
                                         << " MB not given back";
  cudaStreamDestroy(stream);
}

// No warm-up at all: the first calls of a fresh handle happen inside a global-mode capture, so the
// kernel is compiled and loaded and a cuBLAS handle created while the stream captures.
TEST_F(RuntimeGpu, FirstCallsInsideAGlobalCaptureCompileAndCapture) {
  const KernelConfig atomic = atomic_split_k();
  const Handle handle(results_v2(
      document_v2(device_, {raced_entry(96, 80, 700, atomic, 2.0), raced_entry(64, 64, 64, kFloat2, 0.5)})));
  ASSERT_EQ(handle.status(), Status::success) << handle.status_message();
  GraphCase split(dense(96, 80, 700), 0.5f, 21), cublas(dense(64, 64, 64), 0.5f, 22);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(split.run(handle, split.graph.get(), stream), Status::success);
  EXPECT_EQ(cublas.run(handle, cublas.graph.get(), stream), Status::success);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_TRUE(split.correct(split.read(split.graph)));
    EXPECT_TRUE(cublas.correct(cublas.read(cublas.graph)));
  }
  EXPECT_EQ(choice(handle, dense(96, 80, 700)).config_name, atomic.name());
  EXPECT_EQ(choice(handle, dense(64, 64, 64)).config_name, "cublas");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// A capture the application already broke: the split-K call returns cuda_error and launches nothing;
// the stream and the handle work as before once the capture has ended.
TEST_F(RuntimeGpu, ACallIntoAnInvalidatedCaptureReturnsAnError) {
  const KernelConfig atomic = atomic_split_k();
  const Handle handle(results({entry(96, 80, 700, atomic)}));
  EXPECT_EQ(choice(handle, dense(96, 80, 700)).config_name, atomic.name());
  GraphCase split(dense(96, 80, 700), 0.5f, 31);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  void* refused = nullptr;
  EXPECT_NE(cudaMalloc(&refused, 256), cudaSuccess);  // not allowed while capturing in global mode
  if (refused) cudaFree(refused);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  ASSERT_EQ(cudaStreamIsCapturing(stream, &capture), cudaSuccess);
  EXPECT_EQ(capture, cudaStreamCaptureStatusInvalidated);
  EXPECT_EQ(handle.sgemm({96, 80, 700, 700, 80, 80}, 1.0f, split.da.get(), split.db.get(), 0.5f, split.graph.get(),
                         stream),
            Status::cuda_error);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(graph, nullptr);
  static_cast<void>(cudaGetLastError());
  EXPECT_TRUE(runs_correctly(handle, dense(96, 80, 700), 0.5f, stream, 32));
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace gemmtune

namespace gemmtune {
namespace {

// gemm() in a precision: operands made on the host, rounded as the tensor cores read them (16-bit
// ones sent as their bits), checked against float64 from the rounded values; `u` is the unit of the
// sums' rounding (2^-24 for FP32 additions, 2^-23 for the tensor cores').
::testing::AssertionResult gemm_runs_correctly(const Handle& handle, const GemmProblem& p, double u) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const bool half = p.precision == Precision::bf16 || p.precision == Precision::fp16;
  const std::size_t a_count = std::size_t(p.m) * p.lda, b_count = std::size_t(p.k) * p.ldb,
                    c_count = std::size_t(p.m) * p.ldc;
  std::vector<float> a(a_count), b(b_count), c0(c_count);
  std::vector<std::uint16_t> a16(a_count), b16(b_count);
  const auto make = [&](std::vector<float>& v, std::vector<std::uint16_t>& bits) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      float x = uniform(rng);
      std::uint32_t u32 = 0;
      std::memcpy(&u32, &x, 4);
      if (p.precision == Precision::bf16) {  // to nearest even (finite x)
        u32 = (u32 + 0x7fffu + ((u32 >> 16) & 1u)) & 0xffff0000u;
        bits[i] = static_cast<std::uint16_t>(u32 >> 16);
      } else if (p.precision == Precision::fp16) {  // |x| < 1: x * 2^10 rounded is exact in fp16
        x = std::nearbyint(x * 1024.0f) / 1024.0f;
        // IEEE half of x: sign, exponent, 10 mantissa bits (zero and subnormals handled by frexp).
        int e = 0;
        const float f = std::frexp(std::fabs(x), &e);  // x = f * 2^e, f in [0.5, 1)
        std::uint16_t h = x < 0 ? 0x8000 : 0;
        if (x != 0) h |= static_cast<std::uint16_t>(((e - 1 + 15) << 10) | (std::lround(f * 2048.0f) - 1024));
        bits[i] = h;
      }
      if (p.precision == Precision::bf16) std::memcpy(&x, &u32, 4);
      v[i] = x;
    }
  };
  make(a, a16);
  make(b, b16);
  for (float& x : c0) x = uniform(rng);
  DeviceBuffer da(a_count), db(b_count), dc(c_count);
  cudaMemcpy(da.get(), half ? static_cast<const void*>(a16.data()) : a.data(), a_count * (half ? 2 : 4),
             cudaMemcpyHostToDevice);
  cudaMemcpy(db.get(), half ? static_cast<const void*>(b16.data()) : b.data(), b_count * (half ? 2 : 4),
             cudaMemcpyHostToDevice);
  cudaMemcpy(dc.get(), c0.data(), c_count * 4, cudaMemcpyHostToDevice);
  const float alpha = 1.25f, beta = -0.5f;
  const Status status = p.precision == Precision::fp32 ? handle.sgemm(p, alpha, da.get(), db.get(), beta, dc.get(), nullptr)
                                                       : handle.gemm(p, alpha, da.get(), db.get(), beta, dc.get(), nullptr);
  if (status != Status::success) return ::testing::AssertionFailure() << "call: " << status_name(status);
  std::vector<float> got(c_count);
  cudaMemcpy(got.data(), dc.get(), c_count * 4, cudaMemcpyDeviceToHost);
  // tf32 rounds inside the call (cuBLAS's rounding is its own): two TF32 roundings per product more.
  const double rounding = p.precision == Precision::tf32 ? 2 * std::ldexp(1.0, -11) : 0.0;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      double sum = 0, magnitude = 0;
      for (int q = 0; q < p.k; ++q) {
        const double x = a[std::size_t(i) * p.lda + q], y = b[std::size_t(q) * p.ldb + j];
        sum += x * y;
        magnitude += std::fabs(x * y);
      }
      const double c_in = c0[std::size_t(i) * p.ldc + j];
      const double expected = alpha * sum + beta * c_in;
      const double bound = ((2.0 * p.k + 4) * u + rounding) * alpha * magnitude +
                           4 * std::ldexp(1.0, -24) * std::fabs(beta * c_in) + 1e-30;
      const float value = got[std::size_t(i) * p.ldc + j];
      if (!(std::fabs(value - expected) <= bound))
        return ::testing::AssertionFailure() << precision_name(p.precision) << " " << p.m << "x" << p.n << "x" << p.k
                                             << ": C[" << i << "][" << j << "] = " << value << ", expected "
                                             << expected;
    }
  return ::testing::AssertionSuccess();
}

GemmProblem precise(int m, int n, int k, Precision precision) {
  GemmProblem p{m, n, k, k, n, n};
  p.precision = precision;
  return p;
}

// Results of schema 3 name a kernel per precision: gemm() runs the tensor-core winners and cuBLAS
// in the call's precision elsewhere; the sgemm opt-in runs the 3xtf32 winner for an FP32 call, and
// only for problems a kernel won.
TEST_F(RuntimeGpu, TensorCorePrecisionsThroughGemmAndTheSgemmOptIn) {
  if (device_.compute_capability < 80) GTEST_SKIP() << "tensor-core precisions need sm_80";
  KernelConfig bf16;
  bf16.family = KernelFamily::mma, bf16.precision = Precision::bf16;
  bf16.block_m = 64, bf16.block_n = 64, bf16.block_k = 64, bf16.warp_m = 32, bf16.warp_n = 32, bf16.stages = 3;
  KernelConfig accurate = bf16;
  accurate.precision = Precision::tf32x3, accurate.block_k = 32, accurate.round_split = true;
  const auto entry = [](int m, int n, int k, Precision precision, const KernelConfig& c) {
    nlohmann::json e = raced_entry(m, n, k, c, 2.0);
    e.erase("dtype");
    e["precision"] = precision_name(precision);
    return e;
  };
  nlohmann::json doc = document_v2(device_, {entry(256, 320, 512, Precision::bf16, bf16),
                                             entry(256, 320, 512, Precision::tf32x3, accurate)});
  doc["schema"] = "gemmtune.results/3";
  Handle handle(results_v2(doc));
  ASSERT_EQ(handle.status(), Status::success) << handle.status_message();

  const double fp32_sums = std::ldexp(1.0, -24), tensor_sums = std::ldexp(1.0, -23);
  KernelChoice c;
  ASSERT_EQ(handle.choose(precise(256, 320, 512, Precision::bf16), nullptr, nullptr, c), Status::success);
  EXPECT_EQ(c.config_name, bf16.name()) << c.reason;
  EXPECT_EQ(c.source, ConfigSource::exact_shape);
  EXPECT_TRUE(gemm_runs_correctly(handle, precise(256, 320, 512, Precision::bf16), tensor_sums));
  EXPECT_TRUE(gemm_runs_correctly(handle, precise(256, 320, 512, Precision::tf32x3), fp32_sums));
  // No results for these: cuBLAS in the call's precision.
  for (const Precision p : {Precision::bf16, Precision::fp16, Precision::tf32, Precision::tf32x3}) {
    ASSERT_EQ(handle.choose(precise(77, 130, 96, p), nullptr, nullptr, c), Status::success);
    EXPECT_EQ(c.config_name, "cublas") << precision_name(p);
    EXPECT_TRUE(gemm_runs_correctly(handle, precise(77, 130, 96, p), p == Precision::tf32x3 ? fp32_sums : tensor_sums));
  }
  // FP32 calls: cuBLAS SGEMM until the opt-in, then the 3xtf32 winner, at FP32 accuracy.
  ASSERT_EQ(handle.choose(precise(256, 320, 512, Precision::fp32), nullptr, nullptr, c), Status::success);
  EXPECT_EQ(c.config_name, "cublas");
  EXPECT_EQ(handle.set_sgemm_precision(Precision::bf16), Status::invalid_argument);
  EXPECT_EQ(handle.sgemm_precision(), Precision::fp32);
  Handle opted(results_v2(doc));
  ASSERT_EQ(opted.set_sgemm_precision(Precision::tf32x3), Status::success);
  ASSERT_EQ(opted.choose(precise(256, 320, 512, Precision::fp32), nullptr, nullptr, c), Status::success);
  EXPECT_EQ(c.config_name, accurate.name()) << c.reason;
  EXPECT_TRUE(gemm_runs_correctly(opted, precise(256, 320, 512, Precision::fp32), fp32_sums));
  ASSERT_EQ(opted.choose(precise(100, 100, 100, Precision::fp32), nullptr, nullptr, c), Status::success);
  EXPECT_EQ(c.config_name, "cublas") << "no 3xtf32 winner there: what serves FP32";
  // sgemm takes FP32 operands only.
  DeviceBuffer x(64);
  EXPECT_EQ(handle.sgemm(precise(4, 4, 4, Precision::bf16), 1.0f, x.get(), x.get(), 0.0f, x.get(), nullptr),
            Status::invalid_argument);
}

}  // namespace
}  // namespace gemmtune
