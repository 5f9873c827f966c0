// The held-out benchmark: the installed library, called through its public API exactly as an
// application calls it, on shapes nobody tuned (odd, prime, skinny, huge K, GEMV-like, LLM layers,
// unaligned leading dimensions, transposed, batched) and on the tuned benchmark shapes, against
// cuBLAS in the same process. Per shape: what ran and why, a check of C against cuBLAS with the
// K-scaled bound, TFLOP/s of both (interleaved rounds, batches of calls replayed from a CUDA graph so
// that short calls measure GPU time rather than the host's launch rate, rotating operands so L2
// holds no operand from the previous call), and the ratio cuBLAS time / library time: the ratio of
// the two medians, and in the JSON and the summary the median of the rounds' own ratios too. A
// disturbance that slows both sides for a few rounds (on the H100: 18 us calls at 100-128 us for
// four rounds, then ten to recover) moves the two measures differently, so where they disagree the
// row was disturbed. Prints a table and writes the JSON given with -o. A program that prints
// numbers, not a test.
// The LLM set (--only llm; not in the default run) is issue #45's projections of LLaMA-2-7B and -70B
// at 512 and 4096 tokens, which with the tuned set make its 19 shapes (--only tuned,llm).
// The decode set (--only decode; not in the default run) is token-by-token inference: m from 1 to 32
// rows against LLM widths, memory-bound, so its rows also give the bandwidth achieved (bytes of A, B
// and C over the time) as a fraction of the device-to-device copy bandwidth measured in the same run.
// --precision runs the same shapes in another precision (gemmtune::Handle::gemm against cuBLAS in that
// precision: cublasGemmEx with FAST_TF32 for tf32, 16-bit A and B with FP32 C for bf16 and fp16,
// cublasSgemm for 3xtf32, whose users ask for FP32); for 3xtf32 each row also gives the normwise
// errors of the library's C and of SGEMM's against a float64 reference (DGEMM) on the same inputs.
// --c16 (bf16 and fp16) writes C in the operands' type on both sides: the library's c16 entries
// against cublasGemmEx with Ctype CUDA_R_16BF or CUDA_R_16F, what torch.mm on 16-bit tensors calls.
//   gemmtune-heldout [-o results/heldout-<gpu>.json] [--results DIR] [--only SET[,SET...]]
//                    [--precision fp32|3xtf32|tf32|bf16|fp16] [--c16]
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <gemmtune/gemmtune.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

using gemmtune::GemmProblem;
using gemmtune::Op;

struct Shape {
  const char* set;  // "heldout", "tuned", "llm" or "decode"
  const char* kind;
  int m, n, k;
  Op op_a = Op::n, op_b = Op::n;
  int batch = 1;
  bool shared_b = false;  // stride 0 for B
  int pad = 0;            // added to every leading dimension (unaligned rows)
};

// Chosen before any of them was measured (2026-11-24); none is a tuned shape.
const Shape kShapes[] = {
    {"heldout", "huge-K", 8, 8, 100000},
    {"heldout", "huge-K", 16, 16, 65536},
    {"heldout", "huge-K", 2048, 2048, 8192},
    {"heldout", "GEMV-like", 1, 4096, 4096},
    {"heldout", "GEMV-like", 4096, 1, 4096},
    {"heldout", "GEMV-like", 1, 1024, 1024},
    {"heldout", "tall-thin", 100000, 16, 16},
    {"heldout", "odd", 777, 1234, 555},
    {"heldout", "odd", 4096, 333, 4096},
    {"heldout", "odd", 4095, 4097, 1023},
    {"heldout", "prime", 127, 127, 127},
    {"heldout", "prime", 257, 509, 1021},
    {"heldout", "tiny", 3, 3, 3},
    {"heldout", "small", 64, 64, 64},
    {"heldout", "small", 96, 96, 96},
    {"heldout", "small", 128, 128, 128},
    {"heldout", "small", 256, 256, 256},
    {"heldout", "medium", 300, 300, 300},
    {"heldout", "medium", 640, 640, 640},
    {"heldout", "medium", 768, 768, 768},
    {"heldout", "medium", 1500, 1500, 1500},
    {"heldout", "large", 2560, 2560, 2560},
    {"heldout", "skinny", 32, 4096, 4096},
    {"heldout", "skinny", 128, 4096, 4096},
    {"heldout", "skinny", 4096, 128, 4096},
    {"heldout", "skinny", 4096, 4096, 128},
    {"heldout", "skinny", 1024, 1024, 64},
    {"heldout", "skinny", 2048, 512, 2048},
    {"heldout", "LLM", 512, 768, 3072},
    {"heldout", "LLM", 16, 4096, 11008},
    {"heldout", "LLM", 8, 11008, 4096},
    {"heldout", "LLM", 4096, 11008, 4096},
    {"heldout", "unaligned", 1000, 1000, 1000, Op::n, Op::n, 1, false, 1},
    {"heldout", "unaligned", 512, 512, 512, Op::n, Op::n, 1, false, 1},
    {"heldout", "transposed", 1024, 1024, 1024, Op::t, Op::n},
    {"heldout", "transposed", 4096, 4096, 4096, Op::n, Op::t},
    {"heldout", "batched", 512, 512, 64, Op::n, Op::n, 32},
    {"heldout", "batched", 256, 256, 256, Op::n, Op::n, 64, true},
    {"tuned", "cube", 512, 512, 512},
    {"tuned", "cube", 1000, 1000, 1000},
    {"tuned", "cube", 1024, 1024, 1024},
    {"tuned", "cube", 2048, 2048, 2048},
    {"tuned", "cube", 3000, 3000, 3000},
    {"tuned", "cube", 4095, 4095, 4095},
    {"tuned", "cube", 4096, 4096, 4096},
    {"tuned", "cube", 8192, 8192, 8192},
    {"tuned", "skinny", 64, 4096, 4096},
    {"tuned", "skinny", 4096, 4096, 64},
    {"tuned", "skinny", 4096, 64, 4096},
};

// Issue #42's targets: m in {1, 2, 4, 8, 16, 32} against LLaMA-2-7B's and -70B's projections
// ((n, k) = (4096, 4096), (11008, 4096), (4096, 11008), (8192, 8192), (28672, 8192), (8192, 28672)),
// as a row-major application calls them (nn) and as PyTorch's Linear does (nt: y = x W^T).
std::vector<Shape> decode_shapes() {
  std::vector<Shape> shapes;
  const std::pair<int, int> widths[] = {{4096, 4096}, {11008, 4096}, {4096, 11008},
                                        {8192, 8192}, {28672, 8192}, {8192, 28672}};
  for (const Op op_b : {Op::n, Op::t})
    for (const auto& [n, k] : widths)
      for (const int m : {1, 2, 4, 8, 16, 32}) shapes.push_back({"decode", op_b == Op::n ? "nn" : "nt", m, n, k, Op::n, op_b});
  return shapes;
}

// Issue #45's LLM projections: m in {512, 4096} x (n, k) in {(11008, 4096), (4096, 11008),
// (28672, 8192), (8192, 28672)}.
std::vector<Shape> llm_shapes() {
  std::vector<Shape> shapes;
  for (const int m : {512, 4096})
    for (const auto& [n, k] : {std::pair{11008, 4096}, {4096, 11008}, {28672, 8192}, {8192, 28672}})
      shapes.push_back({"llm", "projection", m, n, k});
  return shapes;
}

// Device-to-device copy bandwidth, bytes read + written per second: the floor of a memory-bound call.
double copy_gbps(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop) {
  const std::size_t bytes = std::size_t(1) << 30;
  void *from = nullptr, *to = nullptr;
  if (cudaMalloc(&from, bytes) != cudaSuccess || cudaMalloc(&to, bytes) != cudaSuccess) return 0;
  cudaMemsetAsync(from, 1, bytes, stream);
  std::vector<double> ms;
  for (int i = 0; i < 12; ++i) {
    cudaEventRecord(start, stream);
    cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (i >= 2) ms.push_back(t);
  }
  cudaFree(from), cudaFree(to);
  std::sort(ms.begin(), ms.end());
  return 2.0 * bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

bool check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
  return err == cudaSuccess;
}

bool check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) std::fprintf(stderr, "%s: %s\n", what, cublasGetStatusString(status));
  return status == CUBLAS_STATUS_SUCCESS;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string layout_of(const Shape& s) { return std::string(s.op_a == Op::t ? "t" : "n") + (s.op_b == Op::t ? "t" : "n"); }

std::string label(const Shape& s) {
  std::string text = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (s.op_a != Op::n || s.op_b != Op::n) text += ":" + layout_of(s);
  if (s.batch > 1) text = std::to_string(s.batch) + "*" + text + (s.shared_b ? " (B shared)" : "");
  if (s.pad) text += " ld+" + std::to_string(s.pad);
  return text;
}

GemmProblem problem_of(const Shape& s) {
  GemmProblem p;
  p.m = s.m, p.n = s.n, p.k = s.k, p.op_a = s.op_a, p.op_b = s.op_b, p.batch = s.batch;
  p.lda = (s.op_a == Op::n ? s.k : s.m) + s.pad;
  p.ldb = (s.op_b == Op::n ? s.n : s.k) + s.pad;
  p.ldc = s.n + s.pad;
  p.stride_a = static_cast<long long>(s.op_a == Op::n ? s.m : s.k) * p.lda;
  p.stride_b = s.shared_b ? 0 : static_cast<long long>(s.op_b == Op::n ? s.k : s.n) * p.ldb;
  p.stride_c = static_cast<long long>(s.m) * p.ldc;
  return p;
}

std::size_t floats_a(const GemmProblem& p) { return std::size_t(p.stride_a) * (p.batch - 1) + std::size_t(p.op_a == Op::n ? p.m : p.k) * p.lda; }
std::size_t floats_b(const GemmProblem& p) {
  return std::size_t(p.stride_b) * (p.batch - 1) + std::size_t(p.op_b == Op::n ? p.k : p.n) * p.ldb;
}
std::size_t floats_c(const GemmProblem& p) { return std::size_t(p.stride_c) * (p.batch - 1) + std::size_t(p.m) * p.ldc; }

using gemmtune::Precision;

const std::pair<const char*, Precision> kPrecisions[] = {{"fp32", Precision::fp32},
                                                         {"3xtf32", Precision::tf32x3},
                                                         {"tf32", Precision::tf32},
                                                         {"bf16", Precision::bf16},
                                                         {"fp16", Precision::fp16}};

std::size_t element_bytes(Precision p) { return p == Precision::bf16 || p == Precision::fp16 ? 2 : 4; }

// What run_cublas computes: the problem in its precision; SGEMM on float operands (|A||B|, for the
// bound); or DGEMM on double operands and C, the float64 reference of 3xtf32's normwise errors.
enum class Call { precision, sgemm, float64 };

// cuBLAS on the row-major problem: C^T = op(B)^T op(A)^T column-major, as an application calls it, in
// the problem's precision (3xtf32: SGEMM, the call its users make), or as call says.
cublasStatus_t run_cublas(cublasHandle_t h, const GemmProblem& p, const void* a, const void* b, void* c,
                          Call call = Call::precision) {
  const float alpha = 1.0f, beta = 0.0f;
  const auto op = [](Op o) { return o == Op::t ? CUBLAS_OP_T : CUBLAS_OP_N; };
  if (call == Call::sgemm ||
      (call == Call::precision && (p.precision == Precision::fp32 || p.precision == Precision::tf32x3))) {
    float* fc = static_cast<float*>(c);
    const auto* fa = static_cast<const float*>(a);
    const auto* fb = static_cast<const float*>(b);
    if (p.batch == 1)
      return cublasSgemm(h, op(p.op_b), op(p.op_a), p.n, p.m, p.k, &alpha, fb, p.ldb, fa, p.lda, &beta, fc,
                         p.ldc);
    return cublasSgemmStridedBatched(h, op(p.op_b), op(p.op_a), p.n, p.m, p.k, &alpha, fb, p.ldb, p.stride_b,
                                     fa, p.lda, p.stride_a, &beta, fc, p.ldc, p.stride_c, p.batch);
  }
  const bool f64 = call == Call::float64;
  const double alpha64 = 1.0, beta64 = 0.0;  // a 64-bit compute type takes double scalars
  const void* alpha_arg = f64 ? static_cast<const void*>(&alpha64) : &alpha;
  const void* beta_arg = f64 ? static_cast<const void*>(&beta64) : &beta;
  const cudaDataType_t type = f64                              ? CUDA_R_64F
                              : p.precision == Precision::bf16 ? CUDA_R_16BF
                              : p.precision == Precision::fp16 ? CUDA_R_16F
                                                               : CUDA_R_32F;
  const cudaDataType_t c_type = f64 ? CUDA_R_64F : p.c16 ? type : CUDA_R_32F;
  const cublasComputeType_t compute = f64                              ? CUBLAS_COMPUTE_64F
                                      : p.precision == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                       : CUBLAS_COMPUTE_32F;
  // One product is cublasGemmEx, the call an application makes (the batched form picks other kernels).
  if (p.batch == 1)
    return cublasGemmEx(h, op(p.op_b), op(p.op_a), p.n, p.m, p.k, alpha_arg, b, type, p.ldb, a, type, p.lda,
                        beta_arg, c, c_type, p.ldc, compute, CUBLAS_GEMM_DEFAULT);
  return cublasGemmStridedBatchedEx(h, op(p.op_b), op(p.op_a), p.n, p.m, p.k, alpha_arg, b, type, p.ldb,
                                    p.stride_b, a, type, p.lda, p.stride_a, beta_arg, c, c_type, p.ldc,
                                    p.stride_c, p.batch, compute, CUBLAS_GEMM_DEFAULT);
}

// ||C - R||_F / ||R||_F over the problem's elements (not the padding between rows), for the library's
// C and cuBLAS's: 3xtf32 promises FP32's accuracy, no less than SGEMM's on the same inputs.
struct NormwiseErrors {
  double library = 0, cublas = 0;
};

// R from DGEMM on the same float inputs widened to double (exact), on the GPU: the host would take
// minutes at 8192^3. All zero where a buffer cannot be had.
NormwiseErrors normwise_errors(cublasHandle_t h, const GemmProblem& p, const std::vector<float>& ha,
                               const std::vector<float>& hb, const std::vector<float>& got,
                               const std::vector<float>& cublas_c, cudaStream_t stream) {
  const std::vector<double> wide_a(ha.begin(), ha.end()), wide_b(hb.begin(), hb.end());
  double *a = nullptr, *b = nullptr, *r = nullptr;
  std::vector<double> reference(got.size());
  const bool ok =
      check(cudaMalloc(&a, 8 * wide_a.size()), "cudaMalloc") &&
      check(cudaMalloc(&b, 8 * wide_b.size()), "cudaMalloc") &&
      check(cudaMalloc(&r, 8 * reference.size()), "cudaMalloc") &&
      check(cudaMemcpy(a, wide_a.data(), 8 * wide_a.size(), cudaMemcpyHostToDevice), "copy") &&
      check(cudaMemcpy(b, wide_b.data(), 8 * wide_b.size(), cudaMemcpyHostToDevice), "copy") &&
      check(run_cublas(h, p, a, b, r, Call::float64), "cuBLAS float64 reference") &&
      check(cudaStreamSynchronize(stream), "float64 reference") &&
      check(cudaMemcpy(reference.data(), r, 8 * reference.size(), cudaMemcpyDeviceToHost), "copy");
  cudaFree(a), cudaFree(b), cudaFree(r);
  if (!ok) return {};
  double library = 0, cublas = 0, norm = 0;
  for (int e = 0; e < p.batch; ++e)
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        const std::size_t at = std::size_t(e) * p.stride_c + std::size_t(i) * p.ldc + j;
        library += (got[at] - reference[at]) * (got[at] - reference[at]);
        cublas += (cublas_c[at] - reference[at]) * (cublas_c[at] - reference[at]);
        norm += reference[at] * reference[at];
      }
  if (norm == 0) return {};
  return {std::sqrt(library / norm), std::sqrt(cublas / norm)};
}

// Host floats as the precision's elements (16-bit ones rounded to nearest), ready to copy.
std::vector<unsigned char> elements(const std::vector<float>& values, Precision p) {
  std::vector<unsigned char> out(values.size() * element_bytes(p));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (p == Precision::bf16) {
      const __nv_bfloat16 x = __float2bfloat16_rn(values[i]);
      std::memcpy(out.data() + 2 * i, &x, 2);
    } else if (p == Precision::fp16) {
      const __half x = __float2half_rn(values[i]);
      std::memcpy(out.data() + 2 * i, &x, 2);
    } else {
      std::memcpy(out.data() + 4 * i, &values[i], 4);
    }
  }
  return out;
}

// The two sides' difference bound, in units of (|A||B|)_ij: each side accumulates K products with a
// unit roundoff (2^-24 in FP32, 2^-23 truncated in the tensor cores), with slack; tf32 sides may also
// round the inputs differently (2^-11 relative each, per product); a 16-bit C rounds each side once
// more (2^-8 bf16, 2^-11 fp16, relative to |C| <= (|A||B|)).
double bound_scale(Precision p, int k, bool c16) {
  const double out = !c16 ? 0.0 : 2 * std::ldexp(1.0, p == Precision::bf16 ? -8 : -11);
  if (p == Precision::fp32 || p == Precision::tf32x3) return 8.0 * k * std::ldexp(1.0, -24);
  return 8.0 * k * std::ldexp(1.0, -23) + (p == Precision::tf32 ? std::ldexp(1.0, -9) : 0.0) + out;
}

// A copied-back C as floats: FP32 as it is, a 16-bit one widened exactly.
std::vector<float> c_as_floats(const void* device_c, std::size_t count, Precision p, bool c16) {
  std::vector<float> out(count);
  if (!c16) {
    cudaMemcpy(out.data(), device_c, 4 * count, cudaMemcpyDeviceToHost);
    return out;
  }
  std::vector<unsigned short> bits(count);
  cudaMemcpy(bits.data(), device_c, 2 * count, cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < count; ++i) {
    if (p == Precision::bf16) {
      __nv_bfloat16 x;
      std::memcpy(static_cast<void*>(&x), &bits[i], 2);
      out[i] = __bfloat162float(x);
    } else {
      __half x;
      std::memcpy(static_cast<void*>(&x), &bits[i], 2);
      out[i] = __half2float(x);
    }
  }
  return out;
}

struct Operands {
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
};

std::string utc_now() {
  char text[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  std::string output, results, only, layout, precision_name = "fp32";
  bool c16 = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--c16") {
      c16 = true;
    } else if ((arg == "-o" || arg == "--results" || arg == "--only" || arg == "--layout" || arg == "--precision") &&
               i + 1 < argc) {
      (arg == "-o"          ? output
       : arg == "--results" ? results
       : arg == "--only"    ? only
       : arg == "--layout"  ? layout
                            : precision_name) = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [-o FILE] [--results DIR] [--only SET[,SET...]] [--layout nn|nt|tn|tt] [--precision P] "
                   "[--c16]\n"
                   "  sets: heldout and tuned (the default run), llm, decode\n",
                   argv[0]);
      return 2;
    }
  }
  if (!layout.empty() && layout != "nn" && layout != "nt" && layout != "tn" && layout != "tt") {
    std::fprintf(stderr, "%s: unknown layout '%s' in --layout (nn, nt, tn, tt)\n", argv[0], layout.c_str());
    return 2;
  }
  const auto named = std::find_if(std::begin(kPrecisions), std::end(kPrecisions),
                                  [&](const auto& p) { return precision_name == p.first; });
  if (named == std::end(kPrecisions)) {
    std::fprintf(stderr, "%s: unknown precision '%s' (fp32, 3xtf32, tf32, bf16, fp16)\n", argv[0],
                 precision_name.c_str());
    return 2;
  }
  const Precision precision = named->second;
  if (c16 && element_bytes(precision) != 2) {
    std::fprintf(stderr, "%s: --c16 needs --precision bf16 or fp16, not %s\n", argv[0], precision_name.c_str());
    return 2;
  }
  const std::size_t c_bytes = c16 ? 2 : 4;
  // The sets to run: --only's comma-separated list, or the default run's two.
  const std::string shape_sets = only.empty() ? "heldout,tuned" : only;
  const auto runs = [&](const std::string& set) {
    return ("," + shape_sets + ",").find("," + set + ",") != std::string::npos;
  };
  for (std::size_t at = 0; at <= shape_sets.size();) {
    const std::size_t end = std::min(shape_sets.find(',', at), shape_sets.size());
    const std::string set = shape_sets.substr(at, end - at);
    if (set != "heldout" && set != "tuned" && set != "llm" && set != "decode") {
      std::fprintf(stderr, "%s: unknown set '%s' in --only (heldout, tuned, llm, decode)\n", argv[0], set.c_str());
      return 2;
    }
    at = end + 1;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU\n");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const gemmtune::Handle library(results);
  std::printf("%s; library results: %s (%s)\n", prop.name, results.empty() ? "installed" : results.c_str(),
              gemmtune::status_name(library.status()));
  cublasHandle_t cublas = nullptr;
  if (!check(cublasCreate(&cublas), "cublasCreate")) return 1;
  cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH);
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cublasSetStream(cublas, stream);
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const std::size_t l2 = static_cast<std::size_t>(prop.l2CacheSize);
  const bool decode = runs("decode");
  const double copy = decode ? copy_gbps(stream, start, stop) : 0;
  if (decode) std::printf("device-to-device copy: %.0f GB/s (bytes read + written)\n", copy);

  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  for (const auto& more : {llm_shapes(), decode_shapes()}) shapes.insert(shapes.end(), more.begin(), more.end());
  if (!layout.empty())  // one layout's shapes only (a shorter run)
    shapes.erase(std::remove_if(shapes.begin(), shapes.end(), [&](const Shape& s) { return layout_of(s) != layout; }),
                 shapes.end());
  nlohmann::json entries = nlohmann::json::array();
  // 3xtf32: the normwise errors of the library's C and of SGEMM's (the cuBLAS column) against float64.
  const bool with_errors = precision == Precision::tf32x3;
  std::printf("\n%-5s %-10s %-26s %-52s %9s %9s %7s%s%s\n", "set", "kind", "problem", "ran", "TFLOP/s",
              "cuBLAS", "ratio", with_errors ? "       err  SGEMM err" : "", decode ? "   GB/s  % copy" : "");
  int failures = 0;
  for (const Shape& s : shapes) {
    if (!runs(s.set)) continue;
    GemmProblem p = problem_of(s);
    p.precision = precision;
    p.c16 = c16;
    const std::size_t fa = floats_a(p), fb = floats_b(p), fc = floats_c(p), eb = element_bytes(precision);
    const std::size_t set_bytes = eb * (fa + fb) + c_bytes * fc;
    // Enough operand sets that one call's operands are out of L2 by the time they come round again.
    const int sets = static_cast<int>(std::clamp<std::size_t>(3 * l2 / set_bytes + 1, 1, 32));
    std::vector<Operands> operand(sets);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> ha(fa), hb(fb);
    for (float& x : ha) x = uniform(rng);
    for (float& x : hb) x = uniform(rng);
    const std::vector<unsigned char> ea = elements(ha, precision), eb_ = elements(hb, precision);
    bool ok = true;
    for (Operands& o : operand) {
      ok = ok && check(cudaMalloc(&o.a, eb * fa), "cudaMalloc") && check(cudaMalloc(&o.b, eb * fb), "cudaMalloc") &&
           check(cudaMalloc(&o.c, c_bytes * fc), "cudaMalloc");
      if (!ok) break;
      cudaMemcpy(o.a, ea.data(), ea.size(), cudaMemcpyHostToDevice);
      cudaMemcpy(o.b, eb_.data(), eb_.size(), cudaMemcpyHostToDevice);
    }
    gemmtune::KernelChoice choice;
    // choose() reads the pointers for their alignment only, whatever the precision's element type.
    if (ok)
      ok = library.choose(p, static_cast<const float*>(operand[0].a), static_cast<const float*>(operand[0].b),
                          choice) == gemmtune::Status::success;

    // Correctness: |C - R| <= bound_scale (|A||B|), R from cuBLAS in the same precision, |A||B| from
    // SGEMM on the absolute values (exact enough for a bound). C starts as NaN, so an element never
    // written fails.
    double worst = 0;
    NormwiseErrors errors;  // 3xtf32 only
    if (ok) {
      float *abs_a = nullptr, *abs_b = nullptr, *magnitude = nullptr;
      void* reference = nullptr;
      std::vector<float> ha_abs(ha), hb_abs(hb);
      for (float& x : ha_abs) x = std::fabs(x);
      for (float& x : hb_abs) x = std::fabs(x);
      cudaMalloc(&abs_a, 4 * fa), cudaMalloc(&abs_b, 4 * fb), cudaMalloc(&reference, c_bytes * fc),
          cudaMalloc(&magnitude, 4 * fc);
      cudaMemcpy(abs_a, ha_abs.data(), 4 * fa, cudaMemcpyHostToDevice);
      cudaMemcpy(abs_b, hb_abs.data(), 4 * fb, cudaMemcpyHostToDevice);
      cudaMemset(operand[0].c, 0xff, c_bytes * fc);  // NaN (in 16 bits too)
      ok = library.gemm(p, 1.0f, operand[0].a, operand[0].b, 0.0f, operand[0].c, stream) ==
               gemmtune::Status::success &&
           check(run_cublas(cublas, p, operand[0].a, operand[0].b, reference), "cuBLAS") &&
           check(run_cublas(cublas, problem_of(s), abs_a, abs_b, magnitude, Call::sgemm), "cuBLAS |A||B|") &&
           check(cudaStreamSynchronize(stream), "check");
      const std::vector<float> got = c_as_floats(operand[0].c, fc, precision, c16),
                               want = c_as_floats(reference, fc, precision, c16);
      std::vector<float> mag(fc);
      cudaMemcpy(mag.data(), magnitude, 4 * fc, cudaMemcpyDeviceToHost);
      for (int e = 0; e < p.batch; ++e)
        for (int i = 0; i < p.m; ++i)
          for (int j = 0; j < p.n; ++j) {
            const std::size_t at = std::size_t(e) * p.stride_c + std::size_t(i) * p.ldc + j;
            const double bound = bound_scale(precision, p.k, c16) * mag[at] + 1e-30;
            const double ratio = std::fabs(double(got[at]) - want[at]) / bound;
            worst = std::isnan(ratio) ? INFINITY : std::max(worst, ratio);
          }
      cudaFree(abs_a), cudaFree(abs_b), cudaFree(reference), cudaFree(magnitude);
      if (ok && precision == Precision::tf32x3)
        errors = normwise_errors(cublas, p, ha, hb, got, want, stream);
    }
    const bool correct = ok && worst <= 1.0;

    std::vector<double> library_ms, cublas_ms;
    int calls = 1;
    bool measured = false;  // correct, and both sides timed (a side that cannot be captured is not)
    if (correct) {
      // Each side's calls (up to 32, over the operand sets) captured once in a CUDA graph and
      // replayed, so a sample is GPU time: launched one by one, short calls measured the host's
      // launch rate instead (cuBLAS's host path is 10 to 15 us a call on the H200 machine, against
      // 3 us of GPU time at 64^3). Samples of about 2 ms, so clock ramp-up does not dominate.
      const auto capture = [&](bool use_library, int count) -> cudaGraphExec_t {
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        if (!check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture")) return nullptr;
        bool captured = true;
        for (int i = 0; i < count; ++i) {
          const Operands& o = operand[i % sets];
          captured = captured && (use_library ? library.gemm(p, 1.0f, o.a, o.b, 0.0f, o.c, stream) ==
                                                    gemmtune::Status::success
                                              : run_cublas(cublas, p, o.a, o.b, o.c) == CUBLAS_STATUS_SUCCESS);
        }
        captured = check(cudaStreamEndCapture(stream, &graph), "capture") && captured;
        if (captured) captured = check(cudaGraphInstantiate(&exec, graph, 0), "graph");
        if (graph) cudaGraphDestroy(graph);
        return captured ? exec : nullptr;
      };
      const int graph_calls = std::min(32, std::max(sets, 8));
      cudaGraphExec_t graphs[2] = {capture(false, graph_calls), capture(true, graph_calls)};
      const auto time_batch = [&](bool use_library, int replays) {
        cudaEventRecord(start, stream);
        for (int r = 0; r < replays; ++r) cudaGraphLaunch(graphs[use_library], stream);
        cudaEventRecord(stop, stream);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        return double(ms) / (replays * graph_calls);
      };
      const bool captured = graphs[0] && graphs[1];
      if (captured) {
        time_batch(false, 1);
        time_batch(true, 1);
        const int replays =
            static_cast<int>(std::clamp(2.0 / std::max(1e-4, time_batch(false, 1) * graph_calls), 1.0, 50.0));
        calls = replays * graph_calls;
        for (int round = 0; round < 20; ++round) {
          if (round % 2) {
            library_ms.push_back(time_batch(true, replays));
            cublas_ms.push_back(time_batch(false, replays));
          } else {
            cublas_ms.push_back(time_batch(false, replays));
            library_ms.push_back(time_batch(true, replays));
          }
        }
      }
      for (cudaGraphExec_t g : graphs)
        if (g) cudaGraphExecDestroy(g);
      measured = check(cudaGetLastError(), "timing") && captured;
      ok = measured;
      if (!measured) ++failures;
    } else {
      ++failures;
    }
    for (Operands& o : operand) cudaFree(o.a), cudaFree(o.b), cudaFree(o.c);

    const double flops = 2.0 * p.m * p.n * p.k * p.batch;
    const double lib = median(library_ms), cub = median(cublas_ms);
    const double ratio = measured ? cub / lib : 0;
    std::vector<double> round_ratios;
    for (std::size_t r = 0; r < library_ms.size() && r < cublas_ms.size(); ++r)
      round_ratios.push_back(cublas_ms[r] / library_ms[r]);
    const double paired_ratio = measured && !round_ratios.empty() ? median(round_ratios) : 0;
    const std::string ran = ok ? choice.config_name : "(failed)";
    const double gbps = measured ? double(set_bytes) / (lib * 1e-3) / 1e9 : 0.0;
    std::printf("%-5s %-10s %-26s %-52s %9.2f %9.2f %7.3f", s.set, s.kind, label(s).c_str(), ran.c_str(),
                measured ? flops / lib / 1e9 : 0.0, measured ? flops / cub / 1e9 : 0.0, ratio);
    if (with_errors) std::printf(" %9.2e %10.2e", errors.library, errors.cublas);
    if (decode) std::printf(" %7.0f %6.1f%%", gbps, 100 * gbps / copy);
    std::printf("%s\n", correct ? "" : "  INCORRECT");
    entries.push_back({{"set", s.set},
                       {"kind", s.kind},
                       {"m", p.m},
                       {"n", p.n},
                       {"k", p.k},
                       {"layout", std::string(p.op_a == Op::t ? "t" : "n") + (p.op_b == Op::t ? "t" : "n")},
                       {"batch", p.batch},
                       {"precision", precision_name},
                       {"c", c16 ? precision_name : "fp32"},
                       {"b_shared", s.shared_b},
                       {"lda", p.lda},
                       {"ldb", p.ldb},
                       {"ldc", p.ldc},
                       {"ran", ran},
                       {"implementation", gemmtune::implementation_name(choice.implementation)},
                       {"source", gemmtune::config_source_name(choice.source)},
                       {"reason", choice.reason},
                       {"correct", correct},
                       {"error_ratio", worst},
                       {"measured", measured},
                       {"tflops", measured ? flops / lib / 1e9 : 0.0},
                       {"median_ms", lib},
                       {"cublas_tflops", measured ? flops / cub / 1e9 : 0.0},
                       {"cublas_median_ms", cub},
                       {"ratio_vs_cublas", ratio},
                       {"paired_ratio_vs_cublas", paired_ratio},
                       {"calls_per_sample", calls},
                       {"samples_ms", library_ms},
                       {"cublas_samples_ms", cublas_ms}});
    if (errors.library > 0) {
      entries.back()["normwise_error"] = errors.library;
      entries.back()["sgemm_normwise_error"] = errors.cublas;
    }
    if (decode) {
      entries.back()["bytes"] = double(set_bytes);
      entries.back()["gbps"] = gbps;
      entries.back()["fraction_of_copy"] = gbps / copy;
    }
  }

  nlohmann::json summary;
  // Per set, then over every shape when more than one set ran.
  for (const char* set : {"heldout", "tuned", "llm", "decode", "all"}) {
    if (std::string(set) == "all" && shape_sets.find(',') == std::string::npos) continue;
    double log_sum = 0, lowest = INFINITY, paired_log_sum = 0, paired_lowest = INFINITY, lowest_copy = INFINITY;
    int count = 0;
    for (const auto& e : entries)
      if ((e["set"] == set || std::string(set) == "all") && e["measured"].get<bool>()) {
        const double ratio = e["ratio_vs_cublas"].get<double>(), paired = e["paired_ratio_vs_cublas"].get<double>();
        if (e.contains("fraction_of_copy")) lowest_copy = std::min(lowest_copy, e["fraction_of_copy"].get<double>());
        log_sum += std::log(ratio);
        lowest = std::min(lowest, ratio);
        paired_log_sum += std::log(paired);
        paired_lowest = std::min(paired_lowest, paired);
        ++count;
      }
    if (count == 0) continue;
    const double geomean = std::exp(log_sum / count), paired_geomean = std::exp(paired_log_sum / count);
    summary[set] = {{"shapes", count},
                    {"geomean_ratio", geomean},
                    {"lowest_ratio", lowest},
                    {"geomean_paired_ratio", paired_geomean},
                    {"lowest_paired_ratio", paired_lowest}};
    std::printf("%s: %d shapes, geometric mean %.3f, lowest %.3f; median of the rounds' ratios: %.3f, lowest %.3f\n",
                set, count, geomean, lowest, paired_geomean, paired_lowest);
    if (decode) {
      summary[set]["copy_gbps"] = copy;
      summary[set]["lowest_fraction_of_copy"] = lowest_copy;
      std::printf("%s: lowest fraction of the copy bandwidth (%.0f GB/s): %.1f%%\n", set, copy, 100 * lowest_copy);
    }
  }
  if (!output.empty()) {
    const nlohmann::json doc = {{"schema", decode ? "gemmtune.decode/1" : "gemmtune.heldout/1"},
                                {"device", prop.name},
                                {"date", utc_now()},
                                {"library_results", results.empty() ? "installed" : results},
                                {"precision", precision_name},
                                {"c", c16 ? precision_name : "fp32"},
                                {"layouts", layout.empty() ? "all" : layout},
                                {"compared_with",
                                 precision == Precision::fp32 || precision == Precision::tf32x3
                                     ? "cublasSgemm / cublasSgemmStridedBatched, CUBLAS_DEFAULT_MATH (FP32, no TF32), same process"
                                     : c16 ? "cublasGemmEx / cublasGemmStridedBatchedEx in the same precision, C in the operands' type, same process"
                                           : "cublasGemmEx / cublasGemmStridedBatchedEx in the same precision, FP32 C, same process"},
                                {"summary", summary},
                                {"entries", entries}};
    std::ofstream(output) << doc.dump(1) << '\n';
    std::printf("written to %s\n", output.c_str());
  }
  cublasDestroy(cublas);
  return failures == 0 ? 0 : 1;
}
