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
  GEMMTUNE_BUILT_IN_DEFAULT = 3,
  GEMMTUNE_PORTFOLIO = 4
} gemmtune_config_source_t;

/* op(X): as stored, or transposed. Same values as cublasOperation_t's CUBLAS_OP_N and CUBLAS_OP_T. */
typedef enum gemmtune_operation { GEMMTUNE_OP_N = 0, GEMMTUNE_OP_T = 1 } gemmtune_operation_t;

/* What A and B hold and how they are multiplied (gemmtune/precision.hpp); C is FP32 unless an _ex
 * call asks for the operands' own type. */
typedef enum gemmtune_precision {
  GEMMTUNE_FP32 = 0,   /* FP32 on the CUDA cores: cublasSgemm's contract */
  GEMMTUNE_3XTF32 = 1, /* FP32 operands, FP32-accurate on the tensor cores */
  GEMMTUNE_TF32 = 2,   /* FP32 operands rounded to TF32 */
  GEMMTUNE_BF16 = 3,   /* __nv_bfloat16 operands, FP32 accumulation */
  GEMMTUNE_FP16 = 4    /* __half operands, FP32 accumulation */
} gemmtune_precision_t;

/* The element type of C: FP32, or the operands' own 16-bit type (GEMMTUNE_BF16 and GEMMTUNE_FP16 only),
 * as cublasGemmEx writes with Ctype CUDA_R_16BF or CUDA_R_16F: FP32 sums, each element rounded once.
 * Tuned apart from FP32 C (the problem's "c16"). The _ex functions take it. */
typedef enum gemmtune_c_type { GEMMTUNE_C_FP32 = 0, GEMMTUNE_C_OPERAND_TYPE = 1 } gemmtune_c_type_t;

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

/* Row-major C = alpha * op(A) * op(B) + beta * C over batch_count entries, entry i at a + i * stride_a,
 * b + i * stride_b, c + i * stride_c (a stride of 0 shares A or B across the batch). op(A) is m x k:
 * A is stored m x k (lda >= k) for GEMMTUNE_OP_N, k x m (lda >= m) for GEMMTUNE_OP_T; likewise B. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_sgemm_strided_batched(
    gemmtune_handle_t handle, gemmtune_operation_t op_a, gemmtune_operation_t op_b, int m, int n, int k,
    float alpha, const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b,
    float beta, float* c, int ldc, long long stride_c, int batch_count, cudaStream_t stream);

/* gemmtune_sgemm_strided_batched in any precision (cublasGemmEx's counterpart): a and b hold the
 * precision's elements (float for FP32, 3XTF32 and TF32), leading dimensions and strides count them;
 * C is FP32. GEMMTUNE_UNSUPPORTED_DEVICE, with nothing launched, where the GPU has no tensor cores
 * for the precision. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_gemm(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                               gemmtune_operation_t op_a, gemmtune_operation_t op_b, int m, int n,
                                               int k, float alpha, const void* a, int lda, long long stride_a,
                                               const void* b, int ldb, long long stride_b, float beta, float* c,
                                               int ldc, long long stride_c, int batch_count, cudaStream_t stream);

/* gemmtune_gemm with C of c_type: c points to floats for GEMMTUNE_C_FP32, to the operands' 16-bit
 * elements for GEMMTUNE_C_OPERAND_TYPE (ldc and stride_c count them). GEMMTUNE_INVALID_ARGUMENT for a
 * 16-bit C with FP32 operands. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_gemm_ex(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                                  gemmtune_c_type_t c_type, gemmtune_operation_t op_a,
                                                  gemmtune_operation_t op_b, int m, int n, int k, float alpha,
                                                  const void* a, int lda, long long stride_a, const void* b, int ldb,
                                                  long long stride_b, float beta, void* c, int ldc,
                                                  long long stride_c, int batch_count, cudaStream_t stream);

/* gemmtune_gemm_ex with a bias, as a linear layer has: C = alpha * op(A) * op(B) + beta * C + bias,
 * bias being n elements of C's type (float for GEMMTUNE_C_FP32, else the operands' 16-bit type) added
 * to every row of every batch entry. A tuned kernel adds it as it stores C; cuBLAS and cuBLASLt calls
 * get a kernel over C first. The choice is the problem's without a bias. bias NULL: gemmtune_gemm_ex. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_gemm_bias(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                                    gemmtune_c_type_t c_type, gemmtune_operation_t op_a,
                                                    gemmtune_operation_t op_b, int m, int n, int k, float alpha,
                                                    const void* a, int lda, long long stride_a, const void* b,
                                                    int ldb, long long stride_b, float beta, const void* bias,
                                                    void* c, int ldc, long long stride_c, int batch_count,
                                                    cudaStream_t stream);

/* GEMMTUNE_3XTF32 lets the FP32 calls (gemmtune_sgemm and the others) run the problem's 3xTF32
 * winner where a kernel won it (never less accurate than cublasSgemm); GEMMTUNE_FP32 (the default,
 * or $GEMMTUNE_SGEMM_PRECISION=3xtf32 at creation) turns it off. See Handle::set_sgemm_precision. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_set_sgemm_precision(gemmtune_handle_t handle,
                                                              gemmtune_precision_t precision);

/* gemmtune_sgemm_strided_batched's arguments but the operands and the stream, as one value: a binding
 * (Python's ctypes, where each argument of a call costs) fills it once per problem and passes it with
 * four pointers per call. op_a and op_b are gemmtune_operation_t values. */
typedef struct gemmtune_sgemm_problem {
  int op_a, op_b;
  int m, n, k;
  int lda, ldb, ldc;
  int batch_count;
  long long stride_a, stride_b, stride_c;
  float alpha, beta;
} gemmtune_sgemm_problem_t;

/* gemmtune_sgemm_strided_batched with the problem as one value (problem may not be NULL). */
GEMMTUNE_C_API gemmtune_status_t gemmtune_run_sgemm_problem(gemmtune_handle_t handle,
                                                            const gemmtune_sgemm_problem_t* problem, const float* a,
                                                            const float* b, float* c, cudaStream_t stream);

/* gemmtune_gemm with the problem as one value: a binding's call for every precision (problem may not
 * be NULL; a and b hold the precision's elements, C is FP32). */
GEMMTUNE_C_API gemmtune_status_t gemmtune_run_gemm_problem(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                                           const gemmtune_sgemm_problem_t* problem, const void* a,
                                                           const void* b, float* c, cudaStream_t stream);

/* gemmtune_run_gemm_problem with C of c_type (gemmtune_gemm_ex). */
GEMMTUNE_C_API gemmtune_status_t gemmtune_run_gemm_problem_ex(gemmtune_handle_t handle,
                                                              gemmtune_precision_t precision,
                                                              gemmtune_c_type_t c_type,
                                                              const gemmtune_sgemm_problem_t* problem,
                                                              const void* a, const void* b, void* c,
                                                              cudaStream_t stream);

/* gemmtune_run_gemm_problem_ex with a bias (gemmtune_gemm_bias). */
GEMMTUNE_C_API gemmtune_status_t gemmtune_run_gemm_problem_bias(gemmtune_handle_t handle,
                                                                gemmtune_precision_t precision,
                                                                gemmtune_c_type_t c_type,
                                                                const gemmtune_sgemm_problem_t* problem,
                                                                const void* a, const void* b, const void* bias,
                                                                void* c, cudaStream_t stream);

/* cublasSgemm's and cublasSgemmStridedBatched's arguments one for one (column-major, alpha and beta
 * in host memory), on the stream set with gemmtune_set_stream: a cuBLAS caller switches by renaming. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_sgemm_cm(gemmtune_handle_t handle, gemmtune_operation_t transa,
                                                   gemmtune_operation_t transb, int m, int n, int k,
                                                   const float* alpha, const float* a, int lda, const float* b,
                                                   int ldb, const float* beta, float* c, int ldc);
GEMMTUNE_C_API gemmtune_status_t gemmtune_sgemm_strided_batched_cm(
    gemmtune_handle_t handle, gemmtune_operation_t transa, gemmtune_operation_t transb, int m, int n, int k,
    const float* alpha, const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b,
    const float* beta, float* c, int ldc, long long stride_c, int batch_count);
/* The stream of the column-major calls (cublasSetStream's counterpart); 0 until set. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_set_stream(gemmtune_handle_t handle, cudaStream_t stream);

/* What gemmtune_sgemm runs for this problem (compiling it if needed) and why: config_name is a
 * kernel's canonical name, or "cublas". a and b only
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

/* gemmtune_choose for any problem gemmtune_sgemm_strided_batched takes (op(A), op(B), strides, batch):
 * what runs and why, compiling it if needed. a and b only decide the pointer alignment (NULL: as
 * from cudaMalloc); C counts as aligned. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_choose_strided_batched(
    gemmtune_handle_t handle, gemmtune_operation_t op_a, gemmtune_operation_t op_b, int m, int n, int k,
    const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b, int ldc,
    long long stride_c, int batch_count, gemmtune_config_source_t* source, char* config_name,
    size_t config_name_capacity, char* reason, size_t reason_capacity);

/* gemmtune_choose_strided_batched in any precision: what gemmtune_gemm runs for this problem and why
 * (a and b, of the precision's element type, only decide the pointer alignment). */
GEMMTUNE_C_API gemmtune_status_t gemmtune_choose_gemm(
    gemmtune_handle_t handle, gemmtune_precision_t precision, gemmtune_operation_t op_a, gemmtune_operation_t op_b,
    int m, int n, int k, const void* a, int lda, long long stride_a, const void* b, int ldb, long long stride_b,
    int ldc, long long stride_c, int batch_count, gemmtune_config_source_t* source, char* config_name,
    size_t config_name_capacity, char* reason, size_t reason_capacity);

/* gemmtune_choose_gemm for C of c_type: what gemmtune_gemm_ex runs and why. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_choose_gemm_ex(
    gemmtune_handle_t handle, gemmtune_precision_t precision, gemmtune_c_type_t c_type, gemmtune_operation_t op_a,
    gemmtune_operation_t op_b, int m, int n, int k, const void* a, int lda, long long stride_a, const void* b, int ldb,
    long long stride_b, int ldc, long long stride_c, int batch_count, gemmtune_config_source_t* source,
    char* config_name, size_t config_name_capacity, char* reason, size_t reason_capacity);

/* Compiles, on the current device, what every problem of a record file (GEMMTUNE_RECORD's format)
 * runs, so that no later call compiles (e.g. before CUDA-graph capture). *problems (may be NULL)
 * receives how many the file held; message (may be NULL) the first problem met. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_warmup(gemmtune_handle_t handle, const char* record_path, int* problems,
                                                 char* message, size_t message_capacity);

/* Records the problems every handle of the process is called with, from gemmtune_record_start to
 * gemmtune_record_stop, into path (GEMMTUNE_RECORD's format, merged with what the file holds, under
 * its lock); GEMMTUNE_RECORD, if set, records on as well. Starting stops a recording already on.
 * Returns GEMMTUNE_INVALID_ARGUMENT with message (may be NULL) for a file that cannot be written or
 * holds something else, or a stop with no recording on. Calls replayed from a CUDA graph never
 * reach the library and are not counted. */
GEMMTUNE_C_API gemmtune_status_t gemmtune_record_start(const char* path, char* message, size_t message_capacity);
GEMMTUNE_C_API gemmtune_status_t gemmtune_record_stop(char* message, size_t message_capacity);

/* The library's version, e.g. "0.1.0". */
GEMMTUNE_C_API const char* gemmtune_version(void);

/* A short constant name for a status, e.g. "invalid_results". */
GEMMTUNE_C_API const char* gemmtune_status_name(gemmtune_status_t status);

/* "exact_shape", "nearest_shape", "same_architecture", "built_in_default" or "portfolio". */
GEMMTUNE_C_API const char* gemmtune_config_source_name(gemmtune_config_source_t source);

#ifdef __cplusplus
}
#endif

#endif /* GEMMTUNE_GEMMTUNE_H */
