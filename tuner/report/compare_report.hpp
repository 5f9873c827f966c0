// What `gemm-tune compare` shows, worked out once and independent of the output format: per problem,
// each GPU's winner with its TFLOP/s, share of that GPU's peak in the problem's precision (where the
// profile knows it: FP32's), ratio to cuBLAS and, where the tuner measured them, the normwise errors
// of the winner and of cuBLAS SGEMM on the same inputs (3xtf32); which kernel parameters differ
// between the winners; predictions from plans in a section of their own (a static-model estimate
// must never sit in the same column as a measurement); and, from cross files, how much of each GPU's
// own best another GPU's winners reach on it; from peers files (Triton and the like, scripts/peers/),
// the peer's ratio against cuBLAS beside our kernel's, on the same GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result_documents.hpp"

namespace gemmtune {

struct ComparedGpu {
  std::string name;  // as the file's device block gives it: untrusted text
  std::string slug;
  double fp32_peak_tflops = 0;
  std::string source_file;
  std::string date;
};

struct ComparedWinner {
  std::string name;
  KernelConfig config;
  double tflops = 0;                      // measured, or predicted in a predictions section
  std::optional<double> percent_of_peak;  // absent when the file gives no peak
  std::optional<double> cublas_tflops;    // measured sections only
  std::optional<double> ratio_vs_cublas;  // measured sections only: the kernel's own
  std::optional<double> delivered_ratio;  // measured sections only: 1 where the runtime runs cuBLAS
  double normwise_error = 0;              // the results entry's (TunedShape); 0: not measured
  double sgemm_normwise_error = 0;        // cuBLAS SGEMM's on the same inputs (3xtf32); 0: not measured
};

// One kernel parameter on which the winners of a problem disagree. values[i] belongs to gpus[i]
// of the section; absent where that GPU has no winner for the problem.
struct ParameterDifference {
  std::string parameter;
  std::vector<std::optional<std::string>> values;
};

// Another implementation measured on one of the section's GPUs, from a peers file. Its ratios come
// from its own race against its baseline (torch.mm: cuBLAS SGEMM underneath), not from ours.
struct ComparedPeer {
  std::string peer;      // implementation and version, untrusted text
  std::string baseline;  // untrusted text
  std::size_t gpu = 0;   // index into the section's gpus
  std::string source_file;
  std::string date;
};

struct ComparedProblem {
  GemmShape shape;
  std::vector<std::optional<ComparedWinner>> winners;  // one per GPU of the section
  std::vector<ParameterDifference> differences;        // empty when all winners agree
  std::vector<std::optional<PeerRun>> peer_runs;       // one per peer of the section
};

struct ComparisonSection {
  bool predicted = false;
  std::vector<ComparedGpu> gpus;
  std::vector<ComparedPeer> peers;        // measured section only
  std::vector<ComparedProblem> problems;  // sorted by shape
};

struct PortabilityCell {
  double geomean_percent = 0;  // of percent_of_own_best over the problems measured
  std::size_t problems = 0;    // 0 for a diagonal cell that is 100% by definition
  bool by_definition = false;  // a GPU's own winners on itself, from its results file
};

// Rows: the GPU whose winners were run (cross "from"); columns: the GPU they ran on.
struct PortabilityMatrix {
  std::vector<std::string> slugs;  // the same GPUs, in the same order, on both axes
  std::vector<std::string> names;  // display name per slug (the slug when no file names it)
  std::vector<std::vector<std::optional<PortabilityCell>>> cells;  // [from][on]
};

struct Comparison {
  std::vector<std::string> sources;  // every file, in the order given
  ComparisonSection measured;
  ComparisonSection predicted;
  std::vector<ComparedGpu> cross_gpus;           // the GPU each cross file's runs were made on
  std::optional<PortabilityMatrix> portability;  // only when cross files were given
};

// Throws std::invalid_argument when two files of the same kind describe the same GPU (which one
// should be shown would be a guess; for peers files, the same peer on the same GPU), or when a peers
// file's GPU has no results file among the files (its column sits beside our kernel's).
Comparison build_comparison(const std::vector<ResultFile>& files);

}  // namespace gemmtune
