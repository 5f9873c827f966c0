// Table construction. A problem's label is written on its first row only, so a group of rows (one
// per GPU) reads as one problem in every format.
#include "report/report_tables.hpp"

#include <fmt/format.h>

namespace gemmtune {
namespace {

constexpr const char* kNone = "-";

std::string format_optional(const std::optional<double>& value, std::string (*format)(double)) {
  return value ? format(*value) : kNone;
}

std::string format_ratio(double ratio) {
  return fmt::format("{:.2f}", ratio);
}

ReportTable gpu_table(const Comparison& comparison) {
  ReportTable t{ReportPart::gpus,
                "GPUs and files",
                "FP32 peak as each file's device block gives it; predictions come from plans (static model).",
                {"GPU", "slug", "numbers", "FP32 peak TFLOP/s", "file", "date"},
                {false, false, false, true, false, false},
                {}};
  const auto add = [&t](const ComparedGpu& gpu, const char* numbers) {
    t.rows.push_back(
        {gpu.name, gpu.slug, numbers, format_tflops(gpu.fp32_peak_tflops), gpu.source_file, gpu.date});
  };
  for (const ComparedGpu& gpu : comparison.measured.gpus) add(gpu, "measured");
  for (const ComparedGpu& gpu : comparison.predicted.gpus) add(gpu, "PREDICTED");
  for (const ComparedGpu& gpu : comparison.cross_gpus) add(gpu, "measured: cross runs");
  for (const ComparedPeer& peer : comparison.measured.peers) {
    const ComparedGpu& gpu = comparison.measured.gpus[peer.gpu];
    t.rows.push_back({gpu.name, gpu.slug, "measured: peer " + peer.peer + " vs " + peer.baseline,
                      format_tflops(gpu.fp32_peak_tflops), peer.source_file, peer.date});
  }
  return t;
}

// Whether a winner of the section has a measured normwise error: only then does the table show the
// error columns, so a comparison of fp32 results reads as before.
bool has_errors(const ComparisonSection& section) {
  for (const ComparedProblem& problem : section.problems)
    for (const auto& w : problem.winners)
      if (w && w->normwise_error > 0) return true;
  return false;
}

ReportTable winner_table(const ComparisonSection& section) {
  const bool with_errors = !section.predicted && has_errors(section);
  ReportTable t;
  t.part = section.predicted ? ReportPart::predicted : ReportPart::measured;
  if (section.predicted) {
    t.title = "PREDICTED winners (plans: static model, nothing was run)";
    t.note =
        "Predicted TFLOP/s of each plan's first-ranked candidate; not measured, not comparable with measured "
        "numbers.";
    t.headers = {"problem", "GPU", "predicted best configuration", "PREDICTED TFLOP/s",
                 "predicted % of peak"};
    t.right_aligned = {false, false, false, true, true};
  } else {
    t.title = "Measured winners";
    t.note =
        "Each GPU's best configuration from its results file: median TFLOP/s of the final race against "
        "cuBLAS "
        "in the same run; % of that GPU's peak in the problem's precision (FP32's; - for the tensor-core "
        "precisions, whose peaks the device profiles do not hold); vs cuBLAS = cuBLAS time / tuned time; "
        "delivered = what the runtime library gets (1.00 where cuBLAS won the race and runs).";
    t.headers = {"problem",        "GPU",       "best configuration", "TFLOP/s", "% of peak",
                 "cuBLAS TFLOP/s", "vs cuBLAS", "delivered"};
    t.right_aligned = {false, false, false, true, true, true, true, true};
    if (with_errors) {
      t.note +=
          " err, SGEMM err = normwise error ||C - R|| / ||R|| against a float64 reference, of the winner and "
          "of cuBLAS SGEMM on the same inputs (3xtf32), as the tuner measured them at the problem.";
      t.headers.insert(t.headers.end(), {"err", "SGEMM err"});
      t.right_aligned.insert(t.right_aligned.end(), {true, true});
    }
    for (const ComparedPeer& peer : section.peers) {
      t.note += " " + peer.peer + " columns: its autotuned winner on that GPU, from its peers file; vs " +
                peer.baseline + " = " + peer.baseline + " time / " + peer.peer +
                " time in its own race (cuBLAS underneath, TF32 off).";
      t.headers.push_back(peer.peer + " TFLOP/s");
      t.headers.push_back(peer.peer + " vs " + peer.baseline);
      t.right_aligned.insert(t.right_aligned.end(), {true, true});
    }
  }
  const std::size_t own_columns = t.headers.size() - 2 * section.peers.size();
  for (const ComparedProblem& problem : section.problems) {
    bool first = true;
    for (std::size_t g = 0; g < section.gpus.size(); ++g) {
      const auto& w = problem.winners[g];
      std::vector<std::string> row{first ? problem.shape.label() : "", section.gpus[g].name};
      first = false;
      if (!w) {
        row.push_back(section.predicted ? "(not in the plan)" : "(not tuned)");
        row.resize(own_columns, kNone);
      } else {
        row.push_back(w->name);
        row.push_back(format_tflops(w->tflops));
        row.push_back(format_optional(w->percent_of_peak, format_percent));
        if (!section.predicted) {
          row.push_back(format_optional(w->cublas_tflops, format_tflops));
          row.push_back(format_optional(w->ratio_vs_cublas, format_ratio));
          row.push_back(format_optional(w->delivered_ratio, format_ratio));
          if (with_errors) {
            row.push_back(format_normwise_error(w->normwise_error));
            row.push_back(format_normwise_error(w->sgemm_normwise_error));
          }
        }
      }
      for (std::size_t p = 0; p < section.peers.size(); ++p) {
        const auto& run = problem.peer_runs[p];
        if (section.peers[p].gpu != g || !run) {
          row.insert(row.end(), {kNone, kNone});
        } else if (!run->passed()) {
          row.insert(row.end(), {kNone, run->status});
        } else {
          row.push_back(format_tflops(run->tflops));
          row.push_back(format_ratio(run->ratio_vs_baseline));
        }
      }
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

ReportTable difference_table(const ComparisonSection& section) {
  ReportTable t{section.predicted ? ReportPart::predicted : ReportPart::measured,
                section.predicted ? "PREDICTED winners: parameters that differ"
                                  : "Measured winners: parameters that differ",
                "Kernel parameters on which the GPUs' winners for a problem disagree, with each GPU's value.",
                {"problem", "parameter"},
                {false, false},
                {}};
  for (const ComparedGpu& gpu : section.gpus) {
    t.headers.push_back(gpu.name);
    t.right_aligned.push_back(true);
  }
  for (const ComparedProblem& problem : section.problems) {
    std::size_t with_winner = 0;
    for (const auto& w : problem.winners) with_winner += w.has_value();
    if (with_winner < 2) continue;
    if (problem.differences.empty()) {
      std::vector<std::string> row{problem.shape.label(), "(none: the same configuration)"};
      row.resize(t.headers.size());
      t.rows.push_back(std::move(row));
    }
    bool first = true;
    for (const ParameterDifference& d : problem.differences) {
      std::vector<std::string> row{first ? problem.shape.label() : "", d.parameter};
      first = false;
      for (const auto& value : d.values) row.push_back(value.value_or(kNone));
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

ReportTable portability_table(const PortabilityMatrix& matrix) {
  ReportTable t{
      ReportPart::portability,
      "Portability (measured, from cross files)",
      "Row GPU's winners run on the column GPU: geometric mean over problems of % of the column GPU's own "
      "best (problems in parentheses); own = 100% by definition.",
      {"winners of \\ run on"},
      {false},
      {}};
  for (const std::string& name : matrix.names) {
    t.headers.push_back(name);
    t.right_aligned.push_back(true);
  }
  for (std::size_t from = 0; from < matrix.slugs.size(); ++from) {
    std::vector<std::string> row{matrix.names[from]};
    for (const auto& cell : matrix.cells[from]) {
      if (!cell)
        row.push_back(kNone);
      else if (cell->by_definition)
        row.push_back("100% (own)");
      else
        row.push_back(fmt::format("{} ({})", format_percent(cell->geomean_percent), cell->problems));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

std::string format_tflops(double tflops) {
  return fmt::format("{:.1f}", tflops);
}

std::string format_percent(double percent) {
  return fmt::format("{:.1f}%", percent);
}

std::string format_normwise_error(double error) {
  return error > 0 ? fmt::format("{:.2e}", error) : kNone;
}

std::vector<ReportTable> comparison_tables(const Comparison& comparison) {
  std::vector<ReportTable> tables{gpu_table(comparison)};
  for (const ComparisonSection* section : {&comparison.measured, &comparison.predicted}) {
    if (section->gpus.empty()) continue;
    tables.push_back(winner_table(*section));
    ReportTable differences = difference_table(*section);
    if (!differences.rows.empty()) tables.push_back(std::move(differences));
  }
  if (comparison.portability) tables.push_back(portability_table(*comparison.portability));
  return tables;
}

}  // namespace gemmtune
