// The text table `gemm-tune bench` prints, one line per problem, kept apart from the GPU work so
// the host tests can check what a row shows. Columns that have nothing to show print "-": % of peak
// where the device profile knows no peak for the precision (device_profile.hpp), the normwise
// errors where none was measured (fp32; results files written before they were recorded).
#pragma once

#include <optional>
#include <string>

namespace gemmtune {

struct BenchRow {
  std::string problem;
  std::string config;                     // the tuned config's name, or "no kernel: <why>"
  std::optional<double> tflops;           // the tuned kernel's; none without a kernel
  std::optional<double> percent_of_peak;  // of the peak in the problem's precision
  double cublas_tflops = 0;
  std::optional<double> cublas_percent_of_peak;
  std::optional<double> ratio;      // cuBLAS time / kernel time; none without a kernel
  std::optional<double> vs_lt;      // the fastest cuBLASLt contestant's time / kernel time
  double normwise_error = 0;        // the results entry's, 0: not measured
  double sgemm_normwise_error = 0;  // cuBLAS SGEMM's on the same inputs (3xtf32), 0: not measured
  double delivered = 0;             // what the library runs there, against cuBLAS's default call
  std::string runs;                 // " (cuBLAS)" or " (cuBLASLt)" where the library runs one; else empty
};

// The header and one row; with_errors adds the two normwise error columns (only where a problem of
// the run has them, so an fp32 table stays as it was).
std::string bench_header(bool with_errors);
std::string bench_line(const BenchRow& row, bool with_errors);

}  // namespace gemmtune
