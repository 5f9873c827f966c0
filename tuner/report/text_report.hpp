// The comparison as plain text for a terminal (aligned columns) and as Markdown (pipe tables, for
// issues and READMEs). Text from the input files is made harmless for each: control characters
// never reach the terminal, and Markdown or HTML syntax in a name is shown, not interpreted.
#pragma once

#include <string>
#include <vector>

#include "report/report_tables.hpp"

namespace gemmtune {

std::string terminal_report(const std::vector<ReportTable>& tables);
std::string markdown_report(const std::vector<ReportTable>& tables);

}  // namespace gemmtune
