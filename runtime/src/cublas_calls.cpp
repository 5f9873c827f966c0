// Row-major to cuBLAS's column-major: C = op(A) op(B) row-major is C^T = op(B)^T op(A)^T column-major
// over the same memory, so cuBLAS gets B first, n before m, and the ops as they are.
#include "cublas_calls.hpp"

#include <cublas_v2.h>

#include "relaxed_capture_mode.hpp"

namespace gemmtune {
namespace {

cublasOperation_t to_cublas(Op op) {
  return op == Op::t ? CUBLAS_OP_T : CUBLAS_OP_N;
}

cudaError_t to_cuda(cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS) return cudaSuccess;
  return status == CUBLAS_STATUS_ALLOC_FAILED ? cudaErrorMemoryAllocation : cudaErrorUnknown;
}

// The call in its precision (gemmtune.hpp, Implementation::cublas), on the handle's stream.
cublasStatus_t run_on(cublasHandle_t handle, const GemmCall& call) {
  const GemmProblem& p = call.problem;
  const cublasOperation_t op_b = to_cublas(p.op_b), op_a = to_cublas(p.op_a);
  if (p.precision == Precision::fp32 || p.precision == Precision::tf32x3) {
    const auto* a = static_cast<const float*>(call.a);
    const auto* b = static_cast<const float*>(call.b);
    auto* c = static_cast<float*>(call.c);
    return p.batch == 1 ? cublasSgemm(handle, op_b, op_a, p.n, p.m, p.k, &call.alpha, b, p.ldb, a, p.lda, &call.beta,
                                      c, p.ldc)
                        : cublasSgemmStridedBatched(handle, op_b, op_a, p.n, p.m, p.k, &call.alpha, b, p.ldb,
                                                    p.stride_b, a, p.lda, p.stride_a, &call.beta, c, p.ldc,
                                                    p.stride_c, p.batch);
  }
  const cudaDataType_t type =
      p.precision == Precision::bf16 ? CUDA_R_16BF : p.precision == Precision::fp16 ? CUDA_R_16F : CUDA_R_32F;
  const cublasComputeType_t compute =
      p.precision == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const cudaDataType_t c_type = p.c16 ? type : CUDA_R_32F;
  return p.batch == 1
             ? cublasGemmEx(handle, op_b, op_a, p.n, p.m, p.k, &call.alpha, call.b, type, p.ldb, call.a, type, p.lda,
                            &call.beta, call.c, c_type, p.ldc, compute, CUBLAS_GEMM_DEFAULT)
             : cublasGemmStridedBatchedEx(handle, op_b, op_a, p.n, p.m, p.k, &call.alpha, call.b, type, p.ldb,
                                          p.stride_b, call.a, type, p.lda, p.stride_a, &call.beta, call.c,
                                          c_type, p.ldc, p.stride_c, p.batch, compute, CUBLAS_GEMM_DEFAULT);
}

}  // namespace

CublasCalls::~CublasCalls() {
  for (const auto& pooled : all_) static_cast<void>(cublasDestroy(pooled->handle));
}

CublasCalls::Pooled* CublasCalls::acquire(cudaStream_t stream, cudaError_t& error) {
  Pooled* last = last_.exchange(nullptr, std::memory_order_acquire);
  if (last && last->stream == stream) return last;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (last) idle_.push_back(last);  // on another stream: one of the idle handles again
    if (!idle_.empty()) {
      auto it = idle_.end() - 1;
      for (auto i = idle_.begin(); i != idle_.end(); ++i)
        if ((*i)->stream == stream) it = i;
      Pooled* const pooled = *it;
      *it = idle_.back();
      idle_.pop_back();
      return pooled;
    }
  }
  cublasHandle_t handle = nullptr;
  {
    const RelaxedCaptureMode relaxed;  // cublasCreate allocates: a first call inside a graph capture
    if ((error = to_cuda(cublasCreate(&handle))) != cudaSuccess) return nullptr;
  }
  // What cublasSgemm does for an application that never set a math mode: FP32, no TF32. A 16-bit C
  // is the library's promise of FP32 sums rounded once: cuBLAS's default may add split-K partials
  // in the output type (H200: bf16 512^3 then missed the K-scaled bound by 1.6x), so it may not here.
  static_cast<void>(cublasSetMathMode(handle, static_cast<cublasMath_t>(
                                                  CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    all_.push_back(std::make_unique<Pooled>(Pooled{handle, nullptr}));  // on the legacy default stream
    idle_.reserve(all_.size());  // so acquire() and release() never allocate
  } catch (...) {
    if (!all_.empty() && all_.back()->handle == handle) all_.pop_back();
    static_cast<void>(cublasDestroy(handle));
    error = cudaErrorMemoryAllocation;
    return nullptr;
  }
  return all_.back().get();
}

void CublasCalls::release(Pooled* pooled) {
  Pooled* empty = nullptr;
  if (last_.compare_exchange_strong(empty, pooled, std::memory_order_release, std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(pooled);
}

CublasLtCall::CublasLtCall(cublasLtHandle_t handle, const GemmShape& s)
    : matmul(handle, s.layout, s.precision, s.c16,
             GemmArguments{s.m, s.n, s.k, 1.0f, nullptr, s.lda(), nullptr, s.ldb(), 0.0f, nullptr, s.n, s.batch,
                           s.stride_a(), s.stride_b(), s.stride_c()}) {}

cudaError_t run_cublaslt(const CublasLtCall& lt, const GemmCall& call, void* workspace, cudaStream_t stream) {
  return to_cuda(lt.matmul.run(lt.choice, kernel_arguments(call), workspace, stream));
}

cudaError_t CublasCalls::run(const GemmCall& call, cudaStream_t stream) {
  cudaError_t error = cudaSuccess;
  Pooled* const pooled = acquire(stream, error);
  if (!pooled) return error;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  if (pooled->stream != stream) {
    status = cublasSetStream(pooled->handle, stream);
    if (status == CUBLAS_STATUS_SUCCESS) pooled->stream = stream;
  }
  if (status == CUBLAS_STATUS_SUCCESS) status = run_on(pooled->handle, call);
  release(pooled);
  return to_cuda(status);
}

}  // namespace gemmtune
