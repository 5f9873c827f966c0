// Measurement on the GPU for one problem shape in its precision: operands in rotating buffer sets
// (so every timed launch reads A and B from DRAM, not from an L2 warmed by the previous launch),
// cuBLAS in the same precision as the contestant, correctness checks with a K-scaled error bound
// (against cuBLAS SGEMM for fp32, against float64 for the tensor-core precisions), cuBLASLt's
// heuristic first choice and the fastest correct one of its first few algorithms beside cuBLAS's
// default call, and event timing
// in batches long enough that launch gaps and clock ramp-up do not dominate. Runs inside the
// worker process.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cublaslt_matmul.hpp"
#include "core/gemm_launch.hpp"
#include "core/problem.hpp"
#include "verify/device_checks.hpp"

namespace gemmtune {

// How many of cuBLASLt's heuristic choices are timed: the best of the first 8 beat the first by a
// geometric mean of 1.02-1.08 over 14 shapes, up to 1.78x (H100, 2026-11-26; issue #44).
inline constexpr int kCublasLtCandidates = 8;

struct Verification {
  bool passed = false;
  double worst_error_ratio = 0;  // max |C - R| / bound over all elements (<= 1 passes)
  // The tensor-core precisions, at the tuned shape: ||C - R||_F / ||R||_F against the float64
  // reference, and for 3xtf32 cuBLAS SGEMM's on the same data, which the kernel must not exceed.
  double normwise_error = 0;
  double sgemm_normwise_error = 0;
  std::string detail;  // why it failed
};

// Device buffers freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  float* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  float* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class GpuBench {
 public:
  GpuBench(GemmShape shape, std::size_t l2_bytes, unsigned seed, const DeviceChecks& checks);
  ~GpuBench();
  GpuBench(const GpuBench&) = delete;
  GpuBench& operator=(const GpuBench&) = delete;

  const GemmShape& shape() const { return shape_; }
  // The edge-case shape kernels of that path are checked at: odd sizes for the general path, sizes
  // that are whole vectors but no whole tiles for the whole-vector path, the tuned N with such M
  // and K for the whole-tile path; none of them above 518, except the whole-tile path's N.
  const GemmShape& awkward_shape(KernelPath path) const { return awkward_[int(path)]; }
  int launches_per_sample() const { return reps_; }

  // Runs kernel at the tuned shape and at the awkward shape of its path with alpha/beta != 0
  // and compares both with cuBLAS. Throws CudaError on launch failures.
  Verification verify(const LoadedKernel& kernel);

  // cuBLASLt's contestants, chosen when the bench is made: the heuristic's first choice, and the
  // fastest of its first kCublasLtCandidates that passed the correctness check (nullopt where that
  // is the first). Both nullopt where cuBLASLt offers no algorithm for the problem.
  std::optional<CublasLtAlgo> cublaslt_first() const;
  std::optional<CublasLtAlgo> cublaslt_best() const;
  const std::string& cublaslt_failure() const { return cublaslt_failure_; }  // why there are none, if it failed

  // Median-ready samples in milliseconds per launch. time_kernel (a search's screening) times
  // `samples` batches about half as long as launches_per_sample(); the others full ones.
  std::vector<double> time_kernel(const LoadedKernel& kernel, int samples);
  std::vector<double> time_cublas(int samples);

  // What every kernel is measured against: cuBLAS's default call and cuBLASLt's contestants.
  struct Baselines {
    std::vector<double> cublas_ms;
    std::vector<double> cublaslt_first_ms;  // empty: cuBLASLt offered no algorithm
    std::vector<double> cublaslt_best_ms;   // empty: the best was the first
  };
  Baselines time_baselines(int samples);

  // Interleaved: in each of `rounds` rounds the baselines and then every kernel run one batch, so
  // clock drift hits all of them alike. One sample per round each.
  struct Race : Baselines {
    std::vector<std::vector<double>> kernels_ms;  // by kernel
  };
  Race race(const std::vector<const LoadedKernel*>& kernels, int rounds);

 private:
  struct Operands;
  // cuBLAS on densely packed operands of s (its layout and batch).
  // In the problem's precision (a and b then hold its elements); as_sgemm: cublasSgemm whatever it is.
  void run_cublas(const void* a, const void* b, void* c, const GemmShape& s, float alpha, float beta,
                  bool as_sgemm = false);
  // The float64 reference alpha * A B + beta * C0 of float operands, into expected.
  void run_reference(const float* a, const float* b, const float* c0, double* expected, const GemmShape& s,
                     float alpha, float beta);
  std::unique_ptr<Operands> make_operands(const GemmShape& s, float alpha, float beta, bool poison,
                                          unsigned seed);
  // Runs a contestant on the operands' arguments and checks its result.
  using Run = std::function<cudaError_t(const GemmArguments& args)>;
  Verification check(const Run& run, Operands& operands);
  Operands& tuned_check();
  // Times the heuristic's first kCublasLtCandidates and keeps the first and the fastest correct one.
  void choose_cublaslt();
  // One launch of a contender on the operands of a rotating set.
  using Launch = std::function<void(int set)>;
  Launch kernel_launch(const LoadedKernel& kernel);
  Launch cublas_launch();
  Launch cublaslt_launch(const CublasLtChoice& choice);
  // cuBLAS, then cuBLASLt's first choice and best where there are such.
  std::vector<Launch> baseline_launches();
  Baselines baselines_of(std::vector<std::vector<double>>& times) const;  // takes the baselines' samples
  // Samples of every contender, batches interleaved round by round (gpu_bench.cpp).
  std::vector<std::vector<double>> time_rounds(const std::vector<Launch>& contenders, int rounds, int reps);
  float* workspace_for(const KernelConfig& config, const GemmShape& s);

  const DeviceChecks& checks_;
  GemmShape shape_;
  GemmShape awkward_[3];  // by KernelPath
  unsigned seed_;
  cublasHandle_t cublas_ = nullptr;
  cublasLtHandle_t cublaslt_ = nullptr;
  std::unique_ptr<CublasLtMatmul> cublaslt_matmul_;  // at the tuned shape, densely packed
  std::optional<CublasLtChoice> cublaslt_first_, cublaslt_best_;
  DeviceBuffer cublaslt_workspace_;
  std::string cublaslt_failure_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::vector<DeviceBuffer> a_sets_, b_sets_, c_sets_;
  DeviceBuffer workspace_;  // split-K partial sums
  DeviceBuffer counters_;   // atomic split-K's counters: zeroed once, then only counted up
  DeviceBuffer zeros_;      // the skinny kernels': zeroed once, and every launch leaves it so
  std::unique_ptr<Operands> tuned_check_;
  std::unique_ptr<Operands> awkward_checks_[3];  // by KernelPath
  int reps_ = 1;         // launches per sample in a race and in cuBLAS's reference time
  int screen_reps_ = 1;  // launches per sample of a search's screening
  bool eager_timing_ = false;  // a contender could not be captured in a graph (warned once)
};

}  // namespace gemmtune
