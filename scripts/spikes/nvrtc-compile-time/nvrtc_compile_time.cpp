// Measures what one NVRTC compile of an sgemm candidate costs, and whether a precompiled header
// (NVRTC 12.8+ `--pch`) or more threads change it (issue #47). Not part of the build: compile it
// against a build of gemm-tune with build.sh beside it. Runs on a machine without a GPU.
//
//   nvrtc_compile_time RESULTS_JSON COUNT THREADS MODE [ARCH [SKIP]]
//     MODE: plain  (the tuner's compile: the whole template as the program)
//           pch    (the template as a header the program includes, automatic PCH in a fresh dir)
//           trace  (plain, one compile with --fdevice-time-trace, written to ./trace-<i>.json)
// SKIP: leave out the first SKIP binaries (several processes at once compile different ones).
// Prints each compile's seconds and, last, count, threads, wall seconds and compiles per second.
#include <nvrtc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/embedded_files.hpp"
#include "core/kernel_config.hpp"
#include "core/kernel_path.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The distinct sgemm binaries named in a results file (winners and alternatives), general path.
std::vector<std::string> expressions(const std::string& path, std::size_t count, std::size_t skip) {
  std::ifstream in(path);
  const nlohmann::json results = nlohmann::json::parse(in);
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& e : results.at("entries")) {
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

double compile(const std::string& mode, const std::string& expr, const std::string& arch, int index,
               const std::string& pch_dir, std::string* log_out) {
  const std::string tmpl(gemmtune::embedded_file("kernel_templates/sgemm.cuh"));
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "--std=c++17", "-Xptxas=-v", "-default-device"};
  const char* header_name = "gemmtune_sgemm.cuh";
  const char* header_text = tmpl.c_str();
  std::string source = tmpl;
  int headers = 0;
  if (mode == "pch") {
    source = "#include \"gemmtune_sgemm.cuh\"\n";
    headers = 1;
    options.push_back("--pch");
    options.push_back("--pch-dir=" + pch_dir);
  }
  if (mode == "trace") options.push_back("--fdevice-time-trace=trace-" + std::to_string(index) + ".json");
  const auto t0 = Clock::now();
  nvrtcProgram program = nullptr;
  nvrtcCreateProgram(&program, source.c_str(), "gemmtune.cu", headers, headers ? &header_text : nullptr,
                     headers ? &header_name : nullptr);
  nvrtcAddNameExpression(program, expr.c_str());
  std::vector<const char*> ptrs;
  for (const auto& o : options) ptrs.push_back(o.c_str());
  const nvrtcResult result = nvrtcCompileProgram(program, static_cast<int>(ptrs.size()), ptrs.data());
  std::size_t cubin = 0;
  nvrtcGetCUBINSize(program, &cubin);
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  if (log_size) nvrtcGetProgramLog(program, log.data());
  const double seconds = since(t0);
  if (result != NVRTC_SUCCESS || cubin == 0) std::fprintf(stderr, "failed: %s\n%s\n", expr.c_str(), log.c_str());
  if (log_out) *log_out = log;
  nvrtcDestroyProgram(&program);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s RESULTS_JSON COUNT THREADS plain|pch|trace [ARCH]\n", argv[0]);
    return 2;
  }
  const std::string arch = argc > 5 ? argv[5] : "sm_90";
  const std::vector<std::string> exprs = expressions(argv[1], std::stoul(argv[2]), argc > 6 ? std::stoul(argv[6]) : 0);
  const unsigned threads = std::stoul(argv[3]);
  const std::string mode = argv[4];
  const std::string pch_dir = (std::filesystem::temp_directory_path() / ("gemmtune-pch-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(pch_dir);
  if (mode == "pch") {  // the first compile creates the PCH; report it apart
    std::string log;
    // The reduction kernel: a program no measured compile repeats (NVRTC may cache a repeat).
    const double s = compile(mode, "gemmtune::splitk_reduce<256>", arch, 0, pch_dir, &log);
    std::printf("pch create compile %.3f s; log: %s\n", s, log.substr(0, 400).c_str());
  }
  std::atomic<std::size_t> next{0};
  std::mutex print;
  std::vector<double> seconds(exprs.size());
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < exprs.size(); i = next++) {
        std::string log;
        seconds[i] = compile(mode, exprs[i], arch, static_cast<int>(i), pch_dir, i == 0 ? &log : nullptr);
        if (i == 0 && mode == "pch") {
          std::lock_guard<std::mutex> lock(print);
          std::printf("pch use log: %s\n", log.substr(0, 300).c_str());
        }
      }
    });
  for (auto& t : pool) t.join();
  const double wall = since(t0);
  double sum = 0;
  for (double s : seconds) sum += s;
  std::sort(seconds.begin(), seconds.end());
  std::printf("mode %s arch %s: %zu compiles, %u threads, wall %.2f s, %.2f compiles/s, mean %.3f s a compile, median %.3f\n",
              mode.c_str(), arch.c_str(), exprs.size(), threads, wall, exprs.size() / wall, sum / exprs.size(),
              seconds[seconds.size() / 2]);
  std::filesystem::remove_all(pch_dir);
  return 0;
}
