// Which kernels does cuBLAS run at #44's small and skinny tensor-core shapes, and how long do they
// take? One cublasGemmEx call per shape and precision (bf16 or fp16 in, FP32 C, FP32 sums; tf32:
// FP32 in and out, CUBLAS_COMPUTE_32F_FAST_TF32), row-major nn as the tuner's problems. Prints the
// time of a call (median of 7 batches of back-to-back calls, each batch >= 0.3 ms) and TFLOP/s;
// with PROBE_CALLS=1 it makes one call each, for Nsight Compute to name the kernels.
//   nvcc -O2 -arch=sm_90 -o cublas_kernels cublas_kernels.cu -lcublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Shape { int m, n, k; };

static void call(cublasHandle_t h, int precision, const Shape& p, void* a, void* b, void* c) {
  const float one = 1, zero = 0;
  const cudaDataType in = precision == 0 ? CUDA_R_16BF : precision == 1 ? CUDA_R_16F : CUDA_R_32F;
  const cublasComputeType_t compute = precision == 2 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  // Row-major C = A B is column-major C^T = B^T A^T.
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, b, in, p.n, a, in, p.k, &zero, c, CUDA_R_32F,
               p.n, compute, CUBLAS_GEMM_DEFAULT);
}

int main() {
  const char* env = std::getenv("PROBE_CALLS");
  const int probe_only = env && std::atoi(env) == 1;
  const Shape shapes[] = {{512, 512, 512},     {1000, 1000, 1000}, {1024, 1024, 1024}, {64, 4096, 4096},
                          {4096, 4096, 64},    {4096, 64, 4096},   {2048, 2048, 2048}, {4096, 4096, 4096},
                          {512, 11008, 4096}};
  const char* names[] = {"bf16", "fp16", "tf32"};
  cublasHandle_t h;
  cublasCreate(&h);
  void *a, *b, *c;
  const size_t most = size_t(4096) * 11008 * 4;
  cudaMalloc(&a, most); cudaMalloc(&b, most); cudaMalloc(&c, most);
  cudaMemset(a, 0x3c, most); cudaMemset(b, 0x3c, most);  // small positive values in every type
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int precision = 0; precision < 3; ++precision) {
    for (const Shape& p : shapes) {
      call(h, precision, p, a, b, c);
      if (probe_only) { cudaDeviceSynchronize(); continue; }
      cudaEventRecord(e0);
      call(h, precision, p, a, b, c);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float once = 0;
      cudaEventElapsedTime(&once, e0, e1);
      const int calls = std::max(4, int(0.3f / std::max(once, 1e-3f)));
      std::vector<float> us;
      for (int batch = 0; batch < 7; ++batch) {
        cudaEventRecord(e0);
        for (int i = 0; i < calls; ++i) call(h, precision, p, a, b, c);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        us.push_back(1000 * ms / calls);
      }
      std::sort(us.begin(), us.end());
      const double t = us[3];
      std::printf("%-5s %5dx%5dx%5d  %8.2f us  %7.1f TFLOP/s\n", names[precision], p.m, p.n, p.k, t,
                  2.0 * p.m * p.n * p.k / (t * 1e6));
    }
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::fprintf(stderr, "cuda: %s\n", cudaGetErrorString(e)); return 1; }
  return 0;
}
