// cuBLAS as one of the library's implementations: the calls no kernel is expected to win run cuBLAS
// in their precision (gemmtune.hpp, Implementation::cublas: cublasSgemm in FP32 with cuBLAS's
// default math for fp32 and 3xtf32, cublasGemmEx for the others), exactly the baseline the tuner
// races against; and a stored cuBLASLt algorithm (Implementation::cublaslt), whose handle takes the
// stream per call and so needs no pool. A cuBLAS handle carries its stream, so concurrent calls
// cannot share one: each device keeps a pool, a handle per thread calling at that moment. Setting a
// handle's stream costs about as much as the rest of the dispatch (H100, 2026-11-24), so a call
// takes an idle handle already on its stream where there is one. The handle released last waits
// in a lock-free slot: a thread calling in a loop, the common case, takes it back without the
// pool's mutex (two lock/unlock pairs cost a call about 40 ns on the H100 machine, 2026-11-26).
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "core/cublaslt_matmul.hpp"
#include "core/problem.hpp"
#include "gemm_call.hpp"

struct cublasContext;

namespace gemmtune {

class CublasCalls {
 public:
  CublasCalls() = default;
  // Destroys the handles; the device they were made on must be current and its work done.
  ~CublasCalls();
  CublasCalls(const CublasCalls&) = delete;
  CublasCalls& operator=(const CublasCalls&) = delete;

  // Enqueues the row-major call on stream (the current device's). Returns the cuBLAS status mapped to
  // a CUDA error (cudaErrorMemoryAllocation for an allocation failure, cudaErrorUnknown otherwise).
  cudaError_t run(const GemmCall& call, cudaStream_t stream);

 private:
  struct Pooled {
    cublasContext* handle = nullptr;
    cudaStream_t stream = nullptr;  // the stream it was last set to
  };
  // An idle handle on stream if there is one, else any idle one, else a new one (nullptr with
  // error set if it cannot be made). Its caller owns it until release().
  Pooled* acquire(cudaStream_t stream, cudaError_t& error);
  void release(Pooled* pooled);

  std::atomic<Pooled*> last_{nullptr};  // the handle released last, idle
  std::mutex mutex_;                    // guards idle_ and all_
  std::vector<Pooled*> idle_;           // the other idle handles
  std::vector<std::unique_ptr<Pooled>> all_;
};

// A stored cuBLASLt winner made ready for one call shape: its descriptors (for densely packed
// operands) and the algorithm rebuilt on them.
struct CublasLtCall {
  CublasLtCall(cublasLtHandle_t handle, const GemmShape& shape);  // the descriptors; choice still empty
  CublasLtMatmul matmul;
  CublasLtChoice choice;
};

// Enqueues call with it on stream; workspace holds at least lt.choice.workspace_bytes. The call's
// sizes, leading dimensions and strides must be those lt.matmul describes.
cudaError_t run_cublaslt(const CublasLtCall& lt, const GemmCall& call, void* workspace, cudaStream_t stream);

}  // namespace gemmtune
