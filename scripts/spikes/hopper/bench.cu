// Bench of the Hopper GEMM spike (wgmma_gemm.cuh) against cuBLAS in the same process, on one GPU.
// For each shape: fresh random inputs (uniform in [-1, 1], never 0), a float64 reference on the GPU
// (cublasDgemm on the upcast inputs, and on their absolute values for the element-wise bound),
// every variant run once on a NaN-poisoned C and checked (normwise ||C-R||_F/||R||_F, element-wise
// |C-R| <= (2K+4) 2^-23 (|A||B|)_ij, NaN count), then timed interleaved with cuBLAS (cublasGemmEx,
// CUBLAS_COMPUTE_32F, FP32 C: the same contract): median of ROUNDS samples, each sample enough
// back-to-back launches to last >= 0.5 ms, events around them. Every variant is checked twice (the
// error must repeat exactly). Warm L2 (buffers not rotated; at
// 4096 and up the inputs are larger than the 50 MB L2 anyway).
// Layout: A M x K row-major, B N x K row-major (both K-major), C M x N row-major.
// Output: CSV lines (prefix "csv,") and a summary table at the end.
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o bench bench.cu -lcublas
// Usage: bench [rounds] [shape filter: m,n,k ...]
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>  // CUtensorMap and the encode function's types only: no -lcuda
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "wgmma_gemm.cuh"

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)
#define CB(x)                                                                      \
  do {                                                                             \
    cublasStatus_t s_ = (x);                                                       \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                             \
      std::fprintf(stderr, "%s:%d %s: cublas %d\n", __FILE__, __LINE__, #x, (int)s_); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Tensor maps through the runtime's driver entry point (no libcuda link).
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static EncodeTiled encode_tiled() {
  static EncodeTiled fn = nullptr;
  if (!fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !p) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled not found in the driver\n");
      std::exit(1);
    }
    fn = reinterpret_cast<EncodeTiled>(p);
  }
  return fn;
}

// rows x cols matrix (cols contiguous, pitch ld elements), box of box_rows x box_cols, 128-byte
// swizzle; elements outside the matrix read as zeros.
static gemmtune::TensorMap make_map(const void* ptr, int elem_bytes, int rows, int cols, int ld, int box_rows,
                                    int box_cols, bool tf32_round = false, bool fp16 = false) {
  CUtensorMap m;
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)ld * elem_bytes};
  const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
  const cuuint32_t estr[2] = {1, 1};
  CUresult r = encode_tiled()(&m, elem_bytes == 2 ? (fp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16)
                              : tf32_round     ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                               : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                              2, const_cast<void*>(ptr), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (%d): rows %d cols %d ld %d box %dx%d\n", (int)r, rows, cols,
                 ld, box_rows, box_cols);
    std::exit(1);
  }
  gemmtune::TensorMap t;
  static_assert(sizeof(t) == sizeof(m), "tensor map size");
  std::memcpy(&t, &m, sizeof(m));
  return t;
}

// ---------------------------------------------------------------------------------------------
// Variants: one template instantiation plus how it is launched.
struct Variant {
  const char* name;
  int type;  // precision: 0 bf16, 1 tf32, 2 3xtf32, 3 fp16 (kernel TYPE 0, 1, -, 2)
  bool tma_round;  // tf32: the TMA rounds FP32 to TF32 on the way in (TFLOAT32 map); else the tensor core truncates
  int bm, bn, threads, smem;
  bool persistent;
  int group_m;
  int cluster_n, cluster_m;  // clusters of 2 along N (A multicast) or M (B multicast)
  void (*kernel)(gemmtune::TensorMap, gemmtune::TensorMap, float*, int, int, int, int, int);
};

template <int TYPE, int BM, int BN, int ST, int CONS, int CLUSTER_N = 1, int CLUSTER_M = 1>
static Variant variant(const char* name, bool persistent, int group_m) {
  using S = gemmtune::hopper::WgmmaShape<TYPE, BM, BN, ST, CONS>;
  auto k = gemmtune::wgmma_gemm<TYPE, BM, BN, ST, CONS, CLUSTER_N, CLUSTER_M>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
  return Variant{name,      TYPE == 2 ? 3 : TYPE, false,     BM,        BN, S::kThreads, S::kSmemBytes,
                 persistent, group_m,              CLUSTER_N, CLUSTER_M, k};
}

template <int BM, int BN, int ST, int CONS, int A_REGS>
static Variant variant_3xtf32(const char* name, int group_m) {
  using S = gemmtune::hopper::Split3Shape<BM, BN, ST, CONS, A_REGS>;
  auto k = gemmtune::wgmma_gemm_3xtf32<BM, BN, ST, CONS, A_REGS>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
  return Variant{name, 2, false, BM, BN, S::kThreads, S::kSmemBytes, true, group_m, 1, 1, k};
}

static int g_sms = 132;

struct Launch {
  const Variant* v;
  gemmtune::TensorMap ma, mb;
  float* C;
  int M, N, K, grid;
  void operator()(cudaStream_t st) const {
    const int cluster = v->cluster_n * v->cluster_m;
    if (cluster == 1) {
      v->kernel<<<grid, v->threads, v->smem, st>>>(ma, mb, C, M, N, K, N, v->group_m);
      return;
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(v->threads);
    cfg.dynamicSmemBytes = v->smem;
    cfg.stream = st;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, v->kernel, ma, mb, C, M, N, K, N, v->group_m));
  }
};

static Launch make_launch(const Variant& v, const void* A, const void* B, float* C, int M, int N, int K) {
  const int eb = v.type == 0 || v.type == 3 ? 2 : 4;
  const int bk = 128 / eb;
  const bool h = v.type == 3;
  Launch l{&v, make_map(A, eb, M, K, K, v.bm / v.cluster_n, bk, v.tma_round, h),
           make_map(B, eb, N, K, K, v.bn / v.cluster_m, bk, v.tma_round, h), C, M, N, K, 0};
  const int cluster = v.cluster_n * v.cluster_m;
  const int tiles_m = (M + v.bm - 1) / v.bm, tiles_n = (N + v.bn - 1) / v.bn;
  const int units = ((tiles_m + v.cluster_m - 1) / v.cluster_m) * ((tiles_n + v.cluster_n - 1) / v.cluster_n);
  int slots = g_sms;
  if (cluster > 1) {
    // Clusters must fit inside a GPC: not every SM count divides into them.
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(cluster * units);
    cfg.blockDim = dim3(v.threads);
    cfg.dynamicSmemBytes = v.smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    CK(cudaOccupancyMaxActiveClusters(&clusters, v.kernel, &cfg));
    slots = clusters;
    static bool told = false;
    if (!told) std::printf("clusters of %d: %d co-resident\n", cluster, clusters);
    told = true;
  }
  l.grid = cluster * (v.persistent ? std::min(units, slots) : units);
  return l;
}

// ---------------------------------------------------------------------------------------------
// Data, reference and check kernels.
__device__ __forceinline__ unsigned hash32(unsigned long long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (unsigned)x;
}
__device__ __forceinline__ float uniform_nonzero(unsigned long long i, unsigned seed) {
  float u = (hash32(i * 0x9E3779B97F4A7C15ull + seed) >> 8) * (1.0f / 16777216.0f);  // [0, 1)
  float x = 2.f * u - 1.f;
  if (fabsf(x) < 1e-3f) x = x < 0 ? -0.5f : 0.5f;
  return x;
}
// bf16 inputs (and their float64 upcast); the float64 copies are what the reference uses.
__global__ void fill_bf16(__nv_bfloat16* p, double* d, double* dabs, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    __nv_bfloat16 b = __float2bfloat16(uniform_nonzero(i, seed));
    if (__bfloat162float(b) == 0.f) b = __float2bfloat16(0.5f);
    p[i] = b;
    d[i] = __bfloat162float(b);
    dabs[i] = fabs((double)__bfloat162float(b));
  }
}
__global__ void fill_f16(__half* p, double* d, double* dabs, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    __half b = __float2half(uniform_nonzero(i, seed));
    if (__half2float(b) == 0.f) b = __float2half(0.5f);
    p[i] = b;
    d[i] = __half2float(b);
    dabs[i] = fabs((double)__half2float(b));
  }
}
// tf32 mode: FP32 inputs; the reference uses them as given (tf32 truncation is the error measured).
__global__ void fill_f32(float* p, double* d, double* dabs, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    float x = uniform_nonzero(i, seed);
    p[i] = x;
    d[i] = x;
    dabs[i] = fabs((double)x);
  }
}

struct CheckSums {
  double err2, ref2;
  unsigned max_ratio_bits;  // float bits of max |C-R| / bound (non-negative: ordered as integers)
  unsigned long long over, nan;
};
__global__ void check(const float* C, const double* R, const double* Rabs, long long n, double scale,
                      CheckSums* out) {
  double e2 = 0, r2 = 0;
  float mr = 0;
  unsigned long long over = 0, nan = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const float c = C[i];
    const double r = R[i];
    if (!(c == c) || isinf(c)) {
      ++nan;
      continue;
    }
    const double d = (double)c - r;
    e2 += d * d;
    r2 += r * r;
    const double bound = scale * Rabs[i];
    const float ratio = bound > 0 ? (float)(fabs(d) / bound) : (d != 0 ? 1e30f : 0.f);
    mr = fmaxf(mr, ratio);
    if (ratio > 1.f) ++over;
  }
  for (int o = 16; o; o >>= 1) {
    e2 += __shfl_xor_sync(~0u, e2, o);
    r2 += __shfl_xor_sync(~0u, r2, o);
    mr = fmaxf(mr, __shfl_xor_sync(~0u, mr, o));
    over += __shfl_xor_sync(~0u, over, o);
    nan += __shfl_xor_sync(~0u, nan, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out->err2, e2);
    atomicAdd(&out->ref2, r2);
    atomicMax(&out->max_ratio_bits, __float_as_uint(mr));
    atomicAdd(&out->over, over);
    atomicAdd(&out->nan, nan);
  }
}

__global__ void count_diff(const unsigned* a, const unsigned* b, long long n, unsigned long long* out) {
  unsigned long long d = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    d += a[i] != b[i];
  if (d) atomicAdd(out, d);
}

struct CheckResult {
  double norm_err, max_ratio;
  unsigned long long over, nan;
  bool ok(double norm_limit) const { return nan == 0 && over == 0 && norm_err < norm_limit; }
};

static CheckResult run_check(const float* C, const double* R, const double* Rabs, long long n, int K, int type,
                             CheckSums* d_sums) {
  CK(cudaMemset(d_sums, 0, sizeof(CheckSums)));
  // bf16: the inputs are exact in FP32, only the accumulation errs: (2K+4) 2^-23 |A||B|.
  // tf32: the tensor core drops the inputs' low 13 bits: add 2 * 2^-10 per product.
  // 3xtf32: the dropped small*small term and the small parts' rounding: add 2^-20.
  const double u = std::ldexp(1.0, -23);
  const double scale = type == 0 || type == 3 ? (2.0 * K + 4) * u
                       : type == 1 ? (2.0 * K + 4) * u + 2 * std::ldexp(1.0, -10)
                                   : (2.0 * K + 4) * u + std::ldexp(1.0, -20);
  check<<<264, 256>>>(C, R, Rabs, n, scale, d_sums);
  CK(cudaGetLastError());
  CheckSums h;
  CK(cudaMemcpy(&h, d_sums, sizeof(h), cudaMemcpyDeviceToHost));
  float mr;
  std::memcpy(&mr, &h.max_ratio_bits, 4);
  return CheckResult{std::sqrt(h.err2 / h.ref2), mr, h.over, h.nan};
}

// ---------------------------------------------------------------------------------------------
template <class F>
static float time_batch(F&& f, int reps, cudaEvent_t e0, cudaEvent_t e1) {
  CK(cudaEventRecord(e0));
  for (int i = 0; i < reps; ++i) f();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return ms / reps;
}

struct Stats {
  double med, p10, p90;
};
static Stats stats(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  auto q = [&](double p) { return (double)v[std::min(v.size() - 1, (size_t)(p * (v.size() - 1) + 0.5))]; };
  return Stats{q(0.5), q(0.1), q(0.9)};
}

struct Shape {
  int m, n, k;
};

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 30;
  std::vector<Shape> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {6144, 6144, 6144},
                               {2048, 2048, 2048}, {4095, 4097, 4096}, {1000, 1000, 1000},
                               // edges only (K a multiple of 8: 16-byte rows for bf16, fp16 and FP32)
                               {1, 1, 8}, {7, 300, 72}, {129, 257, 136}, {300, 5, 1000}, {4096, 4096, 4000}};
  if (argc > 2) {
    shapes.clear();
    for (int i = 2; i < argc; ++i) {
      Shape s;
      if (std::sscanf(argv[i], "%d,%d,%d", &s.m, &s.n, &s.k) == 3) shapes.push_back(s);
    }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  int drv, rt;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  std::printf("device: %s, %d SMs, L2 %d MB, driver %d, runtime %d, cuBLAS %d\n", prop.name, g_sms,
              prop.l2CacheSize >> 20, drv, rt, CUBLAS_VERSION);

  // The ladder, in the order it was built (NOTES.md): names say tile, stages, consumer warpgroups
  // and whether the grid is persistent.
  std::vector<Variant> vars = {
      variant<0, 128, 128, 4, 1>("bf16 128x128 s4 c1", false, 8),
      variant<0, 128, 256, 4, 2>("bf16 128x256 s4 c2", false, 8),
      variant<0, 128, 256, 4, 2>("bf16 128x256 s4 c2 pers", true, 8),
      variant<0, 256, 128, 4, 2>("bf16 256x128 s4 c2 pers", true, 8),
      variant<0, 128, 256, 4, 2, 2, 1>("bf16 128x256 s4 c2 pers cl2n", true, 8),
      variant<0, 128, 256, 4, 2, 1, 2>("bf16 128x256 s4 c2 pers cl2m", true, 8),
      variant<0, 128, 192, 5, 2>("bf16 128x192 s5 c2 pers", true, 8),
      variant<0, 128, 128, 6, 2>("bf16 128x128 s6 c2 pers", true, 8),
      variant<0, 64, 128, 8, 1>("bf16 64x128 s8 c1 pers", true, 8),
      variant<2, 128, 256, 4, 2>("fp16 128x256 s4 c2 pers", true, 8),
      variant<1, 128, 256, 4, 2>("tf32 128x256 s4 c2 pers", true, 8),
      variant<1, 128, 256, 4, 2>("tf32 128x256 s4 c2 pers tma-rn", true, 8),
      variant_3xtf32<128, 128, 3, 2, 0>("3xtf32 128x128 s3 c2 pers", 8),
      variant_3xtf32<128, 128, 4, 2, 1>("3xtf32 128x128 s4 c2 pers A-regs", 8),
      variant_3xtf32<128, 128, 4, 2, 2>("3xtf32 128x128 s4 c2 pers A-regs+1", 8),
  };
  for (auto& v : vars) v.tma_round = std::strstr(v.name, "tma-rn") != nullptr;
  // BENCH_SKIP=word drops the variants whose name contains it (run.sh: after a hang in a quick pass).
  if (const char* skip = std::getenv("BENCH_SKIP"))
    vars.erase(std::remove_if(vars.begin(), vars.end(), [&](const Variant& v) { return std::strstr(v.name, skip); }),
               vars.end());

  cublasHandle_t h;
  CB(cublasCreate(&h));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CheckSums* d_sums;
  CK(cudaMalloc(&d_sums, sizeof(CheckSums)));
  cublasLtHandle_t lt;
  CB(cublasLtCreate(&lt));
  const size_t lt_ws_bytes = 32u << 20;
  void* lt_ws;
  CK(cudaMalloc(&lt_ws, lt_ws_bytes));

  struct Row {
    std::string shape, name;
    double tf, ratio, ratio_lt, err, cub_err, maxr;
    bool ok;
  };
  std::vector<Row> table;
  std::printf("csv,m,n,k,variant,ok,norm_err,max_ratio,over,nan,ms_med,ms_p10,ms_p90,tflops,cublas_tflops,ratio\n");

  for (const Shape& sh : shapes) {
    const int M = sh.m, N = sh.n, K = sh.k;
    const long long nA = (long long)M * K, nB = (long long)N * K, nC = (long long)M * N;
    const double flop = 2.0 * M * N * K;
    for (int type = 0; type <= 3; ++type) {
      bool any = false;
      for (auto& v : vars) any |= v.type == type;
      if (!any) continue;
      const int eb = type == 0 || type == 3 ? 2 : 4;
      if ((K * eb) % 16 != 0) {
        std::printf("skip %dx%dx%d: K rows not 16-byte multiples (tensor-map rule)\n", M, N, K);
        continue;
      }
      void *A, *B;
      double *Ad, *Bd, *Aa, *Ba, *R, *Ra;
      float* C;
      CK(cudaMalloc(&A, nA * eb));
      CK(cudaMalloc(&B, nB * eb));
      CK(cudaMalloc(&Ad, nA * 8));
      CK(cudaMalloc(&Bd, nB * 8));
      CK(cudaMalloc(&Aa, nA * 8));
      CK(cudaMalloc(&Ba, nB * 8));
      CK(cudaMalloc(&R, nC * 8));
      CK(cudaMalloc(&Ra, nC * 8));
      CK(cudaMalloc(&C, nC * 4));
      const unsigned seed = 1234u + 7u * M + 13u * N + 17u * K + 101u * type;
      if (type == 3) {
        fill_f16<<<1024, 256>>>((__half*)A, Ad, Aa, nA, seed);
        fill_f16<<<1024, 256>>>((__half*)B, Bd, Ba, nB, seed * 3 + 1);
      } else if (type == 0) {
        fill_bf16<<<1024, 256>>>((__nv_bfloat16*)A, Ad, Aa, nA, seed);
        fill_bf16<<<1024, 256>>>((__nv_bfloat16*)B, Bd, Ba, nB, seed * 3 + 1);
      } else {
        fill_f32<<<1024, 256>>>((float*)A, Ad, Aa, nA, seed);
        fill_f32<<<1024, 256>>>((float*)B, Bd, Ba, nB, seed * 3 + 1);
      }
      CK(cudaGetLastError());
      // Row-major R (M x N) = column-major R^T (N x M) = B_cm^T * A_cm, with A_cm = A^T (K x M,
      // ld K) and B_cm = B^T (K x N, ld K).
      const double one = 1, zero = 0;
      CB(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, Bd, K, Ad, K, &zero, R, N));
      CB(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, Ba, K, Aa, K, &zero, Ra, N));
      CK(cudaDeviceSynchronize());

      // cuBLAS in the same precision, FP32 out.
      const float fone = 1, fzero = 0;
      // 3xtf32's contestant is cuBLAS SGEMM (pure FP32: CUBLAS_COMPUTE_32F on FP32 inputs).
      const cudaDataType_t dt = type == 0 ? CUDA_R_16BF : type == 3 ? CUDA_R_16F : CUDA_R_32F;
      const cublasComputeType_t ct = type == 1 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      auto cublas = [&]() {
        CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &fone, B, dt, K, A, dt, K, &fzero, C, CUDA_R_32F, N, ct,
                        CUBLAS_GEMM_DEFAULT));
      };
      CK(cudaMemset(C, 0xFF, nC * 4));
      cublas();
      CK(cudaDeviceSynchronize());
      const CheckResult cub_chk = run_check(C, R, Ra, nC, K, type, d_sums);
      const double norm_limit = type == 1 ? 2e-3 : 1e-5;

      std::vector<Launch> launches;
      std::vector<CheckResult> chks;
      std::vector<bool> repeat;
      float* C0;
      CK(cudaMalloc(&C0, nC * 4));
      unsigned long long* d_diff;
      CK(cudaMalloc(&d_diff, sizeof(unsigned long long)));
      for (auto& v : vars) {
        if (v.type != type) continue;
        launches.push_back(make_launch(v, A, B, C, M, N, K));
        CK(cudaMemset(C, 0xFF, nC * 4));
        launches.back()(0);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        chks.push_back(run_check(C, R, Ra, nC, K, type, d_sums));
        // Again on fresh poison: the kernels are deterministic, so C must repeat bit for bit (a
        // moving result is a race).
        CK(cudaMemcpy(C0, C, nC * 4, cudaMemcpyDeviceToDevice));
        CK(cudaMemset(C, 0xFF, nC * 4));
        launches.back()(0);
        CK(cudaGetLastError());
        CK(cudaMemset(d_diff, 0, sizeof(unsigned long long)));
        count_diff<<<264, 256>>>((const unsigned*)C, (const unsigned*)C0, nC, d_diff);
        CK(cudaGetLastError());
        unsigned long long diff = 0;
        CK(cudaMemcpy(&diff, d_diff, sizeof diff, cudaMemcpyDeviceToHost));
        if (diff) std::printf("%s at %dx%dx%d: %llu elements differ between two runs\n", v.name, M, N, K, diff);
        repeat.push_back(diff == 0);
      }
      CK(cudaFree(C0));
      CK(cudaFree(d_diff));

      // cuBLASLt: the heuristic's first 8 algorithms (32 MiB workspace), each timed briefly; the
      // fastest joins the contestants (what the tuner's cuBLAS contestant does).
      cublasLtMatmulDesc_t op;
      cublasLtMatrixLayout_t la, lb, lc;
      CB(cublasLtMatmulDescCreate(&op, ct, CUDA_R_32F));
      const cublasOperation_t tr = CUBLAS_OP_T, nt = CUBLAS_OP_N;
      CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &tr, sizeof tr));
      CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof nt));
      CB(cublasLtMatrixLayoutCreate(&la, dt, K, N, K));
      CB(cublasLtMatrixLayoutCreate(&lb, dt, K, M, K));
      CB(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, M, N));
      cublasLtMatmulPreference_t pref;
      CB(cublasLtMatmulPreferenceCreate(&pref));
      CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &lt_ws_bytes,
                                              sizeof lt_ws_bytes));
      cublasLtMatmulHeuristicResult_t heur[8];
      int n_heur = 0;
      CB(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, heur, &n_heur));
      int lt_best = -1;
      float lt_best_ms = 1e30f;
      for (int i = 0; i < n_heur; ++i) {
        auto f = [&]() {
          CB(cublasLtMatmul(lt, op, &fone, B, la, A, lb, &fzero, C, lc, C, lc, &heur[i].algo, lt_ws, lt_ws_bytes, 0));
        };
        f();
        const float t = time_batch(f, 3, e0, e1);
        if (t < lt_best_ms) {
          lt_best_ms = t;
          lt_best = i;
        }
      }
      CheckResult lt_chk{0, 0, 0, 0};
      if (lt_best >= 0) {
        CK(cudaMemset(C, 0xFF, nC * 4));
        CB(cublasLtMatmul(lt, op, &fone, B, la, A, lb, &fzero, C, lc, C, lc, &heur[lt_best].algo, lt_ws, lt_ws_bytes,
                          0));
        CK(cudaDeviceSynchronize());
        lt_chk = run_check(C, R, Ra, nC, K, type, d_sums);
      }
      // Contestants: our variants, cuBLAS with FP32 C, and (16-bit inputs) cuBLAS with C in the input
      // type, as a reference point only (our kernels write FP32).
      const int nv = (int)launches.size();
      std::vector<std::function<void()>> fns;
      for (int i = 0; i < nv; ++i) fns.push_back([&, i]() { launches[i](0); });
      fns.push_back(cublas);
      const int lt_index = lt_best >= 0 ? (int)fns.size() : -1;
      if (lt_best >= 0)
        fns.push_back([&]() {
          CB(cublasLtMatmul(lt, op, &fone, B, la, A, lb, &fzero, C, lc, C, lc, &heur[lt_best].algo, lt_ws, lt_ws_bytes,
                            0));
        });
      const int out16_index = (int)fns.size();
      if (type == 0 || type == 3)
        fns.push_back([&]() {
          CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &fone, B, dt, K, A, dt, K, &fzero, C, dt, N,
                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        });
      const int nf = (int)fns.size();
      // Timing: batch sizes from one timed batch each; then rounds, order rotated.
      std::vector<int> reps(nf);
      for (int i = 0; i < nf; ++i) {
        fns[i]();
        fns[i]();
        float t = time_batch(fns[i], 3, e0, e1);
        reps[i] = std::max(1, (int)std::ceil(0.5 / std::max(t, 1e-4f)));
      }
      std::vector<std::vector<float>> samples(nf);
      for (int r = 0; r < rounds; ++r) {
        for (int j = 0; j < nf; ++j) {
          const int i = (j + r) % nf;
          samples[i].push_back(time_batch(fns[i], reps[i], e0, e1));
        }
      }
      double lt_tf = 0;
      if (lt_index >= 0) {
        const Stats sl = stats(samples[lt_index]);
        lt_tf = flop / (sl.med * 1e-3) / 1e12;
        std::printf("csv,%d,%d,%d,cublasLt %s best of %d (#%d),%d,%.3e,%.4f,%llu,%llu,%.4f,%.4f,%.4f,%.1f,,\n", M, N,
                    K, type == 0 ? "bf16" : type == 1 ? "tf32" : type == 2 ? "sgemm" : "fp16", n_heur, lt_best, (int)lt_chk.ok(type == 1 ? 2e-3 : 1e-5), lt_chk.norm_err, lt_chk.max_ratio,
                    lt_chk.over, lt_chk.nan, sl.med, sl.p10, sl.p90, lt_tf);
      }
      if (nf > out16_index) {
        const Stats s16 = stats(samples[out16_index]);
        std::printf("csv,%d,%d,%d,cublas %s out (reference point),,,,,,%.4f,%.4f,%.4f,%.1f,,\n", M, N, K,
                    type == 0 ? "bf16" : "fp16", s16.med, s16.p10, s16.p90, flop / (s16.med * 1e-3) / 1e12);
      }
      CK(cudaGetLastError());
      const Stats cs = stats(samples[nv]);
      const double cub_tf = flop / (cs.med * 1e-3) / 1e12;
      char shs[64];
      std::snprintf(shs, sizeof shs, "%dx%dx%d", M, N, K);
      std::printf("csv,%d,%d,%d,cublas %s,%d,%.3e,%.4f,%llu,%llu,%.4f,%.4f,%.4f,%.1f,%.1f,1.000\n", M, N, K,
                  type == 0 ? "bf16" : type == 1 ? "tf32" : type == 2 ? "sgemm" : "fp16", (int)cub_chk.ok(norm_limit), cub_chk.norm_err, cub_chk.max_ratio,
                  cub_chk.over, cub_chk.nan, cs.med, cs.p10, cs.p90, cub_tf, cub_tf);
      for (int i = 0; i < nv; ++i) {
        const Stats s = stats(samples[i]);
        const double tf = flop / (s.med * 1e-3) / 1e12;
        const CheckResult& c = chks[i];
        std::printf("csv,%d,%d,%d,%s,%d,%.3e,%.4f,%llu,%llu,%.4f,%.4f,%.4f,%.1f,%.1f,%.3f\n", M, N, K,
                    launches[i].v->name, (int)(c.ok(norm_limit) && repeat[i]), c.norm_err, c.max_ratio, c.over, c.nan, s.med, s.p10,
                    s.p90, tf, cub_tf, tf / cub_tf);
        table.push_back(Row{shs, launches[i].v->name, tf, tf / cub_tf, lt_tf > 0 ? tf / lt_tf : 0, c.norm_err,
                            cub_chk.norm_err, c.max_ratio,
                            c.ok(norm_limit) && repeat[i]});
      }
      std::fflush(stdout);
      cublasLtMatmulPreferenceDestroy(pref);
      cublasLtMatrixLayoutDestroy(la);
      cublasLtMatrixLayoutDestroy(lb);
      cublasLtMatrixLayoutDestroy(lc);
      cublasLtMatmulDescDestroy(op);
      for (void* p : {(void*)A, (void*)B, (void*)Ad, (void*)Bd, (void*)Aa, (void*)Ba, (void*)R, (void*)Ra, (void*)C})
        CK(cudaFree(p));
    }
  }
  std::printf("\n%-16s %-34s %8s %7s %7s %10s %10s %8s %s\n", "shape", "variant", "TFLOP/s", "x cuB", "x Lt8",
              "err", "cuB err", "max/bnd", "ok");
  for (auto& r : table)
    std::printf("%-16s %-34s %8.1f %7.3f %7.3f %10.2e %10.2e %8.4f %s\n", r.shape.c_str(), r.name.c_str(), r.tf,
                r.ratio, r.ratio_lt, r.err, r.cub_err, r.maxr, r.ok ? "ok" : "FAIL");
  return 0;
}
