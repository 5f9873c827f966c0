// The gemmtune runtime library: one call per GEMM that runs the kernel the tuner found best for this
// GPU and shape, with a fallback for shapes and GPUs nobody tuned. This is the only header an
// application needs; it exposes std and CUDA types only, and nothing in it throws.
//
//   gemmtune::Handle gemm;                    // results for the current GPU ($GEMMTUNE_RESULTS or
//   gemm.sgemm({m, n, k, k, n, n}, 1.0f, a,   // <prefix>/share/gemmtune/results)
//              b, 0.0f, c, stream);
//
// Which kernel runs: the results for this GPU (matched by its slug, e.g. nvidia-h100-80gb-hbm3) at
// exactly this m, n, k; else the tuned shape nearest by the distance below; else the nearest shape
// tuned on another GPU of the same compute capability; else a built-in default valid everywhere.
// The distance between a call and a tuned shape, in units of log(time ratio):
//   sqrt(ln(m/m')^2 + ln(n/n')^2 + ln(k/k')^2)
//   + |ln(wave efficiency at the call / wave efficiency at m', n')|, tiles of the tuned config over
//     this GPU's SM count (an estimate of the resident blocks per SM from threads and shared memory)
//   + ln(vector width / usable width) / 2 when lda, ldb or the pointers of A and B are not aligned to
//     the config's vector width (the kernel then loads narrower vectors: slower, still correct).
// Results files are untrusted input: each is validated whole before anything is compiled, and one
// that fails is ignored with a status and a log line. Kernels are compiled with NVRTC on first use
// through the tuner's disk cache (~/.cache/gemmtune or $GEMMTUNE_CACHE_DIR), so a machine that ran the
// tuner compiles nothing. Log level: $GEMMTUNE_LOG_LEVEL (trace, debug, info, warn (default), error,
// off); choices are logged at debug. Tuned atomic split-K kernels add their slices into C in any
// order, so C may differ in the last bits from run to run; with $GEMMTUNE_DETERMINISTIC=1 when a
// handle is created, that handle reduces them through a workspace in a fixed order instead.
#pragma once

#include <cuda_runtime_api.h>

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
  invalid_results = 5,           // a results file failed validation and is ignored; the rest serve
  results_for_other_device = 6,  // the results file asked for is another GPU's (used only if same arch)
  compile_failed = 7,            // NVRTC failed even for the built-in default
  cuda_error = 8,                // loading or launching failed (also earlier asynchronous errors)
  out_of_memory = 9,             // no memory for the split-K workspace (or on the host)
  internal_error = 10,
};

// Where the kernel's configuration came from, best first.
enum class ConfigSource : int {
  exact_shape = 0,        // tuned on this GPU model at this m, n, k
  nearest_shape = 1,      // tuned on this GPU model, nearest shape
  same_architecture = 2,  // tuned on another GPU of the same compute capability
  built_in_default = 3,   // nothing applicable was tuned (or it failed to compile)
};

// Row-major, as the kernels: A is m x k with row stride lda, B is k x n (ldb), C is m x n (ldc).
struct GemmProblem {
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
};

struct KernelChoice {
  ConfigSource source = ConfigSource::built_in_default;
  std::string config_name;  // canonical, e.g. sgemm_64x128x16_t8x4_w4_p4.0_s2_ta_v4_b1_z1_k4
  std::string reason;       // one line: the tuned shape, GPU and file it came from, the distance
};

// Thread-safe: any number of threads may call sgemm and choose at once, on any streams. A kernel is
// compiled and loaded once per configuration and device; later calls take a shared lock keyed by
// (m, n, k, alignment) and launch. Split-K kernels need a workspace (partial sums, or atomic
// split-K's counters, kept apart): the handle keeps one per stream and kind (by CUDA stream id, so a
// destroyed stream's handle value reused by a new stream gets a new one), grows it when a larger
// problem needs more (synchronising that stream once) and frees them all when it is destroyed.
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

  // C = alpha * A * B + beta * C, enqueued on stream like a kernel launch (asynchronous; the first
  // call for a shape may compile). beta == 0 never reads C. A stream of 0 is the legacy default
  // stream whatever the application was compiled with; pass cudaStreamPerThread for the calling
  // thread's own. Graph capture: run each shape once before capturing (the first call compiles);
  // split-K configs find their workspace by stream id, which CUDA may refuse during capture (the call
  // then returns cuda_error).
  Status sgemm(const GemmProblem& problem, float alpha, const float* a, const float* b, float beta, float* c,
               cudaStream_t stream) const noexcept;

  // The kernel sgemm runs for this problem and why, compiling it if needed (so it also warms up).
  // a and b only decide the pointer alignment (nullptr: aligned, as from cudaMalloc).
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

// "exact_shape", "nearest_shape", "same_architecture", "built_in_default".
GEMMTUNE_API const char* config_source_name(ConfigSource source) noexcept;

}  // namespace gemmtune
