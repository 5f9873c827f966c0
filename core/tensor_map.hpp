// The TMA tensor maps the wgmma family reads its operands through (kernel_templates/wgmma.cuh). A
// map embeds the operand's address, so the host encodes two per launch; the driver's encoder
// (cuTensorMapEncodeTiled) is found once through the runtime (cudaGetDriverEntryPointByVersion),
// so nothing links against libcuda. The shape of a map is computed apart from the encoding, so the
// host tests can check it without a GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/precision.hpp"

namespace gemmtune {

// What cuTensorMapEncodeTiled gets for one operand as stored (rows of `width` contiguous elements,
// row pitch ld elements) of a strided batch: rank 3, innermost first. K-major operands are M or N
// rows of K; MN-major ones (3xtf32's layouts other than nt) K rows of M or N.
struct OperandMapShape {
  std::uint64_t dims[3] = {0, 0, 0};  // elements: width, rows, batch entries (1 when all share it)
  std::uint64_t strides[2] = {0, 0};  // bytes: a row, an entry
  std::uint32_t box[3] = {0, 0, 0};   // elements: one 128-byte swizzle row, box_rows, 1
  bool batched = false;               // false: every entry reads entry 0 (batch stride 0, or one entry)
};

// The map of an operand of `rows` rows of `width` elements of precision (width >= 1), or nullopt with the
// reason in *why where the TMA cannot read it: a base address, row pitch or batch stride that is not
// a multiple of 16 bytes (the whole-vector path guarantees them: core/kernel_path.cpp), a negative
// stride, or a size past the encoder's limits.
std::optional<OperandMapShape> operand_map_shape(Precision precision, const void* base, int rows, int width,
                                                 int ld, int batch, long long stride, int box_rows,
                                                 std::string* why = nullptr);

// 128 opaque bytes, as the kernel's TensorMap (kernel_templates/wgmma/ptx.cuh) takes them.
struct alignas(64) EncodedTensorMap {
  unsigned char bytes[128] = {};
};

// Encodes the map (128-byte swizzle, out-of-range elements read as zeros; tf32 as TFLOAT32, so the
// TMA rounds FP32 to TF32 on the way in; 3xtf32 as FLOAT32). cudaErrorNotSupported where the driver has no
// cuTensorMapEncodeTiled (logged once: the family is then skipped), cudaErrorInvalidValue where
// the encoder refuses the map.
cudaError_t encode_operand_map(const OperandMapShape& shape, Precision precision, const void* base,
                               EncodedTensorMap& out);

}  // namespace gemmtune
