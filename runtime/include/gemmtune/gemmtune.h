/* The C interface of the gemmtune runtime library, for applications and languages that cannot use the
 * C++ header (gemmtune/gemmtune.hpp). Valid C99; every function returns a status and never lets an
 * error escape any other way. The semantics (results lookup, fallback order, threads and streams) are
 * those of the C++ interface, documented there and in README.md. */
#ifndef GEMMTUNE_GEMMTUNE_H
#define GEMMTUNE_GEMMTUNE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#if defined(__GNUC__)
#define GEMMTUNE_C_API __attribute__((visibility("default")))
#else
#define GEMMTUNE_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Same values as gemmtune::Status. */
typedef enum gemmtune_status {
  GEMMTUNE_SUCCESS = 0,
  GEMMTUNE_INVALID_ARGUMENT = 1,
  GEMMTUNE_NO_DEVICE = 2,
  GEMMTUNE_UNSUPPORTED_DEVICE = 3,
  GEMMTUNE_RESULTS_NOT_FOUND = 4,
  GEMMTUNE_INVALID_RESULTS = 5,
  GEMMTUNE_RESULTS_FOR_OTHER_DEVICE = 6,
  GEMMTUNE_COMPILE_FAILED = 7,
  GEMMTUNE_CUDA_ERROR = 8,
  GEMMTUNE_OUT_OF_MEMORY = 9,
  GEMMTUNE_INTERNAL_ERROR = 10
} gemmtune_status_t;

/* Same values as gemmtune::ConfigSource. */
typedef enum gemmtune_config_source {
  GEMMTUNE_EXACT_SHAPE = 0,
  GEMMTUNE_NEAREST_SHAPE = 1,
  GEMMTUNE_SAME_ARCHITECTURE = 2,
  GEMMTUNE_BUILT_IN_DEFAULT = 3
} gemmtune_config_source_t;

typedef struct gemmtune_handle* gemmtune_handle_t;

/* Creates a handle for the current CUDA device. results_path: a results file or a directory of them;
 * NULL or "" means $GEMMTUNE_RESULTS, else the results installed with the library. *handle is set
 * (to be released with gemmtune_destroy) for every status but GEMMTUNE_OUT_OF_MEMORY and
 * GEMMTUNE_INVALID_ARGUMENT (handle == NULL); the status is that of gemmtune_handle_status. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_create(gemmtune_handle_t* handle, const char* results_path);
GEMMTUNE_C_API void gemmtune_destroy(gemmtune_handle_t handle);

/* How loading went; the message is empty on success and lives as long as the handle. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_handle_status(gemmtune_handle_t handle);
GEMMTUNE_C_API const char* gemmtune_handle_message(gemmtune_handle_t handle);

/* C = alpha * A * B + beta * C on stream, row-major: A is m x k (lda), B is k x n (ldb), C is m x n
 * (ldc). Asynchronous like a kernel launch. Thread-safe. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_sgemm(gemmtune_handle_t handle, int m, int n, int k, float alpha,
                                                const float* a, int lda, const float* b, int ldb, float beta,
                                                float* c, int ldc, cudaStream_t stream);

/* The kernel gemmtune_sgemm runs for this problem (compiling it if needed) and why. a and b only
 * decide the pointer alignment (NULL: as from cudaMalloc). config_name and reason receive
 * NUL-terminated text, cut to their capacity; either may be NULL with capacity 0. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_choose(gemmtune_handle_t handle, int m, int n, int k, int lda,
                                                 int ldb, int ldc, const float* a, const float* b,
                                                 gemmtune_config_source_t* source, char* config_name,
                                                 size_t config_name_capacity, char* reason,
                                                 size_t reason_capacity);

/* Validates a results file or directory without a GPU; message (may be NULL) receives the problem. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_check_results(const char* path, char* message,
                                                        size_t message_capacity);

/* A short constant name for a status, e.g. "invalid_results". */
GEMMTUNE_C_API const char* gemmtune_status_name(gemmtune_status_t status);

/* "exact_shape", "nearest_shape", "same_architecture" or "built_in_default". */
GEMMTUNE_C_API const char* gemmtune_config_source_name(gemmtune_config_source_t source);

#ifdef __cplusplus
}
#endif

#endif /* GEMMTUNE_GEMMTUNE_H */
