// What serves a call: a kernel from the results, or cuBLAS. The rules (exact problem, a tuned
// problem near enough that its margin over cuBLAS survives the distance, the portfolio grid around
// the call, cuBLAS) are documented in gemmtune/gemmtune.hpp. Pure functions of the loaded results and
// the device, so the host tests cover every decision without a GPU.
#pragma once

#include <cstdint>
#include <gemmtune/gemmtune.hpp>
#include <optional>
#include <string>

#include "core/kernel_path.hpp"
#include "core/device_profile.hpp"
#include "core/kernel_config.hpp"
#include "core/precision.hpp"
#include "results_catalog.hpp"

namespace gemmtune {

// What the decision depends on: the problem and how wide a vector load A and B allow.
struct CallShape {
  GemmShape problem;
  int aligned_width = 4;  // 4, 2 or 1 floats: every row of A, B and C starts aligned to it

  friend bool operator==(const CallShape& a, const CallShape& b) {
    return a.problem == b.problem && a.aligned_width == b.aligned_width;
  }
};

// How much faster than cuBLAS a kernel must have been, where the call was not itself measured, to
// be chosen over cuBLAS: measurements move by about 1% between runs, and a call between measured
// points can sit lower than all of them.
inline constexpr double kKernelMargin = 1.03;

// The lookup key of a call; a and b only for their alignment (nullptr: aligned, as from cudaMalloc).
// In a batch, every entry's rows must start aligned: the strides count too.
inline CallShape call_shape_of(const GemmProblem& p, const void* a, const void* b, const void* c) {
  return {{p.m, p.n, p.k, layout_of(p.op_a == Op::t, p.op_b == Op::t), p.batch, p.precision, p.c16},
          aligned_width(p.precision, p.lda, p.ldb, p.ldc, a, b, c, p.batch, p.stride_a, p.stride_b, p.stride_c)};
}

struct ShapeDistance {
  double shape = 0;  // log-space distance of m, n, k
  double waves = 0;  // change of wave efficiency
  double total() const { return shape + waves; }
};

// Distance from a call to a tuned shape, for its best config on device (see gemmtune/gemmtune.hpp).
ShapeDistance shape_distance(const CallShape& call, const TunedShape& tuned, const DeviceProfile& device);

// Blocks of config one SM can hold, estimated from threads, shared memory and a register estimate
// (the real count is only known after compiling). At least 1.
int estimated_resident_blocks(const KernelConfig& config, const DeviceProfile& device);

// Why config cannot run on device (compute capability, threads, shared memory), or nullopt.
std::optional<std::string> device_fit_error(const KernelConfig& config, const DeviceProfile& device);

struct Selection {
  Implementation implementation = Implementation::cublas;
  KernelConfig config;  // meaningful for tuned_kernel only
  ConfigSource source = ConfigSource::built_in_default;
  std::string reason;
  CublasLtAlgo cublaslt;  // meaningful for cublaslt only
};

// What runs call on device. Results of GPU models with another compute capability, and configs that
// do not fit the device, are never used.
Selection select_config(const ResultsCatalog& catalog, const DeviceProfile& device, const CallShape& call);

// Bit-identical results from run to run: an atomic split-K selection (whose additions land in any
// order) becomes the same kernel reducing through a workspace, and the reason says so.
void make_deterministic(Selection& selection);

// GEMMTUNE_DETERMINISTIC is set to anything but "" or "0".
bool deterministic_requested();

}  // namespace gemmtune
