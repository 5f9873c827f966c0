// The normwise errors a results entry records for a tensor-core problem (the winner's and cuBLAS
// SGEMM's on the same inputs, #44): written and read back, absent in older files, kept by merge,
// shown by compare and bench only where measured; and % of peak only against a peak the profile knows.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../temp_dir_test.hpp"
#include "../test_paths.hpp"
#include "core/atomic_file.hpp"
#include "core/precision.hpp"
#include "core/result_documents.hpp"
#include "core/results_file.hpp"
#include "core/results_store.hpp"
#include "record/results_merge.hpp"
#include "report/bench_table.hpp"
#include "report/compare_report.hpp"
#include "report/report_tables.hpp"

namespace gemmtune {
namespace {

constexpr double kKernelError = 2.61e-7, kSgemmError = 6.1e-7;

// The shipped H100 results: their 3xtf32 entries predate the error fields.
// The shipped H100 results as written before the error fields existed (the problems tuned since
// carry them).
nlohmann::json shipped_h100() {
  nlohmann::json doc =
      nlohmann::json::parse(*read_whole_file(testing_paths::source_dir() / "results/nvidia-h100-80gb-hbm3.json"));
  for (auto& entry : doc["entries"]) {
    entry.erase("normwise_error");
    entry.erase("sgemm_normwise_error");
  }
  return doc;
}

bool is_3xtf32_1024(const nlohmann::json& entry) {
  return entry["precision"] == "3xtf32" && entry["m"] == 1024 && entry["n"] == 1024 && entry["k"] == 1024 &&
         entry["layout"] == "nn" && entry.value("batch", 1) == 1;
}

GemmShape problem_1024_3xtf32() {
  return parse_sizes("1024:3xtf32").front();
}

// By value: callers pass the results as a temporary.
TunedShape tuned(const TunedResults& results, const GemmShape& shape) {
  const auto it = std::find_if(results.shapes.begin(), results.shapes.end(),
                               [&](const TunedShape& s) { return s.problem == shape; });
  if (it == results.shapes.end()) throw std::runtime_error("no entry for " + shape.label());
  return *it;
}

class NormwiseErrors : public testing_paths::TempDirTest {
 protected:
  // The shipped file with the errors added to its 1024:3xtf32 entry, as a tuner now writes them.
  std::filesystem::path with_errors(const std::string& name) {
    nlohmann::json doc = shipped_h100();
    for (auto& entry : doc["entries"])
      if (is_3xtf32_1024(entry)) {
        entry["normwise_error"] = kKernelError;
        entry["sgemm_normwise_error"] = kSgemmError;
      }
    return write(name, doc);
  }
  std::filesystem::path write(const std::string& name, const nlohmann::json& doc) {
    const auto path = dir_ / name;
    std::ofstream(path) << doc.dump();
    return path;
  }
  TunedResults read(const std::filesystem::path& path) {
    return read_results_text(*read_whole_file(path), path.string());
  }
};

TEST_F(NormwiseErrors, WrittenByTheStoreAndReadBack) {
  nlohmann::json doc = shipped_h100();
  nlohmann::json entry;
  for (const auto& e : doc["entries"])
    if (is_3xtf32_1024(e)) entry = e;
  ASSERT_TRUE(entry.is_object());
  entry["normwise_error"] = kKernelError;
  entry["sgemm_normwise_error"] = kSgemmError;
  const auto path = dir_ / "gpu.json";
  merge_results(path, {{"device", doc["device"]}}, nlohmann::json::array({entry}));
  const TunedShape shape = tuned(read(path), problem_1024_3xtf32());
  EXPECT_DOUBLE_EQ(shape.normwise_error, kKernelError);
  EXPECT_DOUBLE_EQ(shape.sgemm_normwise_error, kSgemmError);
}

TEST_F(NormwiseErrors, EntriesWithoutThemLoadAsNotMeasured) {
  const TunedResults results = read(write("old.json", shipped_h100()));
  EXPECT_EQ(results.schema_version, 3);
  for (const TunedShape& shape : results.shapes) {
    EXPECT_EQ(shape.normwise_error, 0) << shape.problem.label();
    EXPECT_EQ(shape.sgemm_normwise_error, 0) << shape.problem.label();
  }
  nlohmann::json negative = shipped_h100();  // a value out of range is refused, naming its field
  negative["entries"][0]["normwise_error"] = -1;
  try {
    read(write("negative.json", negative));
    FAIL() << "a negative error was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("normwise_error"), std::string::npos) << e.what();
  }
}

TEST_F(NormwiseErrors, MergeAndRewritesKeepThem) {
  // gemm-tune merge keeps the faster measurement of a problem whole: here the one with errors.
  nlohmann::json faster = nlohmann::json::parse(*read_whole_file(with_errors("faster.json")));
  for (auto& entry : faster["entries"])
    if (is_3xtf32_1024(entry)) entry["best"]["tflops"] = entry["best"]["tflops"].get<double>() * 1.1;
  const MergedFiles merged =
      merge_result_files({write("older.json", shipped_h100()), write("faster.json", faster)});
  const auto kept =
      std::find_if(merged.document["entries"].begin(), merged.document["entries"].end(), is_3xtf32_1024);
  ASSERT_NE(kept, merged.document["entries"].end());
  EXPECT_EQ(kept->value("normwise_error", 0.0), kKernelError);
  EXPECT_EQ(kept->value("sgemm_normwise_error", 0.0), kSgemmError);
  // The store's read-modify-write (and its upgrade of older entries) leaves other problems' errors alone.
  const auto path = with_errors("gpu.json");
  nlohmann::json other = shipped_h100()["entries"][0];
  merge_results(path, {{"device", shipped_h100()["device"]}}, nlohmann::json::array({other}));
  EXPECT_DOUBLE_EQ(tuned(read(path), problem_1024_3xtf32()).normwise_error, kKernelError);
}

TEST_F(NormwiseErrors, CompareShowsThemOnlyWhereMeasured) {
  // Two columns for one file would be refused; the same results under another GPU's name.
  const auto second = [&](const std::filesystem::path& path) {
    nlohmann::json doc = nlohmann::json::parse(*read_whole_file(path));
    doc["device"]["slug"] = "second-gpu";
    return write("second-" + path.filename().string(), doc);
  };
  const auto tables_of = [&](const std::filesystem::path& path) {
    const auto tables =
        comparison_tables(build_comparison({load_result_file(path), load_result_file(second(path))}));
    return *std::find_if(tables.begin(), tables.end(),
                         [](const ReportTable& t) { return t.title == "Measured winners"; });
  };
  const ReportTable plain = tables_of(write("plain.json", shipped_h100()));
  EXPECT_EQ(std::find(plain.headers.begin(), plain.headers.end(), "err"), plain.headers.end());

  const ReportTable table = tables_of(with_errors("errors.json"));
  const auto column = [&](const std::string& header) {
    const auto it = std::find(table.headers.begin(), table.headers.end(), header);
    EXPECT_NE(it, table.headers.end()) << header;
    return std::size_t(it - table.headers.begin());
  };
  const std::size_t err = column("err"), sgemm = column("SGEMM err"), peak = column("% of peak");
  const auto row = std::find_if(table.rows.begin(), table.rows.end(), [](const std::vector<std::string>& r) {
    return r[0] == problem_1024_3xtf32().label();
  });
  ASSERT_NE(row, table.rows.end());
  EXPECT_EQ((*row)[err], "2.61e-07");
  EXPECT_EQ((*row)[sgemm], "6.10e-07");
  EXPECT_EQ((*row)[peak], "-");  // the profile holds FP32's peak only
  const auto fp32 = std::find_if(table.rows.begin(), table.rows.end(),
                                 [](const std::vector<std::string>& r) { return r[0] == "512"; });
  ASSERT_NE(fp32, table.rows.end());
  EXPECT_EQ((*fp32)[err], "-");
  EXPECT_NE((*fp32)[peak], "-");
}

TEST(BenchTable, ShowsBothErrorsAndPeakOnlyWhereKnown) {
  BenchRow row;
  row.problem = "1024:3xtf32";
  row.config = "mma_3xtf32_64x64x32_w32x32_s3_b1_z1_k1";
  row.tflops = 30.0;
  row.cublas_tflops = 20.0;
  row.ratio = 1.5;
  row.normwise_error = kKernelError;
  row.sgemm_normwise_error = kSgemmError;
  row.delivered = 1.5;
  EXPECT_NE(bench_header(true).find("SGEMM err"), std::string::npos);
  EXPECT_EQ(bench_header(false).find("err"), std::string::npos);
  const std::string line = bench_line(row, true);
  EXPECT_NE(line.find("2.61e-07"), std::string::npos) << line;
  EXPECT_NE(line.find("6.10e-07"), std::string::npos) << line;
  EXPECT_EQ(line.find('%'), std::string::npos) << line;  // no peak known: "-", not a share of FP32's
  EXPECT_EQ(bench_line(row, false).find("e-07"), std::string::npos);
  EXPECT_EQ(bench_header(true).size(), line.size()) << "columns out of line:\n" << bench_header(true) << line;
}

TEST(PeakTflops, OnlyFp32sPeakIsKnown) {
  DeviceProfile device;
  device.fp32_tflops = 66.9;
  EXPECT_EQ(peak_tflops(device, Precision::fp32), 66.9);
  for (const Precision p : {Precision::tf32x3, Precision::tf32, Precision::bf16, Precision::fp16})
    EXPECT_FALSE(peak_tflops(device, p)) << precision_name(p);
  device.fp32_tflops = 0;  // a file that gives no peak
  EXPECT_FALSE(peak_tflops(device, Precision::fp32));
}

}  // namespace
}  // namespace gemmtune
