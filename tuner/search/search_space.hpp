// The search space: value lists for every KernelConfig parameter of one kernel family
// (configs/sgemm.json; configs/skinny-*.json) and the named constraints that cut the cross product
// down for one device and one problem shape. Everything a
// constraint removes is counted under its name, so a plan or a tuning log can say why a
// configuration was never tried.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/device_profile.hpp"
#include "core/kernel_config.hpp"
#include "core/problem.hpp"

namespace gemmtune {

struct ConstraintSettings {
  int min_threads = 64;
  int max_threads = 1024;
  int max_outputs_per_thread = 128;  // micro-tile area (accumulator registers)
  int max_micro_tile_aspect = 2;     // longer side of the micro-tile over the shorter
  int register_overhead = 28;        // registers beyond accumulators, fragments and load staging
  double max_tile_waste = 0.5;       // fraction of a block tile allowed to fall outside C
  // A problem of fewer rows (or columns) than this counts as this many for max_tile_waste: a
  // decode-sized call is bound by reading the other operand once, so a tensor-core tile's rows past
  // the problem's cost no bandwidth, only compute the tensor cores have to spare (0: off).
  int min_counted_rows = 0;
  int min_k_per_split = 128;         // split-K slices thinner than this are not worth a reduction
  double split_k_max_waves = 1.0;    // split-K only while the plain grid fills fewer waves than this
};

// Constraint names, in the order they are applied (the first that fails is the recorded reason).
const std::vector<std::string>& constraint_names();

struct SearchSpace {
  KernelFamily family = KernelFamily::sgemm;       // "kernel" in the file
  Precision precision = Precision::fp32;           // "precision" in the file: the problems it serves
  std::map<std::string, std::vector<int>> values;  // parameter -> allowed values (bools as 0/1)
  std::vector<std::string> enabled;                // constraint names present in the file
  ConstraintSettings settings;
  std::string source;  // file path or "built-in"

  std::size_t cross_product_size() const;
};

// Throws std::invalid_argument with a message naming the problem (unknown parameter or constraint,
// empty or mistyped value list, invalid JSON).
SearchSpace parse_search_space(const nlohmann::json& j, const std::string& source);
SearchSpace load_search_space(const std::filesystem::path& path);  // path empty: built-in default

// The spaces a run searches: the file given (--space), or else the built-in space of every family,
// configs/sgemm.json, then configs/skinny-stream.json and configs/skinny-tiled.json (whose row_tile
// constraint leaves them nothing for problems of more than 8 and 32 rows of C), the stream kernel's
// bf16 and fp16 spaces, the mma spaces and
// the wgmma spaces (whose architecture constraint leaves them nothing off compute capability 9.0; bf16,
// fp16 and tf32 have two each: consumers sharing each tile, and consumers taking tiles in turn).
std::vector<SearchSpace> load_search_spaces(const std::filesystem::path& path);

struct Enumeration {
  std::vector<KernelConfig> candidates;
  std::map<std::string, std::size_t> removed;  // constraint -> candidates it removed
  std::size_t total = 0;                       // size of the cross product
};

// Applies every enabled constraint. shape may be null: then problem-dependent constraints are
// skipped and launch-time parameters are fixed to 1 (one entry per distinct binary).
Enumeration enumerate(const SearchSpace& space, const DeviceProfile& device, const GemmShape* shape);
// Every space's enumeration, one after the other; what the constraints removed is summed by name.
Enumeration enumerate(const std::vector<SearchSpace>& spaces, const DeviceProfile& device, const GemmShape* shape);

// The space of config's family among spaces (the first one where none is).
const SearchSpace& space_of(const std::vector<SearchSpace>& spaces, const KernelConfig& config);

// The constraint that rejects config, or an empty string. Exposed for tests and for vetting
// configurations from other sources (seeds, results of other GPUs).
std::string rejecting_constraint(const SearchSpace& space, const KernelConfig& config,
                                 const DeviceProfile& device, const GemmShape* shape);

// Every parameter name, in a fixed order that starts with the tile shape (block_m, block_n,
// block_k, thread_m, thread_n).
const std::vector<std::string>& parameter_names();

// config's value of every parameter, in parameter_names() order (bools as 0/1): the coordinates a
// search strategy moves a configuration along. Two configurations differ exactly when these do.
std::vector<int> parameter_values(const KernelConfig& config);

// The tile shape (block_m, block_n, block_k, thread_m, thread_n, pingpong: the first six of
// parameter_values) that strategies spread their first measurements over. A pingpong tile is a
// shape of its own: with the same block as a shared tile, the surrogate's first generation had
// measured only the shared one, and never came back to it (a fresh bf16 search at 4096 ended on
// 128x256 shared tiles at 0.946x cuBLAS, with 128x128 in turn at 1.000 untried; H200, 2026-11-29).
constexpr std::size_t kTileShapeLength = 6;
std::vector<int> tile_shape_of(const std::vector<int>& values);

// The register estimate used by the register_estimate constraint.
int estimated_registers(const KernelConfig& config, int overhead);

}  // namespace gemmtune
