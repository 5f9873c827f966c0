// `gemm-tune bench --gpu auto`: the tuned kernel against cuBLAS over a fixed set of shapes (square,
// odd, skinny), each pair raced interleaved in one run. Shapes without a tuned result are tuned
// first. Prints TFLOP/s, % of peak (where the profile knows the precision's peak), the ratio and,
// where the tuner measured them, the normwise errors of the kernel and of cuBLAS SGEMM (3xtf32), and
// writes results/bench-<gpu-slug>.json.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "commands/command.hpp"
#include "commands/tune_command.hpp"
#include "core/problem.hpp"

namespace gemmtune {

inline constexpr const char* kDefaultBenchSizes =
    "512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x4096x64,4096x64x4096";

// tune.shapes are the shapes to bench; the rest of tune configures tuning of missing ones.
int run_bench(const TuneOptions& tune);

// The `bench` subcommand; --gpu and --results-dir are bound to tune, the default command's
// options, whose tuning settings bench uses for the shapes it has to tune first.
Command add_bench_command(CLI::App& app, const std::shared_ptr<TuneOptions>& tune);

}  // namespace gemmtune
