/* The C interface, compiled as C99 with -pedantic (the header must be valid C), run without a GPU:
 * results checking, status names, argument errors, and a handle that says why it cannot run.
 * Usage: c_api_test SOURCE_DIR. Prints one line per failed check; exit code 0 when all pass. */
#include <gemmtune/gemmtune.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect(int condition, const char* what) {
  if (!condition) {
    printf("FAILED: %s\n", what);
    ++failures;
  }
}

int main(int argc, char** argv) {
  char path[4096];
  char message[256];
  char name[128];
  char reason[512];
  gemmtune_handle_t handle = NULL;
  gemmtune_config_source_t source = GEMMTUNE_BUILT_IN_DEFAULT;
  gemmtune_status_t status;
  float value = 0.0f;
  int count = 0;
  const int has_gpu = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;

  if (argc < 2) return 2;
  snprintf(path, sizeof path, "%s/results", argv[1]);
  expect(gemmtune_check_results(path, message, sizeof message) == GEMMTUNE_SUCCESS,
         "shipped results are valid");
  expect(message[0] == '\0', "no message for valid results");
  snprintf(path, sizeof path, "%s/results/absent.json", argv[1]);
  expect(gemmtune_check_results(path, message, 16) == GEMMTUNE_RESULTS_NOT_FOUND, "missing file");
  expect(strlen(message) == 15, "message cut to its buffer");
  expect(gemmtune_check_results(NULL, NULL, 0) == GEMMTUNE_INVALID_ARGUMENT, "null path");
  expect(strcmp(gemmtune_status_name(GEMMTUNE_INVALID_RESULTS), "invalid_results") == 0, "status name");
  expect(strcmp(gemmtune_config_source_name(GEMMTUNE_NEAREST_SHAPE), "nearest_shape") == 0, "source name");

  expect(gemmtune_create(NULL, NULL) == GEMMTUNE_INVALID_ARGUMENT, "create without a handle pointer");
  snprintf(path, sizeof path, "%s/results", argv[1]);
  status = gemmtune_create(&handle, path);
  expect(handle != NULL, "handle created");
  expect(status == gemmtune_handle_status(handle), "create returns the handle's status");
  expect(status == (has_gpu ? GEMMTUNE_SUCCESS : GEMMTUNE_NO_DEVICE), "status is success or no_device");
  expect(gemmtune_sgemm(handle, 4, 4, 4, 1.0f, &value, 3, &value, 4, 0.0f, &value, 4, NULL) ==
             GEMMTUNE_INVALID_ARGUMENT,
         "lda below k");
  expect(gemmtune_sgemm(NULL, 4, 4, 4, 1.0f, &value, 4, &value, 4, 0.0f, &value, 4, NULL) ==
             GEMMTUNE_INVALID_ARGUMENT,
         "no handle");
  /* Every precision through the one call: bad arguments and unknown precisions are refused first. */
  expect(gemmtune_gemm(NULL, GEMMTUNE_BF16, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 4, 4, 4, 1.0f, &value, 4, 0, &value, 4, 0,
                       0.0f, &value, 4, 0, 1, NULL) == GEMMTUNE_INVALID_ARGUMENT,
         "gemm without a handle");
  expect(gemmtune_gemm(handle, (gemmtune_precision_t)7, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 4, 4, 4, 1.0f, &value, 4, 0,
                       &value, 4, 0, 0.0f, &value, 4, 0, 1, NULL) == GEMMTUNE_INVALID_ARGUMENT,
         "an unknown precision");
  expect(gemmtune_gemm(handle, GEMMTUNE_FP16, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 4, 4, 4, 1.0f, &value, 3, 0, &value, 4,
                       0, 0.0f, &value, 4, 0, 1, NULL) == GEMMTUNE_INVALID_ARGUMENT,
         "fp16 with lda below k");
  {
    /* The problem-as-one-value form (bindings): the same checks as gemmtune_gemm. */
    gemmtune_sgemm_problem_t problem = {GEMMTUNE_OP_N, GEMMTUNE_OP_N, 4, 4, 4, 3, 4, 4, 1, 0, 0, 0, 1.0f, 0.0f};
    expect(gemmtune_run_gemm_problem(handle, GEMMTUNE_BF16, NULL, &value, &value, &value, NULL) ==
               GEMMTUNE_INVALID_ARGUMENT,
           "run_gemm_problem without a problem");
    expect(gemmtune_run_gemm_problem(NULL, GEMMTUNE_BF16, &problem, &value, &value, &value, NULL) ==
               GEMMTUNE_INVALID_ARGUMENT,
           "run_gemm_problem without a handle");
    expect(gemmtune_run_gemm_problem(handle, GEMMTUNE_FP16, &problem, &value, &value, &value, NULL) ==
               GEMMTUNE_INVALID_ARGUMENT,
           "run_gemm_problem with lda below k");
    problem.lda = 4;
    expect(gemmtune_run_gemm_problem(handle, (gemmtune_precision_t)7, &problem, &value, &value, &value, NULL) ==
               GEMMTUNE_INVALID_ARGUMENT,
           "run_gemm_problem with an unknown precision");
    expect(gemmtune_run_gemm_problem_bias(handle, GEMMTUNE_BF16, GEMMTUNE_C_OPERAND_TYPE, &problem, &value, &value,
                                          (const char*)&value + 1, &value, NULL) == GEMMTUNE_INVALID_ARGUMENT,
           "a bias not aligned to its element");
    expect(gemmtune_gemm_bias(handle, GEMMTUNE_FP32, GEMMTUNE_C_OPERAND_TYPE, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 4, 4, 4,
                              1.0f, &value, 4, 0, &value, 4, 0, 0.0f, &value, &value, 4, 0, 1, NULL) ==
               GEMMTUNE_INVALID_ARGUMENT,
           "a 16-bit C and bias with FP32 operands");
    expect(gemmtune_choose_gemm(NULL, GEMMTUNE_BF16, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 4, 4, 4, NULL, 4, 0, NULL, 4, 0, 4,
                                0, 1, &source, name, sizeof name, reason, sizeof reason) == GEMMTUNE_INVALID_ARGUMENT,
           "choose_gemm without a handle");
  }
  expect(gemmtune_set_sgemm_precision(handle, GEMMTUNE_BF16) == GEMMTUNE_INVALID_ARGUMENT,
         "the sgemm opt-in takes 3xtf32 or fp32 only");
  expect(gemmtune_set_sgemm_precision(handle, GEMMTUNE_3XTF32) == GEMMTUNE_SUCCESS, "the sgemm opt-in");
  expect(gemmtune_set_sgemm_precision(NULL, GEMMTUNE_3XTF32) == GEMMTUNE_INVALID_ARGUMENT, "opt-in without a handle");
  if (!has_gpu) {
    expect(strlen(gemmtune_handle_message(handle)) > 0, "no_device has a message");
    expect(gemmtune_choose(handle, 4, 4, 4, 4, 4, 4, NULL, NULL, &source, name, sizeof name, reason,
                           sizeof reason) == GEMMTUNE_NO_DEVICE,
           "choose without a device");
    expect(gemmtune_choose_gemm(handle, GEMMTUNE_BF16, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 4, 4, 4, NULL, 4, 0, NULL, 4, 0,
                                4, 0, 1, &source, name, sizeof name, reason, sizeof reason) == GEMMTUNE_NO_DEVICE,
           "choose_gemm without a device");
  }
  gemmtune_destroy(handle);
  gemmtune_destroy(NULL);
  return failures == 0 ? 0 : 1;
}
