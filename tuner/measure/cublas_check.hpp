// cuBLAS status checking for the tuner (the runtime library never links cuBLAS).
#pragma once

#include <cublas_v2.h>
#include <fmt/format.h>

#include <stdexcept>

#define GEMMTUNE_CUBLAS_CHECK(expr)                                                                       \
  do {                                                                                                    \
    const cublasStatus_t gemmtune_status_ = (expr);                                                       \
    if (gemmtune_status_ != CUBLAS_STATUS_SUCCESS)                                                        \
      throw std::runtime_error(fmt::format("{} failed: {} at {}:{}", #expr,                               \
                                           cublasGetStatusString(gemmtune_status_), __FILE__, __LINE__)); \
  } while (0)
