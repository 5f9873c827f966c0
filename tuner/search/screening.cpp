#include "search/screening.hpp"

#include <algorithm>
#include <cmath>

namespace gemmtune {

GemmShape screening_shape(const GemmShape& shape, const std::vector<KernelConfig>& candidates) {
  if (shape.flops() <= kScreenAboveFlops) return shape;
  if (std::any_of(candidates.begin(), candidates.end(), [](const KernelConfig& c) { return c.split_k > 1; }))
    return shape;
  constexpr int kStep = 256;
  const double wanted_k = shape.k * (kScreenFlops / shape.flops());
  // A and B hold 4 * batch * (m + n) bytes per unit of K.
  const double floor_k =
      std::max<double>(kScreenMinK, kScreenMinOperandBytes / (4.0 * shape.batch * (double(shape.m) + shape.n)));
  const long steps = std::min(std::lround((shape.k - wanted_k) / kStep), long(std::floor((shape.k - floor_k) / kStep)));
  GemmShape screen = shape;
  screen.k = shape.k - static_cast<int>(std::max(0L, steps)) * kStep;
  return screen;
}

}  // namespace gemmtune
