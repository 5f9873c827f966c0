// Split-K workspaces, one per CUDA stream. Kernels on one stream run in order, so calls on that stream
// can share one buffer; calls on different streams may overlap, so they never share. Streams are told
// apart by their CUDA stream id, not their handle value: a handle reused after cudaStreamDestroy, and
// cudaStreamPerThread (one value, a different stream on every thread), each get their own buffer.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

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
  // buffer too small is replaced after synchronising the stream, so no queued kernel still uses it.
  template <class Launch>
  cudaError_t with_workspace(cudaStream_t stream, std::size_t bytes, Launch&& launch) {
    Buffer* buffer = nullptr;
    if (const cudaError_t err = buffer_for(stream, buffer); err != cudaSuccess) return err;
    std::lock_guard<std::mutex> hold(buffer->mutex);
    if (buffer->bytes < bytes) {
      if (const cudaError_t err = grow(*buffer, stream, bytes); err != cudaSuccess) return err;
    }
    return launch(static_cast<float*>(buffer->memory));
  }

 private:
  struct Buffer {
    std::mutex mutex;
    void* memory = nullptr;
    std::size_t bytes = 0;
  };
  cudaError_t buffer_for(cudaStream_t stream, Buffer*& buffer);
  static cudaError_t grow(Buffer& buffer, cudaStream_t stream, std::size_t bytes);

  std::mutex mutex_;  // guards the map, not the buffers
  std::unordered_map<unsigned long long, std::unique_ptr<Buffer>> buffers_;
};

}  // namespace gemmtune
