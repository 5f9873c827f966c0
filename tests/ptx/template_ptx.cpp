// Writes the PTX of every kernel config a results file names (each entry's best and alternatives)
// and of the built-in default config, compiled from a given template exactly as the runtime and the
// tuner compile it (KernelCompiler: same program name, name expressions and NVRTC options).
// scripts/check-template-ptx.sh runs it on two template revisions and compares the outputs, which
// proves a reshaping of the template changed no kernel.
//
// Output: DIR/<arch>/<config name>.ptx, one per distinct binary (swizzle and split-K count, which
// the same binary serves, are set to 1 in the name); a config the architecture cannot run is
// skipped with a line on stdout.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include "core/atomic_file.hpp"
#include "core/kernel_compiler.hpp"
#include "core/kernel_config.hpp"
#include "core/results_file.hpp"

namespace {

using gemmtune::KernelConfig;

// The binary's identity: launch-time fields set to 1, as in KernelConfig::same_binary.
KernelConfig binary_of(KernelConfig c) {
  c.swizzle = 1;
  c.split_k = 1;
  return c;
}

void add_unique(std::vector<KernelConfig>& configs, const KernelConfig& c) {
  const KernelConfig b = binary_of(c);
  if (std::find(configs.begin(), configs.end(), b) == configs.end()) configs.push_back(b);
}

// Through core's results reader: a cuBLAS fallback entry names no config.
std::vector<KernelConfig> configs_of_results(const std::string& path) {
  const auto text = gemmtune::read_whole_file(path);
  if (!text) throw std::runtime_error("cannot read " + path);
  std::vector<KernelConfig> out;
  for (const gemmtune::TunedShape& shape : gemmtune::read_results_text(*text, path).shapes)
    for (const gemmtune::RacedConfig& raced : shape.raced) add_unique(out, raced.config);
  return out;
}

int compute_capability(const std::string& arch) { return std::stoi(arch.substr(3)); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes the PTX of the shipped kernel configs compiled from a template"};
  std::string template_path, out_dir;
  std::vector<std::string> archs, results;
  int jobs = 2;
  app.add_option("--template", template_path, "Whole template program (joined parts)")->required();
  app.add_option("--out", out_dir, "Output directory")->required();
  app.add_option("--arch", archs, "sm_XX, repeatable")->required();
  app.add_option("--jobs", jobs, "Parallel NVRTC compiles")->check(CLI::Range(1, 64));
  app.add_option("results", results, "Results files whose configs to compile");
  CLI11_PARSE(app, argc, argv);

  try {
    const auto source = gemmtune::read_whole_file(template_path);
    if (!source || source->empty()) throw std::runtime_error("cannot read " + template_path);
    std::vector<KernelConfig> configs;
    add_unique(configs, gemmtune::default_config());
    for (const auto& path : results)
      for (const auto& c : configs_of_results(path)) add_unique(configs, c);

    struct Job {
      KernelConfig config;
      std::string arch;
    };
    std::vector<Job> todo;
    for (const auto& arch : archs) {
      std::filesystem::create_directories(std::filesystem::path(out_dir) / arch);
      for (const auto& c : configs) {
        if (!gemmtune::runs_on(c, compute_capability(arch))) {
          std::printf("skipped %s %s: needs sm_%d\n", arch.c_str(), c.name().c_str(),
                      gemmtune::min_compute_capability(c));
          continue;
        }
        todo.push_back({c, arch});
      }
    }

    const gemmtune::KernelCompiler compiler("", *source);
    std::atomic<std::size_t> next{0};
    std::atomic<int> failures{0};
    std::mutex print;
    auto work = [&] {
      for (std::size_t i; (i = next++) < todo.size();) {
        const Job& job = todo[i];
        const auto file = std::filesystem::path(out_dir) / job.arch / (job.config.name() + ".ptx");
        try {
          // The wgmma family has only the whole-vector binary (tensor maps need aligned rows).
          const auto path = job.config.family == gemmtune::KernelFamily::wgmma ? gemmtune::KernelPath::whole_vectors
                                                                              : gemmtune::KernelPath::general;
          std::ofstream(file, std::ios::binary) << compiler.ptx(job.config, job.arch, path);
        } catch (const std::exception& e) {
          const std::lock_guard<std::mutex> lock(print);
          std::fprintf(stderr, "%s %s: %s\n", job.arch.c_str(), job.config.name().c_str(), e.what());
          ++failures;
        }
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < jobs; ++t) threads.emplace_back(work);
    for (auto& t : threads) t.join();
    std::printf("%zu configs, %zu compiles (config x arch), %d failed\n", configs.size(), todo.size(),
                failures.load());
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune-template-ptx: %s\n", e.what());
    return 1;
  }
}
