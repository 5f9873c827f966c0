// Hands a run's problems to its GPUs as they free up: every GPU takes the next problem when it
// finishes one, so a GPU that draws the quick shapes simply tunes more of them (no static split).
// A GPU is reached through ProblemTuner, so the host tests drive the scheduler with fake GPUs of
// different speeds and one that dies. One GPU is the case N = 1 of the same loop.
//
// A GPU whose tune() throws is retired (its worker may be broken); the problem it held goes back
// to the front of the queue for another GPU. A problem that has retired kGpusPerProblem GPUs is
// given up. The run's error, if any, is the first exception that left a problem untuned.
//
// A GPU that finds the queue empty while other GPUs still tune helps them (ProblemTuner::help)
// until the last problem ends or one goes back to the queue; a GPU whose help() throws is retired.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "core/problem.hpp"

namespace gemmtune {

// Where one problem's wall time went, in seconds (the debug log's breakdown, issue #47).
struct ProblemTimes {
  double worker_start = 0;     // the GPU's worker started and its CUDA context made (its first problem only)
  double gather = 0;           // the space enumerated and seeds read
  double prepare = 0;          // operands allocated and cuBLAS timed (at the screening shape, then the problem)
  double first_evaluation = 0; // from the start of the problem to its first evaluation on the GPU
  double compile_wait = 0;     // the GPU waiting for NVRTC
  double gpu = 0;              // evaluations (verify and time) in the worker
  double race = 0;             // the finalists against cuBLAS
  double proposing = 0;        // the strategy's proposals and their compile submissions
  double logging = 0;          // appending to the tuning log
  double record = 0;           // merging the winner into the results file
  // What the parts above leave of the problem's seconds (bookkeeping, the strategy's fits).
  double other(double seconds) const {
    return seconds - worker_start - gather - prepare - compile_wait - gpu - race - proposing - logging - record;
  }
};

struct ShapeOutcome {
  GemmShape shape;
  std::string best_name;
  double best_tflops = 0;
  double ratio = 0;           // the best kernel's time against cuBLAS's default call's
  double cublaslt_ratio = 0;  // ... against cuBLASLt's fastest contestant's (0: none raced)
  std::string winner;         // what the results entry names: "kernel", "cublas" or "cublaslt"
  std::size_t evaluated = 0;        // proposed by the strategy
  std::size_t launch_variants = 0;  // measured besides: other launch choices of binaries at hand
  std::size_t measured_elsewhere = 0;  // of those two, measured by GPUs with no problem left
  double seconds = 0;
  bool complete = false;
  std::string gpu;  // which GPU tuned it, e.g. "GPU 1"
  // Why cuBLAS was recorded as the winner without a race (no candidate fits the problem, every
  // candidate failed, the GPU cannot hold it); empty when the search found a winner.
  std::string fallback;
  ProblemTimes times;
};

// One GPU's tuner as the scheduler sees it. tune() is called from one thread per GPU.
class ProblemTuner {
 public:
  virtual ~ProblemTuner() = default;
  virtual std::string label() const = 0;  // "GPU 1"
  // Returns early (complete false) once the run is interrupted; throws when this GPU cannot go on.
  virtual ShapeOutcome tune(const GemmShape& shape) = 0;
  // No problem is left to hand out while others are being tuned: measure for them until
  // keep_helping() turns false (asked every few milliseconds), and return how many evaluations that
  // was. Throws when this GPU cannot go on. By default it only waits.
  virtual std::size_t help(const std::function<bool()>& keep_helping);
};

inline constexpr int kGpusPerProblem = 2;

// One GPU's share of the run's wall time: busy tuning problems, the rest idle (before its first
// problem, between problems, after its last while others finish).
struct GpuTimeline {
  std::string label;
  std::size_t problems = 0;
  double busy = 0;      // seconds inside tune()
  double last_end = 0;  // seconds from the schedule's start to the end of its last problem
  double helping = 0;   // seconds inside help(), after its last problem
  std::size_t helped = 0;  // evaluations it made for other GPUs' problems
};

struct Schedule {
  double seconds = 0;  // the schedule's wall time
  std::vector<GpuTimeline> gpus;  // in the order given
  std::vector<ShapeOutcome> outcomes;  // in the order of the problems given; untuned ones missing
  std::vector<GemmShape> untuned;      // given up, or left when every GPU was retired or on stop
  std::vector<std::string> retired;    // "GPU 1: <why>"
  std::exception_ptr error;            // the first error behind an untuned problem, else null
};

// Runs until every problem is tuned, every GPU is retired, or stop() says so (it is asked before
// each problem is handed out; a problem in flight ends as its tuner decides).
Schedule tune_on_gpus(const std::vector<ProblemTuner*>& gpus, const std::vector<GemmShape>& problems,
                      const std::function<bool()>& stop);

}  // namespace gemmtune
