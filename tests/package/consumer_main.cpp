// Calls the README's multiply() the way an application would; on a machine without a GPU the call
// reports failure and the program says why. Exit code 0 either way: the test is that it builds,
// links against the installed package and runs.
#include <cstdio>
#include <gemmtune/gemmtune.hpp>

bool multiply(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);

int main() {
  float* c = nullptr;
  const bool ran = cudaMalloc(reinterpret_cast<void**>(&c), 64 * sizeof(float)) == cudaSuccess &&
                   multiply(c, c, c + 16, 4, 4, 4, nullptr) && cudaDeviceSynchronize() == cudaSuccess;
  const gemmtune::Handle handle;
  std::printf("multiply: %s; handle: %s %s\n", ran ? "ran" : "did not run",
              gemmtune::status_name(handle.status()), handle.status_message().c_str());
  cudaFree(c);
  return 0;
}
