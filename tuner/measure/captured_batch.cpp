#include "measure/captured_batch.hpp"

#include "core/cuda_check.hpp"

namespace gemmtune {

CapturedBatch::CapturedBatch(cudaStream_t stream, int count, const std::function<void(int)>& call) {
  GEMMTUNE_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t graph = nullptr;
  try {
    for (int i = 0; i < count; ++i) call(i);
  } catch (...) {
    if (cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
    static_cast<void>(cudaGetLastError());  // the capture's error, not a later call's
    throw;
  }
  GEMMTUNE_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  const cudaError_t instantiated = cudaGraphInstantiate(&exec_, graph, 0);
  GEMMTUNE_CUDA_CHECK_NOTHROW(cudaGraphDestroy(graph));
  GEMMTUNE_CUDA_CHECK(instantiated);
}

CapturedBatch::~CapturedBatch() {
  if (exec_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec_));
}

void CapturedBatch::replay(cudaStream_t stream) const { GEMMTUNE_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

}  // namespace gemmtune
