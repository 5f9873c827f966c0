// What the tuner and the runtime need to know about a GPU: limits that decide which kernels fit,
// and facts that decide how well they run (SM count for wave quantization, peak rates). Filled
// either from configs/devices/*.json (planning for a GPU you do not own) or from the live device.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gemmtune/precision.hpp"

namespace gemmtune {

struct DeviceProfile {
  std::string name;          // e.g. "NVIDIA H100 80GB HBM3"
  std::string slug;          // file-name form, e.g. "nvidia-h100-80gb-hbm3"
  int compute_capability = 0;  // major * 10 + minor, e.g. 90
  int sm_count = 0;
  int shared_bytes_per_block = 0;  // opt-in maximum for one block
  int shared_bytes_per_sm = 0;
  int registers_per_sm = 0;
  int registers_per_thread = 255;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  double fp32_tflops = 0;        // peak FP32 FMA rate
  double memory_gbps = 0;        // peak DRAM bandwidth, GB/s
  double l2_megabytes = 0;
  // Only for live devices.
  std::string driver_version;
  std::optional<int> sm_clock_mhz;
  std::optional<int> memory_clock_mhz;

  std::string arch() const;  // "sm_90"
};

// The peak rate a "% of peak" for a problem of this precision is measured against, TFLOP/s; nullopt
// where the profile does not know it. Profiles hold the FP32 FMA rate only: the tensor cores' rates
// (3xtf32 runs three TF32 products per FP32 one) are not in cudaDeviceProp, and FP32's peak is no
// ceiling for them (3xtf32 runs at twice it on an H100).
std::optional<double> peak_tflops(const DeviceProfile& device, Precision precision);

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"
std::string slugify(const std::string& name);

// Reads the number of visible CUDA devices; 0 with a reason when there is no driver or device.
struct DeviceCount {
  int count = 0;
  std::string reason;  // why count is 0
};
DeviceCount count_devices();

// The live device's profile; throws CudaError if the index is invalid or the device cannot be read.
DeviceProfile query_device(int index);

void to_json(nlohmann::json& j, const DeviceProfile& p);
// Validates ranges; throws std::invalid_argument naming the field.
void from_json(const nlohmann::json& j, DeviceProfile& p);

}  // namespace gemmtune
