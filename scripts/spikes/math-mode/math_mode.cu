// Does CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION change cublasGemmEx's time or result when C
// is FP32 (bf16/fp16 operands, FP32 sums)? The race and the runtime set it for every call; the
// held-out bench's cuBLAS (an application's default handle) does not. Per shape: GPU time of 20
// calls replayed from a CUDA graph (operands rotated over 4 sets), both modes interleaved over 7
// rounds (medians), and whether the two C's are bit-equal.
//   nvcc -O2 -o math_mode math_mode.cu -lcublas && ./math_mode
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

struct Shape { int m, n, k; bool nt; cudaDataType_t type; const char* name; };

static float time_graph(cublasHandle_t h, cudaStream_t s, const Shape& p, void** a, void** b, float** c, int sets) {
  const float one = 1, zero = 0;
  cudaGraph_t graph; cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < 20; ++i) {
    const int x = i % sets;
    // Row-major C = A op(B) as column-major C^T = op(B)^T A^T.
    cublasGemmEx(h, p.nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, b[x], p.type,
                 p.nt ? p.k : p.n, a[x], p.type, p.k, &zero, c[x], CUDA_R_32F, p.n, CUBLAS_COMPUTE_32F,
                 CUBLAS_GEMM_DEFAULT);
  }
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);  // warm-up
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0, s); cudaGraphLaunch(exec, s); cudaEventRecord(e1, s); cudaEventSynchronize(e1);
  float ms = 0; cudaEventElapsedTime(&ms, e0, e1);
  cudaGraphExecDestroy(exec); cudaGraphDestroy(graph); cudaEventDestroy(e0); cudaEventDestroy(e1);
  return ms * 1000 / 20;
}

int main() {
  std::vector<Shape> shapes;
  const int dims[][2] = {{4096, 4096}, {11008, 4096}, {4096, 11008}, {8192, 8192}, {28672, 8192}, {8192, 28672}};
  for (cudaDataType_t t : {CUDA_R_16BF, CUDA_R_16F})
    for (bool nt : {false, true})
      for (int m : {1, 4, 16, 32, 128})
        for (auto& d : dims) shapes.push_back({m, d[0], d[1], nt, t, t == CUDA_R_16BF ? "bf16" : "fp16"});
  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  std::printf("%s\n", prop.name);
  cublasHandle_t h; cublasCreate(&h);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cublasSetStream(h, s);
  const int sets = 4;
  const size_t max_a = size_t(128) * 28672, max_b = size_t(28672) * 8192, max_c = size_t(128) * 28672;
  void *a[sets], *b[sets]; float* c[sets]; float* c2;
  for (int i = 0; i < sets; ++i) {
    cudaMalloc(&a[i], max_a * 2); cudaMalloc(&b[i], max_b * 2); cudaMalloc(&c[i], max_c * 4);
    std::vector<unsigned short> host(std::max(max_a, max_b));
    unsigned x = 12345 + i;
    for (auto& v : host) { x = x * 1664525u + 1013904223u; float f = ((x >> 9) & 0xffff) / 65536.0f - 0.5f;
      __nv_bfloat16 bf = __float2bfloat16(f); std::memcpy(&v, &bf, 2); }
    cudaMemcpy(a[i], host.data(), max_a * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(b[i], host.data(), max_b * 2, cudaMemcpyHostToDevice);
  }
  cudaMalloc(&c2, max_c * 4);
  const cublasMath_t modes[2] = {CUBLAS_DEFAULT_MATH,
                                 static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)};
  std::printf("shape                      default_us disallow_us disallow/default bit_equal\n");
  for (const Shape& p : shapes) {
    std::vector<float> t[2];
    for (int r = 0; r < 7; ++r)
      for (int mode = 0; mode < 2; ++mode) { cublasSetMathMode(h, modes[mode]); t[mode].push_back(time_graph(h, s, p, a, b, c, sets)); }
    // Results of one call in each mode, compared bit for bit.
    const float one = 1, zero = 0;
    std::vector<float> r0(size_t(p.m) * p.n), r1(r0.size());
    for (int mode = 0; mode < 2; ++mode) {
      cublasSetMathMode(h, modes[mode]);
      cublasGemmEx(h, p.nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, b[0], p.type,
                   p.nt ? p.k : p.n, a[0], p.type, p.k, &zero, c2, CUDA_R_32F, p.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      cudaMemcpy(mode ? r1.data() : r0.data(), c2, r0.size() * 4, cudaMemcpyDeviceToHost);
    }
    for (auto& v : t) std::sort(v.begin(), v.end());
    std::printf("%4dx%5dx%5d:%s:%s %10.2f %11.2f %16.3f %s\n", p.m, p.n, p.k, p.nt ? "nt" : "nn", p.name, t[0][3], t[1][3],
                t[1][3] / t[0][3], std::memcmp(r0.data(), r1.data(), r0.size() * 4) == 0 ? "yes" : "NO");
  }
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
