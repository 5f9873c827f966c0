// Is a race of back-to-back eager launches host-bound at short calls? cuBLAS's per-call time in a
// batch of eager calls (the tuner's race) against the same batch replayed from a CUDA graph (GPU
// time only), for a few shapes and precisions; and an empty kernel's launch rate for comparison.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

__global__ void empty_kernel() {}

static double per_call_us(cudaStream_t s, int calls, const std::function<void()>& call, bool graph) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaGraphExec_t exec = nullptr;
  if (graph) {
    cudaGraph_t g;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    for (int i = 0; i < calls; ++i) call();
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    cudaGraphLaunch(exec, s);
  } else {
    for (int i = 0; i < calls; ++i) call();
  }
  cudaStreamSynchronize(s);
  std::vector<double> t;
  for (int r = 0; r < 9; ++r) {
    cudaEventRecord(a, s);
    if (graph) cudaGraphLaunch(exec, s);
    else
      for (int i = 0; i < calls; ++i) call();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000.0 / calls);
  }
  if (exec) cudaGraphExecDestroy(exec);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, s);
  cublasSetMathMode(h, cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  void *a, *b, *c;
  cudaMalloc(&a, 256 << 20);
  cudaMalloc(&b, 256 << 20);
  cudaMalloc(&c, 256 << 20);
  cudaMemset(a, 0x3c, 256 << 20);
  cudaMemset(b, 0x3c, 256 << 20);
  struct Shape { int m, n, k; bool bf16; };
  const Shape shapes[] = {{64, 64, 64, false},   {64, 64, 64, true},      {64, 1024, 4096, true},
                          {8, 4096, 4096, true}, {1, 4096, 4096, true},   {64, 4096, 1024, false},
                          {512, 512, 512, false}, {1024, 1024, 1024, true}, {8, 4096, 4096, false}};
  std::printf("%-22s %10s %10s %8s\n", "shape", "eager us", "graph us", "ratio");
  for (const Shape& x : shapes) {
    const float alpha = 1, beta = 0;
    const auto call = [&] {
      if (x.bf16)  // row-major C = A B as column-major C^T = B^T A^T, bf16 C
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, x.n, x.m, x.k, &alpha, b, CUDA_R_16BF, x.n, a, CUDA_R_16BF, x.k,
                     &beta, c, CUDA_R_16BF, x.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      else
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, x.n, x.m, x.k, &alpha, (float*)b, x.n, (float*)a, x.k, &beta,
                    (float*)c, x.n);
    };
    const double eager = per_call_us(s, 100, call, false), graph = per_call_us(s, 100, call, true);
    std::printf("%4dx%5dx%5d %-6s %10.2f %10.2f %8.2f\n", x.m, x.n, x.k, x.bf16 ? "bf16" : "fp32", eager, graph,
                eager / graph);
  }
  const auto empty = [&] { empty_kernel<<<1, 32, 0, s>>>(); };
  std::printf("empty kernel: eager %.2f us, graph %.2f us a launch\n", per_call_us(s, 100, empty, false),
              per_call_us(s, 100, empty, true));
  // host time alone of one cublasSgemm call at 64^3
  const float alpha1 = 1;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i)
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &alpha1, (float*)b, 64, (float*)a, 64,
                &alpha1, (float*)c, 64);
  auto t1 = std::chrono::steady_clock::now();
  cudaStreamSynchronize(s);
  std::printf("cublasSgemm 64^3 host time a call: %.2f us; errors: %s\n",
              std::chrono::duration<double, std::micro>(t1 - t0).count() / 1000, cudaGetErrorName(cudaGetLastError()));
  return 0;
}
