// Device profiles: conversion from JSON and from cudaGetDeviceProperties, with validation, since
// profiles come from files a user may have edited.
#include "core/device_profile.hpp"

#include <cctype>
#include <stdexcept>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/cuda_check.hpp"

namespace gemmtune {

std::string DeviceProfile::arch() const { return fmt::format("sm_{}", compute_capability); }

std::optional<double> peak_tflops(const DeviceProfile& device, Precision precision) {
  if (precision != Precision::fp32 || device.fp32_tflops <= 0) return std::nullopt;
  return device.fp32_tflops;
}

std::string slugify(const std::string& name) {
  std::string slug;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      slug += static_cast<char>(std::tolower(c));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown-gpu" : slug;
}

DeviceCount count_devices() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) return {0, "no CUDA device found"};
  if (err == cudaErrorInsufficientDriver)
    return {0, "no CUDA device found (no NVIDIA driver is installed, or it is older than this CUDA runtime)"};
  if (err != cudaSuccess) return {0, fmt::format("no CUDA device usable: {}", cudaGetErrorString(err))};
  return {count, ""};
}

DeviceProfile query_device(int index) {
  cudaDeviceProp prop{};
  GEMMTUNE_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  DeviceProfile p;
  p.name = prop.name;
  p.slug = slugify(prop.name);
  p.compute_capability = prop.major * 10 + prop.minor;
  p.sm_count = prop.multiProcessorCount;
  p.shared_bytes_per_block = static_cast<int>(prop.sharedMemPerBlockOptin);
  p.shared_bytes_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  p.registers_per_sm = prop.regsPerMultiprocessor;
  p.max_threads_per_block = prop.maxThreadsPerBlock;
  p.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  p.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  p.l2_megabytes = prop.l2CacheSize / (1024.0 * 1024.0);
  int clock_khz = 0, mem_clock_khz = 0, bus_width = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, index) == cudaSuccess && clock_khz > 0)
    p.sm_clock_mhz = clock_khz / 1000;
  if (cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, index) == cudaSuccess && mem_clock_khz > 0)
    p.memory_clock_mhz = mem_clock_khz / 1000;
  cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, index);
  // FP32 lanes per SM: 64 on sm_75 and sm_80, 128 on sm_86+ and Hopper.
  const int lanes = (p.compute_capability == 75 || p.compute_capability == 80) ? 64 : 128;
  if (p.sm_clock_mhz) p.fp32_tflops = 2.0 * lanes * p.sm_count * *p.sm_clock_mhz * 1e-6;
  if (p.memory_clock_mhz && bus_width > 0) p.memory_gbps = 2.0 * *p.memory_clock_mhz * 1e-3 * bus_width / 8.0;
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess)
    p.driver_version = fmt::format("{}.{}", driver / 1000, (driver % 1000) / 10);
  return p;
}

void to_json(nlohmann::json& j, const DeviceProfile& p) {
  j = nlohmann::json{{"name", p.name},
                     {"slug", p.slug},
                     {"compute_capability", p.compute_capability},
                     {"sm_count", p.sm_count},
                     {"shared_bytes_per_block", p.shared_bytes_per_block},
                     {"shared_bytes_per_sm", p.shared_bytes_per_sm},
                     {"registers_per_sm", p.registers_per_sm},
                     {"registers_per_thread", p.registers_per_thread},
                     {"max_threads_per_block", p.max_threads_per_block},
                     {"max_threads_per_sm", p.max_threads_per_sm},
                     {"max_blocks_per_sm", p.max_blocks_per_sm},
                     {"fp32_tflops", p.fp32_tflops},
                     {"memory_gbps", p.memory_gbps},
                     {"l2_megabytes", p.l2_megabytes}};
  if (!p.driver_version.empty()) j["driver_version"] = p.driver_version;
  if (p.sm_clock_mhz) j["sm_clock_mhz"] = *p.sm_clock_mhz;
  if (p.memory_clock_mhz) j["memory_clock_mhz"] = *p.memory_clock_mhz;
}

void from_json(const nlohmann::json& j, DeviceProfile& out) {
  if (!j.is_object()) throw std::invalid_argument("device profile must be a JSON object");
  auto field = [&](const char* key) -> const nlohmann::json& {
    const auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(fmt::format("device profile lacks '{}'", key));
    return *it;
  };
  auto get_int = [&](const char* key, int lo, int hi) {
    const auto& v = field(key);
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
      throw std::invalid_argument(fmt::format("device profile '{}' must be an integer in {}..{}", key, lo, hi));
    return v.get<int>();
  };
  auto get_number = [&](const char* key, double lo, double hi) {
    const auto& v = field(key);
    if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi)
      throw std::invalid_argument(fmt::format("device profile '{}' must be a number in {}..{}", key, lo, hi));
    return v.get<double>();
  };
  auto get_string = [&](const char* key) {
    const auto& v = field(key);
    if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>().size() > 256)
      throw std::invalid_argument(fmt::format("device profile '{}' must be a non-empty string", key));
    return v.get<std::string>();
  };
  DeviceProfile p;
  p.name = get_string("name");
  p.slug = j.contains("slug") ? slugify(get_string("slug")) : slugify(p.name);
  p.compute_capability = get_int("compute_capability", 50, 200);
  p.sm_count = get_int("sm_count", 1, 10000);
  p.shared_bytes_per_block = get_int("shared_bytes_per_block", 1024, 16 << 20);
  p.shared_bytes_per_sm = get_int("shared_bytes_per_sm", 1024, 16 << 20);
  p.registers_per_sm = get_int("registers_per_sm", 1024, 1 << 24);
  p.registers_per_thread = get_int("registers_per_thread", 16, 1024);
  p.max_threads_per_block = get_int("max_threads_per_block", 32, 4096);
  p.max_threads_per_sm = get_int("max_threads_per_sm", 32, 16384);
  p.max_blocks_per_sm = get_int("max_blocks_per_sm", 1, 1024);
  p.fp32_tflops = get_number("fp32_tflops", 0.0, 1e6);
  p.memory_gbps = get_number("memory_gbps", 0.0, 1e7);
  p.l2_megabytes = get_number("l2_megabytes", 0.0, 1e6);
  if (j.contains("driver_version")) p.driver_version = get_string("driver_version");
  if (j.contains("sm_clock_mhz")) p.sm_clock_mhz = get_int("sm_clock_mhz", 1, 100000);
  if (j.contains("memory_clock_mhz")) p.memory_clock_mhz = get_int("memory_clock_mhz", 1, 100000);
  out = p;
}

}  // namespace gemmtune
