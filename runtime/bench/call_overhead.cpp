// How much host time gemmtune::Handle::sgemm adds to a kernel launch and to a cuBLAS call (where the
// library dispatches to cuBLAS), and what the first call costs when the kernel is already in the disk
// cache (a machine that ran the tuner). Prints numbers; it is not a test. The baseline launches the very same CUBIN with the same arguments the way the library
// does (cudaLaunchKernelExC, a programmatic dependent launch on sm_90+), so the difference is the
// library's own work: argument checks, the current device, the shape lookup.
//   gemmtune-call-overhead [M N K]   (default 256 256 256; the built-in default config)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <utility>
#include <gemmtune/gemmtune.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/kernel_path.hpp"
#include "core/device_profile.hpp"
#include "core/kernel_compiler.hpp"
#include "core/kernel_config.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kCallsPerBatch = 200;  // few enough that the launch queue never fills and blocks
constexpr int kBatches = 50;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
  return err == cudaSuccess;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A results file that maps the benchmark's shape to config on this device, so the handle runs the
// same kernel as the baseline (by the exact path).
std::filesystem::path write_results(const gemmtune::DeviceProfile& device,
                                    const gemmtune::KernelConfig& config, int m, int n, int k) {
  nlohmann::json doc = {{"schema", "gemmtune.results/1"},
                        {"kind", "measured"},
                        {"device", device},
                        {"entries",
                         {{{"m", m},
                           {"n", n},
                           {"k", k},
                           {"dtype", "f32"},
                           {"layout", "row-major"},
                           {"best", {{"config", config}}}}}}};
  const auto path = std::filesystem::temp_directory_path() / "gemmtune-call-overhead.json";
  std::ofstream(path) << doc.dump(1);
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  const int m = argc > 3 ? std::atoi(argv[1]) : 256, n = argc > 3 ? std::atoi(argv[2]) : 256,
            k = argc > 3 ? std::atoi(argv[3]) : 256;
  if (m <= 0 || n <= 0 || k <= 0) {
    std::fprintf(stderr, "usage: %s [M N K]\n", argv[0]);
    return 2;
  }
  if (const auto devices = gemmtune::count_devices(); devices.count == 0) {
    std::printf("no GPU: %s\n", devices.reason.c_str());
    return 77;
  }
  int device_index = 0;
  cudaGetDevice(&device_index);
  const gemmtune::DeviceProfile device = gemmtune::query_device(device_index);
  const gemmtune::KernelConfig config = gemmtune::default_config();
  std::printf("%s, %s, %dx%dx%d, %s\n", device.name.c_str(), device.arch().c_str(), m, n, k,
              config.name().c_str());

  // Warm the disk cache the handle will use (it is the tuner's).
  const gemmtune::KernelCompiler compiler(gemmtune::default_cache_dir());
  auto start = Clock::now();
  // The binary the handle runs for this call (cudaMalloc'd operands: aligned).
  const gemmtune::CompiledKernel compiled =
      compiler.compile(config, device.arch(), gemmtune::kernel_path_for(config, m, n, k, 4));
  std::printf("disk cache %s: %.1f ms (%s)\n", compiled.from_cache ? "was warm" : "was cold, compiled",
              seconds_since(start) * 1e3, compiler.cache_dir().c_str());

  float *a = nullptr, *b = nullptr, *c = nullptr;
  if (!ok(cudaMalloc(&a, sizeof(float) * m * k), "cudaMalloc") ||
      !ok(cudaMalloc(&b, sizeof(float) * k * n), "cudaMalloc") ||
      !ok(cudaMalloc(&c, sizeof(float) * m * n), "cudaMalloc"))
    return 1;
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

  const auto results = write_results(device, config, m, n, k);
  start = Clock::now();
  const gemmtune::Handle gemm(results.string());
  const double create_ms = seconds_since(start) * 1e3;
  const gemmtune::GemmProblem problem{m, n, k, k, n, n};
  start = Clock::now();
  if (gemm.sgemm(problem, 1.0f, a, b, 0.0f, c, stream) != gemmtune::Status::success) return 1;
  const double first_call_ms = seconds_since(start) * 1e3;
  ok(cudaStreamSynchronize(stream), "first call");
  gemmtune::KernelChoice choice;
  gemm.choose(problem, a, b, choice);
  std::printf("handle creation: %.2f ms; first sgemm call (disk cache, load, launch): %.2f ms; ran %s (%s)\n",
              create_ms, first_call_ms, choice.config_name.c_str(),
              gemmtune::config_source_name(choice.source));

  // The baseline: the same CUBIN loaded directly, launched with the kernel's own parameter list.
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  if (!ok(cudaLibraryLoadData(&library, compiled.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
          "cudaLibraryLoadData") ||
      !ok(cudaLibraryGetKernel(&kernel, library, compiled.symbol.c_str()), "cudaLibraryGetKernel"))
    return 1;
  int mm = m, nn = n, kk = k, lda = k, ldb = n, ldc = n, swizzle = config.swizzle;
  float alpha = 1.0f, beta = 0.0f;
  const float* pa = a;
  const float* pb = b;
  float* pc = c;
  float* workspace = nullptr;
  const float* bias = nullptr;
  long long stride_a = 0, stride_b = 0, stride_c = 0;  // one problem: the batch strides are unused
  void* params[] = {&mm,   &nn, &kk,  &alpha,     &pa,      &lda,      &pb,       &ldb,
                    &beta, &pc, &ldc, &workspace, &swizzle, &stride_a, &stride_b, &stride_c, &bias};
  const dim3 grid(static_cast<unsigned>(((m + config.block_m - 1) / config.block_m) *
                                        ((n + config.block_n - 1) / config.block_n)));
  const dim3 block(static_cast<unsigned>(config.threads()));

  cudaLaunchAttribute programmatic = {};
  programmatic.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  programmatic.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t launch = {};
  launch.gridDim = grid;
  launch.blockDim = block;
  launch.dynamicSmemBytes = config.shared_bytes();
  launch.stream = stream;
  launch.attrs = &programmatic;
  launch.numAttrs = device.compute_capability >= 90 ? 1 : 0;

  // Median host time per call of each of two ways to enqueue the same work, batches alternating.
  const auto host_ns_per_call = [&](auto&& first, auto&& second) {
    std::vector<double> first_ns, second_ns;
    for (int batch = 0; batch < kBatches; ++batch) {
      for (auto [enqueue, ns] : {std::pair<std::function<void()>, std::vector<double>*>{first, &first_ns},
                                 std::pair<std::function<void()>, std::vector<double>*>{second, &second_ns}}) {
        const auto begin = Clock::now();
        for (int i = 0; i < kCallsPerBatch; ++i) enqueue();
        ns->push_back(seconds_since(begin) * 1e9 / kCallsPerBatch);
        ok(cudaStreamSynchronize(stream), "batch");
      }
    }
    return std::make_pair(median(first_ns), median(second_ns));
  };
  const auto [per_sgemm, per_launch] =
      host_ns_per_call([&] { gemm.sgemm(problem, 1.0f, a, b, 0.0f, c, stream); },
                       [&] { cudaLaunchKernelExC(&launch, reinterpret_cast<const void*>(kernel), params); });
  std::printf(
      "host time per call (median of %d batches of %d): sgemm %.0f ns, bare launch %.0f ns, "
      "overhead %.0f ns\n",
      kBatches, kCallsPerBatch, per_sgemm, per_launch, per_sgemm - per_launch);

  // cuBLAS through the library (no results: every call runs cuBLAS) against calling it directly.
  {
    const gemmtune::Handle to_cublas((std::filesystem::temp_directory_path() / "gemmtune-no-results").string());
    cublasHandle_t cublas = nullptr;
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) return 1;
    cublasSetStream(cublas, stream);
    const float one = 1.0f, zero = 0.0f;
    if (to_cublas.sgemm(problem, 1.0f, a, b, 0.0f, c, stream) != gemmtune::Status::success) return 1;
    gemmtune::KernelChoice cublas_choice;
    to_cublas.choose(problem, a, b, cublas_choice);
    const auto [through, direct] = host_ns_per_call(
        [&] { to_cublas.sgemm(problem, 1.0f, a, b, 0.0f, c, stream); },
        [&] { cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n); });
    std::printf(
        "host time per call, dispatched to cuBLAS (%s): sgemm %.0f ns, cublasSgemm directly %.0f ns, "
        "overhead %.0f ns\n",
        cublas_choice.config_name.c_str(), through, direct, through - direct);
    cublasDestroy(cublas);
  }

  cudaLibraryUnload(library);
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  std::filesystem::remove(results);
  return 0;
}
