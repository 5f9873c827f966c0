// Tensor-map shapes and their encoding through the driver's entry point (see tensor_map.hpp).
#include "core/tensor_map.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstring>

namespace gemmtune {
namespace {

constexpr std::uint64_t kMaxStrideBytes = 1ull << 40;  // the encoder's limit on a stride

// The driver's encoder, looked up on first use; null (after one log line) where the driver has none.
PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || entry == nullptr) {
      spdlog::warn("the CUDA driver has no cuTensorMapEncodeTiled ({}): the wgmma kernels are skipped",
                   err != cudaSuccess ? cudaGetErrorString(err) : "symbol not found");
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return fn;
}

}  // namespace

std::optional<OperandMapShape> operand_map_shape(Precision precision, const void* base, int rows, int width,
                                                 int ld, int batch, long long stride, int box_rows,
                                                 std::string* why) {
  auto refuse = [&](std::string reason) -> std::optional<OperandMapShape> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const std::uint64_t bytes = static_cast<std::uint64_t>(operand_bytes(precision));
  if (rows < 1 || width < 1 || ld < width || batch < 1)
    return refuse(fmt::format("{} x {} (ld {}) is empty or ld < its width", rows, width, ld));
  if (box_rows < 1 || box_rows > 256) return refuse(fmt::format("a box of {} rows (1 to 256)", box_rows));
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    return refuse("the base address is not 16-byte aligned");
  if ((ld * bytes) % 16 != 0)
    return refuse(fmt::format("a row pitch of {} bytes is not a multiple of 16", ld * bytes));
  if (stride < 0) return refuse("a negative batch stride");
  OperandMapShape s;
  s.batched = batch > 1 && stride != 0;
  s.dims[0] = static_cast<std::uint64_t>(width);
  s.dims[1] = static_cast<std::uint64_t>(rows);
  s.dims[2] = s.batched ? static_cast<std::uint64_t>(batch) : 1;
  s.strides[0] = static_cast<std::uint64_t>(ld) * bytes;
  // One entry: the stride is never followed, but the encoder wants a valid one.
  s.strides[1] = s.batched ? static_cast<std::uint64_t>(stride) * bytes : s.strides[0] * s.dims[1];
  if (s.strides[1] % 16 != 0)
    return refuse(fmt::format("a batch stride of {} bytes is not a multiple of 16", s.strides[1]));
  if (s.strides[0] >= kMaxStrideBytes || s.strides[1] >= kMaxStrideBytes)
    return refuse("a stride of 2^40 bytes or more");
  s.box[0] = static_cast<std::uint32_t>(128 / bytes);
  s.box[1] = static_cast<std::uint32_t>(box_rows);
  s.box[2] = 1;
  return s;
}

cudaError_t encode_operand_map(const OperandMapShape& shape, Precision precision, const void* base,
                               EncodedTensorMap& out) {
  static_assert(sizeof(CUtensorMap) == sizeof(EncodedTensorMap), "the kernel's TensorMap is a CUtensorMap");
  const auto encode = encoder();
  if (!encode) return cudaErrorNotSupported;
  // 3xtf32 splits FP32 itself: its maps must not round.
  const CUtensorMapDataType type = precision == Precision::bf16     ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : precision == Precision::fp16   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : precision == Precision::tf32x3 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                                                    : CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
  const cuuint64_t dims[3] = {shape.dims[0], shape.dims[1], shape.dims[2]};
  const cuuint64_t strides[2] = {shape.strides[0], shape.strides[1]};
  const cuuint32_t box[3] = {shape.box[0], shape.box[1], shape.box[2]};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  CUtensorMap map;
  const CUresult r = encode(&map, type, 3, const_cast<void*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return cudaErrorInvalidValue;
  std::memcpy(out.bytes, &map, sizeof(map));
  return cudaSuccess;
}

}  // namespace gemmtune
