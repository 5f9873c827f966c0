/* The C header from the installed package, as C99, and the README's C snippet (readme_snippet_c.c,
 * extracted by consumer_test.cmake): open a handle, multiply once, close. On a machine without a
 * GPU the snippet reports why it cannot run and the program says so; the test is that it builds,
 * links against the installed package and runs. With a GPU the multiplication must succeed. */
#include <gemmtune/gemmtune.h>
#include <stdio.h>

/* Defined by the README's C snippet. */
gemmtune_status_t gemm_open(cudaStream_t stream);
gemmtune_status_t multiply_cm(const float* a, const float* b, float* c, int m, int n, int k);
void gemm_close(void);

int main(void) {
  float* c = NULL;
  int devices = 0;
  const int has_gpu = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  const gemmtune_status_t opened = gemm_open(NULL);
  gemmtune_status_t ran = GEMMTUNE_NO_DEVICE;
  if (has_gpu && cudaMalloc((void**)&c, 64 * sizeof(float)) == cudaSuccess &&
      cudaMemset(c, 0, 64 * sizeof(float)) == cudaSuccess) {
    ran = multiply_cm(c, c, c + 16, 4, 4, 4);
    if (ran == GEMMTUNE_SUCCESS && cudaDeviceSynchronize() != cudaSuccess) ran = GEMMTUNE_CUDA_ERROR;
  } else {
    ran = multiply_cm(NULL, NULL, NULL, 4, 4, 4); /* must fail cleanly, with a status */
  }
  printf("gemm_open: %s; multiply_cm: %s\n", gemmtune_status_name(opened), gemmtune_status_name(ran));
  gemm_close();
  cudaFree(c);
  if (has_gpu) return ran == GEMMTUNE_SUCCESS ? 0 : 1;
  return ran != GEMMTUNE_SUCCESS ? 0 : 1;
}
