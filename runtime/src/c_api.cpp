// The C interface (gemmtune/gemmtune.h) over gemmtune::Handle: same enums by value, text copied into
// caller buffers, and nothing thrown across the boundary.
#include <gemmtune/gemmtune.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <gemmtune/gemmtune.hpp>
#include <new>
#include <string>

#include "core/atomic_file.hpp"
#include "core/record_file.hpp"
#include "core/version.hpp"
#include "shape_recorder.hpp"

struct gemmtune_handle {
  gemmtune::Handle handle;
};

namespace {

using gemmtune::ConfigSource;
using gemmtune::Status;

static_assert(GEMMTUNE_SUCCESS == static_cast<int>(Status::success) &&
                  GEMMTUNE_INVALID_ARGUMENT == static_cast<int>(Status::invalid_argument) &&
                  GEMMTUNE_NO_DEVICE == static_cast<int>(Status::no_device) &&
                  GEMMTUNE_UNSUPPORTED_DEVICE == static_cast<int>(Status::unsupported_device) &&
                  GEMMTUNE_RESULTS_NOT_FOUND == static_cast<int>(Status::results_not_found) &&
                  GEMMTUNE_INVALID_RESULTS == static_cast<int>(Status::invalid_results) &&
                  GEMMTUNE_RESULTS_FOR_OTHER_DEVICE == static_cast<int>(Status::results_for_other_device) &&
                  GEMMTUNE_COMPILE_FAILED == static_cast<int>(Status::compile_failed) &&
                  GEMMTUNE_CUDA_ERROR == static_cast<int>(Status::cuda_error) &&
                  GEMMTUNE_OUT_OF_MEMORY == static_cast<int>(Status::out_of_memory) &&
                  GEMMTUNE_INTERNAL_ERROR == static_cast<int>(Status::internal_error),
              "C and C++ status values differ");
static_assert(GEMMTUNE_EXACT_SHAPE == static_cast<int>(ConfigSource::exact_shape) &&
                  GEMMTUNE_NEAREST_SHAPE == static_cast<int>(ConfigSource::nearest_shape) &&
                  GEMMTUNE_SAME_ARCHITECTURE == static_cast<int>(ConfigSource::same_architecture) &&
                  GEMMTUNE_BUILT_IN_DEFAULT == static_cast<int>(ConfigSource::built_in_default) &&
                  GEMMTUNE_PORTFOLIO == static_cast<int>(ConfigSource::portfolio),
              "C and C++ config sources differ");
static_assert(GEMMTUNE_OP_N == static_cast<int>(gemmtune::Op::n) && GEMMTUNE_OP_T == static_cast<int>(gemmtune::Op::t),
              "C and C++ operations differ");

gemmtune_status_t to_c(Status s) {
  return static_cast<gemmtune_status_t>(s);
}

// Any other value is passed on and refused by the library's own checks.
gemmtune::Op to_op(gemmtune_operation_t op) {
  return static_cast<gemmtune::Op>(op);
}

// The C struct as the library's problem (FP32; the caller sets another precision).
gemmtune::GemmProblem problem_of(const gemmtune_sgemm_problem_t& q) {
  gemmtune::GemmProblem p;
  p.m = q.m, p.n = q.n, p.k = q.k, p.lda = q.lda, p.ldb = q.ldb, p.ldc = q.ldc;
  p.op_a = to_op(static_cast<gemmtune_operation_t>(q.op_a)), p.op_b = to_op(static_cast<gemmtune_operation_t>(q.op_b));
  p.batch = q.batch_count, p.stride_a = q.stride_a, p.stride_b = q.stride_b, p.stride_c = q.stride_c;
  return p;
}

// The precision and C type of the _ex calls; values out of range are refused by the library's checks
// (a c_type other than the two: invalid_argument here, as the C++ struct holds a bool).
bool set_types(gemmtune::GemmProblem& p, gemmtune_precision_t precision, gemmtune_c_type_t c_type) {
  p.precision = static_cast<gemmtune::Precision>(precision);
  p.c16 = c_type == GEMMTUNE_C_OPERAND_TYPE;
  return c_type == GEMMTUNE_C_FP32 || c_type == GEMMTUNE_C_OPERAND_TYPE;
}

// Copies text into buffer, cut to capacity - 1 bytes and NUL-terminated.
void copy_text(const std::string& text, char* buffer, size_t capacity) {
  if (!buffer || capacity == 0) return;
  const size_t length = text.size() < capacity - 1 ? text.size() : capacity - 1;
  std::memcpy(buffer, text.data(), length);
  buffer[length] = '\0';
}

// The choose calls' common half: what runs problem, and why, into the caller's buffers. Only the
// choice's strings can throw (std::bad_alloc), which the callers report as out of memory.
gemmtune_status_t report_choice(const gemmtune_handle& handle, const gemmtune::GemmProblem& problem, const float* a,
                                const float* b, gemmtune_config_source_t* source, char* config_name,
                                size_t config_name_capacity, char* reason, size_t reason_capacity) {
  gemmtune::KernelChoice choice;
  const Status s = handle.handle.choose(problem, a, b, choice);
  if (s != Status::success) return to_c(s);
  if (source) *source = static_cast<gemmtune_config_source_t>(choice.source);
  copy_text(choice.config_name, config_name, config_name_capacity);
  copy_text(choice.reason, reason, reason_capacity);
  return GEMMTUNE_SUCCESS;
}

// A recording session's start or stop: its error, where it throws one, in message.
template <class Action>
gemmtune_status_t record_session_call(Action&& action, char* message, size_t message_capacity) {
  try {
    action();
    copy_text("", message, message_capacity);
    return GEMMTUNE_SUCCESS;
  } catch (const std::bad_alloc&) {
    return GEMMTUNE_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    copy_text(e.what(), message, message_capacity);
    return GEMMTUNE_INVALID_ARGUMENT;
  } catch (...) {
    return GEMMTUNE_INTERNAL_ERROR;
  }
}

}  // namespace

extern "C" {

gemmtune_status_t gemmtune_create(gemmtune_handle_t* handle, const char* results_path) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  *handle = nullptr;
  try {
    *handle = new gemmtune_handle{gemmtune::Handle(results_path ? results_path : "")};
  } catch (...) {
    return GEMMTUNE_OUT_OF_MEMORY;
  }
  return to_c((*handle)->handle.status());
}

void gemmtune_destroy(gemmtune_handle_t handle) {
  delete handle;
}

gemmtune_status_t gemmtune_handle_status(gemmtune_handle_t handle) {
  return handle ? to_c(handle->handle.status()) : GEMMTUNE_INVALID_ARGUMENT;
}

const char* gemmtune_handle_message(gemmtune_handle_t handle) {
  return handle ? handle->handle.status_message().c_str() : "no handle";
}

gemmtune_status_t gemmtune_sgemm(gemmtune_handle_t handle, int m, int n, int k, float alpha, const float* a,
                                 int lda, const float* b, int ldb, float beta, float* c, int ldc,
                                 cudaStream_t stream) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  return to_c(handle->handle.sgemm({m, n, k, lda, ldb, ldc}, alpha, a, b, beta, c, stream));
}

gemmtune_status_t gemmtune_sgemm_strided_batched(gemmtune_handle_t handle, gemmtune_operation_t op_a,
                                                 gemmtune_operation_t op_b, int m, int n, int k, float alpha,
                                                 const float* a, int lda, long long stride_a, const float* b, int ldb,
                                                 long long stride_b, float beta, float* c, int ldc, long long stride_c,
                                                 int batch_count, cudaStream_t stream) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  gemmtune::GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.lda = lda, p.ldb = ldb, p.ldc = ldc;
  p.op_a = to_op(op_a), p.op_b = to_op(op_b);
  p.batch = batch_count, p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
  return to_c(handle->handle.sgemm(p, alpha, a, b, beta, c, stream));
}

gemmtune_status_t gemmtune_gemm(gemmtune_handle_t handle, gemmtune_precision_t precision, gemmtune_operation_t op_a,
                                gemmtune_operation_t op_b, int m, int n, int k, float alpha, const void* a, int lda,
                                long long stride_a, const void* b, int ldb, long long stride_b, float beta, float* c,
                                int ldc, long long stride_c, int batch_count, cudaStream_t stream) {
  return gemmtune_gemm_ex(handle, precision, GEMMTUNE_C_FP32, op_a, op_b, m, n, k, alpha, a, lda, stride_a, b, ldb,
                          stride_b, beta, c, ldc, stride_c, batch_count, stream);
}

gemmtune_status_t gemmtune_gemm_ex(gemmtune_handle_t handle, gemmtune_precision_t precision, gemmtune_c_type_t c_type,
                                   gemmtune_operation_t op_a, gemmtune_operation_t op_b, int m, int n, int k,
                                   float alpha, const void* a, int lda, long long stride_a, const void* b, int ldb,
                                   long long stride_b, float beta, void* c, int ldc, long long stride_c,
                                   int batch_count, cudaStream_t stream) {
  return gemmtune_gemm_bias(handle, precision, c_type, op_a, op_b, m, n, k, alpha, a, lda, stride_a, b, ldb,
                            stride_b, beta, nullptr, c, ldc, stride_c, batch_count, stream);
}

gemmtune_status_t gemmtune_gemm_bias(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                     gemmtune_c_type_t c_type, gemmtune_operation_t op_a, gemmtune_operation_t op_b,
                                     int m, int n, int k, float alpha, const void* a, int lda, long long stride_a,
                                     const void* b, int ldb, long long stride_b, float beta, const void* bias,
                                     void* c, int ldc, long long stride_c, int batch_count, cudaStream_t stream) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  gemmtune::GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.lda = lda, p.ldb = ldb, p.ldc = ldc;
  p.op_a = to_op(op_a), p.op_b = to_op(op_b);
  p.batch = batch_count, p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
  if (!set_types(p, precision, c_type)) return GEMMTUNE_INVALID_ARGUMENT;
  return to_c(handle->handle.gemm_bias(p, alpha, a, b, beta, bias, c, stream));
}

gemmtune_status_t gemmtune_set_sgemm_precision(gemmtune_handle_t handle, gemmtune_precision_t precision) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  return to_c(handle->handle.set_sgemm_precision(static_cast<gemmtune::Precision>(precision)));
}

gemmtune_status_t gemmtune_run_sgemm_problem(gemmtune_handle_t handle, const gemmtune_sgemm_problem_t* problem,
                                             const float* a, const float* b, float* c, cudaStream_t stream) {
  if (!handle || !problem) return GEMMTUNE_INVALID_ARGUMENT;
  return to_c(handle->handle.sgemm(problem_of(*problem), problem->alpha, a, b, problem->beta, c, stream));
}

gemmtune_status_t gemmtune_run_gemm_problem(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                            const gemmtune_sgemm_problem_t* problem, const void* a, const void* b,
                                            float* c, cudaStream_t stream) {
  return gemmtune_run_gemm_problem_ex(handle, precision, GEMMTUNE_C_FP32, problem, a, b, c, stream);
}

gemmtune_status_t gemmtune_run_gemm_problem_ex(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                               gemmtune_c_type_t c_type, const gemmtune_sgemm_problem_t* problem,
                                               const void* a, const void* b, void* c, cudaStream_t stream) {
  return gemmtune_run_gemm_problem_bias(handle, precision, c_type, problem, a, b, nullptr, c, stream);
}

gemmtune_status_t gemmtune_run_gemm_problem_bias(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                                 gemmtune_c_type_t c_type, const gemmtune_sgemm_problem_t* problem,
                                                 const void* a, const void* b, const void* bias, void* c,
                                                 cudaStream_t stream) {
  if (!handle || !problem) return GEMMTUNE_INVALID_ARGUMENT;
  gemmtune::GemmProblem p = problem_of(*problem);
  if (!set_types(p, precision, c_type)) return GEMMTUNE_INVALID_ARGUMENT;
  return to_c(handle->handle.gemm_bias(p, problem->alpha, a, b, problem->beta, bias, c, stream));
}

gemmtune_status_t gemmtune_sgemm_cm(gemmtune_handle_t handle, gemmtune_operation_t transa,
                                    gemmtune_operation_t transb, int m, int n, int k, const float* alpha,
                                    const float* a, int lda, const float* b, int ldb, const float* beta, float* c,
                                    int ldc) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  return to_c(handle->handle.sgemm_cm(to_op(transa), to_op(transb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
}

gemmtune_status_t gemmtune_sgemm_strided_batched_cm(gemmtune_handle_t handle, gemmtune_operation_t transa,
                                                    gemmtune_operation_t transb, int m, int n, int k,
                                                    const float* alpha, const float* a, int lda, long long stride_a,
                                                    const float* b, int ldb, long long stride_b, const float* beta,
                                                    float* c, int ldc, long long stride_c, int batch_count) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  return to_c(handle->handle.sgemm_strided_batched_cm(to_op(transa), to_op(transb), m, n, k, alpha, a, lda, stride_a,
                                                      b, ldb, stride_b, beta, c, ldc, stride_c, batch_count));
}

gemmtune_status_t gemmtune_set_stream(gemmtune_handle_t handle, cudaStream_t stream) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  handle->handle.set_stream(stream);
  return GEMMTUNE_SUCCESS;
}

gemmtune_status_t gemmtune_choose(gemmtune_handle_t handle, int m, int n, int k, int lda, int ldb, int ldc,
                                  const float* a, const float* b, gemmtune_config_source_t* source,
                                  char* config_name, size_t config_name_capacity, char* reason,
                                  size_t reason_capacity) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  try {
    return report_choice(*handle, {m, n, k, lda, ldb, ldc}, a, b, source, config_name, config_name_capacity, reason,
                         reason_capacity);
  } catch (...) {
    return GEMMTUNE_OUT_OF_MEMORY;
  }
}

gemmtune_status_t gemmtune_choose_strided_batched(gemmtune_handle_t handle, gemmtune_operation_t op_a,
                                                  gemmtune_operation_t op_b, int m, int n, int k, const float* a,
                                                  int lda, long long stride_a, const float* b, int ldb,
                                                  long long stride_b, int ldc, long long stride_c, int batch_count,
                                                  gemmtune_config_source_t* source, char* config_name,
                                                  size_t config_name_capacity, char* reason, size_t reason_capacity) {
  return gemmtune_choose_gemm(handle, GEMMTUNE_FP32, op_a, op_b, m, n, k, a, lda, stride_a, b, ldb, stride_b, ldc,
                              stride_c, batch_count, source, config_name, config_name_capacity, reason, reason_capacity);
}

gemmtune_status_t gemmtune_choose_gemm(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                       gemmtune_operation_t op_a, gemmtune_operation_t op_b, int m, int n, int k,
                                       const void* a, int lda, long long stride_a, const void* b, int ldb,
                                       long long stride_b, int ldc, long long stride_c, int batch_count,
                                       gemmtune_config_source_t* source, char* config_name,
                                       size_t config_name_capacity, char* reason, size_t reason_capacity) {
  return gemmtune_choose_gemm_ex(handle, precision, GEMMTUNE_C_FP32, op_a, op_b, m, n, k, a, lda, stride_a, b, ldb,
                                 stride_b, ldc, stride_c, batch_count, source, config_name, config_name_capacity,
                                 reason, reason_capacity);
}

gemmtune_status_t gemmtune_choose_gemm_ex(gemmtune_handle_t handle, gemmtune_precision_t precision,
                                          gemmtune_c_type_t c_type, gemmtune_operation_t op_a,
                                          gemmtune_operation_t op_b, int m, int n, int k, const void* a, int lda,
                                          long long stride_a, const void* b, int ldb, long long stride_b, int ldc,
                                          long long stride_c, int batch_count, gemmtune_config_source_t* source,
                                          char* config_name, size_t config_name_capacity, char* reason,
                                          size_t reason_capacity) {
  if (!handle) return GEMMTUNE_INVALID_ARGUMENT;
  try {
    gemmtune::GemmProblem p;
    p.m = m, p.n = n, p.k = k, p.lda = lda, p.ldb = ldb, p.ldc = ldc;
    p.op_a = to_op(op_a), p.op_b = to_op(op_b);
    p.batch = batch_count, p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
    if (!set_types(p, precision, c_type)) return GEMMTUNE_INVALID_ARGUMENT;
    // choose() takes the operands only for their alignment, whatever their element type.
    return report_choice(*handle, p, static_cast<const float*>(a), static_cast<const float*>(b), source, config_name,
                         config_name_capacity, reason, reason_capacity);
  } catch (...) {
    return GEMMTUNE_OUT_OF_MEMORY;
  }
}

gemmtune_status_t gemmtune_warmup(gemmtune_handle_t handle, const char* record_path, int* problems, char* message,
                                  size_t message_capacity) {
  if (problems) *problems = 0;
  if (!handle || !record_path) return GEMMTUNE_INVALID_ARGUMENT;
  try {
    const auto text = gemmtune::read_whole_file(record_path);
    if (!text) {
      copy_text(std::string("cannot read ") + record_path, message, message_capacity);
      return GEMMTUNE_INVALID_ARGUMENT;
    }
    std::vector<gemmtune::RecordedProblem> recorded;
    try {
      recorded = gemmtune::parse_record(*text, record_path);
    } catch (const std::invalid_argument& e) {
      copy_text(e.what(), message, message_capacity);
      return GEMMTUNE_INVALID_ARGUMENT;
    }
    if (problems) *problems = static_cast<int>(recorded.size());
    // Operands that start 4, 8 or 16 bytes aligned, as the recorded calls' rows were.
    alignas(16) static float stand_in[4];  // never read or written
    for (const gemmtune::RecordedProblem& rec : recorded) {
      const gemmtune::GemmShape& r = rec.problem;
      const bool ta = gemmtune::op_a_transposed(r.layout), tb = gemmtune::op_b_transposed(r.layout);
      gemmtune::GemmProblem p;
      p.m = r.m, p.n = r.n, p.k = r.k;
      p.op_a = ta ? gemmtune::Op::t : gemmtune::Op::n, p.op_b = tb ? gemmtune::Op::t : gemmtune::Op::n;
      p.lda = ta ? r.m : r.k, p.ldb = tb ? r.k : r.n, p.ldc = r.n;
      p.batch = r.batch;
      if (r.batch > 1) {
        p.stride_a = static_cast<long long>(r.m) * r.k;
        p.stride_b = static_cast<long long>(r.k) * r.n;
        p.stride_c = static_cast<long long>(r.m) * r.n;
      }
      const float* operand =
          rec.aligned_width >= 4 ? stand_in : rec.aligned_width == 2 ? stand_in + 2 : stand_in + 1;
      gemmtune::KernelChoice choice;
      const Status s = handle->handle.choose(p, operand, operand, choice);
      if (s != Status::success) {
        copy_text(r.label() + ": " + gemmtune::status_name(s), message, message_capacity);
        return to_c(s);
      }
    }
    copy_text("", message, message_capacity);
    return GEMMTUNE_SUCCESS;
  } catch (...) {
    return GEMMTUNE_OUT_OF_MEMORY;  // past parsing, only the strings can throw here
  }
}

gemmtune_status_t gemmtune_record_start(const char* path, char* message, size_t message_capacity) {
  if (!path) return GEMMTUNE_INVALID_ARGUMENT;
  return record_session_call([path] { gemmtune::start_record_session(path); }, message, message_capacity);
}

gemmtune_status_t gemmtune_record_stop(char* message, size_t message_capacity) {
  return record_session_call([] { gemmtune::stop_record_session(); }, message, message_capacity);
}

const char* gemmtune_version(void) {
  return gemmtune::kGemmtuneVersion;
}

gemmtune_status_t gemmtune_check_results(const char* path, char* message, size_t message_capacity) {
  if (!path) return GEMMTUNE_INVALID_ARGUMENT;
  try {
    std::string text;
    const Status s = gemmtune::check_results(path, &text);
    copy_text(text, message, message_capacity);
    return to_c(s);
  } catch (...) {
    return GEMMTUNE_OUT_OF_MEMORY;  // only the strings can throw here
  }
}

const char* gemmtune_status_name(gemmtune_status_t status) {
  return gemmtune::status_name(static_cast<Status>(status));
}

const char* gemmtune_config_source_name(gemmtune_config_source_t source) {
  return gemmtune::config_source_name(static_cast<ConfigSource>(source));
}

}  // extern "C"
