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
// and a synchronisation, which capture refuses (and which invalidate the capture). Each captured
// call instead allocates its workspace in the graph (cudaMallocAsync and cudaFreeAsync become
// memory nodes the graph owns; CUDA orders graphs that share their physical memory) and zeroes it
// there when its kind needs zeros, so every replay starts as a fresh eager call would.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "core/gemm_launch.hpp"

namespace gemmtune {

class StreamWorkspaces {
 public:
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
      if (const cudaError_t err = allocate_in_graph(stream, bytes, kind, memory); err != cudaSuccess) return err;
      const cudaError_t launched = launch(static_cast<float*>(memory));
      const cudaError_t freed = cudaFreeAsync(memory, stream);
      return launched != cudaSuccess ? launched : freed;
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
  // cudaMallocAsync (and a memset for counters and zeros) on a capturing stream. A device without
  // memory pools gets cudaErrorNotSupported before anything is captured.
  cudaError_t allocate_in_graph(cudaStream_t stream, std::size_t bytes, WorkspaceKind kind, void*& memory);

  std::atomic<int> pools_supported_{-1};  // cudaDevAttrMemoryPoolsSupported, once asked (-1: not yet)

  std::mutex mutex_;  // guards the map, not the buffers
  std::map<std::pair<unsigned long long, WorkspaceKind>, std::unique_ptr<Buffer>> buffers_;  // (stream id, kind)
};

}  // namespace gemmtune
