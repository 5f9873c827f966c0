// Why does the tuner's race time cuBLAS 2-13% slower than the held-out bench does at decode shapes
// (docs/performance.md, "The race's cuBLAS runs slower than the bench's")? One cublasGemmEx call
// (bf16 operands, FP32 or bf16 C, FP32 sums), timed per call from CUDA-graph replays under the
// settings in which the race and the bench differ, one at a time from the bench's:
//   calls    calls a graph: the bench's 56; the race's about 0.5 ms of calls (16 at ~30 us, 4 at
//            ~160 us; at most 32); a cost per replay (a workspace node?) weighs 4 to 14 times more
//   sets     operand sets rotated: 2 (both, at these sizes) or 4
//   data     the same values in every set (both) or other values per set
//   warm     the handle used eagerly before its first capture (both, the bench by its check), or not
//   eager    no graph: a batch of eager calls between two events
//   math     CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION (the race's and the runtime's) or not
//            (the bench's); it matters only for a 16-bit C
// The race's row: its own settings (it too warms its handle eagerly and fills every set alike).
// Median of 9 replays, each setting interleaved with the bench's in rounds.
//   nvcc -O2 -arch=sm_90 -o cublas_timing cublas_timing.cu -lcublas && ./cublas_timing
// Its H100 output (2026-11-27): h100-2026-11-27.txt. No setting but eager calls and 4 calls a graph
// moved cuBLAS by more than 1.5%; the race's own combination 0.2-1.2%. What differed was our side
// (race-vs-bench.sh, docs/performance.md).
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

struct Shape { int m, n, k; bool nt, c16; };
struct Setting { const char* name; int calls, sets; bool same_data, warm, eager, disallow; };

static void fill(void* device, size_t count, unsigned seed) {
  std::vector<__nv_bfloat16> host(count);
  unsigned x = seed;
  for (auto& v : host) { x = x * 1664525u + 1013904223u; v = __float2bfloat16(((x >> 8) & 0xffff) / 32768.0f - 1.0f); }
  cudaMemcpy(device, host.data(), count * 2, cudaMemcpyHostToDevice);
}

static void call(cublasHandle_t h, const Shape& p, void* a, void* b, void* c) {
  const float one = 1, zero = 0;
  cublasGemmEx(h, p.nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, b, CUDA_R_16BF,
               p.nt ? p.k : p.n, a, CUDA_R_16BF, p.k, &zero, c, p.c16 ? CUDA_R_16BF : CUDA_R_32F, p.n,
               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

// us a call: one replay (or eager batch) of s.calls calls over the sets.
static float sample(cublasHandle_t h, cudaStream_t stream, const Shape& p, const Setting& s, void** a, void** b,
                    void** c, cudaGraphExec_t exec) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0, stream);
  if (s.eager) for (int i = 0; i < s.calls; ++i) call(h, p, a[i % s.sets], b[i % s.sets], c[i % s.sets]);
  else cudaGraphLaunch(exec, stream);
  cudaEventRecord(e1, stream);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0); cudaEventDestroy(e1);
  return ms * 1000 / s.calls;
}

static void** sets_of(const Setting& s, void** buffers) { return s.same_data ? buffers : buffers + 4; }

int main() {
  const Shape shapes[] = {{16, 11008, 4096, false, false}, {4, 11008, 4096, true, true}, {8, 11008, 4096, true, true},
                          {2, 28672, 8192, true, false}, {8, 28672, 8192, true, true}, {4, 4096, 4096, true, true}};
  const Setting settings[] = {{"bench (56 calls, 2 sets, same data, warm)", 56, 2, true, true, false, false},
                              {"4 calls a graph", 4, 2, true, true, false, false},
                              {"16 calls a graph", 16, 2, true, true, false, false},
                              {"32 calls a graph", 32, 2, true, true, false, false},
                              {"4 sets", 56, 4, true, true, false, false},
                              {"other data per set", 56, 2, false, true, false, false},
                              {"first use in a capture", 56, 2, true, false, false, false},
                              {"eager, 56 calls", 56, 2, true, true, true, false},
                              {"no reduced-precision reduction", 56, 2, true, true, false, true},
                              {"the race's: 16 calls, no reduced-precision reduction", 16, 2, true, true, false, true}};
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s\n", prop.name);
  for (const Shape& p : shapes) {
    const size_t na = size_t(p.m) * p.k, nb = size_t(p.k) * p.n, nc = size_t(p.m) * p.n;
    // Sets 0-3 hold one set's values everywhere; sets 4-7 each their own (the "other data" setting).
    void *a[8], *b[8], *c[8];
    for (int i = 0; i < 8; ++i) {
      cudaMalloc(&a[i], na * 2); cudaMalloc(&b[i], nb * 2); cudaMalloc(&c[i], nc * 4);
      fill(a[i], na, i < 4 ? 1 : 1 + 2 * i);
      fill(b[i], nb, i < 4 ? 2 : 2 + 2 * i);
    }
    std::printf("%dx%dx%d:%s%s\n", p.m, p.n, p.k, p.nt ? "nt" : "nn", p.c16 ? ":c16" : "");
    const int count = sizeof settings / sizeof *settings;
    std::vector<std::vector<float>> times(count);
    std::vector<cublasHandle_t> handles(count);
    std::vector<cudaStream_t> streams(count);
    std::vector<cudaGraphExec_t> execs(count, nullptr);
    for (int j = 0; j < count; ++j) {
      const Setting& s = settings[j];
      cublasCreate(&handles[j]);
      if (s.disallow)  // the race's and the runtime's math mode
        cublasSetMathMode(handles[j], static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                                                CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
      cudaStreamCreateWithFlags(&streams[j], cudaStreamNonBlocking);
      cublasSetStream(handles[j], streams[j]);
      void** sa = sets_of(s, a);
      void** sb = sets_of(s, b);
      void** sc = sets_of(s, c);
      if (s.warm) { call(handles[j], p, sa[0], sb[0], sc[0]); cudaStreamSynchronize(streams[j]); }
      if (!s.eager) {
        cudaGraph_t graph;
        cudaStreamBeginCapture(streams[j], cudaStreamCaptureModeThreadLocal);
        for (int i = 0; i < s.calls; ++i) call(handles[j], p, sa[i % s.sets], sb[i % s.sets], sc[i % s.sets]);
        cudaStreamEndCapture(streams[j], &graph);
        cudaGraphInstantiate(&execs[j], graph, 0);
        cudaGraphDestroy(graph);
        cudaGraphUpload(execs[j], streams[j]);
      }
      sample(handles[j], streams[j], p, s, sets_of(s, a), sets_of(s, b), sets_of(s, c), execs[j]);  // warm-up
    }
    for (int round = 0; round < 9; ++round)
      for (int j = 0; j < count; ++j)
        times[j].push_back(sample(handles[j], streams[j], p, settings[j], sets_of(settings[j], a), sets_of(settings[j], b),
                                  sets_of(settings[j], c), execs[j]));
    float bench = 0;
    for (int j = 0; j < count; ++j) {
      std::sort(times[j].begin(), times[j].end());
      const float median = times[j][4];
      if (j == 0) bench = median;
      std::printf("  %-44s %8.2f us  %.3f of the bench's\n", settings[j].name, median, median / bench);
      if (execs[j]) cudaGraphExecDestroy(execs[j]);
      cublasDestroy(handles[j]);
      cudaStreamDestroy(streams[j]);
    }
    for (int i = 0; i < 8; ++i) { cudaFree(a[i]); cudaFree(b[i]); cudaFree(c[i]); }
  }
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
