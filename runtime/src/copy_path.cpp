#include "copy_path.hpp"

#include <cstdint>

namespace gemmtune {

int aligned_width(int lda, int ldb, const void* a, const void* b, int batch, long long stride_a,
                  long long stride_b) {
  const auto addresses = reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b);
  for (const int width : {4, 2}) {
    const bool strides_ok = batch <= 1 || (stride_a % width == 0 && stride_b % width == 0);
    if (lda % width == 0 && ldb % width == 0 && addresses % (4u * width) == 0 && strides_ok) return width;
  }
  return 1;
}

CopyPath copy_path_for(const KernelConfig& config, int m, int n, int k, int aligned_width) {
  const int vec = config.vector_width;
  const int a_row = op_a_transposed(config.layout) ? m : k;
  const int b_row = op_b_transposed(config.layout) ? k : n;
  const bool whole = vec > 1 && aligned_width >= vec && a_row % vec == 0 && b_row % vec == 0;
  return whole ? CopyPath::whole_vectors : CopyPath::general;
}

}  // namespace gemmtune
