// gemmtune::Handle: the C++ boundary of the runtime library. Exceptions from the internals stop here
// and become a Status; the hot path of every call is argument checks, the current device, one
// shared-lock lookup and the launch (a kernel, or cuBLAS through a pooled handle).
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <gemmtune/gemmtune.hpp>
#include <mutex>
#include <new>

#include "core/cuda_check.hpp"
#include "core/precision.hpp"
#include "device_kernels.hpp"
#include "gemm_call.hpp"
#include "install_location.hpp"
#include "runtime_log.hpp"
#include "shape_recorder.hpp"

namespace gemmtune {
namespace {

constexpr int kMinComputeCapability = 75;  // what default_config() and the template need

// Which status a handle reports when several problems occurred: the one that matters most.
int severity(Status status) {
  switch (status) {
    case Status::success:
      return 0;
    case Status::results_for_other_device:
      return 1;
    case Status::invalid_results:
      return 2;
    case Status::results_not_found:
      return 3;
    case Status::unsupported_device:
      return 5;
    case Status::no_device:
      return 6;
    default:
      return 4;
  }
}

Status status_of_cuda_error(cudaError_t err) {
  if (err == cudaSuccess) return Status::success;
  return err == cudaErrorMemoryAllocation ? Status::out_of_memory : Status::cuda_error;
}

// Maps the exception in flight to a status, with a log line.
Status status_of_current_exception(const char* during) noexcept {
  try {
    throw;
  } catch (const CompileError& e) {
    runtime_logger().error("{}: {}", during, printable(e.what()));
    return Status::compile_failed;
  } catch (const CudaError& e) {
    runtime_logger().error("{}: {}", during, printable(e.what()));
    return status_of_cuda_error(e.code());
  } catch (const std::bad_alloc&) {
    return Status::out_of_memory;
  } catch (const std::exception& e) {
    runtime_logger().error("{}: {}", during, printable(e.what()));
    return Status::internal_error;
  } catch (...) {
    return Status::internal_error;
  }
}

const std::string kEmptyHandleMessage = "the handle is empty (moved from, or out of memory when created)";
const std::string kNoText;

}  // namespace

class Handle::Impl {
 public:
  void open(const std::string& results_path);
  ~Impl();

  void note(Status status, const std::string& line) {
    if (severity(status) > severity(status_)) status_ = status;
    if (!message_.empty()) message_ += '\n';
    message_ += line;
  }

  Status kernels_for_current_device(DeviceKernels*& kernels);

  Status gemm(const GemmCall& call, cudaStream_t stream);
  // A resolved call that no tuned kernel runs.
  Status run_without_kernel(DeviceKernels& kernels, const ResolvedShape& resolved, const CallShape& shape,
                            const GemmCall& call, cudaStream_t stream);
  // What resolves a call: its own problem, or with the sgemm opt-in an FP32 call's 3xtf32 winner.
  const ResolvedShape& resolve(DeviceKernels& kernels, CallShape shape);
  Status choose(const GemmProblem& p, const float* a, const float* b, KernelChoice& choice);

  Status status_ = Status::success;
  std::string message_;
  std::string slug_;
  Status unavailable_ = Status::no_device;  // what calls return while no device is usable
  std::atomic<cudaStream_t> stream_{nullptr};  // of the column-major calls, as cuBLAS's handle has one
  std::atomic<Precision> sgemm_precision_{Precision::fp32};  // set_sgemm_precision

 private:
  struct DeviceSlot {
    std::atomic<DeviceKernels*> ready{nullptr};
    std::atomic<bool> unsupported{false};
    std::mutex mutex;  // guards creating owned
    std::unique_ptr<DeviceKernels> owned;
  };

  ResultsCatalog catalog_;
  std::unique_ptr<KernelCompiler> compiler_;
  bool deterministic_ = false;  // GEMMTUNE_DETERMINISTIC when the handle was created
  std::unique_ptr<DeviceSlot[]> devices_;
  int device_count_ = 0;
  // GEMMTUNE_RECORD and recording sessions: calls are counted per resolved shape and written by the
  // recorder (shape_recorder.hpp).
  std::filesystem::path record_path_;
  int record_token_ = 0;

  std::vector<RecordedProblem> take_recorded();
};

std::vector<RecordedProblem> Handle::Impl::take_recorded() {
  std::vector<RecordedProblem> problems;
  for (int d = 0; d < device_count_; ++d) {
    DeviceKernels* kernels = devices_[d].ready.load(std::memory_order_acquire);
    if (!kernels) continue;
    kernels->for_each_resolved([&](const CallShape& shape, const ResolvedShape& resolved) {
      const std::uint64_t calls = resolved.calls.exchange(0, std::memory_order_relaxed);
      if (calls == 0) return;
      add_recorded(problems, {shape.problem, shape.aligned_width, calls});
    });
  }
  return problems;
}

void Handle::Impl::open(const std::string& results_path) {
  std::filesystem::path path = results_path;
  bool requested = true;
  if (path.empty()) {
    if (const char* env = std::getenv("GEMMTUNE_RESULTS"); env && *env) {
      path = env;
    } else {
      path = installed_results_dir();
      requested = false;
    }
  }
  if (path.empty()) {
    runtime_logger().debug("no results installed next to the library and GEMMTUNE_RESULTS is not set");
  } else {
    catalog_ = load_results(path, requested);
  }
  for (const ResultsIssue& issue : catalog_.issues)
    note(issue.kind == ResultsIssue::Kind::not_found ? Status::results_not_found : Status::invalid_results,
         issue.message);

  const DeviceCount count = count_devices();
  if (count.count == 0) {
    note(Status::no_device, count.reason);
    return;
  }
  int current = 0;
  GEMMTUNE_CUDA_CHECK(cudaGetDevice(&current));
  const DeviceProfile device = query_device(current);
  slug_ = device.slug;
  if (device.compute_capability < kMinComputeCapability)
    note(Status::unsupported_device, fmt::format("{} is sm_{}; the kernels need sm_{} or newer", slug_,
                                                 device.compute_capability, kMinComputeCapability));
  if (catalog_.single_file && catalog_.files.size() == 1 && catalog_.files.front().device.slug != slug_) {
    const TunedResults& file = catalog_.files.front();
    const bool same_arch = file.device.compute_capability == device.compute_capability;
    const std::string line =
        fmt::format("{}: results for {} (sm_{}), this GPU is {} (sm_{}): {}", file.origin, file.device.slug,
                    file.device.compute_capability, slug_, device.compute_capability,
                    same_arch ? "used only where nothing tuned on this model applies" : "not used");
    runtime_logger().warn("results {}", line);
    note(Status::results_for_other_device, line);
  }
  compiler_ = std::make_unique<KernelCompiler>(default_cache_dir());
  deterministic_ = deterministic_requested();
  if (const char* env = std::getenv("GEMMTUNE_SGEMM_PRECISION"); env && std::string_view(env) == "3xtf32")
    sgemm_precision_.store(Precision::tf32x3, std::memory_order_relaxed);
  // Last: calls use the devices only once everything they need is in place.
  devices_ = std::make_unique<DeviceSlot[]>(static_cast<std::size_t>(count.count));
  device_count_ = count.count;
  record_path_ = record_path_requested();
  // Registered even without GEMMTUNE_RECORD: a recording session may start later.
  record_token_ = register_record_source(record_path_, [this] { return take_recorded(); });
  if (!record_path_.empty())
    runtime_logger().info("recording the problems called to {}", printable(record_path_.string()));

  std::size_t own_shapes = 0;
  for (const TunedResults& file : catalog_.files)
    if (file.device.slug == slug_) own_shapes += file.shapes.size();
  runtime_logger().info("{} (sm_{}): {} tuned shapes of its own in {} results files from {}", slug_,
                        device.compute_capability, own_shapes, catalog_.files.size(),
                        path.empty() ? std::string("nowhere") : printable(path.string()));
}

Handle::Impl::~Impl() {
  if (record_token_ != 0) {
    unregister_record_source(record_token_);  // first: the exit hook then cannot reach this handle
    flush_record(record_path_, [this] { return take_recorded(); });
  }
  // Kernels may still be running: wait for each device used before unloading its kernels and
  // freeing its workspaces.
  int current = 0;
  const bool restore = cudaGetDevice(&current) == cudaSuccess;
  for (int d = 0; d < device_count_; ++d) {
    if (!devices_[d].owned) continue;
    if (cudaSetDevice(d) == cudaSuccess) static_cast<void>(cudaDeviceSynchronize());
    devices_[d].owned.reset();
  }
  if (restore) static_cast<void>(cudaSetDevice(current));
}

Status Handle::Impl::kernels_for_current_device(DeviceKernels*& kernels) {
  if (device_count_ == 0) return unavailable_;
  // With one GPU visible the current device can only be 0, and asking costs the call about 40 ns
  // (H100 machine, 2026-11-26). The launch or cuBLAS call that follows binds a new thread's context
  // itself, as any runtime call does (RecordsEveryProblemFromManyThreads calls from fresh threads).
  int device = 0;
  if (device_count_ > 1) {
    if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return status_of_cuda_error(err);
    if (device < 0 || device >= device_count_) return Status::cuda_error;
  }
  DeviceSlot& slot = devices_[device];
  kernels = slot.ready.load(std::memory_order_acquire);
  if (kernels) return Status::success;
  if (slot.unsupported.load(std::memory_order_relaxed)) return Status::unsupported_device;

  std::lock_guard<std::mutex> lock(slot.mutex);
  if (!slot.owned) {
    DeviceProfile profile = query_device(device);
    if (profile.compute_capability < kMinComputeCapability) {
      slot.unsupported.store(true, std::memory_order_relaxed);
      return Status::unsupported_device;
    }
    slot.owned = std::make_unique<DeviceKernels>(std::move(profile), catalog_, *compiler_, deterministic_);
    slot.ready.store(slot.owned.get(), std::memory_order_release);
  }
  kernels = slot.owned.get();
  return Status::success;
}

Status Handle::Impl::gemm(const GemmCall& call, cudaStream_t stream) {
  if (gemm_call_error(call)) return Status::invalid_argument;
  if (gemm_call_is_empty(call)) return Status::success;
  DeviceKernels* kernels = nullptr;
  if (const Status s = kernels_for_current_device(kernels); s != Status::success) return s;

  const GemmProblem& p = call.problem;
  // Never launch what the GPU cannot run: no tensor cores for this precision, not even cuBLAS's.
  // (One integer comparison on the call path; the message only when it fails.)
  const DeviceProfile& device = kernels->profile();
  if (device.compute_capability < min_compute_capability(p.precision)) {
    runtime_logger().error("{}", unsupported_precision(p.precision, device.compute_capability, device.name));
    return Status::unsupported_device;
  }
  const CallShape shape = call_shape_of(p, call.a, call.b, call.c);
  const ResolvedShape* resolved = &resolve(*kernels, shape);
  if (!record_path_.empty() || record_session_active()) resolved->calls.fetch_add(1, std::memory_order_relaxed);
  if (!resolved->kernel) return run_without_kernel(*kernels, *resolved, shape, call, stream);
  const LoadedKernel& kernel = *resolved->kernel;
  const GemmArguments args = kernel_arguments(call);
  const std::size_t workspace = workspace_bytes(kernel.config(), p.m, p.n, p.k, p.batch);
  const cudaError_t err = workspace == 0
                              ? kernel.launch(args, nullptr, stream)
                              : kernels->workspaces().with_workspace(
                                    stream, workspace, workspace_kind(kernel.config()),
                                    [&](float* memory) { return kernel.launch(args, memory, stream); });
  if (err != cudaSuccess)
    runtime_logger().error("{}x{}x{} with {}: {}", p.m, p.n, p.k, kernel.config().name(),
                           cudaGetErrorString(err));
  return status_of_cuda_error(err);
}

// cuBLAS or a stored cuBLASLt algorithm. Neither adds a bias here: a call with one first sets
// C = beta * C + bias (LoadedBiasPass), then adds the product with beta = 1.
Status Handle::Impl::run_without_kernel(DeviceKernels& kernels, const ResolvedShape& resolved,
                                        const CallShape& shape, const GemmCall& call, cudaStream_t stream) {
  GemmCall product = call;
  if (call.bias) {
    const GemmProblem& p = call.problem;
    const LoadedBiasPass& pass = kernels.bias_pass(reduce_c_type(p.precision, p.c16));
    if (const cudaError_t err = pass.launch(kernel_arguments(call), stream); err != cudaSuccess) {
      runtime_logger().error("{}: the bias before cuBLAS: {}", shape.problem.label(), cudaGetErrorString(err));
      return status_of_cuda_error(err);
    }
    product.beta = 1.0f;
    product.bias = nullptr;
  }
  const CublasLtCall* lt = resolved.cublaslt;
  // A cuBLASLt winner's descriptors hold densely packed operands: other calls run cuBLAS's default.
  if (lt && lt->matmul.describes(kernel_arguments(product))) {
    const std::size_t bytes = lt->choice.workspace_bytes;
    const cudaError_t err =
        bytes == 0 ? run_cublaslt(*lt, product, nullptr, stream)
                   : kernels.workspaces().with_workspace(stream, bytes, WorkspaceKind::scratch, [&](float* memory) {
                       return run_cublaslt(*lt, product, memory, stream);
                     });
    if (err != cudaSuccess)
      runtime_logger().error("{} with cuBLASLt: {}", shape.problem.label(), cudaGetErrorString(err));
    return status_of_cuda_error(err);
  }
  const cudaError_t err = kernels.cublas().run(product, stream);
  if (err != cudaSuccess)
    runtime_logger().error("{} with cuBLAS: {}", shape.problem.label(), cudaGetErrorString(err));
  return status_of_cuda_error(err);
}

const ResolvedShape& Handle::Impl::resolve(DeviceKernels& kernels, CallShape shape) {
  const auto resolved = [&](const CallShape& s) -> const ResolvedShape& {
    const ResolvedShape* found = kernels.find(s);
    return found ? *found : kernels.resolve(s);
  };
  if (shape.problem.precision == Precision::fp32 &&
      sgemm_precision_.load(std::memory_order_relaxed) == Precision::tf32x3 &&
      kernels.profile().compute_capability >= min_compute_capability(Precision::tf32x3)) {
    CallShape accurate = shape;
    accurate.problem.precision = Precision::tf32x3;
    const ResolvedShape& tensor_cores = resolved(accurate);
    if (tensor_cores.kernel) return tensor_cores;  // 3xtf32's cuBLAS is SGEMM: FP32's own choice then
  }
  return resolved(shape);
}

Status Handle::Impl::choose(const GemmProblem& p, const float* a, const float* b, KernelChoice& choice) {
  // Pointers only matter for their alignment here; a stand-in keeps the argument checks meaningful.
  alignas(16) static float stand_in[4];  // never read or written
  const GemmCall call{p, 1.0f, 0.0f, a ? a : stand_in, b ? b : stand_in, stand_in};
  if (gemm_call_error(call)) return Status::invalid_argument;
  DeviceKernels* kernels = nullptr;
  if (const Status s = kernels_for_current_device(kernels); s != Status::success) return s;
  const ResolvedShape& resolved = resolve(*kernels, call_shape_of(p, a, b, nullptr));  // C as from cudaMalloc
  const bool cublaslt_runs = resolved.cublaslt && resolved.cublaslt->matmul.describes(kernel_arguments(call));
  choice.implementation = resolved.kernel  ? Implementation::tuned_kernel
                          : cublaslt_runs ? Implementation::cublaslt
                                          : Implementation::cublas;
  choice.source = resolved.selection.source;
  choice.config_name =
      resolved.kernel ? resolved.selection.config.name() : implementation_name(choice.implementation);
  choice.reason = resolved.selection.reason;
  if (resolved.cublaslt && !cublaslt_runs)
    choice.reason += "; these leading dimensions or strides are not the densely packed ones it was resolved for: "
                     "cuBLAS's default call runs";
  return Status::success;
}

Handle::Handle(const std::string& results_path) noexcept {
  try {
    impl_ = std::make_unique<Impl>();
    impl_->open(results_path);
  } catch (...) {
    if (impl_) {
      const Status s = status_of_current_exception("creating the handle");
      impl_->unavailable_ = s;
      try {
        impl_->note(s, "creating the handle failed (see the log)");
      } catch (...) {
        impl_->status_ = s;
      }
    }
  }
}

Handle::~Handle() = default;
Handle::Handle(Handle&& other) noexcept = default;
Handle& Handle::operator=(Handle&& other) noexcept = default;

Status Handle::status() const noexcept {
  return impl_ ? impl_->status_ : Status::invalid_argument;
}

const std::string& Handle::status_message() const noexcept {
  return impl_ ? impl_->message_ : kEmptyHandleMessage;
}

const std::string& Handle::device_slug() const noexcept {
  return impl_ ? impl_->slug_ : kNoText;
}

Status Handle::gemm(const GemmProblem& problem, float alpha, const void* a, const void* b, float beta, void* c,
                    cudaStream_t stream) const noexcept {
  if (!impl_) return Status::invalid_argument;
  try {
    return impl_->gemm({problem, alpha, beta, a, b, c}, stream);
  } catch (...) {
    return status_of_current_exception("gemm");
  }
}

Status Handle::gemm_bias(const GemmProblem& problem, float alpha, const void* a, const void* b, float beta,
                         const void* bias, void* c, cudaStream_t stream) const noexcept {
  if (!impl_) return Status::invalid_argument;
  try {
    return impl_->gemm({problem, alpha, beta, a, b, c, bias}, stream);
  } catch (...) {
    return status_of_current_exception("gemm_bias");
  }
}

Status Handle::set_sgemm_precision(Precision precision) noexcept {
  if (!impl_ || (precision != Precision::fp32 && precision != Precision::tf32x3)) return Status::invalid_argument;
  impl_->sgemm_precision_.store(precision, std::memory_order_relaxed);
  return Status::success;
}

Precision Handle::sgemm_precision() const noexcept {
  return impl_ ? impl_->sgemm_precision_.load(std::memory_order_relaxed) : Precision::fp32;
}

Status Handle::sgemm(const GemmProblem& problem, float alpha, const float* a, const float* b, float beta,
                     float* c, cudaStream_t stream) const noexcept {
  if (!impl_ || operand_bytes(problem.precision) != 4) return Status::invalid_argument;
  try {
    return impl_->gemm({problem, alpha, beta, a, b, c}, stream);
  } catch (...) {
    return status_of_current_exception("sgemm");
  }
}

Status Handle::sgemm_cm(Op transa, Op transb, int m, int n, int k, const float* alpha, const float* a, int lda,
                        const float* b, int ldb, const float* beta, float* c, int ldc) const noexcept {
  return sgemm_strided_batched_cm(transa, transb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1);
}

Status Handle::sgemm_strided_batched_cm(Op transa, Op transb, int m, int n, int k, const float* alpha,
                                        const float* a, int lda, long long stride_a, const float* b, int ldb,
                                        long long stride_b, const float* beta, float* c, int ldc, long long stride_c,
                                        int batch_count) const noexcept {
  if (!impl_ || !alpha || !beta) return Status::invalid_argument;
  try {
    return impl_->gemm(from_column_major(transa, transb, m, n, k, *alpha, a, lda, stride_a, b, ldb, stride_b, *beta,
                                         c, ldc, stride_c, batch_count),
                       impl_->stream_.load(std::memory_order_relaxed));
  } catch (...) {
    return status_of_current_exception("sgemm");
  }
}

void Handle::set_stream(cudaStream_t stream) noexcept {
  if (impl_) impl_->stream_.store(stream, std::memory_order_relaxed);
}

cudaStream_t Handle::stream() const noexcept {
  return impl_ ? impl_->stream_.load(std::memory_order_relaxed) : nullptr;
}

Status Handle::choose(const GemmProblem& problem, const float* a, const float* b,
                      KernelChoice& choice) const noexcept {
  if (!impl_) return Status::invalid_argument;
  try {
    return impl_->choose(problem, a, b, choice);
  } catch (...) {
    return status_of_current_exception("choose");
  }
}

Status check_results(const std::string& path, std::string* message) noexcept {
  try {
    const ResultsCatalog catalog = load_results(path, true);
    Status worst = Status::success;
    std::string lines;
    for (const ResultsIssue& issue : catalog.issues) {
      const Status s =
          issue.kind == ResultsIssue::Kind::not_found ? Status::results_not_found : Status::invalid_results;
      if (severity(s) > severity(worst)) worst = s;
      if (!lines.empty()) lines += '\n';
      lines += issue.message;
    }
    if (message) *message = std::move(lines);
    return worst;
  } catch (...) {
    return status_of_current_exception("checking results");
  }
}

const char* status_name(Status status) noexcept {
  switch (status) {
    case Status::success:
      return "success";
    case Status::invalid_argument:
      return "invalid_argument";
    case Status::no_device:
      return "no_device";
    case Status::unsupported_device:
      return "unsupported_device";
    case Status::results_not_found:
      return "results_not_found";
    case Status::invalid_results:
      return "invalid_results";
    case Status::results_for_other_device:
      return "results_for_other_device";
    case Status::compile_failed:
      return "compile_failed";
    case Status::cuda_error:
      return "cuda_error";
    case Status::out_of_memory:
      return "out_of_memory";
    case Status::internal_error:
      return "internal_error";
  }
  return "unknown_status";
}

const char* config_source_name(ConfigSource source) noexcept {
  switch (source) {
    case ConfigSource::exact_shape:
      return "exact_shape";
    case ConfigSource::nearest_shape:
      return "nearest_shape";
    case ConfigSource::same_architecture:
      return "same_architecture";
    case ConfigSource::built_in_default:
      return "built_in_default";
    case ConfigSource::portfolio:
      return "portfolio";
  }
  return "unknown_source";
}

const char* implementation_name(Implementation implementation) noexcept {
  switch (implementation) {
    case Implementation::tuned_kernel:
      return "tuned_kernel";
    case Implementation::cublas:
      return "cublas";
    case Implementation::cublaslt:
      return "cublaslt";
  }
  return "unknown_implementation";
}

}  // namespace gemmtune
