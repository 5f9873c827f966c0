// The typed description of one SGEMM kernel variant: every parameter of kernel_templates/sgemm.cuh
// plus the launch-time choices (block swizzle, split-K). Shared by the tuner (which enumerates them)
// and the runtime (which reads them back from results caches), so the rules live here once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/layout.hpp"

namespace gemmtune {

// fma_order values. For these three orders ptxas mostly keeps the FMAs of a k step in the order the
// source gives them (not for every order: see docs/kernel-notes.md), and that order decides which
// operands the register reuse cache can serve and how often operands collide in one register bank;
// which order issues fastest depends on the micro-tile, so it is tuned.
inline constexpr int kFmaOrderRows = 0;               // row by row, each row left to right
inline constexpr int kFmaOrderRowsSerpentine = 1;     // row by row, odd rows right to left
inline constexpr int kFmaOrderColumnsSerpentine = 2;  // column by column, odd columns bottom to top

// The calls a binary serves (PATH in kernel_templates/sgemm.cuh), each a specialisation of the one
// before: general, every call; whole vectors, calls whose operands are aligned to the vector width
// and whose rows are whole vectors (the copies skip per-element checks); whole tiles, those calls
// whose C is aligned too and whose N is a multiple of block_n (the epilogue stores whole vectors
// without checks). kernel_path_for (kernel_path.hpp) decides. Specialised binaries compile in half
// the time of one that serves every call. Not a tuning parameter: the call decides, as it does the
// layout.
enum class KernelPath { general = 0, whole_vectors = 1, whole_tiles = 2 };

struct KernelConfig {
  // Compile-time: each distinct combination is one NVRTC instantiation.
  int block_m = 64;       // BM: rows of C per thread block
  int block_n = 64;       // BN: columns of C per thread block
  int block_k = 16;       // BK: depth of one shared-memory tile
  int thread_m = 4;       // TM: rows of C per thread (micro-tile)
  int thread_n = 4;       // TN: columns of C per thread
  int warp_rows = 4;      // threads of a warp along M; 32 / warp_rows along N
  int pad_a = 0;          // floats of padding per shared-memory row of A
  int pad_b = 0;          // floats of padding per shared-memory row of B
  int stages = 2;         // shared-memory stages: 1 single, 2 double buffered, 3+ need async_copy
  bool async_copy = false;   // cp.async global->shared copies (sm_80+)
  bool transpose_a = true;   // A stored k-major in shared memory (vector fragment reads)
  bool transpose_b = false;  // B stored n-major in shared memory (as a B^T operand lies in global memory)
  int vector_width = 4;      // floats per global load (1, 2 or 4)
  int min_blocks = 1;        // __launch_bounds__ minimum resident blocks per SM
  int fma_order = 0;         // order of a k step's FMAs over the micro-tile (see kFmaOrder* above)
  // With split-K, slices add into C with atomics: no partial sums in memory (the workspace holds a
  // counter per tile) and no reduction kernel, but the order of the additions, and so the last bits
  // of C, may change from run to run
  // (GEMMTUNE_DETERMINISTIC=1 makes the runtime use the workspace reduction instead). Meaningless
  // without split-K. Compile-time although only the epilogue differs: see kernel_templates/sgemm.cuh.
  bool split_k_atomic = false;
  // The operands' layouts in global memory, op(A) then op(B) (nn: A is m x k, B is k x n; a t
  // stores that operand transposed). Compile-time, but never searched: the problem fixes it.
  Layout layout = Layout::nn;
  // Launch-time: the same binary serves every value.
  int swizzle = 1;   // block rows walked together for L2 reuse (1 = plain order)
  int split_k = 1;   // slices of K (1 = none), reduced by a second kernel or atomically

  int threads() const;
  std::size_t shared_bytes() const;
  // Canonical, human-readable, unique: sgemm_128x128x8_t8x8_w4_p4.4_s3a_ta_v4_b1_z8_k1 (k4a: atomic;
  // B n-major in shared memory adds _bt; a layout other than nn ends it: ..._k1_bt_nt)
  std::string name() const;
  // NVRTC name expression of the template instantiation for that path (launch-time fields
  // excluded).
  std::string name_expression(KernelPath path) const;
  // True when two configs compile to the same kernel binary.
  bool same_binary(const KernelConfig& other) const;

  friend bool operator==(const KernelConfig& a, const KernelConfig& b);
  friend bool operator!=(const KernelConfig& a, const KernelConfig& b) { return !(a == b); }
};

// Why the template cannot be instantiated with this config (ranges and structural rules), or
// nullopt when it can. Never depends on a device: device limits are the tuner's constraints.
std::optional<std::string> config_error(const KernelConfig& config);

// Minimum compute capability (major * 10 + minor) the config needs.
int min_compute_capability(const KernelConfig& config);

// The config every supported GPU can run and that is correct for every shape.
KernelConfig default_config();

// JSON conversion. from_json validates every field and throws std::invalid_argument naming it.
void to_json(nlohmann::json& j, const KernelConfig& config);
void from_json(const nlohmann::json& j, KernelConfig& config);

}  // namespace gemmtune
