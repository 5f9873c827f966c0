// An application of the runtime library: multiplies matrices of a few shapes with the tuned kernels
// for this GPU (an exact tuned shape, shapes between tuned ones, an odd shape with unaligned leading
// dimensions) and checks every result against cuBLAS. Prints which kernel ran and why.
//   tuned_sgemm [RESULTS]   (a results file or directory; default $GEMMTUNE_RESULTS or the installed ones)
// Exit code: 0 all match, 1 a mismatch or an error, 77 no usable GPU.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gemmtune/gemmtune.hpp>
#include <random>
#include <vector>

namespace {

struct Shape {
  int m, n, k, lda, ldb, ldc;
};

bool cuda_ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
  return err == cudaSuccess;
}

class DeviceMatrix {
 public:
  explicit DeviceMatrix(const std::vector<float>& host) : bytes_(host.size() * sizeof(float)) {
    if (cuda_ok(cudaMalloc(&data_, bytes_), "cudaMalloc"))
      cuda_ok(cudaMemcpy(data_, host.data(), bytes_, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceMatrix() { cudaFree(data_); }
  DeviceMatrix(const DeviceMatrix&) = delete;
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;
  float* get() const { return static_cast<float*>(data_); }
  std::vector<float> download() const {
    std::vector<float> host(bytes_ / sizeof(float));
    cuda_ok(cudaMemcpy(host.data(), data_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

// Row-major C = alpha * A * B + beta * C through column-major cuBLAS: C^T = B^T * A^T.
bool cublas_sgemm(cublasHandle_t cublas, const Shape& s, float alpha, const float* a, const float* b,
                  float beta, float* c) {
  return cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b, s.ldb, a, s.lda, &beta, c,
                     s.ldc) == CUBLAS_STATUS_SUCCESS;
}

// One shape: gemmtune and cuBLAS from the same inputs. Each element must lie within the rounding
// error two differently ordered K-term dot products can have: u * ((2K + 4) |alpha| (|A||B|)_ij +
// 4 |beta| |C0_ij|), u = 2^-24, with |A||B| computed by cuBLAS on the absolute values.
bool check(const gemmtune::Handle& gemm, cublasHandle_t cublas, const Shape& s) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(std::size_t(s.m) * s.lda), b(std::size_t(s.k) * s.ldb), c0(std::size_t(s.m) * s.ldc);
  for (auto* v : {&a, &b, &c0})
    for (float& x : *v) x = uniform(rng);
  std::vector<float> abs_a(a.size()), abs_b(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) abs_a[i] = std::fabs(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) abs_b[i] = std::fabs(b[i]);
  const float alpha = 0.75f, beta = 0.5f;

  const DeviceMatrix da(a), db(b), dc(c0), reference(c0), da_abs(abs_a), db_abs(abs_b),
      magnitude(std::vector<float>(c0.size(), 0.0f));
  gemmtune::KernelChoice choice;
  const gemmtune::GemmProblem problem{s.m, s.n, s.k, s.lda, s.ldb, s.ldc};
  if (gemm.choose(problem, da.get(), db.get(), choice) != gemmtune::Status::success) return false;
  std::printf("%dx%dx%d (ld %d, %d, %d): %s, %s\n  %s\n", s.m, s.n, s.k, s.lda, s.ldb, s.ldc,
              choice.config_name.c_str(), gemmtune::config_source_name(choice.source), choice.reason.c_str());

  const gemmtune::Status status = gemm.sgemm(problem, alpha, da.get(), db.get(), beta, dc.get(), nullptr);
  if (status != gemmtune::Status::success) {
    std::printf("  sgemm failed: %s\n", gemmtune::status_name(status));
    return false;
  }
  if (!cublas_sgemm(cublas, s, alpha, da.get(), db.get(), beta, reference.get()) ||
      !cublas_sgemm(cublas, s, 1.0f, da_abs.get(), db_abs.get(), 0.0f, magnitude.get()) ||
      !cuda_ok(cudaDeviceSynchronize(), "sgemm")) {
    return false;
  }
  const std::vector<float> got = dc.download(), want = reference.download(), mag = magnitude.download();
  double worst = 0;  // largest error as a fraction of its bound
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      const std::size_t at = std::size_t(i) * s.ldc + j;
      const double bound = std::ldexp(1.0, -24) * ((2.0 * s.k + 4) * std::fabs(alpha) * mag[at] +
                                                   4 * std::fabs(beta) * std::fabs(c0[at])) +
                           1e-30;
      const double error = std::fabs(double(got[at]) - want[at]);
      worst = std::isfinite(error) ? std::max(worst, error / bound) : INFINITY;
    }
  }
  std::printf("  worst error %.3f of the bound: %s\n", worst, worst <= 1.0 ? "match" : "MISMATCH");
  return worst <= 1.0;
}

}  // namespace

int main(int argc, char** argv) {
  const gemmtune::Handle gemm(argc > 1 ? argv[1] : "");
  if (gemm.status() == gemmtune::Status::no_device || gemm.status() == gemmtune::Status::unsupported_device) {
    std::printf("no usable GPU: %s\n", gemm.status_message().c_str());
    return 77;
  }
  if (gemm.status() != gemmtune::Status::success)
    std::printf("results: %s\n%s\n", gemmtune::status_name(gemm.status()), gemm.status_message().c_str());
  std::printf("GPU: %s\n", gemm.device_slug().c_str());

  cublasHandle_t cublas = nullptr;
  if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetMathMode(cublas, CUBLAS_PEDANTIC_MATH);  // pure FP32, never TF32

  const Shape shapes[] = {
      {1024, 1024, 1024, 1024, 1024, 1024},  // tuned on the H100 in results/
      {1000, 1000, 1000, 1000, 1000, 1000},  // between tuned shapes
      {3000, 2500, 700, 700, 2500, 2500},    // far from any tuned shape
      {77, 1001, 513, 515, 1003, 1002},      // odd sizes, unaligned leading dimensions
  };
  bool all_match = true;
  for (const Shape& s : shapes) all_match = check(gemm, cublas, s) && all_match;
  cublasDestroy(cublas);
  std::printf("%s\n", all_match ? "all results match cuBLAS" : "some results do not match cuBLAS");
  return all_match ? 0 : 1;
}
