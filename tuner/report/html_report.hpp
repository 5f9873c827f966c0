// The comparison as one self-contained HTML5 page: inline CSS and inline SVG charts, no scripts,
// no fonts, no network, so it can be attached to an issue or opened from a disk anywhere. Measured
// TFLOP/s and predictions are drawn in separate charts in separate sections; every string from an
// input file is escaped.
#pragma once

#include <string>

#include "report/compare_report.hpp"

namespace gemmtune {

std::string html_report(const Comparison& comparison);

}  // namespace gemmtune
