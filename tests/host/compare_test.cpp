// `gemm-tune compare`: the real H100 results set beside a second results file derived from it in the
// test (renamed to an H200-like device, one winner's swizzle changed; not a measurement), the real
// A100 plan kept apart as a prediction, a synthetic cross file for the portability matrix, the
// shipped Triton peers file as a column beside the H100's winners in every format, refused input
// (one line, exit code 2), escaping of hostile names, and the HTML page rendered by headless Chromium
// to prove it draws something.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../command_output.hpp"
#include "../png_image.hpp"
#include "../temp_dir_test.hpp"
#include "../test_paths.hpp"
#include "commands/compare_command.hpp"
#include "report/compare_report.hpp"
#include "report/report_tables.hpp"
#include "report/svg_charts.hpp"

namespace gemmtune {
namespace {

const std::string kH100 = "NVIDIA H100 80GB HBM3";
const std::string kH200 = "NVIDIA H200 (test copy of the H100 results)";
const std::string kA100 = "NVIDIA A100-SXM4-40GB";

std::string h100_results() {
  return (testing_paths::source_dir() / "results/nvidia-h100-80gb-hbm3.json").string();
}
std::string a100_plan() {
  return (testing_paths::source_dir() / "results/plan-nvidia-a100-sxm4-40gb.json").string();
}
std::string triton_peers() {
  return (testing_paths::source_dir() / "results/peers-triton-nvidia-h100-80gb-hbm3.json").string();
}
std::string synthetic_cross() {
  return testing_paths::data("synthetic-cross.json");
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The shipped file's problems that have a winning kernel's measurement (fallbacks to cuBLAS have none).
std::size_t measured_problems(const std::string& path) {
  const auto doc = nlohmann::json::parse(read_text(path));
  std::size_t count = 0;
  for (const auto& e : doc["entries"]) count += e.contains("best");
  return count;
}

// The measured section draws one chart per precision the files' winners are in.
std::size_t measured_charts(const std::string& path) {
  const auto doc = nlohmann::json::parse(read_text(path));
  std::set<std::string> precisions;
  for (const auto& e : doc["entries"])
    if (e.contains("best")) precisions.insert(e.value("precision", "fp32"));
  return precisions.size();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// One measured problem of the shipped H100 file, formatted the way the reports format it, so the
// tests follow the file when it is re-measured.
struct ShippedRow {
  std::string name, tflops, percent, cublas_tflops, ratio;
  nlohmann::json entry;
};
ShippedRow shipped_h100_row(int size) {
  const auto doc = nlohmann::json::parse(read_text(h100_results()));
  for (const auto& e : doc["entries"]) {
    if (e["m"] != size || e["n"] != size || e["k"] != size || e.value("precision", "fp32") != "fp32") continue;
    const double tflops = e["best"]["tflops"].get<double>();
    return {e["best"]["name"].get<std::string>(),
            fmt::format("{:.1f}", tflops),
            fmt::format("{:.1f}%", 100 * tflops / doc["device"]["fp32_tflops"].get<double>()),
            fmt::format("{:.1f}", e["cublas"]["tflops"].get<double>()),
            fmt::format("{:.2f}", e["best"]["ratio_vs_cublas"].get<double>()),
            e};
  }
  throw std::runtime_error("the shipped H100 results have no " + std::to_string(size) + " cube");
}

// The shipped Triton peers file: the peer's name as compare shows it, and one shape's entry with its
// numbers formatted the way the reports format them, so the tests follow the file when re-measured.
struct ShippedPeerRow {
  std::string peer, tflops, ratio;
  nlohmann::json entry;
};
ShippedPeerRow shipped_triton_row(int size) {
  const auto doc = nlohmann::json::parse(read_text(triton_peers()));
  for (const auto& e : doc["entries"]) {
    if (e["m"] != size || e["n"] != size || e["k"] != size || e.value("precision", "fp32") != "fp32") continue;
    return {"triton " + doc["triton_version"].get<std::string>(),
            fmt::format("{:.1f}", e["tuned"]["tflops"].get<double>()),
            fmt::format("{:.2f}", e["ratio_vs_cublas"].get<double>()), e};
  }
  throw std::runtime_error("the shipped Triton peers file has no " + std::to_string(size) + " cube");
}

std::size_t column_of(const ReportTable& table, const std::string& header) {
  const auto it = std::find(table.headers.begin(), table.headers.end(), header);
  if (it == table.headers.end()) throw std::runtime_error("no column headed " + header);
  return std::size_t(it - table.headers.begin());
}

// The 4096 winner's swizzle in the shipped file, and the other value the derived copy gives it.
int shipped_swizzle() {
  return shipped_h100_row(4096).entry["best"]["config"]["swizzle"].get<int>();
}
int changed_swizzle() {
  return shipped_swizzle() == 1 ? 8 : 1;
}

const ReportTable& table_titled(const std::vector<ReportTable>& tables, const std::string& title) {
  for (const auto& t : tables)
    if (t.title == title) return t;
  throw std::runtime_error("no table titled " + title);
}

class Compare : public testing_paths::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  // The H100 file presented as another GPU's: device renamed and the 4096 winner's swizzle changed.
  nlohmann::json derived_h200_document() {
    auto doc = nlohmann::json::parse(read_text(h100_results()));
    doc["device"]["name"] = kH200;
    doc["device"]["slug"] = "nvidia-h200-test-copy";
    for (auto& entry : doc["entries"])
      if (entry["m"] == 4096 && entry.contains("best")) {
        entry["best"]["config"]["swizzle"] = changed_swizzle();
        auto name = entry["best"]["name"].get<std::string>();
        const std::string from = fmt::format("_z{}_", shipped_swizzle()),
                          to = fmt::format("_z{}_", changed_swizzle());
        if (const auto z = name.find(from); z != std::string::npos) name.replace(z, from.size(), to);
        entry["best"]["name"] = name;
      }
    return doc;
  }
  std::string derived_h200() { return write("h200.json", derived_h200_document().dump()); }

  Comparison comparison_of(const std::vector<std::string>& paths) {
    std::vector<ResultFile> files;
    for (const auto& p : paths) files.push_back(load_result_file(p));
    return build_comparison(files);
  }
};

TEST_F(Compare, TableShowsEachGpusWinnerAndTheParametersThatDiffer) {
  const std::string table = compare_report({{h100_results(), derived_h200()}, "table", ""});
  EXPECT_NE(table.find("Measured winners"), std::string::npos) << table;
  EXPECT_NE(table.find(kH100), std::string::npos) << table;
  EXPECT_NE(table.find(kH200), std::string::npos) << table;
  // The shipped file's 512 and 4096 rows, as numbers formatted for the table.
  for (const int size : {512, 4096}) {
    const ShippedRow row = shipped_h100_row(size);
    EXPECT_NE(table.find(row.name), std::string::npos) << row.name << "\n" << table;
    for (const auto& number : {row.tflops, row.percent, row.cublas_tflops, row.ratio})
      EXPECT_NE(table.find(number), std::string::npos) << number << "\n" << table;
  }
  EXPECT_EQ(table.find("PREDICTED winners"), std::string::npos) << table;

  const auto tables = comparison_tables(comparison_of({h100_results(), derived_h200()}));
  const ReportTable& differences = table_titled(tables, "Measured winners: parameters that differ");
  ASSERT_EQ(differences.headers, (std::vector<std::string>{"problem", "parameter", kH100, kH200}));
  const std::vector<std::string> swizzle_row{"4096", "swizzle", std::to_string(shipped_swizzle()),
                                             std::to_string(changed_swizzle())};
  EXPECT_NE(std::find(differences.rows.begin(), differences.rows.end(), swizzle_row), differences.rows.end());
  const std::vector<std::string> same_row{"512", "(none: the same configuration)", "", ""};
  EXPECT_NE(std::find(differences.rows.begin(), differences.rows.end(), same_row), differences.rows.end());
  // One line per problem: only 4096 differs, in one parameter.
  EXPECT_EQ(differences.rows.size(), measured_problems(h100_results()));
}

// Winners of different families hold different fields: each field either lacks reads as "-".
TEST_F(Compare, WinnersOfDifferentFamiliesShowTheFieldsEitherHas) {
  auto doc = derived_h200_document();
  for (auto& entry : doc["entries"])
    if (entry["m"] == 512 && entry["n"] == 512 && entry["k"] == 512 && entry.value("precision", "fp32") == "fp32" &&
        entry.value("layout", "nn") == "nn" && entry.value("batch", 1) == 1) {
      KernelConfig skinny;
      skinny.family = KernelFamily::skinny_tiled;
      skinny.block_m = 32, skinny.block_n = 128, skinny.block_k = 16, skinny.thread_m = 8, skinny.thread_n = 4;
      skinny.stages = 3, skinny.k_groups = 1, skinny.min_blocks = 4;
      ASSERT_EQ(config_error(skinny), std::nullopt) << *config_error(skinny);
      entry["best"]["config"] = skinny;
      entry["best"]["name"] = skinny.name();
    }
  const auto tables =
      comparison_tables(comparison_of({h100_results(), write("h200.json", doc.dump())}));
  const ReportTable& differences = table_titled(tables, "Measured winners: parameters that differ");
  // A problem's first row names it; its other parameters follow with the problem left blank.
  std::string problem;
  std::vector<std::string> family_row;
  for (const auto& row : differences.rows) {
    if (!row[0].empty()) problem = row[0];
    if (problem == "512" && row[1] == "family") family_row = row;
  }
  EXPECT_EQ(family_row, (std::vector<std::string>{"", "family", "-", "skinny_tiled"}));
}

TEST_F(Compare, MarkdownHasTheSameContentAsPipeTables) {
  const std::string md = compare_report({{h100_results(), derived_h200()}, "md", ""});
  EXPECT_EQ(md.rfind("# GPU comparison", 0), 0u) << md;
  EXPECT_NE(md.find("## Measured winners"), std::string::npos) << md;
  EXPECT_NE(
      md.find("| problem | GPU | best configuration | TFLOP/s | % of peak | cuBLAS TFLOP/s | vs cuBLAS |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("|---|---|---|---:|---:|---:|---:|"), std::string::npos) << md;
  EXPECT_NE(md.find(fmt::format("| 4096 | swizzle | {} | {} |", shipped_swizzle(), changed_swizzle())),
            std::string::npos)
      << md;
  const ShippedRow row = shipped_h100_row(512);
  const std::string cells =
      fmt::format("| {} | {} | {} | {} |", row.tflops, row.percent, row.cublas_tflops, row.ratio);
  EXPECT_NE(md.find(cells), std::string::npos) << cells << "\n" << md;
}

TEST_F(Compare, JsonCarriesNumbersAndDifferences) {
  const auto doc = nlohmann::json::parse(compare_report({{h100_results(), derived_h200()}, "json", ""}));
  EXPECT_EQ(doc["schema"], "gemmtune.compare/1");
  const auto& measured = doc["measured"];
  EXPECT_EQ(measured["kind"], "measured");
  ASSERT_EQ(measured["gpus"].size(), 2u);
  EXPECT_EQ(measured["gpus"][0]["slug"], "nvidia-h100-80gb-hbm3");
  ASSERT_EQ(measured["problems"].size(), measured_problems(h100_results()));
  const auto found = std::find_if(
      measured["problems"].begin(), measured["problems"].end(),
      [](const nlohmann::json& p) { return p["m"] == 4096 && p["n"] == 4096 && p["k"] == 4096; });
  ASSERT_NE(found, measured["problems"].end());
  const auto& p4096 = *found;
  const ShippedRow row4096 = shipped_h100_row(4096);
  const auto& best = row4096.entry["best"];
  const double tflops = best["tflops"].get<double>();
  EXPECT_NEAR(p4096["winners"][0]["tflops"].get<double>(), tflops, 1e-9);
  EXPECT_NEAR(p4096["winners"][0]["percent_of_peak"].get<double>(), 100 * tflops / 66.90816, 1e-6);
  EXPECT_NEAR(p4096["winners"][0]["ratio_vs_cublas"].get<double>(), best["ratio_vs_cublas"].get<double>(),
              1e-9);
  EXPECT_EQ(p4096["winners"][1]["config"]["swizzle"], changed_swizzle());
  ASSERT_EQ(p4096["differences"].size(), 1u);
  EXPECT_EQ(p4096["differences"][0]["parameter"], "swizzle");
  EXPECT_EQ(p4096["differences"][0]["values"]["nvidia-h100-80gb-hbm3"], std::to_string(shipped_swizzle()));
  EXPECT_EQ(p4096["differences"][0]["values"]["nvidia-h200-test-copy"], std::to_string(changed_swizzle()));
  EXPECT_TRUE(measured["problems"][0]["differences"].empty());
  EXPECT_TRUE(doc["predicted"]["gpus"].empty());
  EXPECT_FALSE(doc.contains("portability"));
}

TEST_F(Compare, PlansAreLabelledPredictionsAndKeptApart) {
  const auto tables = comparison_tables(comparison_of({h100_results(), a100_plan()}));
  const ReportTable& measured = table_titled(tables, "Measured winners");
  for (const auto& row : measured.rows) EXPECT_EQ(row[1], kH100);
  const ReportTable& predicted =
      table_titled(tables, "PREDICTED winners (plans: static model, nothing was run)");
  EXPECT_EQ(predicted.headers[3], "PREDICTED TFLOP/s");
  ASSERT_EQ(predicted.rows.size(), 3u);  // the plan's 512, 1024 and 4096
  for (const auto& row : predicted.rows) EXPECT_EQ(row[1], kA100);
  // The plan's own first choice at 512, whatever the current static model ranks first.
  const auto plan = nlohmann::json::parse(read_text(a100_plan()));
  const auto& first = plan["problems"][0]["ranked"][0];
  EXPECT_EQ(predicted.rows[0][2], first["name"].get<std::string>());
  EXPECT_EQ(predicted.rows[0][3], fmt::format("{:.1f}", first["predicted_tflops"].get<double>()));

  const auto doc = nlohmann::json::parse(compare_report({{h100_results(), a100_plan()}, "json", ""}));
  ASSERT_EQ(doc["measured"]["gpus"].size(), 1u);
  EXPECT_EQ(doc["predicted"]["kind"], "prediction");
  ASSERT_EQ(doc["predicted"]["gpus"].size(), 1u);
  EXPECT_EQ(doc["predicted"]["gpus"][0]["name"], kA100);
  const auto& winner = doc["predicted"]["problems"][0]["winners"][0];
  EXPECT_TRUE(winner.contains("predicted_tflops"));
  EXPECT_FALSE(winner.contains("tflops"));

  const std::string html = compare_report({{h100_results(), a100_plan()}, "html", ""});
  const auto predicted_section = html.find("<section id=\"predicted\" class=\"predicted\">");
  ASSERT_NE(predicted_section, std::string::npos);
  const std::string before = html.substr(0, predicted_section), after = html.substr(predicted_section);
  // Charts per section (one per precision), never one chart for both.
  EXPECT_EQ(occurrences(html, "<svg"), measured_charts(h100_results()) + 1);
  EXPECT_EQ(occurrences(before, "<svg"), measured_charts(h100_results()));
  EXPECT_EQ(before.find(first["name"].get<std::string>()), std::string::npos);  // predictions stay out
  EXPECT_NE(after.find("PREDICTED: predicted TFLOP/s"), std::string::npos);
  EXPECT_EQ(after.find(shipped_h100_row(512).name), std::string::npos);  // measured stays out
}

TEST_F(Compare, PortabilityMatrixFromSyntheticCrossFile) {
  const Comparison c = comparison_of({h100_results(), synthetic_cross()});
  ASSERT_TRUE(c.portability);
  const PortabilityMatrix& m = *c.portability;
  ASSERT_EQ(m.slugs, (std::vector<std::string>{"synthetic-test-gpu", "nvidia-h100-80gb-hbm3"}));
  EXPECT_EQ(m.names[1], kH100);
  const auto& h100_on_synthetic = m.cells[1][0];
  ASSERT_TRUE(h100_on_synthetic);
  EXPECT_NEAR(h100_on_synthetic->geomean_percent, std::cbrt(80.0 * 90.0 * 100.0), 1e-9);
  EXPECT_EQ(h100_on_synthetic->problems, 3u);
  ASSERT_TRUE(m.cells[1][1]);
  EXPECT_TRUE(m.cells[1][1]->by_definition);  // the H100's own results file was given
  EXPECT_FALSE(m.cells[0][0]);                // no results file of the synthetic GPU
  EXPECT_FALSE(m.cells[0][1]);

  const std::string table = compare_report({{h100_results(), synthetic_cross()}, "table", ""});
  EXPECT_NE(table.find("89.6% (3)"), std::string::npos) << table;
  EXPECT_NE(table.find("100% (own)"), std::string::npos) << table;
  EXPECT_NE(table.find("SYNTHETIC test GPU (invented numbers)  synthetic-test-gpu     measured: cross runs"),
            std::string::npos)
      << table;
  const auto doc = nlohmann::json::parse(compare_report({{h100_results(), synthetic_cross()}, "json", ""}));
  EXPECT_EQ(doc["portability"]["cross_files"][0]["slug"], "synthetic-test-gpu");
  EXPECT_EQ(doc["portability"]["cells"].size(), 2u);  // H100 on the synthetic GPU, and the H100's own
  const std::string html = compare_report({{h100_results(), synthetic_cross()}, "html", ""});
  EXPECT_NE(html.find("<section id=\"portability\">"), std::string::npos);
  EXPECT_EQ(occurrences(html, "<svg"), measured_charts(h100_results()) + 1);  // measured TFLOP/s and the heat map
}

// The files `gemm-tune cross` wrote on the H100 and the H200 (results/, measured 2026-11-21).
TEST_F(Compare, PortabilityMatrixFromRealCrossFiles) {
  const auto results = [](const std::string& name) {
    return (testing_paths::source_dir() / "results" / name).string();
  };
  const Comparison c =
      comparison_of({results("nvidia-h100-80gb-hbm3.json"), results("nvidia-h200.json"),
                     results("cross-nvidia-h200.json"), results("cross-nvidia-h100-80gb-hbm3.json")});
  ASSERT_TRUE(c.portability);
  const PortabilityMatrix& m = *c.portability;
  ASSERT_EQ(m.slugs, (std::vector<std::string>{"nvidia-h200", "nvidia-h100-80gb-hbm3"}));
  for (std::size_t own = 0; own < 2; ++own) {
    ASSERT_TRUE(m.cells[own][own]);
    EXPECT_TRUE(m.cells[own][own]->by_definition);
  }
  // Off the diagonal: the geometric mean of the file's own percentages, recomputed here.
  const auto expected_geomean = [&](const std::string& cross_file) {
    double log_sum = 0;
    const auto doc = nlohmann::json::parse(read_text(results(cross_file)));
    for (const auto& entry : doc["entries"]) log_sum += std::log(entry["percent_of_own_best"].get<double>());
    return std::exp(log_sum / double(doc["entries"].size()));
  };
  ASSERT_TRUE(m.cells[1][0] && m.cells[0][1]);
  EXPECT_NEAR(m.cells[1][0]->geomean_percent, expected_geomean("cross-nvidia-h200.json"),
              1e-9);  // H100's on H200
  EXPECT_NEAR(m.cells[0][1]->geomean_percent, expected_geomean("cross-nvidia-h100-80gb-hbm3.json"), 1e-9);
  EXPECT_EQ(m.cells[1][0]->problems, 5u);
  EXPECT_EQ(c.measured.gpus.size(), 2u);
}

TEST_F(Compare, HtmlIsSelfContainedAndEscapesHostileNames) {
  auto doc = derived_h200_document();
  doc["device"]["name"] = "<script>alert(1)</script>";
  doc["entries"][0]["best"]["name"] = "<img src=x onerror=alert(2)>";
  const std::string hostile = write("hostile.json", doc.dump());
  const std::string html =
      compare_report({{h100_results(), hostile, a100_plan(), synthetic_cross()}, "html", ""});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  // Nothing fetched from anywhere: the only URL is the SVG namespace, once per chart.
  EXPECT_EQ(occurrences(html, "http"), occurrences(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  for (const char* external : {"src=\"", "href=\"", "<link", "url(", "@import"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  for (const char* element : {"section", "table", "svg", "tr", "text"})
    EXPECT_EQ(occurrences(html, std::string("<") + element + ">") +
                  occurrences(html, std::string("<") + element + " "),
              occurrences(html, std::string("</") + element + ">"))
        << element;
  EXPECT_EQ(occurrences(html, "<svg"), measured_charts(h100_results()) + 2);

  const std::string md = compare_report({{h100_results(), hostile}, "md", ""});
  EXPECT_EQ(md.find("<script"), std::string::npos);
  EXPECT_NE(md.find("&lt;script&gt;"), std::string::npos);
}

TEST_F(Compare, TerminalNeverPrintsControlCharacters) {
  auto doc = derived_h200_document();
  doc["device"]["name"] = "GPU \x1b[2J with an escape";
  const std::string table = compare_report({{h100_results(), write("escape.json", doc.dump())}, "table", ""});
  EXPECT_EQ(table.find('\x1b'), std::string::npos);
  EXPECT_NE(table.find("GPU ?[2J with an escape"), std::string::npos) << table;
}

TEST_F(Compare, CliWritesEachFormatToStandardOutputOrAFile) {
  const std::string files = h100_results() + " " + derived_h200();
  const auto table = testing_paths::run_command(testing_paths::cli() + " compare " + files);
  EXPECT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("Measured winners"), std::string::npos) << table.output;
  const auto json = testing_paths::run_command(testing_paths::cli() + " compare --format json " + files);
  EXPECT_EQ(nlohmann::json::parse(json.output)["measured"]["gpus"].size(), 2u);
  const std::string out = (dir_ / "report.html").string();
  const auto html =
      testing_paths::run_command(testing_paths::cli() + " compare --format html -o " + out + " " + files);
  EXPECT_EQ(html.exit_code, 0) << html.output;
  EXPECT_TRUE(html.output.empty()) << html.output;
  EXPECT_EQ(read_text(out).rfind("<!DOCTYPE html>", 0), 0u);
}

struct RefusedFile {
  std::string name;
  std::string message;
  std::function<std::string(nlohmann::json&)> edit;  // edits the H100 document; returns the text written
};

TEST_F(Compare, RefusedFilesGetOneLineNamingThemAndExitTwo) {
  const std::vector<RefusedFile> cases{
      {"truncated.json", "malformed JSON", [](nlohmann::json& doc) { return doc.dump(2).substr(0, 2000); }},
      {"unknown-schema.json", "unknown schema 'gemmtune.results/9'",
       [](nlohmann::json& doc) {
         doc["schema"] = "gemmtune.results/9";
         return doc.dump();
       }},
      {"no-schema.json", "the top level lacks 'schema'",
       [](nlohmann::json& doc) {
         doc.erase("schema");
         return doc.dump();
       }},
      {"array.json", "the top level must be a JSON object",
       [](nlohmann::json&) { return std::string("[1, 2]"); }},
      {"string-tflops.json", "'entries[2].best.tflops' must be a number",
       [](nlohmann::json& doc) {
         doc["entries"][2]["best"]["tflops"] = "fast";
         return doc.dump();
       }},
      {"fractional-m.json", "'entries[0].m' must be an integer",
       [](nlohmann::json& doc) {
         doc["entries"][0]["m"] = 512.5;
         return doc.dump();
       }},
      {"entries-object.json", "'entries' must be an array",
       [](nlohmann::json& doc) {
         doc["entries"] = nlohmann::json::object();
         return doc.dump();
       }},
      {"wrong-kind.json", "'kind' must be \"measured\"",
       [](nlohmann::json& doc) {
         doc["kind"] = "prediction";
         return doc.dump();
       }},
      {"bad-config.json", "entries[2].best.config: kernel config",
       [](nlohmann::json& doc) {  // entries[2] of the shipped file has a kernel (entries[1] is a fallback)
         doc["entries"][2]["best"]["config"]["block_m"] = 3;
         return doc.dump();
       }},
      {"bad-device.json", "device: device profile 'fp32_tflops'",
       [](nlohmann::json& doc) {
         doc["device"]["fp32_tflops"] = "66.9";
         return doc.dump();
       }},
      {"repeated.json", "repeats problem",
       [](nlohmann::json& doc) {
         const nlohmann::json first = doc["entries"][0];
         doc["entries"].push_back(first);
         return doc.dump();
       }},
  };
  for (const RefusedFile& c : cases) {
    SCOPED_TRACE(c.name);
    auto doc = nlohmann::json::parse(read_text(h100_results()));
    const std::string path = write(c.name, c.edit(doc));
    const auto r =
        testing_paths::run_command(testing_paths::cli() + " compare " + h100_results() + " " + path);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_NE(r.output.find("'" + path + "'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
}

TEST_F(Compare, RefusedPlansCrossFilesAndArguments) {
  auto plan = nlohmann::json::parse(read_text(a100_plan()));
  plan["problems"][1]["ranked"][0].erase("predicted_tflops");
  auto cross = nlohmann::json::parse(read_text(synthetic_cross()));
  cross["entries"][0]["percent_of_own_best"] = -5;
  const std::vector<std::pair<std::string, std::string>> cases{
      {(dir_ / "absent.json").string(), "no such file"},
      {testing_paths::data("malformed.json"), "malformed JSON"},
      {dir_.string(), "not a regular file"},
      {write("plan.json", plan.dump()), "'problems[1].ranked[0]' lacks 'predicted_tflops'"},
      {write("cross.json", cross.dump()), "'entries[0].percent_of_own_best' must be a number in 0"},
      {h100_results(), "both hold results for nvidia-h100-80gb-hbm3"},
  };
  for (const auto& [path, message] : cases) {
    SCOPED_TRACE(path);
    const auto r =
        testing_paths::run_command(testing_paths::cli() + " compare " + h100_results() + " " + path);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
  const auto same_cross = testing_paths::run_command(testing_paths::cli() + " compare " + synthetic_cross() +
                                                     " " + synthetic_cross());
  EXPECT_EQ(same_cross.exit_code, 2) << same_cross.output;
  EXPECT_NE(same_cross.output.find("both hold cross runs on synthetic-test-gpu"), std::string::npos)
      << same_cross.output;
  const auto one_file = testing_paths::run_command(testing_paths::cli() + " compare " + h100_results());
  EXPECT_EQ(one_file.exit_code, 2) << one_file.output;
  EXPECT_NE(one_file.output.find("at least two files"), std::string::npos) << one_file.output;
  const auto bad_format = testing_paths::run_command(testing_paths::cli() + " compare --format pdf " +
                                                     h100_results() + " " + a100_plan());
  EXPECT_EQ(bad_format.exit_code, 2) << bad_format.output;
}

TEST_F(Compare, TritonPeersShowTheirRatioBesideTheSameGpusWinners) {
  const ShippedPeerRow t4096 = shipped_triton_row(4096), t1024 = shipped_triton_row(1024);
  const std::string ratio_header = t4096.peer + " vs torch.mm";
  const auto tables = comparison_tables(comparison_of({h100_results(), derived_h200(), triton_peers()}));
  const ReportTable& winners = table_titled(tables, "Measured winners");
  const std::size_t ratio = column_of(winners, ratio_header),
                    tflops = column_of(winners, t4096.peer + " TFLOP/s");
  EXPECT_NE(winners.note.find(t4096.peer + " columns"), std::string::npos) << winners.note;
  // Problem rows come as one row per GPU: the H100's carries Triton's numbers, the other GPU's none.
  std::size_t checked = 0;
  for (std::size_t r = 0; r + 1 < winners.rows.size(); ++r) {
    for (const auto& [label, row] :
         {std::pair{std::string("4096"), t4096}, std::pair{std::string("1024"), t1024}}) {
      if (winners.rows[r][0] != label) continue;
      ASSERT_EQ(winners.rows[r][1], kH100);
      EXPECT_EQ(winners.rows[r][ratio], row.ratio);
      EXPECT_EQ(winners.rows[r][tflops], row.tflops);
      // Our kernel's own ratio stays in its column on the same row.
      EXPECT_EQ(winners.rows[r][column_of(winners, "vs cuBLAS")], shipped_h100_row(std::stoi(label)).ratio);
      EXPECT_EQ(winners.rows[r + 1][1], kH200);
      EXPECT_EQ(winners.rows[r + 1][ratio], "-");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2u);
  const ReportTable& gpus = table_titled(tables, "GPUs and files");
  EXPECT_TRUE(std::any_of(gpus.rows.begin(), gpus.rows.end(), [&](const std::vector<std::string>& row) {
    return row[2] == "measured: peer " + t4096.peer + " vs torch.mm" && row[4] == triton_peers();
  }));

  const std::string table = compare_report({{h100_results(), triton_peers()}, "table", ""});
  EXPECT_NE(table.find(ratio_header), std::string::npos) << table;
  const std::string md = compare_report({{h100_results(), triton_peers()}, "md", ""});
  EXPECT_NE(md.find("| " + ratio_header + " |"), std::string::npos) << md;
  EXPECT_NE(md.find("| " + t4096.tflops + " | " + t4096.ratio + " |"), std::string::npos) << md;
  const std::string html = compare_report({{h100_results(), triton_peers()}, "html", ""});
  EXPECT_NE(html.find("<th>" + ratio_header + "</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"number\">" + t4096.ratio + "</td>"), std::string::npos);
  EXPECT_NE(html.find(t4096.peer + " on " + kH100), std::string::npos);  // its bars in the chart

  const auto doc = nlohmann::json::parse(compare_report({{h100_results(), triton_peers()}, "json", ""}));
  const auto& measured = doc["measured"];
  ASSERT_EQ(measured["peers"].size(), 1u);
  EXPECT_EQ(measured["peers"][0]["peer"], t4096.peer);
  EXPECT_EQ(measured["peers"][0]["baseline"], "torch.mm");
  EXPECT_EQ(measured["peers"][0]["gpu"], "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(doc["sources"].back(), triton_peers());
  const auto p4096 = std::find_if(
      measured["problems"].begin(), measured["problems"].end(),
      [](const nlohmann::json& p) { return p["m"] == 4096 && p["k"] == 4096 && p["n"] == 4096; });
  ASSERT_NE(p4096, measured["problems"].end());
  ASSERT_EQ((*p4096)["peers"].size(), 1u);
  const auto& peer_run = (*p4096)["peers"][0];
  EXPECT_EQ(peer_run["status"], "passed");
  EXPECT_EQ(peer_run["name"], t4096.entry["tuned"]["name"]);
  EXPECT_NEAR(peer_run["ratio_vs_baseline"].get<double>(), t4096.entry["ratio_vs_cublas"].get<double>(),
              1e-12);
  EXPECT_NEAR(peer_run["tflops"].get<double>(), t4096.entry["tuned"]["tflops"].get<double>(), 1e-12);
  EXPECT_NEAR(peer_run["baseline_tflops"].get<double>(), t4096.entry["cublas"]["tflops"].get<double>(),
              1e-12);
  EXPECT_NEAR((*p4096)["winners"][0]["ratio_vs_cublas"].get<double>(),
              shipped_h100_row(4096).entry["ratio_vs_cublas"].get<double>(), 1e-12);
  // Without a peers file, the JSON has no peers at all.
  EXPECT_FALSE(
      nlohmann::json::parse(compare_report({{h100_results(), derived_h200()}, "json", ""}))["measured"]
          .contains("peers"));

  const auto cli =
      testing_paths::run_command(testing_paths::cli() + " compare " + h100_results() + " " + triton_peers());
  EXPECT_EQ(cli.exit_code, 0) << cli.output;
  EXPECT_NE(cli.output.find(ratio_header), std::string::npos) << cli.output;
}

TEST_F(Compare, PeerShapesWithoutOursAndPeerRunsThatFailedAreShown) {
  auto peers = nlohmann::json::parse(read_text(triton_peers()));
  auto extra = peers["entries"][0];
  extra["m"] = extra["n"] = extra["k"] = 777;
  extra["ratio_vs_cublas"] = 1.2345;
  peers["entries"].push_back(extra);
  for (auto& e : peers["entries"])
    if (e["m"] == 4096 && e["n"] == 4096 && e["k"] == 4096) {
      e["status"] = "incorrect";
      e.erase("ratio_vs_cublas");
    }
  const auto tables = comparison_tables(comparison_of({h100_results(), write("peers.json", peers.dump())}));
  const ReportTable& winners = table_titled(tables, "Measured winners");
  const std::size_t ratio = column_of(winners, shipped_triton_row(512).peer + " vs torch.mm");
  std::size_t seen = 0;
  for (const auto& row : winners.rows) {
    if (row[0] == "777") {
      EXPECT_EQ(row[2], "(not tuned)");
      EXPECT_EQ(row[ratio], "1.23");
      ++seen;
    } else if (row[0] == "4096") {
      EXPECT_EQ(row[ratio], "incorrect");
      EXPECT_EQ(row[ratio - 1], "-");
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2u);
}

TEST_F(Compare, RefusedPeersFiles) {
  const auto edited = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    auto doc = nlohmann::json::parse(read_text(triton_peers()));
    edit(doc);
    return write(name, doc.dump());
  };
  const std::vector<std::pair<std::string, std::string>> cases{
      {edited("string-ratio.json", [](nlohmann::json& d) { d["entries"][3]["ratio_vs_cublas"] = "fast"; }),
       "'entries[3].ratio_vs_cublas' must be a number"},
      {edited("no-baseline.json", [](nlohmann::json& d) { d["entries"][0].erase("cublas"); }),
       "'entries[0]' lacks 'cublas'"},
      {edited("two-peers.json", [](nlohmann::json& d) { d["entries"][2]["implementation"] = "cutlass"; }),
       "'entries[2].implementation' differs from the first entry's ('triton')"},
      {edited("repeated.json", [](nlohmann::json& d) { d["entries"].push_back(d["entries"][0]); }),
       "repeats problem 512"},
      {edited("no-entries.json", [](nlohmann::json& d) { d["entries"] = nlohmann::json::array(); }),
       "'entries' must hold at least one entry"},
      {edited("wrong-kind.json", [](nlohmann::json& d) { d["kind"] = "prediction"; }),
       "'kind' must be \"measured\" in a gemmtune.peers/1 file"},
      {edited("other-gpu.json", [](nlohmann::json& d) { d["device"]["slug"] = "nvidia-a100-sxm4-40gb"; }),
       "holds triton"},
      {triton_peers(), "both hold triton"},
  };
  for (const auto& [path, message] : cases) {
    SCOPED_TRACE(path);
    const auto r = testing_paths::run_command(testing_paths::cli() + " compare " + h100_results() + " " +
                                              triton_peers() + " " + path);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
  // A peers file beside no results file of its GPU has no column to sit beside.
  const auto alone =
      testing_paths::run_command(testing_paths::cli() + " compare " + derived_h200() + " " + triton_peers());
  EXPECT_EQ(alone.exit_code, 2) << alone.output;
  EXPECT_NE(alone.output.find("but no results file for nvidia-h100-80gb-hbm3 was given"), std::string::npos)
      << alone.output;
}

// Chromium from the distribution (scripts/setup.sh installs it), found on PATH.
std::string find_chromium() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = dir + "/chromium";
    if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::size_t pixels_of_colour(const testing_paths::RgbaImage& image, const std::string& hex) {
  const auto rgb = std::stoul(hex.substr(1), nullptr, 16);
  std::size_t count = 0;
  for (std::size_t i = 0; i < image.rgba.size(); i += 4)
    count += image.rgba[i] == (rgb >> 16 & 0xff) && image.rgba[i + 1] == (rgb >> 8 & 0xff) &&
             image.rgba[i + 2] == (rgb & 0xff);
  return count;
}

TEST_F(Compare, HtmlReportRendersInHeadlessChromium) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true")
      FAIL()
          << "chromium is not installed, so the HTML report cannot be rendered; scripts/setup.sh installs it";
    GTEST_SKIP()
        << "chromium is not installed (scripts/setup.sh installs it); the HTML report was not rendered";
  }
  const std::string html =
      write("report.html",
            compare_report({{h100_results(), derived_h200(), a100_plan(), synthetic_cross()}, "html", ""}));
  const std::string png = (dir_ / "screenshot.png").string();
  const auto r = testing_paths::run_command(
      "timeout 120 " + chromium + " --headless --no-sandbox --disable-gpu --user-data-dir=" +
      (dir_ / "profile").string() + " --screenshot=" + png + " --window-size=1200,900 file://" + html);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const testing_paths::RgbaImage image = testing_paths::decode_png(read_text(png));
  EXPECT_EQ(image.width, 1200u);
  EXPECT_EQ(image.height, 900u);
  std::size_t non_white = 0;
  for (std::size_t i = 0; i < image.rgba.size(); i += 4)
    non_white += image.rgba[i] < 240 || image.rgba[i + 1] < 240 || image.rgba[i + 2] < 240;
  EXPECT_GT(non_white, image.rgba.size() / 4 / 50) << "less than 2% of the screenshot is not white";
  // The measured chart's bars, one colour per GPU, are on the first screen.
  EXPECT_GT(pixels_of_colour(image, series_colour(0)), 2000u);
  EXPECT_GT(pixels_of_colour(image, series_colour(1)), 2000u);
}

TEST(BarChartSvg, CategoryLabelsWiderThanTheirGroupAreSlanted) {
  const auto chart_with = [](std::vector<std::string> categories) {
    BarChart chart{"TFLOP/s", "TFLOP/s", categories, {{"GPU", {}}}, false};
    chart.series[0].values.assign(categories.size(), 1.0);
    return grouped_bar_chart_svg(chart);
  };
  const std::string cubes = chart_with({"512", "1024", "4096"});
  EXPECT_EQ(cubes.find("rotate(-35"), std::string::npos) << cubes;
  // Eleven groups of 79 px cannot hold 12-character labels side by side.
  std::vector<std::string> shapes(9, "4096");
  shapes.push_back("4096x64x4096");
  shapes.push_back("4096x4096x64");
  const std::string skinny = chart_with(shapes);
  EXPECT_EQ(occurrences(skinny, "rotate(-35"), 11u) << skinny;
  EXPECT_GT(std::stod(skinny.substr(skinny.find("height=\"") + 8)),
            std::stod(cubes.substr(cubes.find("height=\"") + 8)));
}

}  // namespace
}  // namespace gemmtune
