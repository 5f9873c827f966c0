// GpuBench implementation. Error bound for a K-long FP32 dot product computed in any order, against
// a reference computed in another order: each side is within K*u*(|A||B|)_ij of the exact value
// (u = 2^-24), plus a few roundings for alpha, beta and the final sum:
//   |C - R|_ij <= u * ((2K + 4) * |alpha| * (|A||B|)_ij + 4 * |beta| * |C0|_ij).
#include "measure/gpu_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/cuda_check.hpp"
#include "measure/cublas_check.hpp"

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

// Awkward dimensions are made from at most this: how a kernel handles an edge does not depend on
// how many whole tiles come before it, and at 4096 a full-size check cost as much as a timing.
constexpr int kAwkwardFrom = 518;

GemmShape awkward_shape_of(const GemmShape& s, int (*dimension)(int)) {
  const auto awkward = [&](int x) { return dimension(std::min(x, kAwkwardFrom)); };
  return {awkward(s.m), awkward(s.n), awkward(s.k), s.layout, s.batch};
}

// For the whole-tile path: N stays a multiple of the tile (the tuned shape's), M and K do not.
GemmShape awkward_tiles_shape_of(const GemmShape& s) {
  return {awkward_whole_dimension(std::min(s.m, kAwkwardFrom)), s.n,
          awkward_whole_dimension(std::min(s.k, kAwkwardFrom)), s.layout, s.batch};
}

// The kernel's arguments for densely packed operands of s.
GemmArguments dense_arguments(const GemmShape& s, const float* a, const float* b, float* c, float alpha, float beta) {
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
};

GpuBench::GpuBench(GemmShape shape, std::size_t l2_bytes, unsigned seed, const DeviceChecks& checks)
    : checks_(checks),
      shape_(shape),
      awkward_{awkward_shape_of(shape, awkward_dimension), awkward_shape_of(shape, awkward_whole_dimension),
               awkward_tiles_shape_of(shape)},
      seed_(seed) {
  GEMMTUNE_CUBLAS_CHECK(cublasCreate(&cublas_));
  GEMMTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  GEMMTUNE_CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
  // Default math: for SGEMM that is pure FP32 (TF32 needs CUBLAS_TF32_TENSOR_OP_MATH), the
  // baseline users get from cublasSgemm.
  GEMMTUNE_CUBLAS_CHECK(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH));
  GEMMTUNE_CUDA_CHECK(cudaEventCreate(&start_));
  GEMMTUNE_CUDA_CHECK(cudaEventCreate(&stop_));

  const std::size_t a_count = std::size_t(shape.stride_a()) * shape.batch,
                    b_count = std::size_t(shape.stride_b()) * shape.batch,
                    c_count = std::size_t(shape.stride_c()) * shape.batch;
  const std::size_t set_bytes = (a_count + b_count + c_count) * sizeof(float);
  const std::size_t wanted = (3 * l2_bytes + set_bytes - 1) / set_bytes;
  const std::size_t sets = std::clamp<std::size_t>(
      wanted, 1, std::max<std::size_t>(1, std::min<std::size_t>(32, (4ULL << 30) / set_bytes)));
  for (std::size_t i = 0; i < sets; ++i) {
    a_sets_.emplace_back(a_count * sizeof(float));
    b_sets_.emplace_back(b_count * sizeof(float));
    c_sets_.emplace_back(c_count * sizeof(float));
    checks_.fill_uniform(a_sets_.back().get(), a_count, seed, false, stream_);
    checks_.fill_uniform(b_sets_.back().get(), b_count, seed + 1, false, stream_);
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
}

GpuBench::~GpuBench() {
  tuned_check_.reset();
  for (auto& check : awkward_checks_) check.reset();
  if (start_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaEventDestroy(start_));
  if (stop_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaEventDestroy(stop_));
  if (cublas_) cublasDestroy(cublas_);
  if (stream_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
}

void GpuBench::run_cublas(const float* a, const float* b, float* c, const GemmShape& s, float alpha, float beta) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands; each keeps
  // its own transpose.
  const cublasOperation_t op_b = cublas_op(op_b_transposed(s.layout)), op_a = cublas_op(op_a_transposed(s.layout));
  if (s.batch == 1) {
    GEMMTUNE_CUBLAS_CHECK(
        cublasSgemm(cublas_, op_b, op_a, s.n, s.m, s.k, &alpha, b, s.ldb(), a, s.lda(), &beta, c, s.n));
  } else {
    GEMMTUNE_CUBLAS_CHECK(cublasSgemmStridedBatched(cublas_, op_b, op_a, s.n, s.m, s.k, &alpha, b, s.ldb(),
                                                    s.stride_b(), a, s.lda(), s.stride_a(), &beta, c, s.n,
                                                    s.stride_c(), s.batch));
  }
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
  // |A||B| for the bound, by cuBLAS on the absolute values (in c, free until a check runs).
  checks_.fill_uniform(op->a.get(), ac, seed, true, stream_);
  checks_.fill_uniform(op->b.get(), bc, seed + 1, true, stream_);
  checks_.fill_uniform(op->c0.get(), cc, seed + 2, false, stream_);
  run_cublas(op->a.get(), op->b.get(), op->c.get(), s, 1.0f, 0.0f);
  const double scale_ab = kUnitRoundoff * (2.0 * s.k + 4.0) * std::fabs(alpha);
  const double scale_c = kUnitRoundoff * 4.0 * std::fabs(beta);
  checks_.error_bound(op->bound.get(), op->c.get(), op->c0.get(), cc, float(scale_ab), float(scale_c), stream_);
  // The signed operands, for the reference (alpha * A B + beta * C0) and the kernel under test.
  checks_.fill_uniform(op->a.get(), ac, seed, false, stream_);
  checks_.fill_uniform(op->b.get(), bc, seed + 1, false, stream_);
  GEMMTUNE_CUDA_CHECK(cudaMemcpyAsync(op->expected.get(), op->c0.get(), cc * sizeof(float),
                                      cudaMemcpyDeviceToDevice, stream_));
  run_cublas(op->a.get(), op->b.get(), op->expected.get(), s, alpha, beta);
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return op;
}

float* GpuBench::workspace_for(const KernelConfig& config, const GemmShape& s) {
  const std::size_t bytes = workspace_bytes(config, s.m, s.n, s.batch);
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

Verification GpuBench::check(const LoadedKernel& kernel, Operands& op) {
  const GemmShape& s = op.shape;
  const std::size_t cc = std::size_t(s.stride_c()) * s.batch;
  if (op.poison) {
    GEMMTUNE_CUDA_CHECK(cudaMemsetAsync(op.c.get(), 0xFF, cc * sizeof(float), stream_));  // all-ones bits: NaN
  } else {
    GEMMTUNE_CUDA_CHECK(
        cudaMemcpyAsync(op.c.get(), op.c0.get(), cc * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
  }
  const GemmArguments args = dense_arguments(s, op.a.get(), op.b.get(), op.c.get(), op.alpha, op.beta);
  GEMMTUNE_CUDA_CHECK(kernel.launch(args, workspace_for(kernel.config(), s), stream_));
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const WorstError worst = checks_.worst(op.c.get(), op.expected.get(), op.bound.get(), cc, stream_);
  Verification v;
  v.worst_error_ratio = worst.ratio;
  v.passed = worst.ratio <= 1.0;
  if (!v.passed) {
    float got = 0, expected = 0;
    GEMMTUNE_CUDA_CHECK(cudaMemcpy(&got, op.c.get() + worst.index, sizeof got, cudaMemcpyDeviceToHost));
    GEMMTUNE_CUDA_CHECK(
        cudaMemcpy(&expected, op.expected.get() + worst.index, sizeof expected, cudaMemcpyDeviceToHost));
    const std::size_t entry = worst.index / s.stride_c(), element = worst.index % s.stride_c();
    v.detail = fmt::format("{}: C{}[{}][{}] = {} vs cuBLAS {} ({:.3g}x the error bound)", s.label(),
                           s.batch > 1 ? fmt::format(" of entry {}", entry) : std::string(), element / s.n,
                           element % s.n, got, expected, worst.ratio);
  }
  return v;
}

Verification GpuBench::verify(const LoadedKernel& kernel) {
  // The tuned shape with beta != 0 (C is read), the awkward shape of the kernel's path with
  // beta == 0 over NaN (C must not be read and every element must be written). Made when first needed.
  const int path = int(kernel.path());
  if (!tuned_check_) tuned_check_ = make_operands(shape_, 0.75f, 0.5f, false, seed_ + 100);
  if (!awkward_checks_[path])
    awkward_checks_[path] = make_operands(awkward_[path], 1.25f, 0.0f, true, seed_ + 200 + path);
  Verification worst;
  worst.passed = true;
  for (Operands* op : {tuned_check_.get(), awkward_checks_[path].get()}) {
    Verification v = check(kernel, *op);
    if (!v.passed) return v;
    worst.worst_error_ratio = std::max(worst.worst_error_ratio, v.worst_error_ratio);
  }
  return worst;
}

std::vector<std::vector<double>> GpuBench::time_rounds(const std::vector<Launch>& contenders, int rounds, int reps) {
  // A warm-up round, then `rounds` rounds in which every contender runs one batch, with an event
  // between consecutive batches and one synchronization at the end: the GPU never idles between
  // samples, so later samples do not re-measure clock ramp-up, and every contender's batch follows
  // another GEMM alike.
  const int sets = static_cast<int>(a_sets_.size());
  int next = 0;
  const auto batch = [&](const Launch& launch) {
    for (int r = 0; r < reps; ++r) launch(next++ % sets);
  };
  for (const Launch& launch : contenders) batch(launch);
  const std::size_t count = contenders.size() * static_cast<std::size_t>(rounds);
  std::vector<cudaEvent_t> events(count + 1);
  for (auto& e : events) GEMMTUNE_CUDA_CHECK(cudaEventCreate(&e));
  std::vector<std::vector<double>> out(contenders.size());
  try {
    GEMMTUNE_CUDA_CHECK(cudaEventRecord(events[0], stream_));
    for (std::size_t i = 0; i < count; ++i) {
      batch(contenders[i % contenders.size()]);
      GEMMTUNE_CUDA_CHECK(cudaEventRecord(events[i + 1], stream_));
    }
    GEMMTUNE_CUDA_CHECK(cudaEventSynchronize(events[count]));
    for (std::size_t i = 0; i < count; ++i) {
      float ms = 0;
      GEMMTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, events[i], events[i + 1]));
      out[i % contenders.size()].push_back(double(ms) / reps);
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
  // round), which frees the buffer a captured address would point to.
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

std::vector<double> GpuBench::time_kernel(const LoadedKernel& kernel, int samples) {
  return time_rounds({kernel_launch(kernel)}, samples, screen_reps_).front();
}

std::vector<double> GpuBench::time_cublas(int samples) {
  return time_rounds({cublas_launch()}, samples, reps_).front();
}

GpuBench::Race GpuBench::race(const std::vector<const LoadedKernel*>& kernels, int rounds) {
  std::vector<Launch> contenders = {cublas_launch()};
  for (const LoadedKernel* kernel : kernels) contenders.push_back(kernel_launch(*kernel));
  std::vector<std::vector<double>> times = time_rounds(contenders, rounds, reps_);
  Race race;
  race.cublas_ms = std::move(times.front());
  race.kernels_ms.assign(std::make_move_iterator(times.begin() + 1), std::make_move_iterator(times.end()));
  return race;
}

}  // namespace gemmtune
