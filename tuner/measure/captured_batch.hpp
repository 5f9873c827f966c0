// A batch of launches captured once in a CUDA graph and replayed, so that timing a replay measures
// GPU time alone. Launched one by one from the host, a batch of short calls measures the host: on
// the H200 machine of 2026-11-27 a cublasSgemm call costs 11.6 us of host time, so 100 eager 64^3
// calls took 12.05 us each against 3.06 us replayed from a graph, and 8x4096x4096 bf16 15.2 against
// 8.0 (scripts/spikes/graphs/host_bound.cu). A race of eager batches then set a kernel's launch cost
// against cuBLAS's host path, not their GPU times.
#pragma once

#include <cuda_runtime.h>

#include <functional>

namespace gemmtune {

class CapturedBatch {
 public:
  // Captures call(0) ... call(count - 1) on stream (thread-local capture mode: this thread may not
  // allocate meanwhile) and instantiates the graph. Throws (the stream capturing no more) if a call
  // throws or the capture fails.
  CapturedBatch(cudaStream_t stream, int count, const std::function<void(int)>& call);
  ~CapturedBatch();
  CapturedBatch(const CapturedBatch&) = delete;
  CapturedBatch& operator=(const CapturedBatch&) = delete;

  void replay(cudaStream_t stream) const;

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace gemmtune
