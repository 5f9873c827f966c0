// Writes the PTX of every kernel config a results file names (each entry's best and alternatives)
// and of the built-in default config, compiled from a given template exactly as the runtime and the
// tuner compile it (KernelCompiler: same program name, name expressions and NVRTC options).
// scripts/check-template-ptx.sh runs it on two template revisions and compares the outputs, which
// proves a reshaping of the template changed no kernel.
//
// Output: DIR/<arch>/<config name>.ptx, one per distinct binary (swizzle and split-K count, which
// the same binary serves, are set to 1 in the name); a config the architecture cannot run is
// skipped with a line on stdout. The general path's binary (the wgmma family's whole-vector one), or
// with --every-path each path's the runtime may load, the specialised ones named
// <config name>.whole_vectors.ptx and .whole_tiles.ptx (what a call with aligned operands runs).
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
#include "core/kernel_path.hpp"
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

// The paths whose binaries are written: the one every call can run, and with every_path the
// specialised ones the config has. The wgmma family has only the whole-vector binary (tensor maps
// need aligned rows).
std::vector<gemmtune::KernelPath> paths_of(const KernelConfig& c, bool every_path) {
  using gemmtune::KernelPath;
  if (c.family == gemmtune::KernelFamily::wgmma) return {KernelPath::whole_vectors};
  std::vector<KernelPath> paths{KernelPath::general};
  if (every_path && c.vector_width > 1) paths.push_back(KernelPath::whole_vectors);
  if (every_path && gemmtune::has_whole_tiles_path(c)) paths.push_back(KernelPath::whole_tiles);
  return paths;
}

const char* file_suffix(gemmtune::KernelPath path, const KernelConfig& c) {
  if (path == gemmtune::KernelPath::general || c.family == gemmtune::KernelFamily::wgmma) return ".ptx";
  return path == gemmtune::KernelPath::whole_vectors ? ".whole_vectors.ptx" : ".whole_tiles.ptx";
}

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
  bool every_path = false;
  app.add_flag("--every-path", every_path, "Also the whole-vector and whole-tile binaries of each config");
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
      gemmtune::KernelPath path;
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
        for (const gemmtune::KernelPath path : paths_of(c, every_path)) todo.push_back({c, arch, path});
      }
    }

    const gemmtune::KernelCompiler compiler("", *source);
    std::atomic<std::size_t> next{0};
    std::atomic<int> failures{0};
    std::mutex print;
    auto work = [&] {
      for (std::size_t i; (i = next++) < todo.size();) {
        const Job& job = todo[i];
        const auto file =
            std::filesystem::path(out_dir) / job.arch / (job.config.name() + file_suffix(job.path, job.config));
        try {
          std::ofstream(file, std::ios::binary) << compiler.ptx(job.config, job.arch, job.path);
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
    std::printf("%zu configs, %zu compiles (config x arch x path), %d failed\n", configs.size(), todo.size(),
                failures.load());
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune-template-ptx: %s\n", e.what());
    return 1;
  }
}
