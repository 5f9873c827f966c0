// The distance is in units of log(time ratio), so its three terms add up: a factor of two in one
// dimension, a halved wave efficiency and a lost vector width all cost about the same.
#include "config_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace gemmtune {
namespace {

long long ceil_div(long long a, long long b) {
  return (a + b - 1) / b;
}

// Fraction of the launched waves' block slots that do work: 1 when the grid fills its last wave.
double wave_efficiency(const KernelConfig& config, long long m, long long n, long long slots) {
  const long long tiles = ceil_div(m, config.block_m) * ceil_div(n, config.block_n) * config.split_k;
  return static_cast<double>(tiles) / static_cast<double>(ceil_div(tiles, slots) * slots);
}

long long block_slots(const KernelConfig& config, const DeviceProfile& device) {
  return static_cast<long long>(std::max(1, device.sm_count)) * estimated_resident_blocks(config, device);
}

struct Candidate {
  const TunedResults* file = nullptr;
  const TunedShape* shape = nullptr;
  ShapeDistance distance;
};

// The nearest fitting shape among files accepted by take_file; ties go to the earlier file and entry.
template <class FileFilter>
std::optional<Candidate> nearest(const ResultsCatalog& catalog, const DeviceProfile& device,
                                 const CallShape& call, FileFilter take_file) {
  std::optional<Candidate> best;
  for (const TunedResults& file : catalog.files) {
    if (!take_file(file)) continue;
    for (const TunedShape& shape : file.shapes) {
      if (device_fit_error(shape.config, device)) continue;
      const ShapeDistance d = shape_distance(call, shape, device);
      if (!best || d.total() < best->distance.total()) best = Candidate{&file, &shape, d};
    }
  }
  return best;
}

std::string describe(const Candidate& c) {
  return fmt::format("{}x{}x{} on {} ({}), distance {:.3f} = shape {:.3f} + waves {:.3f} + alignment {:.3f}",
                     c.shape->m, c.shape->n, c.shape->k, c.file->device_slug, c.file->origin,
                     c.distance.total(), c.distance.shape, c.distance.waves, c.distance.alignment);
}

Selection from_neighbour(const Candidate& c, ConfigSource source, std::string reason,
                         const DeviceProfile& device, const CallShape& call) {
  Selection s{c.shape->config, source, std::move(reason)};
  if (s.config.split_k > 1) {
    KernelConfig plain = s.config;
    plain.split_k = 1;
    plain.split_k_atomic = false;
    const long long tiles = ceil_div(call.m, plain.block_m) * ceil_div(call.n, plain.block_n);
    if (tiles >= block_slots(plain, device)) {
      s.reason +=
          fmt::format("; split-K {} dropped: {} tiles fill the GPU without it", s.config.split_k, tiles);
      s.config = plain;
    }
  }
  return s;
}

}  // namespace

int estimated_resident_blocks(const KernelConfig& config, const DeviceProfile& device) {
  const int threads = std::max(1, config.threads());
  // Accumulators, A and B fragments, addressing: what the tuner's register screen also assumes.
  const int registers =
      std::min(device.registers_per_thread,
               (config.thread_m * config.thread_n + config.thread_m + config.thread_n + 24 + 7) / 8 * 8);
  int blocks = device.max_blocks_per_sm;
  blocks = std::min(blocks, device.max_threads_per_sm / threads);
  blocks = std::min(blocks, device.registers_per_sm / std::max(1, registers * threads));
  const auto shared = static_cast<long long>(config.shared_bytes());
  if (shared > 0) blocks = static_cast<int>(std::min<long long>(blocks, device.shared_bytes_per_sm / shared));
  return std::max(1, blocks);
}

ShapeDistance shape_distance(const CallShape& call, const TunedShape& tuned, const DeviceProfile& device) {
  ShapeDistance d;
  // Empty dimensions (a no-op call asked about) count as 1.
  const double dm = std::log(static_cast<double>(std::max(1, call.m)) / tuned.m);
  const double dn = std::log(static_cast<double>(std::max(1, call.n)) / tuned.n);
  const double dk = std::log(static_cast<double>(std::max(1, call.k)) / tuned.k);
  d.shape = std::sqrt(dm * dm + dn * dn + dk * dk);
  const long long slots = block_slots(tuned.config, device);
  d.waves =
      std::fabs(std::log(wave_efficiency(tuned.config, std::max(1, call.m), std::max(1, call.n), slots) /
                         wave_efficiency(tuned.config, tuned.m, tuned.n, slots)));
  if (call.aligned_width < tuned.config.vector_width)
    d.alignment = std::log(static_cast<double>(tuned.config.vector_width) / call.aligned_width) / 2;
  return d;
}

std::optional<std::string> device_fit_error(const KernelConfig& config, const DeviceProfile& device) {
  if (min_compute_capability(config) > device.compute_capability)
    return fmt::format("needs sm_{}", min_compute_capability(config));
  if (config.threads() > device.max_threads_per_block)
    return fmt::format("{} threads per block, the device allows {}", config.threads(),
                       device.max_threads_per_block);
  if (config.shared_bytes() > static_cast<std::size_t>(device.shared_bytes_per_block))
    return fmt::format("{} bytes of shared memory, the device allows {}", config.shared_bytes(),
                       device.shared_bytes_per_block);
  return std::nullopt;
}

void make_deterministic(Selection& selection) {
  if (!selection.config.split_k_atomic) return;
  selection.config.split_k_atomic = false;  // the same tiles, reduced through a workspace instead
  selection.reason += "; atomic split-K reduced through a workspace instead (GEMMTUNE_DETERMINISTIC)";
}

bool deterministic_requested() {
  const char* env = std::getenv("GEMMTUNE_DETERMINISTIC");
  return env && *env && std::string_view(env) != "0";
}

Selection select_config(const ResultsCatalog& catalog, const DeviceProfile& device, const CallShape& call) {
  const auto this_model = [&](const TunedResults& f) { return f.device_slug == device.slug; };
  for (const TunedResults& file : catalog.files) {
    if (!this_model(file)) continue;
    for (const TunedShape& shape : file.shapes) {
      if (shape.m == call.m && shape.n == call.n && shape.k == call.k &&
          !device_fit_error(shape.config, device))
        return {
            shape.config, ConfigSource::exact_shape,
            fmt::format("tuned for {}x{}x{} on {} ({})", call.m, call.n, call.k, device.slug, file.origin)};
    }
  }
  if (const auto c = nearest(catalog, device, call, this_model))
    return from_neighbour(*c, ConfigSource::nearest_shape, "nearest tuned shape " + describe(*c), device,
                          call);

  const auto same_architecture = [&](const TunedResults& f) {
    return f.device_slug != device.slug && f.compute_capability == device.compute_capability;
  };
  if (const auto c = nearest(catalog, device, call, same_architecture))
    return from_neighbour(*c, ConfigSource::same_architecture,
                          fmt::format("no results for {}; nearest of another sm_{} GPU: {}", device.slug,
                                      device.compute_capability, describe(*c)),
                          device, call);

  return {default_config(), ConfigSource::built_in_default,
          fmt::format("no tuned results for {} or another sm_{} GPU fit this call", device.slug,
                      device.compute_capability)};
}

}  // namespace gemmtune
