// The GPU side of tuning, run as a separate process (`gemm-tune worker`) so that a candidate that
// corrupts the CUDA context or hangs costs one worker, not the tuning run. It reads one JSON
// request per line on stdin and answers one JSON line on stdout:
//   {"op":"prepare","m":..,"n":..,"k":..,"seed":..}          -> {"status":"ok","cublas_ms":[..],
//                                                                 "cublaslt_first_ms":[..],"cublaslt_best_ms":[..],
//                                                                 "cublaslt_first":{algo},"cublaslt_best":{algo},...}
//   {"op":"evaluate","config":{..},"samples":10}              -> {"status":"ok"|"incorrect"|"compile"|
//                                                                 "resources"|"launch", ...}
//   {"op":"race","configs":[..],"rounds":30}                  -> {"status":"ok","cublas_ms":[..],
//                                                                 "cublaslt_first_ms":[..],"cublaslt_best_ms":[..],
//                                                                 "configs_ms":[[..],..]}
// cuBLASLt's fields are absent where it offered no algorithm (or its best is its first choice).
// After an error that poisons the context it answers with "sticky": true and exits.
#pragma once

#include <string>

namespace gemmtune {

struct WorkerOptions {
  int device_index = 0;
  std::string cache_dir;
  std::string template_path;  // empty: the embedded template
};

int run_worker(const WorkerOptions& options);

}  // namespace gemmtune
