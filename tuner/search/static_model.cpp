// Each factor is in (0, 1] and models one well-known limiter of SIMT GEMM:
// - shared memory: each k step a thread reads TM + TN floats from shared memory for TM * TN FMAs,
//   and the loads take issue slots and shared-memory bandwidth from the FMAs. With f FMAs per float
//   the FMA share is modelled as f / (f + 2.1), fitted to the H100's best kernel per micro-tile at
//   4096 (template v4: 16x8 50.3, 8x8 43.0, 8x4 40.8, 4x4 34.1 TFLOP/s). An earlier model let it
//   saturate at 2.5 FMAs per float; at large sizes it then ranked 8x4 tiles level with 16x8 ones.
// - global memory: a BM x BN tile loads (BM + BN) * BK floats for 2 * BM * BN * BK flops; compared
//   with the device's flop/byte ridge, assuming L2 serves about 3/4 of the traffic.
// - latency: fewer than 8 resident warps per SM leave FMA latency exposed.
// - waves: the last wave of blocks runs partly empty (wave quantization on this SM count).
// - edges: tile area that falls outside C is computed and thrown away.
// - split-K: the partial sums make an extra trip through memory.
// - pipeline: a single shared-memory buffer stalls on every tile load.
// The skinny families (few rows of C) are modelled apart (predict_skinny): they are bound by reading
// B, so the terms are memory time against FMA time, enough blocks and warps in flight to keep
// memory busy, and split-K's partial sums.
#include "search/static_model.hpp"

#include <algorithm>
#include <cmath>

#include "search/search_space.hpp"

namespace gemmtune {
namespace {
double clamp01(double x) {
  return std::clamp(x, 0.01, 1.0);
}

// Time = the larger of reading every operand once at about 90% of peak bandwidth and the FMAs at
// about half of FP32 peak (what the skinny kernels reached on the H100 at 32 rows), stretched while
// too few blocks or warps are in flight to keep memory busy, plus split-K's partial sums.
Prediction predict_skinny(const KernelConfig& c, const Occupancy& occ, const DeviceProfile& d, const GemmShape& s) {
  Prediction p;
  const double bandwidth = std::max(1.0, d.memory_gbps) * 1e9 * 0.9;
  const double operand = operand_bytes(c.precision);  // A and B (16-bit for the stream kernel's bf16, fp16); C FP32
  const double bytes = s.batch * (operand * (double(s.k) * s.n + double(s.m) * s.k) + 4.0 * double(s.m) * s.n);
  const double memory_seconds = bytes / bandwidth;
  const double fma_seconds = s.flops() / (std::max(1.0, d.fp32_tflops) * 1e12 * 0.5);
  p.global_memory_factor = clamp01(fma_seconds / memory_seconds);

  const double tiles_m = std::ceil(double(s.m) / c.block_m), tiles_n = std::ceil(double(s.n) / c.block_n);
  const double blocks = tiles_m * tiles_n * c.split_k * s.batch;
  const double slots = std::max(1.0, double(occ.blocks_per_sm) * d.sm_count);
  p.waves = blocks / slots;
  p.wave_factor = clamp01(p.waves < 1 ? p.waves : p.waves / std::ceil(p.waves));
  p.latency_factor = clamp01(occ.blocks_per_sm * c.threads() / 32.0 / 16.0);
  p.edge_factor = clamp01(double(s.m) * s.n / (tiles_m * c.block_m * tiles_n * c.block_n));
  const double partial_bytes = c.split_k > 1 ? 8.0 * s.batch * c.split_k * tiles_m * c.block_m * s.n : 0.0;
  p.split_k_factor = clamp01(memory_seconds / (memory_seconds + partial_bytes / bandwidth));
  p.shared_memory_factor = p.pipeline_factor = 1.0;

  const double seconds = std::max(memory_seconds, fma_seconds) / (p.wave_factor * p.latency_factor * p.split_k_factor);
  p.predicted_tflops = s.flops() / seconds / 1e12;
  p.fraction_of_peak = p.predicted_tflops / std::max(1.0, d.fp32_tflops);
  return p;
}

// What mma.sync delivers over FP32 on the CUDA cores, as measured on an H100 (scripts/spikes/
// tensor-core/NOTES.md): tf32 about 3x FP32 peak after its conversions, bf16 and fp16 about 9x,
// 3xtf32 a third of tf32's rate. Only the ranking within one precision matters here.
double tensor_core_speedup(Precision p) {
  switch (p) {
    case Precision::tf32: return 3.0;
    case Precision::tf32x3: return 1.4;
    case Precision::bf16:
    case Precision::fp16: return 9.0;
    case Precision::fp32: break;
  }
  return 1.0;
}

}  // namespace

Prediction predict(const KernelConfig& c, const Occupancy& occ, const DeviceProfile& d, const GemmShape& s) {
  if (is_skinny(c.family)) return predict_skinny(c, occ, d, s);
  if (c.family == KernelFamily::mma || c.family == KernelFamily::wgmma) {
    // wgmma: the same terms as mma with its default 64x64 warp tile (a warpgroup's wgmma is wider,
    // but only the ranking among one family's tiles matters).
    // The SIMT model's terms with the warp tile in the micro-tile's place (fragments per mma) and
    // the tensor cores' rate in FP32's: global traffic in the operands' own bytes.
    DeviceProfile tensor = d;
    tensor.fp32_tflops = d.fp32_tflops * tensor_core_speedup(c.precision) * 4.0 / operand_bytes(c.precision);
    KernelConfig simt = c;
    simt.family = KernelFamily::sgemm;
    simt.thread_m = std::max(1, c.warp_m / 8);
    simt.thread_n = std::max(1, c.warp_n / 8);
    Prediction p = predict(simt, occ, tensor, s);
    p.latency_factor = clamp01(occ.blocks_per_sm * c.threads() / 32.0 / 4.0);  // 4 warps keep mma busy
    p.fraction_of_peak = p.shared_memory_factor * p.global_memory_factor * p.latency_factor * p.wave_factor *
                         p.edge_factor * p.split_k_factor * p.pipeline_factor;
    p.predicted_tflops = p.fraction_of_peak * d.fp32_tflops * tensor_core_speedup(c.precision);
    return p;
  }
  Prediction p;
  const double fma_per_load = double(c.thread_m) * c.thread_n / (c.thread_m + c.thread_n);
  p.shared_memory_factor = clamp01(fma_per_load / (fma_per_load + 2.1));

  const double ridge = d.memory_gbps > 0 ? d.fp32_tflops * 1e12 / (d.memory_gbps * 1e9) : 10.0;
  const double tile_intensity = double(c.block_m) * c.block_n / (2.0 * (c.block_m + c.block_n));  // flop/byte
  p.global_memory_factor = clamp01(tile_intensity / (ridge / 4.0));

  const double warps = occ.blocks_per_sm * c.threads() / 32.0;
  p.latency_factor = clamp01(warps / 8.0);

  const double tiles_m = std::ceil(double(s.m) / c.block_m), tiles_n = std::ceil(double(s.n) / c.block_n);
  const double blocks = tiles_m * tiles_n * c.split_k * c.cluster_k;  // a K pair is two blocks of half the work
  const double slots = std::max(1.0, double(occ.blocks_per_sm) * d.sm_count);
  p.waves = blocks / slots;
  p.wave_factor = clamp01(p.waves / std::ceil(p.waves));

  p.edge_factor = clamp01(double(s.m) * s.n / (tiles_m * c.block_m * tiles_n * c.block_n));

  if (c.split_k > 1) {
    const double gemm_seconds = s.flops() / (d.fp32_tflops * 1e12);
    const double reduce_seconds = double(c.split_k + 2) * s.m * s.n * 4.0 / (d.memory_gbps * 1e9);
    p.split_k_factor = clamp01(gemm_seconds / (gemm_seconds + reduce_seconds));
  } else {
    p.split_k_factor = 1.0;
  }
  p.pipeline_factor = c.stages >= 2 ? 1.0 : 0.8;

  p.fraction_of_peak = p.shared_memory_factor * p.global_memory_factor * p.latency_factor * p.wave_factor *
                       p.edge_factor * p.split_k_factor * p.pipeline_factor;
  p.predicted_tflops = p.fraction_of_peak * d.fp32_tflops;
  return p;
}

const std::vector<const char*>& parameters_the_model_cannot_rank() {
  static const std::vector<const char*> names = {"fma_order", "warp_rows", "swizzle"};
  return names;
}

KernelConfig model_view(KernelConfig config) {
  config.fma_order = kFmaOrderRows;
  config.warp_rows = 4;
  config.swizzle = 1;
  return config;
}

std::vector<double> predicted_tflops_before_compile(const std::vector<KernelConfig>& candidates,
                                                    const DeviceProfile& device, const GemmShape& shape,
                                                    int register_overhead) {
  std::vector<double> out;
  out.reserve(candidates.size());
  for (const auto& c : candidates) {
    const Occupancy occ = compute_occupancy(c, estimated_registers(c, register_overhead), device);
    out.push_back(predict(c, occ, device, shape).predicted_tflops);
  }
  return out;
}

}  // namespace gemmtune
