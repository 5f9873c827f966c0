// Buffers are found under a short map lock and then used under their own lock, so split-K calls on
// different streams only contend for the lookup. Captured calls take the map lock only.
#include "stream_workspaces.hpp"

#include <cuda_runtime.h>

#include <functional>
#include <thread>

#include "relaxed_capture_mode.hpp"

namespace gemmtune {

void CUDART_CB StreamWorkspaces::release_graph_buffer(void* data) {  // on CUDA's thread: no CUDA calls
  const std::unique_ptr<GraphRelease> release(static_cast<GraphRelease*>(data));
  std::lock_guard<std::mutex> lock(release->to->mutex);
  release->to->memory.push_back(release->buffer);
  release->to->any.store(true, std::memory_order_release);
}

StreamWorkspaces::~StreamWorkspaces() {
  for (auto& entry : buffers_) {
    if (entry.second->memory) static_cast<void>(cudaFree(entry.second->memory));
  }
  // The graphs' buffers too: a graph replayed after its handle is gone would run unloaded kernels.
  if (side_) {
    for (void* memory : graph_memory_) static_cast<void>(cudaFreeAsync(memory, side_));
    static_cast<void>(cudaStreamSynchronize(side_));
    static_cast<void>(cudaStreamDestroy(side_));
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

cudaError_t StreamWorkspaces::pools_supported() {
  int supported = pools_supported_.load(std::memory_order_relaxed);
  if (supported < 0) {
    int device = 0;
    if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
    if (const cudaError_t err = cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device);
        err != cudaSuccess)
      return err;
    pools_supported_.store(supported, std::memory_order_relaxed);
  }
  return supported ? cudaSuccess : cudaErrorNotSupported;
}

cudaError_t StreamWorkspaces::allocate_in_graph(cudaStream_t stream, std::size_t bytes, void*& memory) {
  if (const cudaError_t err = pools_supported(); err != cudaSuccess) return err;
  return cudaMallocAsync(&memory, bytes, stream);
}

cudaError_t StreamWorkspaces::graph_buffer(cudaStream_t stream, std::size_t bytes, WorkspaceKind kind,
                                           void*& memory) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long capture = 0;
  cudaGraph_t graph = nullptr;
  if (const cudaError_t err = cudaStreamGetCaptureInfo(stream, &status, &capture, &graph); err != cudaSuccess)
    return err;
  if (status != cudaStreamCaptureStatusActive) return cudaErrorStreamCaptureInvalidated;
  const std::size_t thread =
      stream == cudaStreamPerThread ? std::hash<std::thread::id>()(std::this_thread::get_id()) : 0;
  std::lock_guard<std::mutex> lock(mutex_);
  GraphBuffer& buffer = graph_buffers_[{capture, stream, thread, kind}];
  if (buffer.bytes < bytes) {  // the smaller one stays the graph's: its earlier nodes use it
    if (const cudaError_t err = new_graph_buffer(graph, bytes, buffer.memory); err != cudaSuccess) {
      buffer = {};
      return err;
    }
    buffer.bytes = bytes;
  }
  memory = buffer.memory;
  return cudaSuccess;
}

cudaError_t StreamWorkspaces::new_graph_buffer(cudaGraph_t graph, std::size_t bytes, void*& memory) {
  if (const cudaError_t err = pools_supported(); err != cudaSuccess) return err;
  // Global capture mode refuses the side stream's work (which is no part of the capture).
  const RelaxedCaptureMode relaxed;
  if (!side_) {
    if (const cudaError_t err = cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking); err != cudaSuccess) {
      side_ = nullptr;
      return err;
    }
  }
  void* fresh = nullptr;
  if (const cudaError_t err = cudaMallocAsync(&fresh, bytes, side_); err != cudaSuccess) return err;
  auto release = std::make_unique<GraphRelease>(GraphRelease{released_, fresh});
  cudaUserObject_t object = nullptr;
  cudaError_t err = cudaMemsetAsync(fresh, 0, bytes, side_);
  if (err == cudaSuccess) err = cudaStreamSynchronize(side_);  // zeroed before any replay
  if (err == cudaSuccess)
    err = cudaUserObjectCreate(&object, release.get(), release_graph_buffer, 1, cudaUserObjectNoDestructorSync);
  if (err != cudaSuccess) {
    static_cast<void>(cudaFreeAsync(fresh, side_));
    return err;
  }
  release.release();  // the user object's now: its destructor deletes it
  graph_memory_.insert(fresh);
  // The graph takes the one reference; on failure releasing it runs the destructor, which queues
  // the buffer to be freed.
  if (err = cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove); err != cudaSuccess) {
    static_cast<void>(cudaUserObjectRelease(object, 1));
    return err;
  }
  memory = fresh;
  return cudaSuccess;
}

cudaError_t StreamWorkspaces::free_released() {
  std::vector<void*> memory;
  {
    std::lock_guard<std::mutex> lock(released_->mutex);
    memory.swap(released_->memory);
    released_->any.store(false, std::memory_order_relaxed);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (void* buffer : memory) {
    // CUDA released it after the graph's last replay finished: a stream-ordered free suffices.
    if (graph_memory_.erase(buffer) == 0) continue;
    if (const cudaError_t err = cudaFreeAsync(buffer, side_); err != cudaSuccess) return err;
  }
  for (auto it = graph_buffers_.begin(); it != graph_buffers_.end();) {  // captures long ended
    it = graph_memory_.count(it->second.memory) ? std::next(it) : graph_buffers_.erase(it);
  }
  return cudaSuccess;
}

}  // namespace gemmtune
