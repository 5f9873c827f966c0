// Registers are allocated per warp in units of 256; shared memory per block carries a 1 KiB
// reservation on sm_80 and newer.
#include "search/occupancy.hpp"

#include <algorithm>

namespace gemmtune {

Occupancy compute_occupancy(const KernelConfig& config, int registers, const DeviceProfile& d) {
  Occupancy o;
  const int threads = config.threads();
  if (threads <= 0 || registers <= 0) return o;
  const int warps = (threads + 31) / 32;
  const int by_threads = d.max_threads_per_sm / threads;
  const int regs_per_warp = ((registers * 32 + 255) / 256) * 256;
  const int by_registers = (d.registers_per_sm / regs_per_warp) / warps;
  const int reserved = d.compute_capability >= 80 ? 1024 : 0;
  const int smem = static_cast<int>(config.shared_bytes()) + reserved;
  const int by_shared = smem > 0 ? d.shared_bytes_per_sm / smem : d.max_blocks_per_sm;
  o.blocks_per_sm = std::min({by_threads, by_registers, by_shared, d.max_blocks_per_sm});
  o.limited_by = o.blocks_per_sm == by_registers ? "registers"
                 : o.blocks_per_sm == by_shared  ? "shared memory"
                 : o.blocks_per_sm == by_threads ? "threads"
                                                 : "blocks";
  o.blocks_per_sm = std::max(0, o.blocks_per_sm);
  o.fraction = double(o.blocks_per_sm * threads) / d.max_threads_per_sm;
  return o;
}

}  // namespace gemmtune
