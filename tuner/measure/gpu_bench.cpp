// GpuBench implementation. Error bound for a K-long FP32 dot product computed in any order, against
// a reference computed in another order: each side is within K*u*(|A||B|)_ij of the exact value
// (u = 2^-24), plus a few roundings for alpha, beta and the final sum:
//   |C - R|_ij <= u * ((2K + 4) * |alpha| * (|A||B|)_ij + 4 * |beta| * |C0|_ij).
// The tensor-core precisions are checked against float64 from the inputs as the kernel multiplies
// them, with the u of their sums in the first term (accumulation_roundoff); 3xtf32 must also be no
// less accurate, normwise, than cuBLAS SGEMM on the same data.
#include "measure/gpu_bench.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "core/cuda_check.hpp"
#include "measure/captured_batch.hpp"
#include "measure/cublas_check.hpp"
#include "measure/statistics.hpp"

namespace gemmtune {
namespace {

constexpr double kUnitRoundoff = 1.0 / (1 << 24);
// A race's batches (and cuBLAS's reference time) last about this long: shorter ones measure launch
// gaps and clocks.
constexpr double kTargetSampleMs = 0.5;
// A search's screening batches last half as long. The GPU never idles between them (time_rounds),
// so a batch need only outlast the event's resolution and the launch rate: at 1024 that is 5
// launches of 50 us. Timing was most of a search's GPU time (a 1024 measurement took 7.6 ms, 5.5 of
// them its eleven batches), and the finalists are raced with full batches before anything is kept.
constexpr double kScreenSampleMs = 0.25;
// A sample's launches as replays of a graph of at most this many: more would only lengthen its
// capture (a replay's host cost, a few microseconds, is far below 32 launches' GPU time).
constexpr int kGraphCalls = 32;

int awkward_dimension(int x) {
  int y = x > 8 ? x - 3 : x + 3;
  if (y % 2 == 0) --y;  // odd: not a multiple of any tile or vector width
  return std::max(1, y);
}

// For the whole-vector path: a multiple of 4 floats (every vector width) but of no tile (4 mod 8).
int awkward_whole_dimension(int x) {
  const int y = std::max(4, (x > 8 ? x - 3 : x + 3) / 4 * 4);
  return y % 8 == 0 ? y + 4 : y;
}

// The same for 16-bit operands, whose 16-byte vectors hold 8: a multiple of 8 but not of 16.
int awkward_whole_dimension_16bit(int x) {
  const int y = std::max(8, (x > 16 ? x - 3 : x + 3) / 8 * 8);
  return y % 16 == 0 ? y + 8 : y;
}

// Awkward dimensions are made from at most this: how a kernel handles an edge does not depend on
// how many whole tiles come before it, and at 4096 a full-size check cost as much as a timing.
constexpr int kAwkwardFrom = 518;

GemmShape awkward_shape_of(const GemmShape& s, int (*dimension)(int)) {
  const auto awkward = [&](int x) { return dimension(std::min(x, kAwkwardFrom)); };
  return {awkward(s.m), awkward(s.n), awkward(s.k), s.layout, s.batch, s.precision, s.c16};
}

// For the whole-tile path: N stays a multiple of the tile (the tuned shape's), M and K do not.
GemmShape awkward_tiles_shape_of(const GemmShape& s) {
  return {awkward_whole_dimension(std::min(s.m, kAwkwardFrom)), s.n,
          awkward_whole_dimension(std::min(s.k, kAwkwardFrom)), s.layout, s.batch, s.precision, s.c16};
}

// Units of the error bound's u (see the top of the file): FP32 rounds each sum to nearest (2^-24);
// the tensor cores truncate theirs (2^-23), except 3xtf32, whose long sums are FP32 additions and
// whose dropped small*small terms stay below 2^-22 (|A||B|), under the bound for any K >= 1.
double accumulation_roundoff(Precision p) {
  return p == Precision::fp32 || p == Precision::tf32x3 ? kUnitRoundoff : 2 * kUnitRoundoff;
}

cudaDataType_t cuda_type(Precision p) {
  return p == Precision::bf16 ? CUDA_R_16BF : p == Precision::fp16 ? CUDA_R_16F : CUDA_R_32F;
}

// The unit roundoff of a 16-bit C's one rounding (to nearest): bf16 keeps 8 significant bits, fp16 11.
double output_roundoff(const GemmShape& s) {
  if (!s.c16) return 0;
  return s.precision == Precision::bf16 ? 1.0 / (1 << 8) : 1.0 / (1 << 11);
}

// The kernel's arguments for densely packed operands of s.
GemmArguments dense_arguments(const GemmShape& s, const float* a, const float* b, void* c, float alpha, float beta) {
  return {s.m,  s.n, s.k,   alpha,   a,            s.lda(),      b,           s.ldb(),
          beta, c,   s.n,   s.batch, s.stride_a(), s.stride_b(), s.stride_c()};
}

cublasOperation_t cublas_op(bool transposed) { return transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  void* p = nullptr;
  GEMMTUNE_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(bytes, 16)));
  ptr_ = static_cast<float*>(p);
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
  o.ptr_ = nullptr;
  o.bytes_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}

// Operands, reference result and error bound of one correctness check, all on the device.
struct GpuBench::Operands {
  GemmShape shape;
  float alpha = 1, beta = 0;
  bool poison = false;  // C starts as NaN (beta == 0 must overwrite every element)
  DeviceBuffer a, b, c0, c, expected, bound;
  // The tensor-core precisions: A and B as 16-bit elements (bf16, fp16), the float64 reference,
  // and cuBLAS SGEMM's normwise error against it (3xtf32). A 16-bit C: C0 as the kernel reads it
  // (c0 then holds the values those bits stand for) and the C the kernel writes, read back into c.
  DeviceBuffer a_bits, b_bits, expected64, c0_bits, c_bits;
  double sgemm_normwise = 0;
  const void* kernel_a() const { return a_bits.bytes() ? static_cast<const void*>(a_bits.get()) : a.get(); }
  const void* kernel_b() const { return b_bits.bytes() ? static_cast<const void*>(b_bits.get()) : b.get(); }
};

GpuBench::GpuBench(GemmShape shape, std::size_t l2_bytes, unsigned seed, const DeviceChecks& checks)
    : checks_(checks),
      shape_(shape),
      awkward_{awkward_shape_of(shape, awkward_dimension),
               awkward_shape_of(shape, operand_bytes(shape.precision) == 2 ? awkward_whole_dimension_16bit
                                                                            : awkward_whole_dimension),
               awkward_tiles_shape_of(shape)},
      seed_(seed) {
  GEMMTUNE_CUBLAS_CHECK(cublasCreate(&cublas_));
  GEMMTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  GEMMTUNE_CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
  // Default math: for SGEMM that is pure FP32 (TF32 needs CUBLAS_TF32_TENSOR_OP_MATH), the
  // baseline users get from cublasSgemm. No reductions in a 16-bit C's type, as the runtime's cuBLAS
  // calls (runtime/src/cublas_calls.cpp): the race times what the library would run.
  GEMMTUNE_CUBLAS_CHECK(cublasSetMathMode(
      cublas_, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  GEMMTUNE_CUBLAS_CHECK(cublasLtCreate(&cublaslt_));
  GEMMTUNE_CUDA_CHECK(cudaEventCreate(&start_));
  GEMMTUNE_CUDA_CHECK(cudaEventCreate(&stop_));

  const std::size_t a_count = std::size_t(shape.stride_a()) * shape.batch,
                    b_count = std::size_t(shape.stride_b()) * shape.batch,
                    c_count = std::size_t(shape.stride_c()) * shape.batch;
  const std::size_t operand = operand_bytes(shape.precision);
  const std::size_t set_bytes = (a_count + b_count) * operand + c_count * sizeof(float);
  const std::size_t wanted = (3 * l2_bytes + set_bytes - 1) / set_bytes;
  const std::size_t sets = std::clamp<std::size_t>(
      wanted, 1, std::max<std::size_t>(1, std::min<std::size_t>(32, (4ULL << 30) / set_bytes)));
  // 16-bit operands are made as floats (in the C buffer, free until timing) and rounded into place.
  const bool narrow = operand == 2;
  for (std::size_t i = 0; i < sets; ++i) {
    a_sets_.emplace_back(a_count * operand);
    b_sets_.emplace_back(b_count * operand);
    c_sets_.emplace_back(std::max(c_count, narrow ? std::max(a_count, b_count) : 0) * sizeof(float));
    for (const auto& [set, count, salt] : {std::tuple<DeviceBuffer*, std::size_t, unsigned>{&a_sets_.back(), a_count, 0},
                                           {&b_sets_.back(), b_count, 1}}) {
      float* values = narrow ? c_sets_.back().get() : set->get();
      checks_.fill_uniform(values, count, seed + salt, false, stream_);
      if (narrow) checks_.round_operand(shape.precision, values, set->get(), count, stream_);
    }
    GEMMTUNE_CUDA_CHECK(cudaMemsetAsync(c_sets_.back().get(), 0, c_count * sizeof(float), stream_));
  }
  // Batch sizes from cuBLAS's speed at this shape: enough launches per sample for ~0.5 ms (a race)
  // and ~0.25 ms (screening).
  reps_ = 1;
  time_cublas(1);  // warm-up, also of cuBLAS's own kernel selection
  const auto probe = time_cublas(3);
  const double ms = *std::min_element(probe.begin(), probe.end());
  const auto launches = [&](double sample_ms) {
    return std::clamp(static_cast<int>(std::ceil(sample_ms / std::max(ms, 1e-4))), 1, 200);
  };
  reps_ = launches(kTargetSampleMs);
  screen_reps_ = launches(kScreenSampleMs);
  choose_cublaslt();
}

void GpuBench::choose_cublaslt() {
  try {
    cublaslt_matmul_ = std::make_unique<CublasLtMatmul>(cublaslt_, shape_.layout, shape_.precision, shape_.c16,
                                                        dense_arguments(shape_, nullptr, nullptr, nullptr, 1, 0));
    const std::vector<CublasLtChoice> choices = cublaslt_matmul_->heuristic(kCublasLtCandidates);
    if (choices.empty()) return;
    std::size_t workspace = 0;
    for (const CublasLtChoice& c : choices) workspace = std::max(workspace, c.workspace_bytes);
    cublaslt_workspace_ = DeviceBuffer(workspace);
    // A short screening of every choice (each batch interleaved with the others'), fastest first.
    std::vector<Launch> launches;
    for (const CublasLtChoice& c : choices) launches.push_back(cublaslt_launch(c));
    const std::vector<std::vector<double>> times = time_rounds(launches, 3, screen_reps_);
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t i = 0; i < choices.size(); ++i) order.emplace_back(median(times[i]), i);
    std::sort(order.begin(), order.end());
    const auto correct = [&](const CublasLtChoice& c) {
      const Run run = [&](const GemmArguments& args) {
        return cublaslt_matmul_->run(c, args, cublaslt_workspace_.get(), stream_) == CUBLAS_STATUS_SUCCESS
                   ? cudaSuccess
                   : cudaErrorUnknown;
      };
      return check(run, tuned_check()).passed;
    };
    for (const auto& [ms, i] : order) {
      if (!correct(choices[i])) continue;
      // The first choice is what a plain cuBLASLt user gets: kept apart from the best if it is right.
      const bool first_correct = i == 0 || correct(choices[0]);
      cublaslt_first_ = first_correct ? choices[0] : choices[i];
      if (first_correct && i != 0) cublaslt_best_ = choices[i];
      return;
    }
  } catch (const std::exception& e) {  // cuBLASLt is a contestant: without it the kernels race cuBLAS alone
    cublaslt_first_.reset();
    cublaslt_best_.reset();
    cublaslt_failure_ = e.what();
  }
}

std::optional<CublasLtAlgo> GpuBench::cublaslt_first() const {
  if (!cublaslt_first_) return std::nullopt;
  return cublaslt_matmul_->written_down(*cublaslt_first_);
}

std::optional<CublasLtAlgo> GpuBench::cublaslt_best() const {
  if (!cublaslt_best_) return std::nullopt;
  return cublaslt_matmul_->written_down(*cublaslt_best_);
}

GpuBench::~GpuBench() {
  tuned_check_.reset();
  for (auto& check : awkward_checks_) check.reset();
  if (start_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaEventDestroy(start_));
  if (stop_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaEventDestroy(stop_));
  cublaslt_matmul_.reset();
  if (cublaslt_) cublasLtDestroy(cublaslt_);
  if (cublas_) cublasDestroy(cublas_);
  if (stream_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
}

void GpuBench::run_cublas(const void* a, const void* b, void* c, const GemmShape& s, float alpha, float beta,
                          bool as_sgemm) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands; each keeps
  // its own transpose.
  const cublasOperation_t op_b = cublas_op(op_b_transposed(s.layout)), op_a = cublas_op(op_a_transposed(s.layout));
  if (as_sgemm || s.precision == Precision::fp32 || s.precision == Precision::tf32x3) {
    // 3xtf32's yardstick is cuBLAS SGEMM itself: the FP32 call its users make today.
    const auto* fa = static_cast<const float*>(a);
    const auto* fb = static_cast<const float*>(b);
    auto* fc = static_cast<float*>(c);
    if (s.batch == 1) {
      GEMMTUNE_CUBLAS_CHECK(
          cublasSgemm(cublas_, op_b, op_a, s.n, s.m, s.k, &alpha, fb, s.ldb(), fa, s.lda(), &beta, fc, s.n));
    } else {
      GEMMTUNE_CUBLAS_CHECK(cublasSgemmStridedBatched(cublas_, op_b, op_a, s.n, s.m, s.k, &alpha, fb, s.ldb(),
                                                      s.stride_b(), fa, s.lda(), s.stride_a(), &beta, fc, s.n,
                                                      s.stride_c(), s.batch));
    }
    return;
  }
  // cuBLAS's default call in the same precision, FP32 accumulation, C FP32 or 16-bit as the problem's.
  const cudaDataType_t type = cuda_type(s.precision), c_type = s.c16 ? type : CUDA_R_32F;
  const cublasComputeType_t compute =
      s.precision == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  if (s.batch == 1) {
    GEMMTUNE_CUBLAS_CHECK(cublasGemmEx(cublas_, op_b, op_a, s.n, s.m, s.k, &alpha, b, type, s.ldb(), a, type,
                                       s.lda(), &beta, c, c_type, s.n, compute, CUBLAS_GEMM_DEFAULT));
  } else {
    GEMMTUNE_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cublas_, op_b, op_a, s.n, s.m, s.k, &alpha, b, type, s.ldb(),
                                                     s.stride_b(), a, type, s.lda(), s.stride_a(), &beta, c,
                                                     c_type, s.n, s.stride_c(), s.batch, compute,
                                                     CUBLAS_GEMM_DEFAULT));
  }
}

void GpuBench::run_reference(const float* a, const float* b, const float* c0, double* expected, const GemmShape& s,
                             float alpha, float beta) {
  const std::size_t ac = std::size_t(s.stride_a()) * s.batch, bc = std::size_t(s.stride_b()) * s.batch,
                    cc = std::size_t(s.stride_c()) * s.batch;
  DeviceBuffer a64(ac * sizeof(double)), b64(bc * sizeof(double));
  auto* da = reinterpret_cast<double*>(a64.get());
  auto* db = reinterpret_cast<double*>(b64.get());
  checks_.widen(a, da, ac, stream_);
  checks_.widen(b, db, bc, stream_);
  checks_.widen(c0, expected, cc, stream_);
  const double alpha64 = alpha, beta64 = beta;
  const cublasOperation_t op_b = cublas_op(op_b_transposed(s.layout)), op_a = cublas_op(op_a_transposed(s.layout));
  GEMMTUNE_CUBLAS_CHECK(cublasDgemmStridedBatched(cublas_, op_b, op_a, s.n, s.m, s.k, &alpha64, db, s.ldb(),
                                                  s.stride_b(), da, s.lda(), s.stride_a(), &beta64, expected, s.n,
                                                  s.stride_c(), s.batch));
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // a64 and b64 are freed on return
}

std::unique_ptr<GpuBench::Operands> GpuBench::make_operands(const GemmShape& s, float alpha, float beta,
                                                            bool poison, unsigned seed) {
  auto op = std::make_unique<Operands>();
  op->shape = s;
  op->alpha = alpha;
  op->beta = beta;
  op->poison = poison;
  const std::size_t ac = std::size_t(s.stride_a()) * s.batch, bc = std::size_t(s.stride_b()) * s.batch,
                    cc = std::size_t(s.stride_c()) * s.batch;
  op->a = DeviceBuffer(ac * sizeof(float));
  op->b = DeviceBuffer(bc * sizeof(float));
  op->c0 = DeviceBuffer(cc * sizeof(float));
  op->c = DeviceBuffer(cc * sizeof(float));
  op->expected = DeviceBuffer(cc * sizeof(float));
  op->bound = DeviceBuffer(cc * sizeof(float));
  const Precision precision = s.precision;
  if (operand_bytes(precision) == 2) {
    op->a_bits = DeviceBuffer(ac * 2);
    op->b_bits = DeviceBuffer(bc * 2);
  }
  if (s.c16) {
    op->c0_bits = DeviceBuffer(cc * 2);
    op->c_bits = DeviceBuffer(cc * 2);
  }
  // The operands as the kernels multiply them (rounded to the precision; absolute values for the
  // bound, signed for the product); the bits of 16-bit ones are the signed values'.
  const auto make = [&](bool absolute) {
    checks_.fill_uniform(op->a.get(), ac, seed, absolute, stream_);
    checks_.fill_uniform(op->b.get(), bc, seed + 1, absolute, stream_);
    checks_.round_operand(precision, op->a.get(), op->a_bits.get(), ac, stream_);
    checks_.round_operand(precision, op->b.get(), op->b_bits.get(), bc, stream_);
  };
  // |A||B| for the bound, by cuBLAS SGEMM on the absolute values (in c, free until a check runs).
  make(true);
  checks_.fill_uniform(op->c0.get(), cc, seed + 2, false, stream_);
  if (s.c16) checks_.round_operand(precision, op->c0.get(), op->c0_bits.get(), cc, stream_);
  run_cublas(op->a.get(), op->b.get(), op->c.get(), s, 1.0f, 0.0f, true);  // SGEMM: an FP32 C whatever s's
  // A 16-bit C adds its one rounding, u_out * |x| for the FP32 result x, with |x| at most
  // |alpha| |A||B| + |beta| |C0| (and a hair for x's own error beyond R).
  const double u_out = output_roundoff(s) * (1 + 1.0 / 1024);
  const double scale_ab = (accumulation_roundoff(precision) * (2.0 * s.k + 4.0) + u_out) * std::fabs(alpha);
  const double scale_c = (kUnitRoundoff * 4.0 + u_out) * std::fabs(beta);
  checks_.error_bound(op->bound.get(), op->c.get(), op->c0.get(), cc, float(scale_ab), float(scale_c), stream_);
  make(false);
  if (precision == Precision::fp32) {
    // The reference (alpha * A B + beta * C0): cuBLAS SGEMM, whose own error the bound covers.
    GEMMTUNE_CUDA_CHECK(cudaMemcpyAsync(op->expected.get(), op->c0.get(), cc * sizeof(float),
                                        cudaMemcpyDeviceToDevice, stream_));
    run_cublas(op->a.get(), op->b.get(), op->expected.get(), s, alpha, beta);
  } else {
    // The float64 reference from the rounded inputs, and SGEMM's normwise error against it.
    op->expected64 = DeviceBuffer(cc * sizeof(double));
    auto* expected64 = reinterpret_cast<double*>(op->expected64.get());
    run_reference(op->a.get(), op->b.get(), op->c0.get(), expected64, s, alpha, beta);
    checks_.narrow(expected64, op->expected.get(), cc, stream_);
    if (precision == Precision::tf32x3) {
      GEMMTUNE_CUDA_CHECK(
          cudaMemcpyAsync(op->c.get(), op->c0.get(), cc * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
      run_cublas(op->a.get(), op->b.get(), op->c.get(), s, alpha, beta, true);
      op->sgemm_normwise = checks_.normwise_error(op->c.get(), expected64, cc, stream_);
    }
  }
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return op;
}

float* GpuBench::workspace_for(const KernelConfig& config, const GemmShape& s) {
  const std::size_t bytes = workspace_bytes(config, s.m, s.n, s.k, s.batch);
  const WorkspaceKind kind = workspace_kind(config);
  if (kind != WorkspaceKind::scratch) {  // its own buffer, zeroed once: launches only count up or leave zeros
    DeviceBuffer& buffer = kind == WorkspaceKind::counters ? counters_ : zeros_;
    if (bytes > buffer.bytes()) {
      buffer = DeviceBuffer(bytes);
      GEMMTUNE_CUDA_CHECK(cudaMemsetAsync(buffer.get(), 0, bytes, stream_));
    }
    return buffer.get();
  }
  if (bytes > workspace_.bytes()) workspace_ = DeviceBuffer(bytes);
  return workspace_.get();
}

Verification GpuBench::check(const Run& run, Operands& op) {
  const GemmShape& s = op.shape;
  const std::size_t cc = std::size_t(s.stride_c()) * s.batch;
  // The C the contestant writes: FP32, or the 16-bit one, read back into op.c afterwards.
  void* const c = s.c16 ? static_cast<void*>(op.c_bits.get()) : op.c.get();
  const std::size_t c_bytes = cc * (s.c16 ? 2 : sizeof(float));
  if (op.poison) {
    GEMMTUNE_CUDA_CHECK(cudaMemsetAsync(c, 0xFF, c_bytes, stream_));  // all-ones bits: NaN (in 16 bits too)
  } else {
    const void* c0 = s.c16 ? static_cast<const void*>(op.c0_bits.get()) : op.c0.get();
    GEMMTUNE_CUDA_CHECK(cudaMemcpyAsync(c, c0, c_bytes, cudaMemcpyDeviceToDevice, stream_));
  }
  const GemmArguments args = dense_arguments(s, static_cast<const float*>(op.kernel_a()),
                                             static_cast<const float*>(op.kernel_b()), c, op.alpha, op.beta);
  GEMMTUNE_CUDA_CHECK(run(args));
  if (s.c16) checks_.unpack_16bit(s.precision, op.c_bits.get(), op.c.get(), cc, stream_);
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const WorstError worst = checks_.worst(op.c.get(), op.expected.get(), op.bound.get(), cc, stream_);
  Verification v;
  v.worst_error_ratio = worst.ratio;
  v.passed = worst.ratio <= 1.0;
  if (op.expected64.bytes()) {
    v.normwise_error =
        checks_.normwise_error(op.c.get(), reinterpret_cast<const double*>(op.expected64.get()), cc, stream_);
    v.sgemm_normwise_error = op.sgemm_normwise;
  }
  if (!v.passed) {
    float got = 0, expected = 0;
    GEMMTUNE_CUDA_CHECK(cudaMemcpy(&got, op.c.get() + worst.index, sizeof got, cudaMemcpyDeviceToHost));
    GEMMTUNE_CUDA_CHECK(
        cudaMemcpy(&expected, op.expected.get() + worst.index, sizeof expected, cudaMemcpyDeviceToHost));
    const std::size_t entry = worst.index / s.stride_c(), element = worst.index % s.stride_c();
    v.detail = fmt::format("{}: C{}[{}][{}] = {} vs the reference {} ({:.3g}x the error bound)", s.label(),
                           s.batch > 1 ? fmt::format(" of entry {}", entry) : std::string(), element / s.n,
                           element % s.n, got, expected, worst.ratio);
  }
  return v;
}

GpuBench::Operands& GpuBench::tuned_check() {
  if (!tuned_check_) tuned_check_ = make_operands(shape_, 0.75f, 0.5f, false, seed_ + 100);
  return *tuned_check_;
}

Verification GpuBench::verify(const LoadedKernel& kernel) {
  // The tuned shape with beta != 0 (C is read), the awkward shape of the kernel's path with
  // beta == 0 over NaN (C must not be read and every element must be written). Made when first needed.
  const int path = int(kernel.path());
  if (!awkward_checks_[path])
    awkward_checks_[path] = make_operands(awkward_[path], 1.25f, 0.0f, true, seed_ + 200 + path);
  Verification worst;
  worst.passed = true;
  for (Operands* op : {&tuned_check(), awkward_checks_[path].get()}) {
    const Run run = [&](const GemmArguments& args) {
      return kernel.launch(args, workspace_for(kernel.config(), op->shape), stream_);
    };
    Verification v = check(run, *op);
    // A 3xtf32 kernel promises FP32's accuracy: no worse than cuBLAS SGEMM on the same data (at the
    // tuned shape: the awkward ones' small K is below the range where that holds).
    if (v.passed && op == tuned_check_.get() && shape_.precision == Precision::tf32x3 &&
        !(v.normwise_error <= v.sgemm_normwise_error)) {
      v.passed = false;
      v.detail = fmt::format("{}: normwise error {:.3g}, above cuBLAS SGEMM's {:.3g} on the same data",
                             shape_.label(), v.normwise_error, v.sgemm_normwise_error);
    }
    if (!v.passed) {
      if (op != tuned_check_.get()) v.normwise_error = v.sgemm_normwise_error = 0;  // the awkward shape's
      return v;
    }
    worst.worst_error_ratio = std::max(worst.worst_error_ratio, v.worst_error_ratio);
    if (op == tuned_check_.get()) {  // the normwise errors that describe the problem itself
      worst.normwise_error = v.normwise_error;
      worst.sgemm_normwise_error = v.sgemm_normwise_error;
    }
  }
  return worst;
}

std::vector<std::vector<double>> GpuBench::time_rounds(const std::vector<Launch>& contenders, int rounds, int reps) {
  // A warm-up round of eager launches (modules load, workspaces reach their size, so the addresses
  // captured next stay valid), then each contender's batch captured in a CUDA graph of at most
  // kGraphCalls launches (CapturedBatch: a sample is GPU time, not the host's launch rate), then
  // `rounds` rounds in which every contender replays its graph enough times for `reps` launches,
  // with an event between consecutive batches and one synchronization at the end: the GPU never
  // idles between samples, so later samples do not re-measure clock ramp-up, and every
  // contender's batch follows another GEMM alike. A contender that cannot be captured times all of
  // them eagerly, as before.
  const int sets = static_cast<int>(a_sets_.size());
  int next = 0;
  const auto batch = [&](const Launch& launch) {
    for (int r = 0; r < reps; ++r) launch(next++ % sets);
  };
  for (const Launch& launch : contenders) batch(launch);
  const int calls = std::min(reps, kGraphCalls), replays = (reps + calls - 1) / calls;
  std::vector<std::unique_ptr<CapturedBatch>> graphs;
  try {
    for (const Launch& launch : contenders)
      graphs.push_back(std::make_unique<CapturedBatch>(stream_, calls, [&](int) { launch(next++ % sets); }));
    for (const auto& graph : graphs) graph->replay(stream_);  // the graphs' own first launch
  } catch (const std::exception& e) {
    if (!eager_timing_)
      spdlog::warn("{}: timing eager launches: a contender cannot be captured ({})", shape_.label(), e.what());
    eager_timing_ = true;
    graphs.clear();
  }
  const auto sample = [&](std::size_t contender) {
    if (graphs.empty()) return batch(contenders[contender]);
    for (int r = 0; r < replays; ++r) graphs[contender]->replay(stream_);
  };
  const double launches = graphs.empty() ? reps : double(replays) * calls;
  const std::size_t count = contenders.size() * static_cast<std::size_t>(rounds);
  std::vector<cudaEvent_t> events(count + 1);
  for (auto& e : events) GEMMTUNE_CUDA_CHECK(cudaEventCreate(&e));
  std::vector<std::vector<double>> out(contenders.size());
  try {
    GEMMTUNE_CUDA_CHECK(cudaEventRecord(events[0], stream_));
    for (std::size_t i = 0; i < count; ++i) {
      sample(i % contenders.size());
      GEMMTUNE_CUDA_CHECK(cudaEventRecord(events[i + 1], stream_));
    }
    GEMMTUNE_CUDA_CHECK(cudaEventSynchronize(events[count]));
    for (std::size_t i = 0; i < count; ++i) {
      float ms = 0;
      GEMMTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, events[i], events[i + 1]));
      out[i % contenders.size()].push_back(double(ms) / launches);
    }
  } catch (...) {
    for (auto& e : events) cudaEventDestroy(e);
    throw;
  }
  for (auto& e : events) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
  return out;
}

GpuBench::Launch GpuBench::kernel_launch(const LoadedKernel& kernel) {
  // The workspace is looked up at every launch: another contender's may grow it (in the warm-up
  // round), which frees the buffer an address captured before would point to.
  return [this, &kernel](int set) {
    const GemmArguments args =
        dense_arguments(shape_, a_sets_[set].get(), b_sets_[set].get(), c_sets_[set].get(), 1.0f, 0.0f);
    GEMMTUNE_CUDA_CHECK(kernel.launch(args, workspace_for(kernel.config(), shape_), stream_));
  };
}

GpuBench::Launch GpuBench::cublas_launch() {
  return [this](int set) {
    run_cublas(a_sets_[set].get(), b_sets_[set].get(), c_sets_[set].get(), shape_, 1.0f, 0.0f);
  };
}

GpuBench::Launch GpuBench::cublaslt_launch(const CublasLtChoice& choice) {
  return [this, choice](int set) {
    const GemmArguments args = dense_arguments(shape_, a_sets_[set].get(), b_sets_[set].get(), c_sets_[set].get(), 1.0f, 0.0f);
    GEMMTUNE_CUBLAS_CHECK(cublaslt_matmul_->run(choice, args, cublaslt_workspace_.get(), stream_));
  };
}

std::vector<GpuBench::Launch> GpuBench::baseline_launches() {
  std::vector<Launch> launches = {cublas_launch()};
  for (const auto* choice : {&cublaslt_first_, &cublaslt_best_})
    if (*choice) launches.push_back(cublaslt_launch(**choice));
  return launches;
}

GpuBench::Baselines GpuBench::baselines_of(std::vector<std::vector<double>>& times) const {
  Baselines b;
  auto next = times.begin();
  b.cublas_ms = std::move(*next++);
  if (cublaslt_first_) b.cublaslt_first_ms = std::move(*next++);
  if (cublaslt_best_) b.cublaslt_best_ms = std::move(*next++);
  times.erase(times.begin(), next);
  return b;
}

GpuBench::Baselines GpuBench::time_baselines(int samples) {
  std::vector<std::vector<double>> times = time_rounds(baseline_launches(), samples, reps_);
  return baselines_of(times);
}

std::vector<double> GpuBench::time_kernel(const LoadedKernel& kernel, int samples) {
  return time_rounds({kernel_launch(kernel)}, samples, screen_reps_).front();
}

std::vector<double> GpuBench::time_cublas(int samples) {
  return time_rounds({cublas_launch()}, samples, reps_).front();
}

GpuBench::Race GpuBench::race(const std::vector<const LoadedKernel*>& kernels, int rounds) {
  std::vector<Launch> contenders = baseline_launches();
  for (const LoadedKernel* kernel : kernels) contenders.push_back(kernel_launch(*kernel));
  std::vector<std::vector<double>> times = time_rounds(contenders, rounds, reps_);
  Race race;
  static_cast<Baselines&>(race) = baselines_of(times);
  race.kernels_ms = std::move(times);
  return race;
}

}  // namespace gemmtune
