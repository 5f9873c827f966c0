// A results entry's baselines and winner: a kernel wins only by beating cuBLAS's default call and
// cuBLASLt's fastest contestant; cuBLASLt wins over the default call only by more than the margin;
// the algorithm stored is the one faster in the race, with the heuristic's first choice beside it.
#include "record/baseline_entry.hpp"

#include <gtest/gtest.h>

namespace gemmtune {
namespace {

CublasLtContestants contestants(bool with_best) {
  CublasLtContestants c;
  c.first = CublasLtAlgo{};
  c.first->id = 6;
  if (with_best) {
    c.best = CublasLtAlgo{};
    c.best->id = 21;
    c.best->split_k = 4;
  }
  c.version = 130100;
  return c;
}

constexpr double kFlops = 2.0 * 16 * 4096 * 4096;

TEST(BaselineEntry, AKernelWinsOnlyByBeatingBothBaselines) {
  const Baselines b = baselines_of(contestants(true), {1.0, 1.0, 1.0}, {0.9, 0.9, 0.9}, {0.6, 0.6, 0.6}, kFlops);
  EXPECT_DOUBLE_EQ(b.best_ms(), 0.6);
  nlohmann::json entry;
  add_baselines(entry, b, 0.7);  // beats cuBLAS's default call, not cuBLASLt's best
  EXPECT_EQ(entry["winner"], "cublaslt");
  EXPECT_EQ(entry["cublaslt"]["algo"]["id"], 21);
  EXPECT_EQ(entry["cublaslt"]["heuristic_first"]["algo"]["id"], 6);
  EXPECT_EQ(entry["cublaslt"]["version"], 130100);
  EXPECT_NEAR(entry["ratio_vs_cublaslt"].get<double>(), 0.6 / 0.7, 1e-12);
  add_baselines(entry, b, 0.5);
  EXPECT_EQ(entry["winner"], "kernel");
}

TEST(BaselineEntry, TheFasterOfTheTwoInTheRaceIsStored) {
  // The screening said 21 was faster; the race says the heuristic's first choice is.
  const Baselines b = baselines_of(contestants(true), {1.0}, {0.6}, {0.62}, kFlops);
  nlohmann::json entry;
  add_baselines(entry, b, 0);
  EXPECT_EQ(entry["winner"], "cublaslt");
  EXPECT_EQ(entry["cublaslt"]["algo"]["id"], 6);
  EXPECT_FALSE(entry.contains("ratio_vs_cublaslt")) << "no kernel raced";
}

TEST(BaselineEntry, CublasLtWithinTheMarginLeavesCublasDefaultCall) {
  const Baselines b = baselines_of(contestants(false), {1.0}, {0.995}, {}, kFlops);
  EXPECT_FALSE(b.cublaslt_leads());
  nlohmann::json entry;
  add_baselines(entry, b, 1.2);
  EXPECT_EQ(entry["winner"], "cublas");
  EXPECT_TRUE(entry.contains("cublaslt"));
}

TEST(BaselineEntry, WithoutCublasLtOnlyCublasStands) {
  const Baselines b = baselines_of(CublasLtContestants{}, {1.0}, {}, {}, kFlops);
  nlohmann::json entry;
  add_baselines(entry, b, 0.9);
  EXPECT_EQ(entry["winner"], "kernel");
  EXPECT_FALSE(entry.contains("cublaslt"));
  EXPECT_FALSE(entry.contains("ratio_vs_cublaslt"));
}

}  // namespace
}  // namespace gemmtune
