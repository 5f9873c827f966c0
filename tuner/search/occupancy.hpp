// Occupancy from first principles (the rules the CUDA occupancy calculator applies), so it can be
// computed for a GPU that is not present, from a device profile and the compiler's register count.
#pragma once

#include "core/device_profile.hpp"
#include "core/kernel_config.hpp"

namespace gemmtune {

struct Occupancy {
  int blocks_per_sm = 0;
  double fraction = 0;          // resident threads / max threads per SM
  const char* limited_by = "";  // "threads", "registers", "shared memory", "blocks"
};

Occupancy compute_occupancy(const KernelConfig& config, int registers_per_thread,
                            const DeviceProfile& device);

}  // namespace gemmtune
