// The shape a long problem's candidates are screened on: the same M, N, batch and layout over a
// shorter K. At 8192 one call takes 22 ms on an H100, so timing 120 candidates ten times each took
// 31 of the search's 37 s, most of a fresh run's time for 2048, 8192 and the skinny shapes; at 4096,
// 2.7 ms a call, timing is most of a warm rerun's 4096 search. With no split-K in play, a shorter K
// keeps what ranks the candidates (the grid and its waves, the main loop's steady state, the path);
// the finalists then race at the problem itself.
#pragma once

#include <vector>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"

namespace gemmtune {

// Problems of more than this many floating-point operations (4096^3 has 1.4e11, 2048^3 1.7e10) are
// screened shorter, at about this many (4096^2 x 2048, 1.4 ms on an H100), but never at a K where A
// and B together hold less than kScreenMinOperandBytes, nor under kScreenMinK: 4096 is screened at
// K = 2048, 8192 at 1024. The operands then hold more than the L2 of the GPUs we know (50 MiB on an
// H100), so the blocks' reuse of A and B through L2 stays much as at full K, and the main loop runs
// 64 steps or more, so its steady state, not its start and end, ranks the pipelines.
inline constexpr double kScreenAboveFlops = 1.0e11;
inline constexpr double kScreenFlops = 2.0 * 4096 * 4096 * 2048;
inline constexpr double kScreenMinOperandBytes = 64.0 * 1024 * 1024;
inline constexpr int kScreenMinK = 1024;

// shape itself, or shape with K reduced in whole steps of 256 (so K's divisibility, and with it every
// candidate's path, stays the same) to about kScreenFlops. shape itself when a candidate splits K:
// where a split is worth it, its best depth depends on K.
GemmShape screening_shape(const GemmShape& shape, const std::vector<KernelConfig>& candidates);

}  // namespace gemmtune
