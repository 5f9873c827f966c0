// SVG drawing. Sizes are fixed in user units with a viewBox, so the browser scales the charts to
// the page; the axis of a bar chart always starts at zero, since bar lengths are what gets compared.
#include "report/svg_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "report/xml_escape.hpp"

namespace gemmtune {
namespace {

constexpr std::array<const char*, 8> kPalette{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                              "#9467bd", "#8c564b", "#e377c2", "#17becf"};
// Longest labels shown whole: a bar chart's legend entry and category, a heat map's row or column.
constexpr std::size_t kMaxBarLabelCodePoints = 36;
constexpr std::size_t kMaxHeatMapLabelCodePoints = 24;

// The label shortened at a code-point boundary, escaped; the full label goes into a tooltip.
std::string shown_label(const std::string& label, std::size_t max_code_points) {
  std::size_t points = 0, cut = label.size();
  for (std::size_t i = 0; i < label.size(); ++i) {
    if ((static_cast<unsigned char>(label[i]) & 0xc0) == 0x80) continue;
    if (++points > max_code_points) {
      cut = i;
      break;
    }
  }
  return escape_xml(cut == label.size() ? label : label.substr(0, cut) + "\u2026");
}

std::string text_element(double x, double y, const std::string& anchor, const std::string& attributes,
                         const std::string& label, std::size_t max_code_points) {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" {}><title>{}</title>{}</text>\n", x,
                     y, anchor, attributes, escape_xml(label), shown_label(label, max_code_points));
}

// An axis maximum at a round step (1, 2 or 5 times a power of ten) above the largest value.
std::pair<double, double> axis_max_and_step(double largest) {
  if (largest <= 0) return {1, 0.2};
  const double rough = largest / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= rough) {
      step = m * magnitude;
      break;
    }
  return {std::ceil(largest / step) * step, step};
}

// Red (0%) through yellow (50%) to green (100% and above) for the heat map.
std::string heat_colour(double percent) {
  struct Rgb {
    double r, g, b;
  };
  const Rgb low{215, 48, 39}, middle{254, 224, 139}, high{26, 152, 80};
  const double t = std::clamp(percent / 100.0, 0.0, 1.0);
  const Rgb& a = t < 0.5 ? low : middle;
  const Rgb& b = t < 0.5 ? middle : high;
  const double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  return fmt::format("rgb({},{},{})", std::lround(a.r + (b.r - a.r) * u), std::lround(a.g + (b.g - a.g) * u),
                     std::lround(a.b + (b.b - a.b) * u));
}

}  // namespace

std::string series_colour(std::size_t index) {
  return kPalette[index % kPalette.size()];
}

std::string grouped_bar_chart_svg(const BarChart& chart) {
  constexpr double width = 960, plot_height = 260, left = 70, right = 20, legend_item_width = 230;
  const std::size_t legend_per_row = 4;
  const std::size_t legend_rows = (chart.series.size() + legend_per_row - 1) / legend_per_row;
  const double plot_width = width - left - right;
  const double group_width = plot_width / double(std::max<std::size_t>(chart.categories.size(), 1));
  // Category labels wider than their group (shapes like 4096x64x4096) are slanted so that
  // neighbours do not overlap; the bottom margin grows to hold them.
  std::size_t longest = 0;
  for (const auto& c : chart.categories)
    longest = std::max(longest, std::min(c.size(), kMaxBarLabelCodePoints));
  constexpr double kCharWidth = 7.0, kSlantDegrees = 35.0;
  const bool slanted = double(longest) * kCharWidth > group_width - 6;
  const double top = 40 + 20.0 * double(legend_rows);
  const double bottom =
      slanted ? 30 + double(longest) * kCharWidth * std::sin(kSlantDegrees * std::acos(-1.0) / 180) : 50;
  const double height = top + plot_height + bottom;

  double largest = 0;
  for (const auto& s : chart.series)
    for (const auto& v : s.values)
      if (v) largest = std::max(largest, *v);
  const std::pair<double, double> axis = axis_max_and_step(largest);
  const double axis_max = axis.first, step = axis.second;
  const auto y_of = [&](double v) { return top + plot_height * (1 - v / axis_max); };

  const std::string title = chart.predicted ? "PREDICTED: " + chart.title : chart.title;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<title>{2}</title>\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"{3}\"/>\n",
      width, height, escape_xml(title), chart.predicted ? "#fff8e6" : "#ffffff");
  svg += fmt::format("<text x=\"{}\" y=\"20\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", left,
                     escape_xml(title));

  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const double x = left + legend_item_width * double(i % legend_per_row);
    const double y = 32 + 20.0 * double(i / legend_per_row);
    svg +=
        fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"14\" fill=\"{}\" {}/>\n", x, y,
                    series_colour(i),
                    chart.predicted ? "fill-opacity=\"0.35\" stroke=\"#333\" stroke-dasharray=\"3 2\"" : "");
    svg += text_element(x + 20, y + 12, "start", "", chart.series[i].label, kMaxBarLabelCodePoints);
  }

  for (double v = 0; v <= axis_max + step / 2; v += step) {
    svg += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", left,
                       width - right, y_of(v), y_of(v));
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", left - 6, y_of(v) + 4,
                       v);
  }
  svg +=
      fmt::format("<text transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                  top + plot_height / 2, escape_xml(chart.value_label));

  const double bar_width = group_width * 0.8 / double(std::max<std::size_t>(chart.series.size(), 1));
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    const double group_left = left + group_width * double(c) + group_width * 0.1;
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const auto& value = chart.series[s].values[c];
      if (!value) continue;
      const double x = group_left + bar_width * double(s);
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" {}><title>{}: "
          "{:.1f}</title></rect>\n",
          x, y_of(*value), bar_width - 2, top + plot_height - y_of(*value), series_colour(s),
          chart.predicted ? "fill-opacity=\"0.35\" stroke=\"#333\" stroke-dasharray=\"4 3\"" : "",
          escape_xml(chart.series[s].label), *value);
      if (bar_width >= 24)
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"10\">{:.1f}</text>\n",
            x + bar_width / 2 - 1, y_of(*value) - 3, *value);
    }
    const double label_x = left + group_width * (double(c) + 0.5), label_y = top + plot_height + 18;
    if (slanted) {
      svg += text_element(
          label_x, label_y, "end",
          fmt::format("transform=\"rotate(-{} {:.1f} {:.1f})\"", kSlantDegrees, label_x, label_y),
          chart.categories[c], kMaxBarLabelCodePoints);
    } else {
      svg += text_element(label_x, label_y, "middle", "", chart.categories[c], kMaxBarLabelCodePoints);
    }
  }
  svg += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#333\"/>\n", left,
                     width - right, top + plot_height);
  return svg + "</svg>\n";
}

std::string heat_map_svg(const HeatMap& map) {
  constexpr double label_width = 220, cell_width = 200, cell_height = 40, top = 70;
  const double width = label_width + cell_width * double(map.column_labels.size()) + 20;
  const double height = top + cell_height * double(map.row_labels.size()) + 20;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<title>{2}</title>\n<rect width=\"{0}\" height=\"{1}\" "
      "fill=\"#ffffff\"/>\n<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">{2}</text>\n",
      width, height, escape_xml(map.title));
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">winners of \u2193 / run on \u2192</text>\n",
      label_width - 10, top - 26);
  for (std::size_t c = 0; c < map.column_labels.size(); ++c)
    svg += text_element(label_width + cell_width * (double(c) + 0.5), top - 8, "middle",
                        "font-weight=\"bold\"", map.column_labels[c], kMaxHeatMapLabelCodePoints);
  for (std::size_t r = 0; r < map.row_labels.size(); ++r) {
    const double y = top + cell_height * double(r);
    svg += text_element(label_width - 10, y + cell_height / 2 + 4, "end", "font-weight=\"bold\"",
                        map.row_labels[r], kMaxHeatMapLabelCodePoints);
    for (std::size_t c = 0; c < map.column_labels.size(); ++c) {
      const auto& percent = map.percents[r][c];
      const double x = label_width + cell_width * double(c);
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#fff\" "
          "stroke-width=\"2\"/>\n",
          x, y, cell_width, cell_height, percent ? heat_colour(*percent) : "#eeeeee");
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                         x + cell_width / 2, y + cell_height / 2 + 4, escape_xml(map.cell_text[r][c]));
    }
  }
  return svg + "</svg>\n";
}

}  // namespace gemmtune
