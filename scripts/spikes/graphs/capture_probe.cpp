// Which calls a thread may make, in relaxed capture mode, while its stream captures in global mode:
// the steps of allocating and zeroing a graph's own workspace off the capturing stream.
#include <cuda_runtime.h>

#include <cstdio>

#define TRY(call) std::printf("  %-70s %s\n", #call, cudaGetErrorName(call))

static void CUDART_CB destroyed(void*) { std::printf("  (user object destroyed)\n"); }

int main() {
  for (cudaStreamCaptureMode begin : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal}) {
    std::printf("capture mode %d\n", int(begin));
    cudaStream_t s = nullptr, side = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    TRY(cudaStreamBeginCapture(s, begin));
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    TRY(cudaThreadExchangeStreamCaptureMode(&mode));
    TRY(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    void *p = nullptr, *q = nullptr;
    TRY(cudaMallocAsync(&p, 1 << 20, side));
    TRY(cudaMemsetAsync(p, 0, 1 << 20, side));
    cudaEvent_t e = nullptr;
    TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    TRY(cudaEventRecord(e, side));
    TRY(cudaEventSynchronize(e));
    TRY(cudaStreamSynchronize(side));
    TRY(cudaMalloc(&q, 1 << 20));
    TRY(cudaMemsetAsync(q, 0, 1 << 20, side));
    TRY(cudaStreamSynchronize(side));
    cudaStreamCaptureStatus status{};
    unsigned long long id = 0;
    cudaGraph_t graph = nullptr;
    TRY(cudaStreamGetCaptureInfo(s, &status, &id, &graph));
    std::printf("  status %d id %llu\n", int(status), id);
    cudaUserObject_t object = nullptr;
    TRY(cudaUserObjectCreate(&object, nullptr, destroyed, 1, cudaUserObjectNoDestructorSync));
    TRY(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove));
    TRY(cudaThreadExchangeStreamCaptureMode(&mode));
    TRY(cudaStreamIsCapturing(s, &status));
    std::printf("  status after %d\n", int(status));
    cudaGraph_t out = nullptr;
    TRY(cudaStreamEndCapture(s, &out));
    if (out) TRY(cudaGraphDestroy(out));
    cudaGetLastError();
    TRY(cudaFreeAsync(p, side));
    TRY(cudaFree(q));
    TRY(cudaStreamSynchronize(side));
  }
  return 0;
}
