// Compiles mma_gemm.cuh with NVRTC (no GPU needed) for a few instantiations, as the tuner would.
#include <nvrtc.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
int main(int argc, char** argv) {
  std::ifstream f("mma_gemm.cuh");
  std::stringstream ss; ss << f.rdbuf();
  std::string src = ss.str();
  const char* names[] = {"gemmtune::mma_gemm<1,128,128,64,32,64,3,0,0,1,8,1,2,3>",
                         "gemmtune::mma_gemm<2,128,256,64,64,64,3,0,0,1,8,1,0,0>",
                         "gemmtune::mma_gemm<0,128,128,32,64,64,3,1,1,0,8,1,0,0>",
                         "gemmtune::mma_gemm<3,64,64,64,32,32,3,1,0,0,8,1,0,0>"};
  const char* arch = argc > 1 ? argv[1] : "--gpu-architecture=sm_90";
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "mma_gemm.cuh", 0, nullptr, nullptr);
  for (auto n : names) nvrtcAddNameExpression(p, n);
  const char* opts[] = {arch, "-std=c++17"};
  nvrtcResult r = nvrtcCompileProgram(p, 2, opts);
  size_t ls; nvrtcGetProgramLogSize(p, &ls);
  std::vector<char> log(ls); nvrtcGetProgramLog(p, log.data());
  std::printf("%s: %s\n%s\n", arch, nvrtcGetErrorString(r), log.data());
  if (r == NVRTC_SUCCESS) {
    for (auto n : names) { const char* low; nvrtcGetLoweredName(p, n, &low); std::printf("  %s -> %s\n", n, low); }
    size_t cs; nvrtcGetCUBINSize(p, &cs); std::printf("cubin %zu bytes\n", cs);
  }
  return r != NVRTC_SUCCESS;
}
