#include "core/cublaslt_matmul.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace gemmtune {
namespace {

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("{} failed: {}", what, cublasLtGetStatusString(status)));
}

cudaDataType_t operand_type(Precision p) {
  return p == Precision::bf16 ? CUDA_R_16BF : p == Precision::fp16 ? CUDA_R_16F : CUDA_R_32F;
}

cublasComputeType_t compute_type(Precision p) {
  return p == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

cublasLtMatrixLayout_t make_layout(cudaDataType_t type, int rows, int cols, int ld, int batch, long long stride) {
  cublasLtMatrixLayout_t layout = nullptr;
  check(cublasLtMatrixLayoutCreate(&layout, type, std::uint64_t(rows), std::uint64_t(cols), ld),
        "cublasLtMatrixLayoutCreate");
  if (batch > 1) {
    const std::int32_t count = batch;
    const std::int64_t offset = stride;
    check(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
          "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
    check(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                                           sizeof offset),
          "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  }
  return layout;
}

// The configuration attributes and their types (cublasLt.h), in the order CublasLtAlgo lists them.
template <class T>
void set_attribute(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute, int value) {
  const T v = static_cast<T>(value);
  check(cublasLtMatmulAlgoConfigSetAttribute(&algo, attribute, &v, sizeof v), "cublasLtMatmulAlgoConfigSetAttribute");
}

template <class T>
int get_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T v{};
  std::size_t written = 0;
  check(cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &v, sizeof v, &written),
        "cublasLtMatmulAlgoConfigGetAttribute");
  return static_cast<int>(v);
}

int bounded_member(const nlohmann::json& j, const char* key, long long low, long long high) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer())
    throw std::invalid_argument(fmt::format("cuBLASLt algorithm: '{}' is missing or not an integer", key));
  const long long v = it->get<long long>();
  if (v < low || v > high)
    throw std::invalid_argument(fmt::format("cuBLASLt algorithm: '{}' is {}, outside [{}, {}]", key, v, low, high));
  return static_cast<int>(v);
}

}  // namespace

bool operator==(const CublasLtAlgo& a, const CublasLtAlgo& b) {
  return a.id == b.id && a.tile == b.tile && a.stages == b.stages && a.split_k == b.split_k &&
         a.reduction == b.reduction && a.swizzle == b.swizzle && a.custom == b.custom &&
         a.inner_shape == b.inner_shape && a.cluster_shape == b.cluster_shape;
}

void to_json(nlohmann::json& j, const CublasLtAlgo& a) {
  j = {{"id", a.id},           {"tile", a.tile},       {"stages", a.stages},
       {"split_k", a.split_k}, {"reduction", a.reduction}, {"swizzle", a.swizzle},
       {"custom", a.custom},   {"inner_shape", a.inner_shape}, {"cluster_shape", a.cluster_shape},
       {"workspace_bytes", a.workspace_bytes}};
}

void from_json(const nlohmann::json& j, CublasLtAlgo& a) {
  if (!j.is_object()) throw std::invalid_argument("cuBLASLt algorithm: not an object");
  // Each attribute as the 32- or 16-bit value cuBLASLt reads back (cublasLtMatmulAlgoCheck judges
  // the values; a heuristic's split_k may read -1). The 32-bit ones are kept as int32 bit patterns.
  constexpr long long kMin32 = INT32_MIN, kMax32 = INT32_MAX;
  a.id = bounded_member(j, "id", 0, kMax32);
  a.tile = bounded_member(j, "tile", kMin32, kMax32);
  a.stages = bounded_member(j, "stages", kMin32, kMax32);
  a.split_k = bounded_member(j, "split_k", kMin32, kMax32);
  a.reduction = bounded_member(j, "reduction", kMin32, kMax32);
  a.swizzle = bounded_member(j, "swizzle", kMin32, kMax32);
  a.custom = bounded_member(j, "custom", kMin32, kMax32);
  a.inner_shape = bounded_member(j, "inner_shape", 0, 0xFFFF);
  a.cluster_shape = bounded_member(j, "cluster_shape", 0, 0xFFFF);
  a.workspace_bytes = std::size_t(bounded_member(j, "workspace_bytes", 0, kCublasLtWorkspaceBytes));
}

std::string describe(const CublasLtAlgo& a) {
  return fmt::format("cuBLASLt algo {} (tile {}, stages {}, split-k {}, reduction {}, swizzle {}, custom {}, "
                     "inner shape {}, cluster {})",
                     a.id, a.tile, a.stages, a.split_k, a.reduction, a.swizzle, a.custom, a.inner_shape,
                     a.cluster_shape);
}

std::size_t cublaslt_version() { return cublasLtGetVersion(); }

CublasLtMatmul::CublasLtMatmul(cublasLtHandle_t handle, Layout layout, Precision precision, bool c16,
                               const GemmArguments& dims)
    : handle_(handle),
      precision_(precision),
      c_type_(c16 && operand_bytes(precision) == 2 ? operand_type(precision) : CUDA_R_32F),
      dims_(dims) {
  dims_.a = dims_.b = nullptr;
  dims_.c = nullptr;
  const bool ta = op_a_transposed(layout), tb = op_b_transposed(layout);
  try {
    check(cublasLtMatmulDescCreate(&desc_, compute_type(precision), CUDA_R_32F), "cublasLtMatmulDescCreate");
    const std::int32_t op_lt_a = tb ? CUBLAS_OP_T : CUBLAS_OP_N, op_lt_b = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_lt_a, sizeof op_lt_a),
          "cublasLtMatmulDescSetAttribute(TRANSA)");
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_lt_b, sizeof op_lt_b),
          "cublasLtMatmulDescSetAttribute(TRANSB)");
    const cudaDataType_t type = operand_type(precision);
    // cuBLASLt's A is our B (n x k before its op), its B our A (k x m), its C our C^T (n x m).
    a_ = tb ? make_layout(type, dims.k, dims.n, dims.ldb, dims.batch, dims.stride_b)
            : make_layout(type, dims.n, dims.k, dims.ldb, dims.batch, dims.stride_b);
    b_ = ta ? make_layout(type, dims.m, dims.k, dims.lda, dims.batch, dims.stride_a)
            : make_layout(type, dims.k, dims.m, dims.lda, dims.batch, dims.stride_a);
    c_ = make_layout(c_type_, dims.n, dims.m, dims.ldc, dims.batch, dims.stride_c);
  } catch (...) {
    release();
    throw;
  }
}

CublasLtMatmul::~CublasLtMatmul() { release(); }

void CublasLtMatmul::release() {
  if (c_) cublasLtMatrixLayoutDestroy(c_);
  if (b_) cublasLtMatrixLayoutDestroy(b_);
  if (a_) cublasLtMatrixLayoutDestroy(a_);
  if (desc_) cublasLtMatmulDescDestroy(desc_);
  c_ = b_ = a_ = nullptr;
  desc_ = nullptr;
}

bool CublasLtMatmul::describes(const GemmArguments& d) const {
  return d.m == dims_.m && d.n == dims_.n && d.k == dims_.k && d.lda == dims_.lda && d.ldb == dims_.ldb &&
         d.ldc == dims_.ldc && d.batch == dims_.batch &&
         (d.batch == 1 || (d.stride_a == dims_.stride_a && d.stride_b == dims_.stride_b && d.stride_c == dims_.stride_c));
}

std::vector<CublasLtChoice> CublasLtMatmul::heuristic(int count, std::size_t workspace_limit) const {
  cublasLtMatmulPreference_t preference = nullptr;
  check(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t limit = workspace_limit;
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(count));
  int returned = 0;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                               &limit, sizeof limit);
  // A 16-bit C: split-K partials summed in FP32 and rounded once, never added in C's own type (the
  // library's promise, runtime/src/cublas_calls.cpp).
  const std::uint32_t reductions = CUBLASLT_REDUCTION_SCHEME_MASK & ~CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
  if (status == CUBLAS_STATUS_SUCCESS && c_type_ != CUDA_R_32F)
    status = cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions,
                                                  sizeof reductions);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, c_, c_, preference, count, results.data(),
                                            &returned);
  cublasLtMatmulPreferenceDestroy(preference);
  std::vector<CublasLtChoice> out;
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return out;  // no algorithm for this problem
  check(status, "cublasLtMatmulAlgoGetHeuristic");
  for (int i = 0; i < returned; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS) out.push_back({results[i].algo, results[i].workspaceSize});
  return out;
}

std::optional<CublasLtChoice> CublasLtMatmul::rebuild(const CublasLtAlgo& a, std::string& why) const {
  CublasLtChoice choice;
  const cudaDataType_t type = operand_type(precision_);
  cublasStatus_t status = cublasLtMatmulAlgoInit(handle_, compute_type(precision_), CUDA_R_32F, type, type,
                                                 c_type_, c_type_, a.id, &choice.algo);
  if (status != CUBLAS_STATUS_SUCCESS) {
    why = fmt::format("cublasLtMatmulAlgoInit: {}", cublasLtGetStatusString(status));
    return std::nullopt;
  }
  try {
    set_attribute<std::uint32_t>(choice.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, a.tile);
    set_attribute<std::uint32_t>(choice.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, a.stages);
    set_attribute<std::int32_t>(choice.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, a.split_k);
    set_attribute<std::uint32_t>(choice.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, a.reduction);
    set_attribute<std::uint32_t>(choice.algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, a.swizzle);
    set_attribute<std::uint32_t>(choice.algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, a.custom);
    set_attribute<std::uint16_t>(choice.algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, a.inner_shape);
    set_attribute<std::uint16_t>(choice.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, a.cluster_shape);
  } catch (const std::exception& e) {
    why = e.what();
    return std::nullopt;
  }
  cublasLtMatmulHeuristicResult_t result{};
  status = cublasLtMatmulAlgoCheck(handle_, desc_, a_, b_, c_, c_, &choice.algo, &result);
  if (status != CUBLAS_STATUS_SUCCESS) {
    why = fmt::format("cublasLtMatmulAlgoCheck: {}", cublasLtGetStatusString(status));
    return std::nullopt;
  }
  if (result.workspaceSize > kCublasLtWorkspaceBytes) {
    why = fmt::format("it needs {} bytes of workspace, more than {}", result.workspaceSize, kCublasLtWorkspaceBytes);
    return std::nullopt;
  }
  choice.workspace_bytes = result.workspaceSize;
  return choice;
}

CublasLtAlgo CublasLtMatmul::written_down(const CublasLtChoice& choice) const {
  const cublasLtMatmulAlgo_t& algo = choice.algo;
  CublasLtAlgo a;
  a.id = get_attribute<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID);
  a.tile = get_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
  a.stages = get_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
  a.split_k = get_attribute<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  a.reduction = get_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  a.swizzle = get_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
  a.custom = get_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
  a.inner_shape = get_attribute<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID);
  a.cluster_shape = get_attribute<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
  a.workspace_bytes = choice.workspace_bytes;
  return a;
}

cublasStatus_t CublasLtMatmul::run(const CublasLtChoice& choice, const GemmArguments& args, void* workspace,
                                   cudaStream_t stream) const {
  return cublasLtMatmul(handle_, desc_, &args.alpha, args.b, a_, args.a, b_, &args.beta, args.c, c_, args.c, c_,
                        &choice.algo, workspace, choice.workspace_bytes, stream);
}

}  // namespace gemmtune
