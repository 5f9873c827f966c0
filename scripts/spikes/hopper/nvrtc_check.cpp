// Compiles wgmma_gemm.cuh with NVRTC for sm_90a (no GPU needed), with the tuner's options
// (core/kernel_compiler.cpp: --std=c++17, -Xptxas=-v, -default-device), and prints ptxas's report
// per instantiation. Fails if NVRTC fails, if ptxas spills, or if it serialises the wgmmas
// (warning C7515 and its kin). Usage: nvrtc_check [dir of the headers]
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  std::ifstream f(dir + "/wgmma_gemm.cuh");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string src = ss.str();
  if (src.empty()) {
    std::fprintf(stderr, "cannot read %s/wgmma_gemm.cuh\n", dir.c_str());
    return 2;
  }
  const char* names[] = {"gemmtune::wgmma_gemm<0,128,128,4,1>", "gemmtune::wgmma_gemm<0,128,256,4,2>",
                         "gemmtune::wgmma_gemm<0,256,128,4,2>", "gemmtune::wgmma_gemm<1,128,128,4,1>", "gemmtune::wgmma_gemm<2,128,256,4,2>", "gemmtune::wgmma_gemm<0,64,128,8,1>", "gemmtune::wgmma_gemm<0,128,256,4,2,2,1>", "gemmtune::wgmma_gemm<0,128,256,4,2,1,2>",
                         "gemmtune::wgmma_gemm<1,128,256,4,2>", "gemmtune::wgmma_gemm_3xtf32<128,128,3,2,0>", "gemmtune::wgmma_gemm_3xtf32<128,128,4,2,1>", "gemmtune::wgmma_gemm_3xtf32<128,128,4,2,2>"};
  nvrtcProgram p;
  if (nvrtcCreateProgram(&p, src.c_str(), "wgmma_gemm.cuh", 0, nullptr, nullptr) != NVRTC_SUCCESS) return 2;
  for (auto n : names) nvrtcAddNameExpression(p, n);
  const std::string inc = "--include-path=" + dir;
  const char* opts[] = {"--gpu-architecture=sm_90a", "--std=c++17", "-Xptxas=-v", "-default-device", inc.c_str()};
  const nvrtcResult r = nvrtcCompileProgram(p, 5, opts);
  size_t ls;
  nvrtcGetProgramLogSize(p, &ls);
  std::vector<char> log(ls + 1, 0);
  nvrtcGetProgramLog(p, log.data());
  std::printf("NVRTC sm_90a: %s\n%s\n", nvrtcGetErrorString(r), log.data());
  if (r != NVRTC_SUCCESS) return 1;
  for (auto n : names) {
    const char* low;
    nvrtcGetLoweredName(p, n, &low);
    std::printf("  %s -> %s\n", n, low);
  }
  size_t cs;
  nvrtcGetCUBINSize(p, &cs);
  std::printf("cubin %zu bytes\n", cs);
  const std::string l(log.data());
  const bool spills = l.find(" 0 bytes spill stores") == std::string::npos && l.find("spill") != std::string::npos;
  bool bad = false;
  for (size_t pos = 0; (pos = l.find("bytes spill stores", pos)) != std::string::npos; ++pos) {
    // "N bytes spill stores": N must be 0
    size_t b = l.rfind(',', pos);
    if (b != std::string::npos && std::stoi(l.substr(b + 1, pos - b - 1)) != 0) bad = true;
  }
  const bool serial = l.find("C7515") != std::string::npos || l.find("serializ") != std::string::npos;
  (void)spills;
  std::printf("spills: %s, wgmma serialisation warning: %s\n", bad ? "YES" : "none", serial ? "YES" : "none");
  return bad || serial ? 1 : 0;
}
