// Inline SVG charts for the HTML report, drawn here so the report needs nothing from the network:
// grouped bars (TFLOP/s per problem, one bar per GPU) and a heat map (the portability matrix).
// Every label is escaped; long labels are shortened, with the full text kept as a tooltip.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gemmtune {

struct BarSeries {
  std::string label;                          // legend entry (a GPU name)
  std::vector<std::optional<double>> values;  // one per category; absent: no bar
};

struct BarChart {
  std::string title;
  std::string value_label;  // the y axis, e.g. "TFLOP/s"
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  bool predicted = false;  // drawn as hollow, dashed bars with "PREDICTED" in the title
};

struct HeatMap {
  std::string title;
  std::vector<std::string> row_labels;
  std::vector<std::string> column_labels;
  std::vector<std::vector<std::optional<double>>> percents;  // [row][column]; absent: grey "-"
  std::vector<std::vector<std::string>> cell_text;           // shown in each cell
};

// The colour of series i, also used by the tests to find bars in a screenshot.
std::string series_colour(std::size_t index);

std::string grouped_bar_chart_svg(const BarChart& chart);
std::string heat_map_svg(const HeatMap& map);

}  // namespace gemmtune
