// The typed description of one GEMM kernel variant: its family (which template), every parameter of
// that template, plus the launch-time choices (block swizzle, split-K). Shared by the tuner (which
// enumerates them) and the runtime (which reads them back from results caches), so the rules live
// here once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/layout.hpp"
#include "core/precision.hpp"

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

// Which template a config instantiates. sgemm: kernel_templates/sgemm.cuh, FP32 on the CUDA cores,
// any shape. skinny_stream and skinny_tiled: kernel_templates/skinny.cuh, for few rows of C (m up to
// 8, and 8 to 32: decoding's calls), where reading B once is the floor; they serve the general and
// whole-vector paths (no whole tiles). mma: kernel_templates/mma.cuh, the tensor cores through
// mma.sync (sm_80+; fp16 from sm_75), for the precisions other than fp32; general and whole-vector paths. wgmma:
// kernel_templates/wgmma.cuh, Hopper's warpgroup MMA fed by TMA (sm_90a: compute capability 9.0
// only), bf16/fp16/tf32/3xtf32 in every layout; whole-vector path only (tensor maps need 16-byte aligned rows).
enum class KernelFamily { sgemm = 0, skinny_stream = 1, skinny_tiled = 2, mma = 3, wgmma = 4 };

// "sgemm", "skinny_stream", "skinny_tiled", "mma", "wgmma"
const char* family_name(KernelFamily family);
KernelFamily parse_family(const std::string& name);  // throws std::invalid_argument
inline bool is_skinny(KernelFamily family) {
  return family == KernelFamily::skinny_stream || family == KernelFamily::skinny_tiled;
}

// One struct for every family: a family uses the fields its template takes (listed below) and
// leaves the others at their defaults (config_error insists, so equal configs are equal fields).
//   sgemm: every field above `lanes_k`;
//   skinny_stream: precision (fp32, bf16 or fp16 operands; FP32 sums), c16, block_m (BM, 1 to 8),
//     block_n (the tile's columns, warps_n * 32 / lanes_k * thread_n), thread_n (TN), lanes_k,
//     warps_n, k_groups (warps along k), unroll, prefetch;
//   skinny_tiled: block_m (8 to 32), block_n, block_k, thread_m, thread_n, stages (cp.async),
//     min_blocks, k_groups (thread groups along k);
//   mma: precision, block_m, block_n, block_k, warp_m, warp_n, stages, min_blocks, swizzle,
//     round_split (3xtf32), c16 (split-K adds atomically into an FP32 C, through the workspace into a
//     16-bit one);
//   wgmma: precision, block_m, block_n, block_k (one 128-byte swizzle row: 64 halves or 32 floats),
//     stages, consumers, cluster, cluster_k, persistent, pretranspose (tf32, 3xtf32 outside nt), pingpong, swizzle, c16
//     (split-K as mma's);
//   all: layout, split_k (skinny: slices reduced inside the launch).
// sgemm and skinny_tiled compute in fp32, the precision's default.
struct KernelConfig {
  KernelFamily family = KernelFamily::sgemm;
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
  // The skinny kernels' own (kernel_templates/skinny.cuh).
  int lanes_k = 1;        // stream: lanes of a warp along k; the other 32 / lanes_k go along n
  int warps_n = 1;        // stream: warps along n
  int k_groups = 1;       // stream: warps along k; tiled: thread groups splitting each stage's k
  int unroll = 2;         // stream: k-steps whose B loads are in flight together
  bool prefetch = false;  // stream: the next iteration's B loaded before this one's FMAs
  // The tensor-core kernels' own (kernel_templates/mma.cuh).
  Precision precision = Precision::fp32;  // what A and B hold and how they are multiplied (and skinny_stream's A and B)
  int warp_m = 64;                        // rows of C per warp
  int warp_n = 64;                        // columns of C per warp
  // 3xtf32: both parts of the split rounded (more accurate, slower) or the small one truncated by
  // the tensor core (kernel_templates/mma.cuh, ROUND_SPLIT).
  bool round_split = false;
  // C holds the operands' 16-bit type (bf16, fp16) instead of FP32: mma, wgmma and the stream kernel
  // with 16-bit operands. Compile-time (the epilogue packs and rounds); with split-K the slices add
  // into an FP32 workspace that the reduction kernel rounds into C, never into 16-bit C itself.
  bool c16 = false;
  // The Hopper kernels' own (kernel_templates/wgmma.cuh).
  int consumers = 1;        // consumer warpgroups (each owns block_m / consumers rows of the tile, or
                            // whole tiles in turn: pingpong)
  int cluster = 1;          // CTAs per cluster: 2 pairs tiles along N, sharing A by TMA multicast
  // 2: clusters of two CTAs on one tile, each half of its K, the halves' sums added in shared memory
  // (distributed: CTA 1 stores into CTA 0's). Split-K's parallelism for skinny products without its
  // kernel over C or its additions in global memory. Not with cluster 2 or pingpong.
  int cluster_k = 1;
  bool persistent = false;  // launch-time: a grid of one CTA (cluster) per SM looping over the tiles
  // tf32 and 3xtf32 outside nt: a kernel first copies the MN-major operands K-major into the
  // workspace, and the nt kernel runs on the copies: for tf32 the TMA-fed one (tf32 wgmma reads
  // K-major operands only) instead of the A-in-registers kernel; for 3xtf32 its own nt kernel, whose
  // splitters then read B with no staging tile to transpose it through.
  bool pretranspose = false;
  // The consumers take turns, each computing whole tiles (block_m x block_n), so that one's main
  // loop overlaps the other's epilogue; otherwise each computes block_m / consumers rows of every
  // tile. Not the A-in-registers kernel's.
  bool pingpong = false;
  // Launch-time: the same binary serves every value.
  int swizzle = 1;   // block rows walked together for L2 reuse (1 = plain order)
  int split_k = 1;   // slices of K (1 = none), reduced by a second kernel or atomically (skinny:
                     // inside the launch, by the last block of each tile)

  int threads() const;
  std::size_t shared_bytes() const;          // per block, static and dynamic
  std::size_t dynamic_shared_bytes() const;  // what the launch asks for (the stream kernel's is static)
  // Canonical, human-readable, unique: sgemm_128x128x8_t8x8_w4_p4.4_s3a_ta_v4_b1_z8_k1 (k4a: atomic;
  // B n-major in shared memory adds _bt; a layout other than nn ends it: ..._k1_bt_nt);
  // skinny_s8x256_t4_l8_w2x4_u2p_k4_nt (stream: BM x BN, TN, lanes_k, warps n x k, unroll,
  // prefetch, split-K); skinny_32x128x16_t8x4_s3_g1_b4_k8 (tiled: tile, thread tile, stages,
  // k groups, min blocks, split-K); mma_bf16_128x128x32_w64x64_s4_b1_z8_k1 (precision, tile, warp
  // tile, stages, min blocks, swizzle, split-K; 3xtf32 with round_split adds _r); a 16-bit stream
  // kernel names its precision: skinny_bf16_s8x256_t4_l8_w2x4_u2p_k4_nt. A 16-bit C adds _c16 before
  // the layout: mma_bf16_64x64x32_w32x32_s3_b1_z1_k1_c16_nt.
  std::string name() const;
  // NVRTC name expression of the template instantiation for that path (launch-time fields
  // excluded).
  std::string name_expression(KernelPath path) const;
  // True when two configs compile to the same kernel binary.
  bool same_binary(const KernelConfig& other) const;

  friend bool operator==(const KernelConfig& a, const KernelConfig& b);
  friend bool operator!=(const KernelConfig& a, const KernelConfig& b) { return !(a == b); }
};

// The tensor-core families split K one way with an FP32 C: each slice adds alpha * its part into C
// (which a kernel over C first scales by beta), with no workspace and no reduction of partial sums.
// With a 16-bit C they write each slice's partial sums to the workspace instead, and the reduction
// kernel adds them up and rounds once (adding into 16-bit C would round every partial sum).
inline bool adds_slices_into_c(const KernelConfig& c) {
  return (c.family == KernelFamily::mma || c.family == KernelFamily::wgmma) && !c.c16;
}

// The wgmma kernel that takes A's fragments from registers and B through the splitter warps
// (kernel_templates/wgmma.cuh's wgmma_gemm_tf32x): 3xtf32 in every layout (its nt instance on copies
// with pretranspose), and tf32 where an operand is MN-major (layouts other than nt), which tf32 wgmma
// cannot read from shared memory, unless the operands are copied K-major first (pretranspose).
inline bool wgmma_a_in_registers(const KernelConfig& c) {
  return c.family == KernelFamily::wgmma &&
         (c.precision == Precision::tf32x3 ||
          (c.precision == Precision::tf32 && c.layout != Layout::nt && !c.pretranspose));
}

// Rows of C a wgmma consumer warpgroup computes at once: the tile's share, or the whole tile.
inline int wgmma_consumer_rows(const KernelConfig& c) { return c.pingpong ? c.block_m : c.block_m / c.consumers; }

// The operands a pretranspose config copies K-major before its GEMM: A stored k x m, B stored k x n.
inline bool pretransposes_a(const KernelConfig& c) { return c.pretranspose && op_a_transposed(c.layout); }
inline bool pretransposes_b(const KernelConfig& c) { return c.pretranspose && !op_b_transposed(c.layout); }

// Why the template cannot be instantiated with this config (ranges and structural rules), or
// nullopt when it can. Never depends on a device: device limits are the tuner's constraints.
std::optional<std::string> config_error(const KernelConfig& config);

// Minimum compute capability (major * 10 + minor) the config needs.
int min_compute_capability(const KernelConfig& config);
// Whether a GPU of that compute capability runs the config: from min_compute_capability on, except
// the wgmma family, whose sm_90a code runs on 9.0 alone (arch-specific features do not carry forward).
bool runs_on(const KernelConfig& config, int compute_capability);
// The NVRTC architecture that compiles config for a GPU of the given one ("sm_90" -> "sm_90a" for
// the wgmma family); throws std::invalid_argument where the config cannot run there.
std::string compile_arch(KernelFamily family, const std::string& arch);

// The config every supported GPU can run and that is correct for every shape.
KernelConfig default_config();

// JSON conversion. from_json validates every field and throws std::invalid_argument naming it.
void to_json(nlohmann::json& j, const KernelConfig& config);
void from_json(const nlohmann::json& j, KernelConfig& config);

}  // namespace gemmtune
