// cuBLASLt as a contestant and as an implementation: one problem's matmul descriptors, the
// heuristic's ranked algorithms for it, an algorithm written down as its configuration (so a results
// file can name the one that won and the runtime can rebuild it) and the call itself. The tuner times
// the heuristic's first choice and the best of its first few; the runtime runs a stored winner after
// cublasLtMatmulAlgoCheck accepts it for the call, and the heuristic's first choice where it does
// not (another cuBLAS version, another GPU).
// Row-major to column-major as for cuBLAS (runtime/src/cublas_calls.cpp): cuBLASLt computes
// C^T = op(B)^T op(A)^T, so its A is our B. Precisions as cuBLAS's own calls (gemmtune.hpp,
// Implementation::cublas): pure FP32 for fp32 and 3xtf32, FAST_TF32 for tf32, 16-bit A and B with
// FP32 accumulation for bf16 and fp16; C is FP32, or for c16 the operands' 16-bit type.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/gemm_launch.hpp"
#include "core/layout.hpp"
#include "core/precision.hpp"

namespace gemmtune {

// The workspace a cuBLASLt algorithm may use: what NVIDIA recommends for Hopper, and what the tuner's
// races and the runtime's calls both offer, so a winner measured with it can run with it.
inline constexpr std::size_t kCublasLtWorkspaceBytes = 32u << 20;

// An algorithm as its configuration attributes (cublasLtMatmulAlgoConfigAttributes_t), the form a
// results file stores; with the workspace it asked for.
struct CublasLtAlgo {
  int id = 0;
  // 32-bit attributes as their bit patterns (the unsigned ones too), the 16-bit ones as they are.
  int tile = 0, stages = 0, split_k = 1, reduction = 0, swizzle = 0, custom = 0, inner_shape = 0, cluster_shape = 0;
  std::size_t workspace_bytes = 0;

  friend bool operator==(const CublasLtAlgo& a, const CublasLtAlgo& b);
  friend bool operator!=(const CublasLtAlgo& a, const CublasLtAlgo& b) { return !(a == b); }
};

// {"id":..,"tile":..,...}: from_json checks every field's type and range (results files are input).
void to_json(nlohmann::json& j, const CublasLtAlgo& algo);
void from_json(const nlohmann::json& j, CublasLtAlgo& algo);
std::string describe(const CublasLtAlgo& algo);  // "algo 21 tile 18 stages 8 split-k 1 ..."

// The cuBLASLt library's version (cublasLtGetVersion), stored beside a winner.
std::size_t cublaslt_version();

// One algorithm ready to run: the opaque descriptor and the workspace it needs.
struct CublasLtChoice {
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;
};

// The descriptors of one problem (its sizes, leading dimensions, strides, layout and precision).
// Not thread-safe to build; run() may be called from any thread, on any stream.
class CublasLtMatmul {
 public:
  // dims: m, n, k, leading dimensions, batch and strides (the pointers and alpha/beta are not read).
  // Throws CudaError (cuBLAS status in the message) when a descriptor cannot be made.
  // c16: C (and D) hold the operands' 16-bit type (bf16 and fp16 only).
  CublasLtMatmul(cublasLtHandle_t handle, Layout layout, Precision precision, bool c16, const GemmArguments& dims);
  ~CublasLtMatmul();
  CublasLtMatmul(const CublasLtMatmul&) = delete;
  CublasLtMatmul& operator=(const CublasLtMatmul&) = delete;

  // Whether a call's sizes, leading dimensions and strides are the ones these descriptors hold.
  bool describes(const GemmArguments& dims) const;

  // The heuristic's first `count` algorithms, its first choice first, each within workspace_limit.
  std::vector<CublasLtChoice> heuristic(int count, std::size_t workspace_limit = kCublasLtWorkspaceBytes) const;
  // The stored algorithm rebuilt for this problem, or nullopt with why (cublasLtMatmulAlgoCheck's
  // refusal, or an id this cuBLAS does not know).
  std::optional<CublasLtChoice> rebuild(const CublasLtAlgo& algo, std::string& why) const;
  CublasLtAlgo written_down(const CublasLtChoice& choice) const;

  // Enqueues C = alpha op(A) op(B) + beta C (row-major, as GemmArguments) on stream.
  cublasStatus_t run(const CublasLtChoice& choice, const GemmArguments& args, void* workspace,
                     cudaStream_t stream) const;

 private:
  void release();

  cublasLtHandle_t handle_;
  Precision precision_;
  cudaDataType_t c_type_;
  GemmArguments dims_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;  // cuBLASLt's A, B, C (our B, A, C)
};

}  // namespace gemmtune
