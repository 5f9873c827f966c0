// The distance is in units of log(time ratio), so its terms add up and compare with a kernel's
// logged margin over cuBLAS: a factor of two in one dimension costs as much as a halved wave
// efficiency, and a kernel 20% faster than cuBLAS at a tuned shape is trusted about 0.15 away.
#include "config_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <string_view>
#include <vector>

#include "core/problem.hpp"

namespace gemmtune {
namespace {

long long ceil_div(long long a, long long b) {
  return (a + b - 1) / b;
}

// Fraction of the launched waves' block slots that do work: 1 when the grid fills its last wave.
double wave_efficiency(const KernelConfig& config, long long m, long long n, long long batch, long long slots) {
  const long long tiles = ceil_div(m, config.block_m) * ceil_div(n, config.block_n) * batch * config.split_k;
  return static_cast<double>(tiles) / static_cast<double>(ceil_div(tiles, slots) * slots);
}

long long block_slots(const KernelConfig& config, const DeviceProfile& device) {
  return static_cast<long long>(std::max(1, device.sm_count)) * estimated_resident_blocks(config, device);
}

double log_distance(const CallShape& call_shape, const TunedShape& tuned) {
  const GemmShape &call = call_shape.problem, &shape = tuned.problem;
  // Empty dimensions (a no-op call asked about) count as 1.
  const double dm = std::log(static_cast<double>(std::max(1, call.m)) / shape.m);
  const double dn = std::log(static_cast<double>(std::max(1, call.n)) / shape.n);
  const double dk = std::log(static_cast<double>(std::max(1, call.k)) / shape.k);
  // The batch is a dimension like the others: a batch of b is, for the GPU, b times the blocks.
  const double db = std::log(static_cast<double>(std::max(1, call.batch)) / std::max(1, shape.batch));
  return std::sqrt(dm * dm + dn * dn + dk * dk + db * db);
}

// Results files of one standing: this GPU model's own, or those of other models of its compute
// capability.
enum class Standing { own, same_architecture };

bool has_standing(const TunedResults& file, const DeviceProfile& device, Standing standing) {
  return standing == Standing::own
             ? file.device.slug == device.slug
             : file.device.slug != device.slug && file.device.compute_capability == device.compute_capability;
}

std::string shape_text(const TunedShape& tuned) {
  const GemmShape& s = tuned.problem;
  std::string text = fmt::format("{}x{}x{} {}", s.m, s.n, s.k, layout_name(s.layout));
  if (s.batch != 1) text += fmt::format(" batch {}", s.batch);
  if (s.precision != Precision::fp32) text += fmt::format(" {}", precision_name(s.precision));
  if (s.c16) text += " c16";
  return text;
}

std::string where(const TunedResults& file) {
  return fmt::format("{} ({})", file.device.slug, file.origin);
}

// What rows less aligned than the race measured may cost a kernel: its edge path loads narrower
// vectors, up to half the speed for scalar loads where it measured 4-float ones (H100: the 1000^3
// winner ran at 0.71 of its aligned speed with every leading dimension + 1). The race ran densely
// packed operands (packed_aligned_width of the raced problem, raced_width here), so a call as aligned
// as they were, or as the kernel's vector loads, pays nothing the race did not time: 4095^3's winner
// raced on rows aligned to 1 float. A kernel's margin over cuBLAS is divided by this before it is trusted.
double misalignment_cost(const KernelConfig& config, const CallShape& call, int raced_width) {
  const int measured = std::min(config.vector_width, raced_width);
  return call.aligned_width >= measured ? 1.0 : std::sqrt(static_cast<double>(measured) / call.aligned_width);
}

Selection kernel(const KernelConfig& config, ConfigSource source, std::string reason) {
  return {Implementation::tuned_kernel, config, source, std::move(reason), {}};
}

Selection cublas(ConfigSource source, std::string reason) {
  return {Implementation::cublas, KernelConfig{}, source, std::move(reason), {}};
}

// 1. The problem itself was raced: its winner runs.
std::optional<Selection> exact(const ResultsCatalog& catalog, const DeviceProfile& device, const CallShape& call,
                               Standing standing) {
  const ConfigSource source = standing == Standing::own ? ConfigSource::exact_shape : ConfigSource::same_architecture;
  for (const bool portfolio : {false, true}) {
    for (const TunedResults& file : catalog.files) {
      if (file.portfolio != portfolio || !has_standing(file, device, standing)) continue;
      for (const TunedShape& shape : file.shapes) {
        if (shape.problem != call.problem) continue;
        const std::string measured = fmt::format("{} measured on {}", shape_text(shape), where(file));
        if (shape.cublaslt) {
          Selection lt = cublas(source, fmt::format("{}: {} won the race (best kernel {:.3f}x cuBLAS's default call)",
                                                    measured, describe(*shape.cublaslt), shape.kernel_ratio));
          lt.implementation = Implementation::cublaslt;
          lt.cublaslt = *shape.cublaslt;
          return lt;
        }
        if (shape.cublas_won)
          return cublas(source, fmt::format("{}: cuBLAS won the race (best kernel {:.3f}x)", measured,
                                            shape.kernel_ratio));
        if (const auto misfit = device_fit_error(shape.config, device)) continue;
        if (const double cost = misalignment_cost(shape.config, call, packed_aligned_width(shape.problem));
            cost > 1 && !(shape.kernel_ratio / cost >= kKernelMargin))
          return cublas(source, fmt::format("{}: {} won by {:.3f}x, less than what rows aligned to {} floats "
                                            "(it loads {}) may cost it",
                                            measured, shape.config.name(), shape.kernel_ratio, call.aligned_width,
                                            shape.config.vector_width));
        return kernel(shape.config, source,
                      shape.kernel_ratio > 0
                          ? fmt::format("{}: the kernel won the race ({:.3f}x cuBLAS)", measured, shape.kernel_ratio)
                          : fmt::format("tuned for {} on {}", shape_text(shape), where(file)));
      }
    }
  }
  return std::nullopt;
}

// 2. A tuned problem close by, whose kernel's margin over cuBLAS outweighs the distance.
std::optional<Selection> near_tuned(const ResultsCatalog& catalog, const DeviceProfile& device,
                                    const CallShape& call, Standing standing) {
  struct Best {
    const TunedResults* file = nullptr;
    const TunedShape* shape = nullptr;
    ShapeDistance distance;
    double score = 0;
  };
  std::optional<Best> best;
  for (const TunedResults& file : catalog.files) {
    if (file.portfolio || !has_standing(file, device, standing)) continue;
    for (const TunedShape& shape : file.shapes) {
      if (shape.cublas_won || shape.kernel_ratio <= 0 || shape.problem.layout != call.problem.layout ||
          shape.problem.precision != call.problem.precision || shape.problem.c16 != call.problem.c16)
        continue;
      if (device_fit_error(shape.config, device)) continue;
      // A skinny kernel reads B once per tile of rows: never for calls taller than its tile.
      if (is_skinny(shape.config.family) && call.problem.m > shape.config.block_m) continue;
      const ShapeDistance d = shape_distance(call, shape, device);
      const double cost = misalignment_cost(shape.config, call, packed_aligned_width(shape.problem));
      const double score = std::log(shape.kernel_ratio / cost) - d.total();
      if (!best || score > best->score) best = Best{&file, &shape, d, score};
    }
  }
  if (!best || best->score < std::log(kKernelMargin)) return std::nullopt;
  const ConfigSource source =
      standing == Standing::own ? ConfigSource::nearest_shape : ConfigSource::same_architecture;
  return kernel(best->shape->config, source,
                fmt::format("near {} tuned on {}: {:.3f}x cuBLAS there, distance {:.3f} (shape {:.3f} + "
                            "waves {:.3f}) leaves {:.3f}x",
                            shape_text(*best->shape), where(*best->file), best->shape->kernel_ratio,
                            best->distance.total(), best->distance.shape, best->distance.waves,
                            std::exp(best->score)));
}

// 3. The portfolio grid: the call must have a measured point in each of the 8 directions around it
// (m, n and k each lower or equal, higher or equal); the kernel must beat cuBLAS by the margin at
// the nearest point of every one of them.
std::optional<Selection> portfolio(const ResultsCatalog& catalog, const DeviceProfile& device, const CallShape& call,
                                   Standing standing) {
  for (const TunedResults& file : catalog.files) {
    if (!file.portfolio || !has_standing(file, device, standing)) continue;
    std::array<const TunedShape*, 8> corners{};
    std::array<double, 8> corner_distance{};
    const GemmShape& problem = call.problem;
    const int m = std::max(1, problem.m), n = std::max(1, problem.n), k = std::max(1, problem.k);
    for (const TunedShape& tuned : file.shapes) {
      const GemmShape& shape = tuned.problem;
      if (shape.layout != problem.layout || shape.batch != problem.batch || shape.precision != problem.precision ||
          shape.c16 != problem.c16)
        continue;
      const double d = log_distance(call, tuned);
      for (int octant = 0; octant < 8; ++octant) {
        const bool up_m = octant & 1, up_n = octant & 2, up_k = octant & 4;
        if ((up_m ? shape.m < m : shape.m > m) || (up_n ? shape.n < n : shape.n > n) ||
            (up_k ? shape.k < k : shape.k > k))
          continue;
        if (!corners[octant] || d < corner_distance[octant]) corners[octant] = &tuned, corner_distance[octant] = d;
      }
    }
    if (std::any_of(corners.begin(), corners.end(), [](const TunedShape* c) { return c == nullptr; })) continue;

    // Every config raced at a corner, with its worst ratio over the corners (0 where it was not raced),
    // after what rows less aligned than the best-aligned corner's may cost it.
    int corners_width = 1;
    for (const TunedShape* corner : corners)
      corners_width = std::max(corners_width, packed_aligned_width(corner->problem));
    std::map<std::string, std::pair<KernelConfig, double>> worst;
    for (const TunedShape* corner : corners)
      for (const RacedConfig& raced : corner->raced) worst.try_emplace(raced.config.name(), raced.config, 1e300);
    for (auto& [name, config_and_worst] : worst) {
      for (const TunedShape* corner : corners) {
        double ratio = 0;
        for (const RacedConfig& raced : corner->raced)
          if (raced.config == config_and_worst.first) ratio = std::max(ratio, raced.ratio);
        config_and_worst.second = std::min(config_and_worst.second, ratio);
      }
      config_and_worst.second /= misalignment_cost(config_and_worst.first, call, corners_width);
    }
    const std::pair<KernelConfig, double>* chosen = nullptr;
    for (const auto& [name, config_and_worst] : worst) {
      const KernelConfig& config = config_and_worst.first;
      if (device_fit_error(config, device)) continue;
      if (!chosen || config_and_worst.second > chosen->second) chosen = &config_and_worst;
    }
    const ConfigSource source = standing == Standing::own ? ConfigSource::portfolio : ConfigSource::same_architecture;
    const std::string grid = fmt::format("portfolio of {} from {} to {}", where(file), shape_text(*corners[0]),
                                         shape_text(*corners[7]));
    if (chosen && chosen->second >= kKernelMargin) {
      const bool discounted = misalignment_cost(chosen->first, call, corners_width) > 1;
      return kernel(chosen->first, source,
                    fmt::format("{}: {:.3f}x cuBLAS or better at all 8 points around the call{}", grid,
                                chosen->second, discounted ? " (after what its row alignment may cost)" : ""));
    }
    return cublas(source, chosen ? fmt::format("{}: no kernel beat cuBLAS by {:.0f}% at all 8 points around the "
                                               "call (best {} at {:.3f}x)",
                                               grid, 100 * (kKernelMargin - 1), chosen->first.name(), chosen->second)
                                 : grid + ": no kernel raced there can run this call");
  }
  return std::nullopt;
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
  d.shape = log_distance(call, tuned);
  const KernelConfig& config = tuned.config;
  const long long slots = block_slots(config, device);
  d.waves = std::fabs(
      std::log(wave_efficiency(config, std::max(1, call.problem.m), std::max(1, call.problem.n),
                               std::max(1, call.problem.batch), slots) /
               wave_efficiency(config, tuned.problem.m, tuned.problem.n, std::max(1, tuned.problem.batch), slots)));
  return d;
}

std::optional<std::string> device_fit_error(const KernelConfig& config, const DeviceProfile& device) {
  if (!runs_on(config, device.compute_capability))
    return config.family == KernelFamily::wgmma ? std::string("needs sm_90a (compute capability 9.0)")
                                                : fmt::format("needs sm_{}", min_compute_capability(config));
  if (config.threads() > device.max_threads_per_block)
    return fmt::format("{} threads per block, the device allows {}", config.threads(),
                       device.max_threads_per_block);
  if (config.shared_bytes() > static_cast<std::size_t>(device.shared_bytes_per_block))
    return fmt::format("{} bytes of shared memory, the device allows {}", config.shared_bytes(),
                       device.shared_bytes_per_block);
  return std::nullopt;
}

void make_deterministic(Selection& selection) {
  if (selection.implementation != Implementation::tuned_kernel) return;
  KernelConfig& config = selection.config;
  if (config.split_k_atomic) {
    config.split_k_atomic = false;  // the same tiles, reduced through a workspace instead
    selection.reason += "; atomic split-K reduced through a workspace instead (GEMMTUNE_DETERMINISTIC)";
  } else if ((config.family == KernelFamily::skinny_tiled || adds_slices_into_c(config)) &&
             config.split_k > 1) {
    config.split_k = 1;  // its slices add into the workspace, or C, in whatever order they finish
    selection.reason += "; K not split (GEMMTUNE_DETERMINISTIC)";
  }
}

bool deterministic_requested() {
  const char* env = std::getenv("GEMMTUNE_DETERMINISTIC");
  return env && *env && std::string_view(env) != "0";
}

Selection select_config(const ResultsCatalog& catalog, const DeviceProfile& device, const CallShape& call) {
  using Rule = std::optional<Selection> (*)(const ResultsCatalog&, const DeviceProfile&, const CallShape&, Standing);
  for (const Rule rule : {Rule{exact}, Rule{near_tuned}, Rule{portfolio}})
    for (const Standing standing : {Standing::own, Standing::same_architecture})
      if (auto selection = rule(catalog, device, call, standing)) {
        if (standing == Standing::same_architecture)
          selection->reason = fmt::format("no results of {} apply; another sm_{} GPU's: {}", device.slug,
                                          device.compute_capability, selection->reason);
        return *selection;
      }
  return cublas(ConfigSource::built_in_default,
                fmt::format("no measurement on {} or another sm_{} GPU says a kernel beats cuBLAS here",
                            device.slug, device.compute_capability));
}

}  // namespace gemmtune
