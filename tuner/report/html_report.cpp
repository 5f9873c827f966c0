// HTML page assembly: the shared tables, grouped by report part, each part in a <section> headed by
// its chart.
#include "report/html_report.hpp"

#include <optional>

#include "report/report_tables.hpp"
#include "core/precision.hpp"
#include "report/svg_charts.hpp"
#include "report/xml_escape.hpp"

namespace gemmtune {
namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1200px; }
table { border-collapse: collapse; margin: 8px 0 24px; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f0f0f0; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
p.note { color: #555; font-size: 13px; }
section { margin: 24px 0; }
section.predicted { background: #fff8e6; border: 2px dashed #c90; padding: 8px 16px; }
.badge { background: #c90; color: #fff; padding: 1px 6px; border-radius: 3px; font-size: 12px; }
svg { max-width: 100%; height: auto; }
)";

std::string html_table(const ReportTable& table) {
  std::string out = "<h3>" + escape_xml(table.title) + "</h3>\n<p class=\"note\">" + escape_xml(table.note) +
                    "</p>\n<table>\n<thead><tr>";
  for (const auto& header : table.headers) out += "<th>" + escape_xml(header) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c)
      out += (table.right_aligned[c] ? "<td class=\"number\">" : "<td>") + escape_xml(row[c]) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

// One chart per precision (fp32 first): their TFLOP/s differ by up to 15x, and one scale would
// flatten the FP32 bars.
std::string tflops_chart(const ComparisonSection& section) {
  std::string out;
  for (const Precision precision : kAllPrecisions) {
    std::vector<std::size_t> problems;
    for (std::size_t i = 0; i < section.problems.size(); ++i)
      if (section.problems[i].shape.precision == precision) problems.push_back(i);
    if (problems.empty()) continue;
    BarChart chart;
    chart.title = section.predicted ? "predicted TFLOP/s per problem (static model, nothing was run)"
                                    : "Measured TFLOP/s per problem";
    if (precision != Precision::fp32) chart.title += std::string(", ") + precision_name(precision);
    chart.value_label = section.predicted ? "predicted TFLOP/s" : "TFLOP/s";
    chart.predicted = section.predicted;
    for (const std::size_t i : problems) chart.categories.push_back(section.problems[i].shape.label());
    for (std::size_t g = 0; g < section.gpus.size(); ++g) {
      BarSeries series{section.gpus[g].name, {}};
      for (const std::size_t i : problems) {
        const auto& winner = section.problems[i].winners[g];
        series.values.push_back(winner ? std::optional<double>(winner->tflops) : std::nullopt);
      }
      chart.series.push_back(std::move(series));
    }
    for (std::size_t p = 0; p < section.peers.size(); ++p) {
      BarSeries series{section.peers[p].peer + " on " + section.gpus[section.peers[p].gpu].name, {}};
      for (const std::size_t i : problems) {
        const auto& run = section.problems[i].peer_runs[p];
        series.values.push_back(run && run->passed() ? std::optional<double>(run->tflops) : std::nullopt);
      }
      chart.series.push_back(std::move(series));
    }
    out += grouped_bar_chart_svg(chart);
  }
  return out;
}

std::string portability_heat_map(const PortabilityMatrix& matrix) {
  HeatMap map{"Portability: % of the target GPU's own best (geometric mean over problems)",
              matrix.names,
              matrix.names,
              {},
              {}};
  for (const auto& row : matrix.cells) {
    map.percents.emplace_back();
    map.cell_text.emplace_back();
    for (const auto& cell : row) {
      map.percents.back().push_back(cell ? std::optional<double>(cell->geomean_percent) : std::nullopt);
      map.cell_text.back().push_back(!cell                 ? "-"
                                     : cell->by_definition ? "100% (own)"
                                                           : format_percent(cell->geomean_percent) + " (" +
                                                                 std::to_string(cell->problems) + ")");
    }
  }
  return heat_map_svg(map);
}

std::string section_opening(ReportPart part, const Comparison& comparison) {
  switch (part) {
    case ReportPart::gpus:
      return "<section id=\"gpus\">\n";
    case ReportPart::measured:
      return "<section id=\"measured\">\n<h2>Measured</h2>\n" + tflops_chart(comparison.measured);
    case ReportPart::predicted:
      return "<section id=\"predicted\" class=\"predicted\">\n<h2><span class=\"badge\">PREDICTED</span> "
             "Plans: static-model "
             "predictions, nothing was run</h2>\n<p class=\"note\">Not measurements. Never compare these "
             "numbers with "
             "the measured section.</p>\n" +
             tflops_chart(comparison.predicted);
    case ReportPart::portability:
      return "<section id=\"portability\">\n<h2>Portability</h2>\n" +
             portability_heat_map(*comparison.portability);
  }
  return {};
}

}  // namespace

std::string html_report(const Comparison& comparison) {
  std::string out = std::string("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n") +
                    "<title>gemm-tune compare</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n" +
                    "<h1>GPU comparison (gemm-tune compare)</h1>\n";
  std::optional<ReportPart> current;
  for (const ReportTable& table : comparison_tables(comparison)) {
    if (table.part != current) {
      if (current) out += "</section>\n";
      out += section_opening(table.part, comparison);
      current = table.part;
    }
    out += html_table(table);
  }
  if (current) out += "</section>\n";
  return out + "</body>\n</html>\n";
}

}  // namespace gemmtune
