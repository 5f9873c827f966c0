// The comparison as titled tables of text, so that the terminal, Markdown and HTML reports say the
// same things with the same numbers and the same rounding. Cells hold the files' text unescaped;
// each writer escapes for its own format.
#pragma once

#include <string>
#include <vector>

#include "report/compare_report.hpp"

namespace gemmtune {

// Which part of the report a table belongs to; the HTML report puts each part's chart beside it.
enum class ReportPart { gpus, measured, predicted, portability };

struct ReportTable {
  ReportPart part = ReportPart::gpus;
  std::string title;
  std::string note;  // what the numbers are and where they come from
  std::vector<std::string> headers;
  std::vector<bool> right_aligned;  // per column: numbers
  std::vector<std::vector<std::string>> rows;
};

// In order: the GPUs and files; measured winners and their parameter differences; PREDICTED
// winners and their differences; the portability matrix. Tables with nothing to show are left out.
std::vector<ReportTable> comparison_tables(const Comparison& comparison);

// Shared number formats, also used by the charts.
std::string format_tflops(double tflops);
std::string format_percent(double percent);
// A normwise error ("2.61e-07"); "-" for 0, which the results use for "not measured".
std::string format_normwise_error(double error);

}  // namespace gemmtune
