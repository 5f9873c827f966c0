// Does an NVRTC option make a candidate's compile cheaper without changing its machine code? For
// COUNT distinct sgemm binaries of a results file (general path, as the tuner compiles them), each
// compiled with the tuner's options and with those plus EXTRA (one option per argument), in turn
// (A, B, B, A, ...: load drifts cancel), on one thread. Prints each pair's seconds and whether the
// two cubins' code (the .text sections' bytes, text_sections.py) is identical, then the totals.
// Issue #47: cold multi-GPU runs are bound by compiles. Runs on a machine without a GPU.
//   nvrtc_flags RESULTS_JSON COUNT ARCH EXTRA...
#include <nvrtc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/embedded_files.hpp"
#include "core/kernel_config.hpp"
#include "core/kernel_path.hpp"

namespace {

const char* kHere = "scripts/spikes/nvrtc-flags";  // run from the checkout's root
using Clock = std::chrono::steady_clock;

std::vector<std::string> expressions(const std::string& path, std::size_t count) {
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
      if (seen.insert(expr).second) out.push_back(expr);
      if (out.size() == count) return out;
    }
  }
  return out;
}

// Seconds of one compile; the cubin into `cubin`.
double compile(const std::string& expr, const std::vector<std::string>& options, std::string& cubin) {
  static const std::string tmpl(gemmtune::embedded_file("kernel_templates/sgemm.cuh"));
  const auto t0 = Clock::now();
  nvrtcProgram program = nullptr;
  nvrtcCreateProgram(&program, tmpl.c_str(), "gemmtune.cu", 0, nullptr, nullptr);
  nvrtcAddNameExpression(program, expr.c_str());
  std::vector<const char*> ptrs;
  for (const auto& o : options) ptrs.push_back(o.c_str());
  const nvrtcResult result = nvrtcCompileProgram(program, static_cast<int>(ptrs.size()), ptrs.data());
  std::size_t size = 0;
  nvrtcGetCUBINSize(program, &size);
  cubin.assign(size, '\0');
  if (size) nvrtcGetCUBIN(program, cubin.data());
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (result != NVRTC_SUCCESS || size == 0) {
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(program, &log_size);
    std::string log(log_size, '\0');
    if (log_size) nvrtcGetProgramLog(program, log.data());
    std::fprintf(stderr, "failed: %s\n%s\n", expr.c_str(), log.c_str());
  }
  nvrtcDestroyProgram(&program);
  return seconds;
}

std::string sass(const std::string& cubin, const char* name) {
  const std::string path = std::string("/tmp/nvrtc_flags_") + name + ".cubin";
  std::ofstream(path, std::ios::binary) << cubin;
  const std::string command = "python3 " + std::string(kHere) + "/text_sections.py " + path;
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
    pclose(pipe);
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s RESULTS_JSON COUNT ARCH EXTRA...\n", argv[0]);
    return 2;
  }
  const std::string arch = argv[3];
  const std::vector<std::string> base = {"--gpu-architecture=" + arch, "--std=c++17", "-Xptxas=-v", "-default-device"};
  std::vector<std::string> extra = base;
  for (int i = 4; i < argc; ++i) extra.push_back(argv[i]);
  const std::vector<std::string> exprs = expressions(argv[1], std::stoul(argv[2]));
  double base_total = 0, extra_total = 0;
  int same = 0;
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    std::string a, b;
    double ta, tb;
    if (i % 2 == 0) {
      ta = compile(exprs[i], base, a);
      tb = compile(exprs[i], extra, b);
    } else {
      tb = compile(exprs[i], extra, b);
      ta = compile(exprs[i], base, a);
    }
    const bool identical = sass(a, "a") == sass(b, "b");
    same += identical;
    base_total += ta;
    extra_total += tb;
    std::printf("%-90s %.3f %.3f %s\n", exprs[i].c_str(), ta, tb, identical ? "same code" : "CODE DIFFERS");
    std::fflush(stdout);
  }
  std::printf("%zu binaries: tuner's options %.2f s, with the extra ones %.2f s (%.3f), %d of them the same code\n",
              exprs.size(), base_total, extra_total, extra_total / base_total, same);
  return 0;
}
