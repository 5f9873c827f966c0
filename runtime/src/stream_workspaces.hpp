// Split-K workspaces, one per CUDA stream and kind. Kernels on one stream run in order, so calls on
// that stream can share one buffer; calls on different streams may overlap, so they never share.
// Three kinds (WorkspaceKind, core/gemm_launch.hpp): scratch (partial sums), counters (atomic
// split-K's: zeroed when allocated, then only counted up by the kernels that use them) and zeros
// (the skinny kernels': zeroed when allocated, and every launch leaves it so), kept apart so partial
// sums never land among counters.
// Streams are told apart by their CUDA stream id, not their handle value: a handle reused after
// cudaStreamDestroy, and cudaStreamPerThread (one value, a different stream on every thread), each
// get their own buffer.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <map>
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
  // a counters or zeros buffer is zeroed on that stream when allocated.
  template <class Launch>
  cudaError_t with_workspace(cudaStream_t stream, std::size_t bytes, WorkspaceKind kind, Launch&& launch) {
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

  std::mutex mutex_;  // guards the map, not the buffers
  std::map<std::pair<unsigned long long, WorkspaceKind>, std::unique_ptr<Buffer>> buffers_;  // (stream id, kind)
};

}  // namespace gemmtune
