// What the two NVRTC spikes beside this file share: the distinct sgemm binaries a results file names,
// and one timed NVRTC compile of one of them.
#pragma once

#include <nvrtc.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kernel_config.hpp"
#include "core/kernel_path.hpp"

namespace spike {

// The distinct sgemm binaries named in a results file (winners and alternatives), general path, as
// the tuner compiles them; the first `skip` left out (several processes at once compile different ones).
inline std::vector<std::string> sgemm_expressions(const std::string& path, std::size_t count, std::size_t skip = 0) {
  std::ifstream in(path);
  const nlohmann::json results = nlohmann::json::parse(in);
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& e : results.at("entries")) {
    if (!e.contains("best") || !e.at("best").contains("config")) continue;  // no kernel measured
    std::vector<nlohmann::json> configs = {e.at("best").at("config")};
    for (const auto& a : e.value("alternatives", nlohmann::json::array())) configs.push_back(a.at("config"));
    for (const auto& c : configs) {
      const gemmtune::KernelConfig config = c.get<gemmtune::KernelConfig>();
      if (config.family != gemmtune::KernelFamily::sgemm) continue;
      const std::string expr = config.name_expression(gemmtune::KernelPath::general);
      if (seen.insert(expr).second && seen.size() > skip) out.push_back(expr);
      if (out.size() == count) return out;
    }
  }
  return out;
}

// The tuner's NVRTC options (core/kernel_compiler.cpp) for arch.
inline std::vector<std::string> tuner_options(const std::string& arch) {
  return {"--gpu-architecture=" + arch, "--std=c++17", "-Xptxas=-v", "-default-device"};
}

struct Compile {
  double seconds = 0;
  bool ok = false;
  std::string cubin, log;
};

// One compile of `source` (with at most one header) instantiating `expr`, timed from program creation
// to the cubin and log in hand; a failure is printed.
inline Compile compile(const std::string& source, const std::string& expr, const std::vector<std::string>& options,
                       const char* header_name = nullptr, const char* header_text = nullptr) {
  Compile out;
  const auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  const int headers = header_name ? 1 : 0;
  nvrtcCreateProgram(&program, source.c_str(), "gemmtune.cu", headers, headers ? &header_text : nullptr,
                     headers ? &header_name : nullptr);
  nvrtcAddNameExpression(program, expr.c_str());
  std::vector<const char*> pointers;
  for (const auto& o : options) pointers.push_back(o.c_str());
  const nvrtcResult result = nvrtcCompileProgram(program, static_cast<int>(pointers.size()), pointers.data());
  std::size_t size = 0;
  nvrtcGetCUBINSize(program, &size);
  out.cubin.assign(size, '\0');
  if (size) nvrtcGetCUBIN(program, out.cubin.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  out.log.assign(log_size, '\0');
  if (log_size) nvrtcGetProgramLog(program, out.log.data());
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.ok = result == NVRTC_SUCCESS && size > 0;
  if (!out.ok) std::fprintf(stderr, "failed: %s\n%s\n", expr.c_str(), out.log.c_str());
  nvrtcDestroyProgram(&program);
  return out;
}

}  // namespace spike
