// The gemmtune runtime library: one call per GEMM that runs the fastest implementation it knows for
// this GPU and problem: a kernel the tuner found, or cuBLAS where cuBLAS was measured faster or no
// kernel is expected to beat it. This is the only header an application needs; it exposes std and
// CUDA types only, and nothing in it throws.
//
//   gemmtune::Handle gemm;                    // results for the current GPU ($GEMMTUNE_RESULTS or
//   gemm.sgemm({m, n, k, k, n, n}, 1.0f, a,   // <prefix>/share/gemmtune/results)
//              b, 0.0f, c, stream);
//
// Two ways to call it: row-major (sgemm, with op(A), op(B) and strided batches in GemmProblem), and
// column-major with cublasSgemm's own arguments (sgemm_cm, sgemm_strided_batched_cm), so a cuBLAS
// caller switches by renaming.
//
// What runs, decided once per problem (m, n, k, layout, batch, alignment) and cached:
//   1. this GPU model's results hold the problem: whichever won the tuner's race, kernel or cuBLAS;
//   2. a tuned problem near it whose kernel won by more than the distance can cost (the distance
//      below, in units of log(time ratio)): that kernel;
//   3. a portfolio (kernels raced against cuBLAS over a log-spaced grid of shapes, one results file
//      per GPU) encloses the call: the kernel that beat cuBLAS by 3% at every grid point around it;
//   4. otherwise cuBLAS. Steps 1 to 3 use another GPU of the same compute capability where this
//      model has nothing to offer. Kernels serve every layout and strided batch, each compiled for
//      its layout: only results of the call's layout apply (a column-major call is the row-major
//      problem with A and B swapped); the portfolio covers unbatched nn problems.
// The distance between a call and a tuned shape of its layout:
//   sqrt(ln(m/m')^2 + ln(n/n')^2 + ln(k/k')^2 + ln(batch/batch')^2)
//   + |ln(wave efficiency at the call / wave efficiency at m', n', batch')|, tiles of the tuned
//     config over this GPU's SM count (an estimate of the resident blocks per SM from threads and
//     shared memory)
// A call whose rows are less aligned than a kernel's vector loads (lda, ldb or the pointers of A and
// B not aligned to its vector width) may cost that kernel up to sqrt(vector width / alignment) of
// its speed: its margin over cuBLAS is divided by that before it is trusted.
// Results files are untrusted input: each is validated whole before anything is compiled; a file
// that fails is ignored, an entry that fails is left out (the file's others serve), each with a
// status and a log line. Kernels are compiled with NVRTC on first use
// through the tuner's disk cache (~/.cache/gemmtune or $GEMMTUNE_CACHE_DIR), so a machine that ran the
// tuner compiles nothing. Log level: $GEMMTUNE_LOG_LEVEL (trace, debug, info, warn (default), error,
// off); choices are logged at debug. Tuned atomic split-K kernels add their slices into C in any
// order, so C may differ in the last bits from run to run; with $GEMMTUNE_DETERMINISTIC=1 when a
// handle is created, that handle reduces them through a workspace in a fixed order instead.
// $GEMMTUNE_RECORD=FILE: every handle counts the distinct problems it is called with and adds them
// to FILE (JSON, merged under a lock with what other processes wrote) when it is destroyed and at
// exit; `gemm-tune --sizes-from FILE` tunes them, most called first. No file I/O on the call path.
#pragma once

#include <cuda_runtime_api.h>
#include <gemmtune/precision.hpp>

#include <memory>
#include <string>

#if defined(__GNUC__)
#define GEMMTUNE_API __attribute__((visibility("default")))
#else
#define GEMMTUNE_API
#endif

namespace gemmtune {

enum class Status : int {
  success = 0,
  invalid_argument = 1,          // negative size, leading dimension too small, null pointer, no handle
  no_device = 2,                 // no CUDA driver or device
  unsupported_device = 3,        // compute capability below 7.5
  results_not_found = 4,         // the results path asked for does not exist or holds no results file
  invalid_results = 5,           // a results file, or an entry of one, failed validation: ignored, the rest serve
  results_for_other_device = 6,  // the results file asked for is another GPU's (used only if same arch)
  compile_failed = 7,            // NVRTC failed even for the built-in default
  cuda_error = 8,                // loading or launching failed (also earlier asynchronous errors)
  out_of_memory = 9,             // no memory for the split-K workspace (or on the host)
  internal_error = 10,
};

// Where the decision came from (see the top of this file).
enum class ConfigSource : int {
  exact_shape = 0,        // this GPU model's results hold this problem
  nearest_shape = 1,      // a problem tuned on this GPU model near this one
  same_architecture = 2,  // results of another GPU of the same compute capability
  built_in_default = 3,   // nothing measured applies: cuBLAS
  portfolio = 4,          // the portfolio grid of this GPU model around this problem
};

// What runs a call.
enum class Implementation : int {
  tuned_kernel = 0,  // a kernel of the tuner's templates
  // cuBLAS in the call's precision: cublasSgemm (or its strided-batched form) in FP32 with
  // CUBLAS_DEFAULT_MATH (no TF32) for fp32 and 3xtf32; cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32
  // for tf32; cublasGemmEx with 16-bit A and B, FP32 C and CUBLAS_COMPUTE_32F for bf16 and fp16.
  cublas = 1,
  // A cuBLASLt algorithm the tuner raced and stored (results entries with "winner": "cublaslt"),
  // in the same precision as cublas above; checked against the call at load
  // (cublasLtMatmulAlgoCheck), the heuristic's first choice where it no longer applies. Calls whose
  // leading dimensions or strides are not the densely packed ones it was resolved for run cublas.
  cublaslt = 2,
};

// op(X): X as stored, or its transpose. Same values as cublasOperation_t's CUBLAS_OP_N and CUBLAS_OP_T.
enum class Op : int { n = 0, t = 1 };

// Row-major: C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n, C m x n with row stride
// ldc. A is stored m x k (lda >= k) for Op::n, k x m (lda >= m) for Op::t; B k x n (ldb >= n) or
// n x k (ldb >= k). Strided batches: batch problems, entry i at A + i * stride_a, B + i * stride_b,
// C + i * stride_c; a stride of 0 for A or B shares one matrix across the batch (as a weight is);
// C's entries must not overlap (|stride_c| at least m * ldc).
// precision (gemmtune/precision.hpp): what A and B hold and how they are multiplied. C is FP32, or
// with c16 (bf16 and fp16 only) the operands' own type, as cublasGemmEx with that Ctype writes it:
// the sums stay FP32 and each element of C is rounded once. Leading dimensions and strides count
// elements of each matrix's own type.
struct GemmProblem {
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  Op op_a = Op::n, op_b = Op::n;
  int batch = 1;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
  Precision precision = Precision::fp32;
  bool c16 = false;
};

struct KernelChoice {
  Implementation implementation = Implementation::cublas;
  ConfigSource source = ConfigSource::built_in_default;
  std::string config_name;  // canonical, e.g. sgemm_64x128x16_t8x4_w4_p4.0_s2_ta_v4_b1_z1_k4; "cublas"; "cublaslt"
  std::string reason;       // one line: what decided it (the tuned problem, GPU, file, ratios)
};

// Thread-safe: any number of threads may call sgemm and choose at once, on any streams. A kernel is
// compiled and loaded once per configuration and device; later calls take a shared lock keyed by
// (m, n, k, layout, batch, alignment) and launch. cuBLAS runs through a pool of cuBLAS handles per
// device, one per thread calling at that moment. Split-K kernels need a workspace (partial sums, or atomic
// split-K's counters, kept apart): the handle keeps one per stream and kind (by CUDA stream id, so a
// destroyed stream's handle value reused by a new stream gets a new one), grows it when a larger
// problem needs more (synchronising that stream once) and frees them all when it is destroyed; a
// call captured into a CUDA graph uses one the graph owns instead (see sgemm).
// Calls on the current device at call time; the status refers to the device that was current when
// the handle was created.
class GEMMTUNE_API Handle {
 public:
  // results_path: a results file (gemmtune.results/1) or a directory of them; empty means
  // $GEMMTUNE_RESULTS, else <prefix>/share/gemmtune/results next to the installed library. Never
  // throws: check status(). A handle whose status is not success still computes correct results.
  explicit Handle(const std::string& results_path = std::string()) noexcept;
  ~Handle();
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  // How creating the handle went: the most severe of no_device, unsupported_device,
  // results_not_found, invalid_results, results_for_other_device, else success.
  Status status() const noexcept;
  // One line per problem (file and reason); empty on success.
  const std::string& status_message() const noexcept;
  // The current GPU's name in file-name form, as results files name it ("" without a device).
  const std::string& device_slug() const noexcept;

  // C = alpha * op(A) * op(B) + beta * C, row-major (GemmProblem), enqueued on stream like a kernel
  // launch (asynchronous; the first call for a problem may compile). beta == 0 never reads C. A
  // stream of 0 is the legacy default stream whatever the application was compiled with; pass
  // cudaStreamPerThread for the calling thread's own. CUDA-graph capture: every kernel captures,
  // in any capture mode; a split-K workspace captured is the graph's own (counters, zeros and
  // partial sums of up to 16 MiB made once per graph and capturing stream and freed with the
  // graph; larger partial sums allocated inside it), never the stream's, so replays on any stream
  // and eager calls between them do not share it. Executable graphs made from one graph share its workspaces: replay them in one stream
  // order, not at once. Warm up first (a call,
  // choose or gemmtune_warmup): a first call inside the capture compiles there. A call that cannot
  // be captured (a capture already invalidated, a device without memory pools for a split-K
  // workspace) returns cuda_error.
  Status sgemm(const GemmProblem& problem, float alpha, const float* a, const float* b, float beta, float* c,
               cudaStream_t stream) const noexcept;

  // The same for every precision (cublasGemmEx's counterpart): A and B hold problem.precision's
  // elements (float for fp32, 3xtf32 and tf32; __nv_bfloat16 for bf16; __half for fp16), C is float,
  // or with problem.c16 the operands' type (c16 with another precision returns invalid_argument).
  // A precision the GPU has no tensor cores for (tf32, 3xtf32 and bf16 before sm_80, fp16 before
  // sm_75) returns unsupported_device and launches nothing. sgemm takes fp32, 3xtf32 and tf32.
  Status gemm(const GemmProblem& problem, float alpha, const void* a, const void* b, float beta, void* c,
              cudaStream_t stream) const noexcept;
  // gemm with a bias, as a linear layer has: C = alpha * op(A) * op(B) + beta * C + bias, bias being
  // n elements of C's type (float; with problem.c16 the operands' type) added to every row of every
  // batch entry (cuBLASLt's CUBLASLT_EPILOGUE_BIAS in row-major terms). A tuned kernel adds it as it
  // stores C; a call that cuBLAS or cuBLASLt runs gets a kernel over C first (C = beta * C + bias,
  // then the product added with beta = 1). The choice is the problem's without a bias. bias null:
  // gemm.
  Status gemm_bias(const GemmProblem& problem, float alpha, const void* a, const void* b, float beta,
                   const void* bias, void* c, cudaStream_t stream) const noexcept;
  // The opt-in that lets sgemm callers run 3xTF32 (FP32-accurate: tuned never to be less accurate
  // than cublasSgemm) where the tuner measured it faster: Precision::tf32x3 makes every FP32 call
  // (sgemm, sgemm_cm, sgemm_strided_batched_cm, gemm with fp32) run the problem's 3xtf32 winner when
  // a kernel won it, else what serves FP32. Precision::fp32 (the default, or
  // $GEMMTUNE_SGEMM_PRECISION=3xtf32 when the handle is created) turns it off; other values return
  // invalid_argument. Set it before calls begin: calls already resolved keep their choice.
  Status set_sgemm_precision(Precision precision) noexcept;
  Precision sgemm_precision() const noexcept;
  // cublasSgemm's arguments one for one (column-major; alpha and beta point to host memory), on the
  // stream set with set_stream, as cuBLAS calls run on the stream of their handle.
  Status sgemm_cm(Op transa, Op transb, int m, int n, int k, const float* alpha, const float* a, int lda,
                  const float* b, int ldb, const float* beta, float* c, int ldc) const noexcept;
  // cublasSgemmStridedBatched's arguments one for one.
  Status sgemm_strided_batched_cm(Op transa, Op transb, int m, int n, int k, const float* alpha, const float* a,
                                  int lda, long long stride_a, const float* b, int ldb, long long stride_b,
                                  const float* beta, float* c, int ldc, long long stride_c,
                                  int batch_count) const noexcept;
  // The stream of sgemm_cm and sgemm_strided_batched_cm (cublasSetStream's counterpart; 0 at first).
  // Like cuBLAS's, one setting for the handle: threads that share a handle pass streams to sgemm.
  void set_stream(cudaStream_t stream) noexcept;
  cudaStream_t stream() const noexcept;

  // What sgemm runs for this problem and why, compiling it if needed (so it also warms up). a and b
  // only decide the pointer alignment (nullptr: aligned, as from cudaMalloc); C counts as aligned.
  Status choose(const GemmProblem& problem, const float* a, const float* b,
                KernelChoice& choice) const noexcept;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Validates a results file or directory (what a Handle would load) without a GPU. message, if given,
// receives one line per problem.
GEMMTUNE_API Status check_results(const std::string& path, std::string* message) noexcept;

// "success", "invalid_results", ...
GEMMTUNE_API const char* status_name(Status status) noexcept;

// "exact_shape", "nearest_shape", "same_architecture", "built_in_default", "portfolio".
GEMMTUNE_API const char* config_source_name(ConfigSource source) noexcept;

// "tuned_kernel", "cublas", "cublaslt".
GEMMTUNE_API const char* implementation_name(Implementation implementation) noexcept;

}  // namespace gemmtune
