// Buffers are found under a short map lock and then used under their own lock, so split-K calls on
// different streams only contend for the lookup. Captured calls take no lock: their workspace is
// their graph's.
#include "stream_workspaces.hpp"

#include <cuda_runtime.h>

namespace gemmtune {

StreamWorkspaces::~StreamWorkspaces() {
  for (auto& entry : buffers_) {
    if (entry.second->memory) static_cast<void>(cudaFree(entry.second->memory));
  }
}

cudaError_t StreamWorkspaces::buffer_for(cudaStream_t stream, WorkspaceKind kind, Buffer*& buffer) {
  unsigned long long id = 0;
  if (const cudaError_t err = cudaStreamGetId(stream, &id); err != cudaSuccess) return err;
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = buffers_[{id, kind}];
  if (!slot) slot = std::make_unique<Buffer>();
  buffer = slot.get();
  return cudaSuccess;
}

cudaError_t StreamWorkspaces::grow(Buffer& buffer, cudaStream_t stream, std::size_t bytes, bool zeroed) {
  if (buffer.memory) {
    if (const cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess) return err;
    static_cast<void>(cudaFree(buffer.memory));
    buffer.memory = nullptr;
    buffer.bytes = 0;
  }
  if (const cudaError_t err = cudaMalloc(&buffer.memory, bytes); err != cudaSuccess) {
    buffer.memory = nullptr;
    return err;
  }
  if (zeroed) {
    if (const cudaError_t err = cudaMemsetAsync(buffer.memory, 0, bytes, stream); err != cudaSuccess) {
      static_cast<void>(cudaFree(buffer.memory));
      buffer.memory = nullptr;
      return err;
    }
  }
  buffer.bytes = bytes;
  return cudaSuccess;
}

cudaError_t StreamWorkspaces::allocate_in_graph(cudaStream_t stream, std::size_t bytes, WorkspaceKind kind,
                                                void*& memory) {
  int supported = pools_supported_.load(std::memory_order_relaxed);
  if (supported < 0) {
    int device = 0;
    if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
    if (const cudaError_t err = cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device);
        err != cudaSuccess)
      return err;
    pools_supported_.store(supported, std::memory_order_relaxed);
  }
  if (!supported) return cudaErrorNotSupported;
  if (const cudaError_t err = cudaMallocAsync(&memory, bytes, stream); err != cudaSuccess) return err;
  if (kind != WorkspaceKind::scratch) {
    if (const cudaError_t err = cudaMemsetAsync(memory, 0, bytes, stream); err != cudaSuccess) {
      static_cast<void>(cudaFreeAsync(memory, stream));
      return err;
    }
  }
  return cudaSuccess;
}

}  // namespace gemmtune
