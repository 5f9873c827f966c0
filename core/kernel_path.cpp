#include "core/kernel_path.hpp"

#include "core/precision.hpp"

#include <cstdint>

namespace gemmtune {

int aligned_width(int lda, int ldb, int ldc, const void* a, const void* b, const void* c, int batch,
                  long long stride_a, long long stride_b, long long stride_c) {
  const auto addresses = reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) |
                         reinterpret_cast<std::uintptr_t>(c);
  for (const int width : {4, 2}) {
    const bool strides_ok =
        batch <= 1 || (stride_a % width == 0 && stride_b % width == 0 && stride_c % width == 0);
    if (lda % width == 0 && ldb % width == 0 && ldc % width == 0 && addresses % (4u * width) == 0 && strides_ok)
      return width;
  }
  return 1;
}

int aligned_width(Precision precision, int lda, int ldb, int ldc, const void* a, const void* b, const void* c,
                  int batch, long long stride_a, long long stride_b, long long stride_c) {
  if (operand_bytes(precision) == 4) return aligned_width(lda, ldb, ldc, a, b, c, batch, stride_a, stride_b, stride_c);
  const bool even = lda % 2 == 0 && ldb % 2 == 0 && (batch <= 1 || (stride_a % 2 == 0 && stride_b % 2 == 0));
  return even ? aligned_width(lda / 2, ldb / 2, ldc, a, b, c, batch, stride_a / 2, stride_b / 2, stride_c) : 1;
}

bool has_whole_tiles_path(const KernelConfig& config) {
  return config.family == KernelFamily::sgemm && config.vector_width > 1 && config.thread_n % 4 == 0 &&
         !config.transpose_b;
}

KernelPath kernel_path_for(const KernelConfig& config, int m, int n, int k, int aligned_width) {
  if (is_skinny(config.family)) {
    // Every load of B 16 bytes (PATH 1 of kernel_templates/skinny.cuh): the operands aligned to 16
    // bytes, the rows B's vectors run along (N unless B is stored transposed) whole vectors, K a
    // multiple of a step's k (4, or one vector of a transposed B's row: 4 floats or 8 halves), and
    // where the stream kernel reads a transposed A in runs of 4 along m, M a multiple of 4.
    const int vector = 16 / operand_bytes(config.precision);
    const int step_k = op_b_transposed(config.layout) ? vector : 4;
    const bool a_along_m =
        config.family == KernelFamily::skinny_stream && op_a_transposed(config.layout) && config.block_m % 4 == 0;
    const bool vectors = aligned_width >= 4 && k % step_k == 0 && (op_b_transposed(config.layout) || n % vector == 0) &&
                         (!a_along_m || m % 4 == 0);
    return vectors ? KernelPath::whole_vectors : KernelPath::general;
  }
  if (config.family == KernelFamily::wgmma) {
    // Tensor maps (kernel_templates/wgmma.cuh): every row of A and B, and every batch entry, starts
    // on a 16-byte boundary; K itself may be anything (the TMA zero-fills past it). Otherwise the
    // family has no binary for the call (the general path is refused before compiling).
    return aligned_width >= 4 ? KernelPath::whole_vectors : KernelPath::general;
  }
  if (config.family == KernelFamily::mma) {
    // 16-byte cp.async chunks (PATH 1 of kernel_templates/mma.cuh): rows of A and B aligned to 16
    // bytes, i.e. 4 floats or 8 halves (aligned_width counts 4-byte units; a 16-bit operand's rows
    // are whole chunks when their length is a multiple of 8).
    const int chunk = 16 / operand_bytes(config.precision);
    const int a_row = op_a_transposed(config.layout) ? m : k, b_row = op_b_transposed(config.layout) ? k : n;
    return aligned_width >= 4 && a_row % chunk == 0 && b_row % chunk == 0 ? KernelPath::whole_vectors
                                                                         : KernelPath::general;
  }
  const int vec = config.vector_width;
  const int a_row = op_a_transposed(config.layout) ? m : k;
  const int b_row = op_b_transposed(config.layout) ? k : n;
  if (vec == 1 || aligned_width < vec || a_row % vec != 0 || b_row % vec != 0) return KernelPath::general;
  // The epilogue's whole-tile stores are float4s of a thread's runs of 4 columns.
  const bool whole_tiles = aligned_width >= 4 && has_whole_tiles_path(config) && n % config.block_n == 0;
  return whole_tiles ? KernelPath::whole_tiles : KernelPath::whole_vectors;
}

}  // namespace gemmtune
