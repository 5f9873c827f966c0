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
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/embedded_files.hpp"
#include "scripts/spikes/nvrtc-compile-time/sgemm_compiles.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double compile(const std::string& mode, const std::string& expr, const std::string& arch, int index,
               const std::string& pch_dir, std::string* log_out) {
  const std::string tmpl(gemmtune::embedded_file("kernel_templates/sgemm.cuh"));
  std::vector<std::string> options = spike::tuner_options(arch);
  if (mode == "pch") {
    options.push_back("--pch");
    options.push_back("--pch-dir=" + pch_dir);
  }
  if (mode == "trace") options.push_back("--fdevice-time-trace=trace-" + std::to_string(index) + ".json");
  const spike::Compile c = mode == "pch" ? spike::compile("#include \"gemmtune_sgemm.cuh\"\n", expr, options,
                                                          "gemmtune_sgemm.cuh", tmpl.c_str())
                                         : spike::compile(tmpl, expr, options);
  if (log_out) *log_out = c.log;
  return c.seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s RESULTS_JSON COUNT THREADS plain|pch|trace [ARCH]\n", argv[0]);
    return 2;
  }
  const std::string arch = argc > 5 ? argv[5] : "sm_90";
  const std::vector<std::string> exprs =
      spike::sgemm_expressions(argv[1], std::stoul(argv[2]), argc > 6 ? std::stoul(argv[6]) : 0);
  const unsigned threads = std::stoul(argv[3]);
  const std::string mode = argv[4];
  const std::string pch_dir = (std::filesystem::temp_directory_path() / ("gemmtune-pch-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(pch_dir);
  if (mode == "pch") {  // the first compile creates the PCH; report it apart
    std::string log;
    // The reduction kernel: a program no measured compile repeats (NVRTC may cache a repeat).
    const double s = compile(mode, "gemmtune::splitk_reduce<256, 0>", arch, 0, pch_dir, &log);
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
