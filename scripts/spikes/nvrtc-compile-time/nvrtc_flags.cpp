// Does an NVRTC option make a candidate's compile cheaper without changing its machine code? For
// COUNT distinct sgemm binaries of a results file (general path, as the tuner compiles them), each
// compiled with the tuner's options and with those plus EXTRA (one option per argument), in turn
// (A, B, B, A, ...: load drifts cancel), on one thread. Prints each pair's seconds and whether the
// two cubins' code (the .text sections' bytes, text_sections.py) is identical, then the totals.
// Issue #47: cold multi-GPU runs are bound by compiles. Runs on a machine without a GPU.
//   nvrtc_flags RESULTS_JSON COUNT ARCH EXTRA...   (from the checkout's root; build.sh beside it builds it)
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/embedded_files.hpp"
#include "scripts/spikes/nvrtc-compile-time/sgemm_compiles.hpp"

namespace {

const char* kHere = "scripts/spikes/nvrtc-compile-time";  // run from the checkout's root

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
  const std::string tmpl(gemmtune::embedded_file("kernel_templates/sgemm.cuh"));
  const std::vector<std::string> base = spike::tuner_options(arch);
  std::vector<std::string> extra = base;
  for (int i = 4; i < argc; ++i) extra.push_back(argv[i]);
  const std::vector<std::string> exprs = spike::sgemm_expressions(argv[1], std::stoul(argv[2]));
  double base_total = 0, extra_total = 0;
  int same = 0;
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    spike::Compile a, b;
    if (i % 2 == 0) {
      a = spike::compile(tmpl, exprs[i], base);
      b = spike::compile(tmpl, exprs[i], extra);
    } else {
      b = spike::compile(tmpl, exprs[i], extra);
      a = spike::compile(tmpl, exprs[i], base);
    }
    const double ta = a.seconds, tb = b.seconds;
    const bool identical = sass(a.cubin, "a") == sass(b.cubin, "b");
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
