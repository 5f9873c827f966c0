// Results documents and device profiles for the runtime tests: well-formed gemmtune.results/1 files
// built from typed values, which the tests then break in every way a hostile or damaged file could.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/device_profile.hpp"
#include "core/kernel_config.hpp"

namespace gemmtune::testing_results {

inline DeviceProfile profile(const std::string& name, int compute_capability, int sm_count) {
  DeviceProfile p;
  p.name = name;
  p.slug = slugify(name);
  p.compute_capability = compute_capability;
  p.sm_count = sm_count;
  p.shared_bytes_per_block = compute_capability >= 90 ? 232448 : compute_capability >= 80 ? 166912 : 65536;
  p.shared_bytes_per_sm = p.shared_bytes_per_block + 1024;
  p.registers_per_sm = 65536;
  p.registers_per_thread = 255;
  p.max_threads_per_block = 1024;
  p.max_threads_per_sm = compute_capability == 75 ? 1024 : 2048;
  p.max_blocks_per_sm = compute_capability == 75 ? 16 : 32;
  p.fp32_tflops = 50;
  p.memory_gbps = 2000;
  p.l2_megabytes = 50;
  return p;
}

inline DeviceProfile h100() {
  return profile("NVIDIA H100 80GB HBM3", 90, 132);
}
inline DeviceProfile h100_pcie() {
  return profile("NVIDIA H100 PCIe", 90, 114);
}
inline DeviceProfile a100() {
  return profile("NVIDIA A100-SXM4-40GB", 80, 108);
}
inline DeviceProfile t4() {
  return profile("Tesla T4", 75, 40);
}

inline KernelConfig config(int block_m, int block_n, int block_k, int thread_m, int thread_n,
                           int vector_width, int split_k = 1, bool async_copy = false) {
  KernelConfig c;
  c.block_m = block_m, c.block_n = block_n, c.block_k = block_k, c.thread_m = thread_m, c.thread_n = thread_n;
  c.vector_width = vector_width, c.split_k = split_k, c.async_copy = async_copy;
  c.stages = async_copy ? 3 : 2;
  return c;
}

inline nlohmann::json entry(int m, int n, int k, const KernelConfig& c) {
  return {{"m", m},
          {"n", n},
          {"k", k},
          {"dtype", "f32"},
          {"layout", "row-major"},
          {"best", {{"name", c.name()}, {"config", c}, {"median_ms", 0.1}}}};
}

// A schema 2 entry: the kernel's best config raced against cuBLAS (ratio = cuBLAS time / kernel
// time); the winner follows from the ratio, as the tuner decides it.
inline nlohmann::json raced_entry(int m, int n, int k, const KernelConfig& c, double ratio) {
  return {{"m", m},
          {"n", n},
          {"k", k},
          {"dtype", "f32"},
          {"layout", "nn"},
          {"batch", 1},
          {"winner", ratio > 1 ? "kernel" : "cublas"},
          {"ratio_vs_cublas", ratio},
          {"best", {{"name", c.name()}, {"config", c}, {"median_ms", 0.1}, {"ratio_vs_cublas", ratio}}}};
}

// A schema 3 entry that a cuBLASLt algorithm won (the kernel raced too, at 0.9x cuBLAS's default call).
inline nlohmann::json cublaslt_entry(int m, int n, int k, const KernelConfig& c, const nlohmann::json& algo) {
  nlohmann::json e = raced_entry(m, n, k, c, 0.9);
  e.erase("dtype");
  e["precision"] = "fp32";
  e["winner"] = "cublaslt";
  e["cublaslt"] = {{"algo", algo}, {"version", 130000}, {"median_ms", 0.05}};
  return e;
}

inline nlohmann::json document_v3(const DeviceProfile& device, const std::vector<nlohmann::json>& entries) {
  return {{"schema", "gemmtune.results/3"},
          {"kind", "measured"},
          {"device", device},
          {"tool_version", "0.3.0"},
          {"entries", entries}};
}

// A portfolio cell: every config of the menu with its ratio; the first listed is the best.
inline nlohmann::json portfolio_cell(int m, int n, int k, const std::vector<std::pair<KernelConfig, double>>& menu) {
  nlohmann::json cell = raced_entry(m, n, k, menu.front().first, menu.front().second);
  nlohmann::json alternatives = nlohmann::json::array();
  for (std::size_t i = 1; i < menu.size(); ++i)
    alternatives.push_back({{"name", menu[i].first.name()}, {"config", menu[i].first}, {"ratio_vs_cublas", menu[i].second}});
  cell["alternatives"] = alternatives;
  return cell;
}

inline nlohmann::json document_v2(const DeviceProfile& device, const std::vector<nlohmann::json>& entries,
                                  const std::string& kind = "measured") {
  return {{"schema", "gemmtune.results/2"},
          {"kind", kind},
          {"device", device},
          {"tool_version", "0.2.0"},
          {"entries", entries}};
}

inline nlohmann::json portfolio_document(const DeviceProfile& device, const std::vector<nlohmann::json>& cells) {
  return document_v2(device, cells, "portfolio");
}

inline nlohmann::json document(const DeviceProfile& device, const std::vector<nlohmann::json>& entries) {
  return {{"schema", "gemmtune.results/1"},
          {"kind", "measured"},
          {"device", device},
          {"tool_version", "0.1.0"},
          {"entries", entries}};
}

inline void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A fresh directory per test, removed afterwards.
class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name)
      if (c == '/') c = '_';  // parameterised tests
    dir_ = std::filesystem::temp_directory_path() /
           ("gemmtune-runtime-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

}  // namespace gemmtune::testing_results
