// Split-K workspaces, one per CUDA stream and kind. Kernels on one stream run in order, so calls on
// that stream can share one buffer; calls on different streams may overlap, so they never share.
// Three kinds (WorkspaceKind, core/gemm_launch.hpp): scratch (partial sums), counters (atomic
// split-K's: zeroed when allocated, then only counted up by the kernels that use them) and zeros
// (the skinny kernels': zeroed when allocated, and every launch leaves it so), kept apart so partial
// sums never land among counters.
// Streams are told apart by their CUDA stream id, not their handle value: a handle reused after
// cudaStreamDestroy, and cudaStreamPerThread (one value, a different stream on every thread), each
// get their own buffer.
// A stream capturing a CUDA graph gets none of these buffers: a graph keeps the pointer it was
// captured with for every replay, on whatever stream the replay runs, while the stream's buffer
// may be replaced or used by eager calls in between; and a first allocation would need cudaMalloc
// and a synchronisation, which capture refuses (and which invalidate the capture). Instead:
// - counters, zeros, and scratch of up to kGraphOwnedScratchBytes: one buffer per graph, capturing
//   stream and kind, allocated and zeroed when the capture first needs it (off the capturing
//   stream, in relaxed capture mode) and owned by the graph through a CUDA user object, so it lives
//   as long as the graph or an executable graph made from it, and is freed (by the next eager call
//   or the destructor) once CUDA releases it. The kernels leave these buffers ready for the next
//   launch, as they do a stream's, so a replay is the captured kernels alone. (Before, each
//   captured call allocated its workspace in the graph and zeroed it there: a memset and two memory
//   nodes in every replay, which doubled the GPU time of a 64^3 call.) Two executable graphs made
//   from one graph share its buffers: replay them in one stream order, not at once.
// - larger scratch (partial sums): allocated in the graph (cudaMallocAsync and cudaFreeAsync become
//   memory nodes the graph owns; CUDA orders graphs that share their physical memory, so graphs do
//   not each hold their partial sums). The two memory nodes cost about 0.5 us a replayed call (H100,
//   2026-11-27: 2 to 8 x 4096 x 4096 bf16 with a 16-bit C, split 8 ways, ran 2.5 to 3.7% faster
//   from a graph's own buffer; docs/performance.md), which only calls with small partial sums
//   notice; so a graph's own scratch buffers stay small.

#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "core/gemm_launch.hpp"

namespace gemmtune {

class StreamWorkspaces {
 public:
  // Partial sums up to this size come from the capturing graph's own buffer (above).
  static constexpr std::size_t kGraphOwnedScratchBytes = std::size_t(16) << 20;

  StreamWorkspaces() = default;
  // Frees every buffer; the work that used them must be complete.
  ~StreamWorkspaces();
  StreamWorkspaces(const StreamWorkspaces&) = delete;
  StreamWorkspaces& operator=(const StreamWorkspaces&) = delete;

  // Calls launch(workspace) with at least bytes of device memory reserved for stream, holding that
  // stream's buffer until launch returns (its kernels are then ordered before any later user). A
  // buffer too small is replaced after synchronising the stream, so no queued kernel still uses it;
  // a counters or zeros buffer is zeroed on that stream when allocated. On a stream capturing a
  // graph, the workspace is the graph's own (see above); a capture already invalidated returns
  // cudaErrorStreamCaptureInvalidated and launches nothing.
  template <class Launch>
  cudaError_t with_workspace(cudaStream_t stream, std::size_t bytes, WorkspaceKind kind, Launch&& launch) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (const cudaError_t err = cudaStreamIsCapturing(stream, &capture); err != cudaSuccess) return err;
    if (capture == cudaStreamCaptureStatusInvalidated) return cudaErrorStreamCaptureInvalidated;
    if (capture == cudaStreamCaptureStatusActive) {
      void* memory = nullptr;
      if (kind != WorkspaceKind::scratch || bytes <= kGraphOwnedScratchBytes) {
        if (const cudaError_t err = graph_buffer(stream, bytes, kind, memory); err != cudaSuccess) return err;
        return launch(static_cast<float*>(memory));
      }
      if (const cudaError_t err = allocate_in_graph(stream, bytes, memory); err != cudaSuccess) return err;
      const cudaError_t launched = launch(static_cast<float*>(memory));
      const cudaError_t freed = cudaFreeAsync(memory, stream);
      return launched != cudaSuccess ? launched : freed;
    }
    if (released_->any.load(std::memory_order_acquire)) {
      if (const cudaError_t err = free_released(); err != cudaSuccess) return err;
    }
    Buffer* buffer = nullptr;
    if (const cudaError_t err = buffer_for(stream, kind, buffer); err != cudaSuccess) return err;
    std::lock_guard<std::mutex> hold(buffer->mutex);
    if (buffer->bytes < bytes) {
      if (const cudaError_t err = grow(*buffer, stream, bytes, kind != WorkspaceKind::scratch); err != cudaSuccess)
        return err;
    }
    return launch(static_cast<float*>(buffer->memory));
  }

 private:
  struct Buffer {
    std::mutex mutex;
    void* memory = nullptr;
    std::size_t bytes = 0;
  };
  cudaError_t buffer_for(cudaStream_t stream, WorkspaceKind kind, Buffer*& buffer);
  static cudaError_t grow(Buffer& buffer, cudaStream_t stream, std::size_t bytes, bool zeroed);
  // Buffers whose graphs CUDA has released (the user objects' destructors, on a CUDA thread that
  // must not call CUDA, put them here); shared, as a graph may outlive this object.
  struct Released {
    std::mutex mutex;
    std::vector<void*> memory;
    std::atomic<bool> any{false};
  };
  struct GraphRelease {  // a graph buffer's user object
    std::shared_ptr<Released> to;
    void* buffer;
  };
  static void CUDART_CB release_graph_buffer(void* release);
  // cudaMallocAsync on a capturing stream. A device without memory pools gets
  // cudaErrorNotSupported before anything is captured.
  cudaError_t allocate_in_graph(cudaStream_t stream, std::size_t bytes, void*& memory);
  // The capture's counters or zeros buffer for stream and kind, at least bytes, zeroed.
  cudaError_t graph_buffer(cudaStream_t stream, std::size_t bytes, WorkspaceKind kind, void*& memory);
  cudaError_t new_graph_buffer(cudaGraph_t graph, std::size_t bytes, void*& memory);
  cudaError_t free_released();
  cudaError_t pools_supported();

  std::atomic<int> pools_supported_{-1};  // cudaDevAttrMemoryPoolsSupported, once asked (-1: not yet)

  std::mutex mutex_;  // guards the maps and side_, not the stream buffers
  std::map<std::pair<unsigned long long, WorkspaceKind>, std::unique_ptr<Buffer>> buffers_;  // (stream id, kind)
  struct GraphBuffer {
    void* memory = nullptr;
    std::size_t bytes = 0;
  };
  // (capture sequence id, capturing stream, kind): the buffer the capture's later calls reuse. A
  // capture refuses its streams' ids; their handles tell them apart, but cudaStreamPerThread's,
  // which is a different stream on every thread: the thread then counts too.
  using GraphStream = std::tuple<unsigned long long, cudaStream_t, std::size_t, WorkspaceKind>;
  std::map<GraphStream, GraphBuffer> graph_buffers_;
  std::set<void*> graph_memory_;  // every graph buffer not yet freed
  std::shared_ptr<Released> released_ = std::make_shared<Released>();
  cudaStream_t side_ = nullptr;  // where graph buffers are allocated, zeroed and freed
};

}  // namespace gemmtune
