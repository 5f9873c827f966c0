// Fixed-width columns, as the terminal shows them; the widths fit the longest kernel names (50).
#include "report/bench_table.hpp"

#include <fmt/format.h>

#include "report/report_tables.hpp"

namespace gemmtune {
namespace {

std::string cell(const std::optional<double>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "-";
}

}  // namespace

std::string bench_header(bool with_errors) {
  // "ratio": the tuned kernel against cuBLAS's default call, "vs Lt" against cuBLASLt's fastest
  // contestant, "err" / "SGEMM err": the normwise errors the tuner recorded for the kernel and for
  // cuBLAS SGEMM on the same inputs, "delivered": what the library runs there against the default call.
  std::string line = fmt::format("{:<16} {:<50} {:>9} {:>7} {:>9} {:>7} {:>8} {:>8}", "shape", "tuned config",
                                 "TFLOP/s", "% peak", "cuBLAS", "% peak", "ratio", "vs Lt");
  if (with_errors) line += fmt::format(" {:>9} {:>9}", "err", "SGEMM err");
  return line + fmt::format(" {:>9}\n", "delivered");
}

std::string bench_line(const BenchRow& row, bool with_errors) {
  std::string line = fmt::format(
      "{:<16} {:<50} {:>9} {:>7} {:>9.2f} {:>7} {:>8} {:>8}", row.problem, row.config.substr(0, 50),
      cell(row.tflops, "{:.2f}"), cell(row.percent_of_peak, "{:.1f}%"), row.cublas_tflops,
      cell(row.cublas_percent_of_peak, "{:.1f}%"), cell(row.ratio, "{:.3f}x"), cell(row.vs_lt, "{:.3f}x"));
  if (with_errors)
    line += fmt::format(" {:>9} {:>9}", format_normwise_error(row.normwise_error),
                        format_normwise_error(row.sgemm_normwise_error));
  return line + fmt::format(" {:>8.3f}x{}\n", row.delivered, row.runs);
}

}  // namespace gemmtune
