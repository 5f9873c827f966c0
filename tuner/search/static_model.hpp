// The static performance model `gemm-tune plan` ranks candidates with. It predicts, without running
// anything, roughly what fraction of FP32 peak a compiled kernel can reach on a device for a shape.
// It is a ranking heuristic, not a measurement: see README.md (The plan model) for the terms.
#pragma once

#include <vector>

#include "core/device_profile.hpp"
#include "core/kernel_config.hpp"
#include "search/occupancy.hpp"
#include "core/problem.hpp"

namespace gemmtune {

struct Prediction {
  double fraction_of_peak = 0;  // product of the factors below
  double shared_memory_factor = 0;
  double global_memory_factor = 0;
  double latency_factor = 0;
  double wave_factor = 0;
  double edge_factor = 0;
  double split_k_factor = 0;
  double pipeline_factor = 0;
  double waves = 0;
  double predicted_tflops = 0;
};

Prediction predict(const KernelConfig& config, const Occupancy& occupancy, const DeviceProfile& device,
                   const GemmShape& shape);

// The parameters no term of the model depends on: candidates that differ only in them get the same
// prediction (give or take a register count), so the model cannot rank them apart and the plan
// compiles one of each such group. A search on the GPU measures them.
const std::vector<const char*>& parameters_the_model_cannot_rank();

// config with those parameters set to one value: equal for candidates the model cannot tell apart.
KernelConfig model_view(KernelConfig config);

// Predicted TFLOP/s of each candidate before compiling it (registers estimated, see
// search_space.hpp): the order in which searches try candidates.
std::vector<double> predicted_tflops_before_compile(const std::vector<KernelConfig>& candidates,
                                                    const DeviceProfile& device, const GemmShape& shape,
                                                    int register_overhead);

}  // namespace gemmtune
