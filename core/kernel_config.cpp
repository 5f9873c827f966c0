// Parameter rules and naming for KernelConfig; the ranges here bound what any results cache can ask
// the compiler for, so untrusted caches cannot reach NVRTC with anything else.
#include "core/kernel_config.hpp"

#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gemmtune {
namespace {

bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }
bool in(int x, std::initializer_list<int> allowed) {
  for (int a : allowed)
    if (x == a) return true;
  return false;
}
auto fields(const KernelConfig& c) {
  return std::tie(c.family, c.block_m, c.block_n, c.block_k, c.thread_m, c.thread_n, c.warp_rows, c.pad_a, c.pad_b,
                  c.stages, c.async_copy, c.transpose_a, c.transpose_b, c.vector_width, c.min_blocks, c.fma_order,
                  c.swizzle, c.split_k, c.split_k_atomic, c.layout, c.lanes_k, c.warps_n, c.k_groups, c.unroll,
                  c.prefetch, c.precision, c.warp_m, c.warp_n, c.round_split, c.consumers, c.cluster,
                  c.persistent, c.pretranspose, c.pingpong, c.c16, c.cluster_k);
}

// The skinny kernels' shared-memory sizes, as kernel_templates/skinny/*.cuh lay them out.
std::size_t skinny_tiled_shared_bytes(const KernelConfig& c) {
  const std::size_t stage_a = std::size_t(c.block_m) * (c.block_k + 4);
  const std::size_t stage_b = op_b_transposed(c.layout) ? std::size_t(c.block_n) * (c.block_k + 4)
                                                        : std::size_t(c.block_k) * (c.block_n + 4);
  return std::size_t(c.stages) * (stage_a + stage_b) * sizeof(float);
}

}  // namespace

const char* family_name(KernelFamily family) {
  switch (family) {
    case KernelFamily::skinny_stream: return "skinny_stream";
    case KernelFamily::skinny_tiled: return "skinny_tiled";
    case KernelFamily::mma: return "mma";
    case KernelFamily::wgmma: return "wgmma";
    case KernelFamily::sgemm: break;
  }
  return "sgemm";
}

KernelFamily parse_family(const std::string& name) {
  for (KernelFamily f : {KernelFamily::sgemm, KernelFamily::skinny_stream, KernelFamily::skinny_tiled, KernelFamily::mma,
                         KernelFamily::wgmma})
    if (name == family_name(f)) return f;
  throw std::invalid_argument("is not sgemm, skinny_stream, skinny_tiled, mma or wgmma");
}

int KernelConfig::threads() const {
  switch (family) {
    case KernelFamily::skinny_stream: return 32 * warps_n * k_groups;
    case KernelFamily::skinny_tiled:
      if (thread_m <= 0 || thread_n <= 0) return 0;
      return (block_m / thread_m) * (block_n / thread_n) * k_groups;
    case KernelFamily::mma:
      if (warp_m <= 0 || warp_n <= 0) return 0;
      return 32 * (block_m / warp_m) * (block_n / warp_n);
    case KernelFamily::wgmma: return 128 * (consumers + 1);  // a producer warpgroup and the consumers
    case KernelFamily::sgemm: break;
  }
  if (thread_m <= 0 || thread_n <= 0) return 0;
  return (block_m / thread_m) * (block_n / thread_n);
}

std::size_t KernelConfig::dynamic_shared_bytes() const {
  return family == KernelFamily::skinny_stream ? 0 : shared_bytes();
}

std::size_t KernelConfig::shared_bytes() const {
  if (family == KernelFamily::skinny_stream)  // the warps' sums before they are added (static)
    return k_groups > 1 ? std::size_t(k_groups) * block_m * block_n * sizeof(float) : 0;
  if (family == KernelFamily::skinny_tiled) return skinny_tiled_shared_bytes(*this);
  if (family == KernelFamily::mma)  // kernel_templates/mma/shape.cuh: STAGES of both tiles, unpadded
    return std::size_t(stages) * (std::size_t(block_m) * block_k + std::size_t(block_k) * block_n) *
           std::size_t(operand_bytes(precision));
  if (family == KernelFamily::wgmma) {  // kernel_templates/wgmma/shape.cuh: 128-byte rows, barriers, alignment slack
    if (wgmma_a_in_registers(*this)) {  // wgmma::SplitShape: a third barrier a stage
      // B, then 3xtf32's small parts, then B K-major where B stored k x n lands in a staging tile
      // (not on pretranspose's copies, which the nt kernel reads).
      const std::size_t b_tiles = 1 + (precision == Precision::tf32x3) + (!op_b_transposed(layout) && !pretranspose);
      return std::size_t(stages) * (std::size_t(block_m) + b_tiles * std::size_t(block_n)) * 128 +
             24 * std::size_t(stages) + 1024;
    }
    // A pair splitting K: two more barriers and the buffer CTA 1's sums land in.
    const std::size_t k_pair = cluster_k == 2 ? 16 + std::size_t(block_m) * block_n * sizeof(float) : 0;
    return std::size_t(stages) * (std::size_t(block_m) + block_n) * 128 + 16 * std::size_t(stages) + 1024 + k_pair;
  }
  const std::size_t tile_a = transpose_a ? std::size_t(block_k) * (block_m + pad_a)
                                         : std::size_t(block_m) * (block_k + pad_a);
  const std::size_t tile_b = transpose_b ? std::size_t(block_n) * (block_k + pad_b)
                                         : std::size_t(block_k) * (block_n + pad_b);
  return std::size_t(stages) * (tile_a + tile_b) * sizeof(float);
}

std::string KernelConfig::name() const {
  const std::string layout_suffix =
      std::string(c16 ? "_c16" : "") + (layout == Layout::nn ? "" : std::string("_") + layout_name(layout));
  if (family == KernelFamily::skinny_stream)  // FP32's names from before the 16-bit operands stay
    return fmt::format("skinny_{}s{}x{}_t{}_l{}_w{}x{}_u{}{}_k{}{}",
                       precision == Precision::fp32 ? "" : fmt::format("{}_", precision_name(precision)), block_m,
                       block_n, thread_n, lanes_k, warps_n, k_groups, unroll, prefetch ? "p" : "", split_k,
                       layout_suffix);
  if (family == KernelFamily::skinny_tiled)
    return fmt::format("skinny_{}x{}x{}_t{}x{}_s{}_g{}_b{}_k{}{}", block_m, block_n, block_k, thread_m, thread_n,
                       stages, k_groups, min_blocks, split_k, layout_suffix);
  if (family == KernelFamily::mma)
    return fmt::format("mma_{}_{}x{}x{}_w{}x{}_s{}_b{}_z{}_k{}{}{}", precision_name(precision), block_m, block_n,
                       block_k, warp_m, warp_n, stages, min_blocks, swizzle, split_k, round_split ? "_r" : "",
                       layout_suffix);
  if (family == KernelFamily::wgmma)
    return fmt::format("wgmma_{}_{}x{}x{}_c{}{}_s{}_p{}{}{}{}{}{}{}", precision_name(precision), block_m, block_n,
                       block_k, consumers, pingpong ? "pp" : "", stages, int(persistent),
                       cluster == 1 ? "" : fmt::format("_x{}", cluster), cluster_k == 1 ? "" : fmt::format("_xk{}", cluster_k),
                       swizzle == 1 ? "" : fmt::format("_z{}", swizzle),
                       split_k == 1 ? "" : fmt::format("_k{}", split_k), pretranspose ? "_pt" : "", layout_suffix);
  // The FMA order is named only when it is not the default, so names from before it existed stay.
  // The FMA order, B's shared layout and the operands' layout likewise.
  return fmt::format("sgemm_{}x{}x{}_t{}x{}_w{}_p{}.{}_s{}{}_t{}_v{}_b{}{}_z{}_k{}{}{}{}", block_m, block_n, block_k,
                     thread_m, thread_n, warp_rows, pad_a, pad_b, stages, async_copy ? "a" : "",
                     transpose_a ? "a" : "n", vector_width, min_blocks,
                     fma_order == kFmaOrderRows ? "" : fmt::format("_f{}", fma_order), swizzle, split_k,
                     split_k_atomic ? "a" : "", transpose_b ? "_bt" : "",
                     layout == Layout::nn ? "" : std::string("_") + layout_name(layout));
}

std::string KernelConfig::name_expression(KernelPath path) const {
  const int op_a = int(op_a_transposed(layout)), op_b = int(op_b_transposed(layout));
  if (family == KernelFamily::skinny_stream) {
    // The template's ELEM: 0 fp32, 1 bf16, 2 fp16.
    const int elem = precision == Precision::bf16 ? 1 : precision == Precision::fp16 ? 2 : 0;
    return fmt::format("gemmtune::skinny::stream<{},{},{},{},{},{},{},{},{},{},{},{}>", op_a, op_b, block_m, thread_n,
                       lanes_k, warps_n, k_groups, unroll, int(prefetch), int(path), elem, int(c16));
  }
  if (family == KernelFamily::skinny_tiled)
    return fmt::format("gemmtune::skinny::tiled<{},{},{},{},{},{},{},{},{},{},{}>", op_a, op_b, block_m, block_n,
                       block_k, thread_m, thread_n, stages, k_groups, min_blocks, int(path));
  if (family == KernelFamily::mma) {
    // The template's MODE: 0 tf32, 1 3xtf32, 2 bf16, 3 fp16.
    const int mode = precision == Precision::tf32     ? 0
                     : precision == Precision::tf32x3 ? 1
                     : precision == Precision::bf16   ? 2
                                                      : 3;
    return fmt::format("gemmtune::mma_gemm<{},{},{},{},{},{},{},{},{},{},{},{},{}>", mode, block_m, block_n, block_k,
                       warp_m, warp_n, stages, op_a, op_b, int(path), min_blocks, int(round_split), int(c16));
  }
  if (family == KernelFamily::wgmma) {
    // The template's TYPE: 0 bf16, 1 tf32, 2 fp16; 3xtf32, and tf32 outside nt, run the A-in-registers
    // kernel (PASSES 3 or 1). Only the whole-vector path exists (check_path).
    // pretranspose: the GEMM reads K-major copies, so it is the nt kernel whatever the layout.
    if (wgmma_a_in_registers(*this))
      return fmt::format("gemmtune::wgmma_gemm_tf32x<{},{},{},{},{},{},{}>", precision == Precision::tf32x3 ? 3 : 1,
                         block_m, block_n, stages, consumers, pretranspose ? 0 : op_a, pretranspose ? 1 : op_b);
    const int type = precision == Precision::bf16 ? 0 : precision == Precision::tf32 ? 1 : 2;
    // PINGPONG and CLUSTER_K default to 0 and 1, so the names (and cache keys) of the other kernels
    // stay as they were.
    const std::string tail = cluster_k != 1 ? fmt::format(",{},{}", int(pingpong), cluster_k) : pingpong ? ",1" : "";
    return fmt::format("gemmtune::wgmma_gemm<{},{},{},{},{},{},{},{},{}{}>", type, block_m, block_n, stages, consumers,
                       cluster, pretranspose ? 0 : op_a, pretranspose ? 1 : op_b, int(c16), tail);
  }
  return fmt::format("gemmtune::sgemm<{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}>", block_m, block_n,
                     block_k, thread_m, thread_n, warp_rows, pad_a, pad_b, stages, int(async_copy), int(transpose_a),
                     vector_width, min_blocks, fma_order, int(split_k_atomic), int(op_a_transposed(layout)),
                     int(op_b_transposed(layout)), int(transpose_b), int(path));
}

bool KernelConfig::same_binary(const KernelConfig& other) const {
  KernelConfig a = *this, b = other;
  a.swizzle = b.swizzle = 1;
  a.split_k = b.split_k = 1;
  a.persistent = b.persistent = false;  // the grid's size: the kernel loops over tiles either way
  return a == b;
}

bool operator==(const KernelConfig& a, const KernelConfig& b) { return fields(a) == fields(b); }

namespace {

// The fields a family does not use, which must hold their defaults; nullopt when they do.
std::optional<std::string> unused_field_error(const KernelConfig& c) {
  const KernelConfig d;
  struct Field {
    const char* name;
    int value, fallback;
    bool used;
  };
  const bool sgemm = c.family == KernelFamily::sgemm, stream = c.family == KernelFamily::skinny_stream,
             tiled = c.family == KernelFamily::skinny_tiled, mma = c.family == KernelFamily::mma,
             wgmma = c.family == KernelFamily::wgmma;
  const Field fields[] = {
      {"block_k", c.block_k, d.block_k, !stream},
      {"thread_m", c.thread_m, d.thread_m, sgemm || tiled},
      {"thread_n", c.thread_n, d.thread_n, !mma && !wgmma},
      {"warp_rows", c.warp_rows, d.warp_rows, sgemm},
      {"pad_a", c.pad_a, d.pad_a, sgemm},
      {"pad_b", c.pad_b, d.pad_b, sgemm},
      {"stages", c.stages, d.stages, !stream},
      {"async_copy", c.async_copy, d.async_copy, sgemm},
      {"transpose_a", c.transpose_a, d.transpose_a, sgemm},
      {"transpose_b", c.transpose_b, d.transpose_b, sgemm},
      {"vector_width", c.vector_width, d.vector_width, sgemm},
      {"min_blocks", c.min_blocks, d.min_blocks, !stream && !wgmma},
      {"fma_order", c.fma_order, d.fma_order, sgemm},
      {"split_k_atomic", c.split_k_atomic, d.split_k_atomic, sgemm},
      {"swizzle", c.swizzle, d.swizzle, sgemm || mma || wgmma},
      {"lanes_k", c.lanes_k, d.lanes_k, stream},
      {"warps_n", c.warps_n, d.warps_n, stream},
      {"k_groups", c.k_groups, d.k_groups, stream || tiled},
      {"unroll", c.unroll, d.unroll, stream},
      {"prefetch", c.prefetch, d.prefetch, stream},
      {"warp_m", c.warp_m, d.warp_m, mma},
      {"warp_n", c.warp_n, d.warp_n, mma},
      {"precision", int(c.precision), int(d.precision), mma || wgmma || stream},
      {"round_split", c.round_split, d.round_split, mma && c.precision == Precision::tf32x3},
      {"consumers", c.consumers, d.consumers, wgmma},
      {"cluster", c.cluster, d.cluster, wgmma},
      {"cluster_k", c.cluster_k, d.cluster_k, wgmma},
      {"persistent", c.persistent, d.persistent, wgmma},
      {"pretranspose", c.pretranspose, d.pretranspose,
       wgmma && (c.precision == Precision::tf32 || c.precision == Precision::tf32x3)},
      {"pingpong", c.pingpong, d.pingpong, wgmma},
      {"c16", c.c16, d.c16, (mma || wgmma || stream) && operand_bytes(c.precision) == 2},
  };
  for (const Field& f : fields)
    if (!f.used && f.value != f.fallback)
      return fmt::format("{} is {}, but {} kernels do not use it (leave it at {})", f.name, f.value,
                         family_name(c.family), f.fallback);
  return std::nullopt;
}

// The skinny kernels' rules (the static_asserts of kernel_templates/skinny/*.cuh, and the whole-vector
// copies every binary must compile for).
std::optional<std::string> skinny_config_error(const KernelConfig& c) {
  const bool b_rows_along_n = !op_b_transposed(c.layout);  // B read as float4 runs along n
  if (c.split_k < 1 || c.split_k > 64) return fmt::format("split_k {} not in 1..64", c.split_k);
  if (!in(c.thread_n, {1, 2, 4, 8})) return fmt::format("thread_n {} not in 1..8 (power of 2)", c.thread_n);
  if (b_rows_along_n && c.thread_n % 4 != 0)
    return fmt::format("thread_n {} is not a multiple of 4, which B's float4 rows need in layout {}", c.thread_n,
                       layout_name(c.layout));
  if (c.family == KernelFamily::skinny_stream) {
    if (c.precision != Precision::fp32 && operand_bytes(c.precision) != 2)
      return fmt::format("precision {} is not fp32, bf16 or fp16, the stream kernel's operands",
                         precision_name(c.precision));
    // B's rows along n are read in 16-byte vectors: 8 columns of 16-bit elements.
    const int vector = 16 / operand_bytes(c.precision);
    if (b_rows_along_n && c.thread_n % vector != 0)
      return fmt::format("thread_n {} is not a multiple of {}, which B's 16-byte vectors of {} need in layout {}",
                         c.thread_n, vector, precision_name(c.precision), layout_name(c.layout));
    if (!in(c.block_m, {1, 2, 4, 8})) return fmt::format("block_m {} not in 1..8 (power of 2)", c.block_m);
    if (!in(c.lanes_k, {1, 2, 4, 8, 16, 32})) return fmt::format("lanes_k {} does not divide 32", c.lanes_k);
    if (!in(c.warps_n, {1, 2, 4, 8})) return fmt::format("warps_n {} not in 1..8 (power of 2)", c.warps_n);
    if (!in(c.k_groups, {1, 2, 4, 8})) return fmt::format("k_groups {} not in 1..8 (power of 2)", c.k_groups);
    if (!in(c.unroll, {1, 2, 4})) return fmt::format("unroll {} not 1, 2 or 4", c.unroll);
    const int columns = c.warps_n * (32 / c.lanes_k) * c.thread_n;
    if (c.block_n != columns)
      return fmt::format("block_n {} is not warps_n * 32 / lanes_k * thread_n = {}", c.block_n, columns);
    if (c.shared_bytes() > 48 * 1024)
      return fmt::format("the warps' sums take {} bytes of static shared memory, over 48 KiB", c.shared_bytes());
    return std::nullopt;
  }
  if (!in(c.block_m, {8, 16, 32})) return fmt::format("block_m {} not 8, 16 or 32", c.block_m);
  if (!in(c.block_n, {32, 64, 128, 256})) return fmt::format("block_n {} not in 32..256 (power of 2)", c.block_n);
  if (!in(c.block_k, {16, 32, 64})) return fmt::format("block_k {} not 16, 32 or 64", c.block_k);
  if (!in(c.thread_m, {1, 2, 4, 8}) || c.block_m % c.thread_m != 0)
    return fmt::format("thread_m {} not a power of 2 up to 8 dividing block_m {}", c.thread_m, c.block_m);
  if (c.block_n % c.thread_n != 0) return fmt::format("thread_n {} does not divide block_n {}", c.thread_n, c.block_n);
  if (c.stages < 2 || c.stages > 6) return fmt::format("stages {} not in 2..6", c.stages);
  if (!in(c.k_groups, {1, 2, 4}) || (c.block_k / 4) % c.k_groups != 0)
    return fmt::format("k_groups {} not 1, 2 or 4 dividing block_k / 4", c.k_groups);
  if (c.min_blocks < 1 || c.min_blocks > 8) return fmt::format("min_blocks {} not in 1..8", c.min_blocks);
  const int threads = c.threads();
  if (threads < 32 || threads > 1024) return fmt::format("{} threads per block, not in 32..1024", threads);
  if (threads % (c.block_k / 4) != 0 || threads % (c.block_n / 4) != 0)
    return fmt::format("{} threads do not copy whole rows of a {}x{} tile in vectors", threads, c.block_k, c.block_n);
  if (std::size_t(c.k_groups - 1) * c.block_m * c.block_n * sizeof(float) > c.shared_bytes())
    return fmt::format("the k groups' sums do not fit the pipeline's {} bytes", c.shared_bytes());
  return std::nullopt;
}

// The tensor-core kernels' rules (the static_asserts of kernel_templates/mma/shape.cuh and
// copy_global_to_shared.cuh).
std::optional<std::string> mma_config_error(const KernelConfig& c) {
  if (c.precision == Precision::fp32) return std::string("precision fp32 runs on the CUDA cores, not mma");
  const int bytes = operand_bytes(c.precision), chunk = 16 / bytes;  // elements per 16-byte chunk
  const int mma_k = bytes == 2 ? 16 : 8;
  if (!in(c.block_m, {32, 64, 128, 256})) return fmt::format("block_m {} not in 32..256 (power of 2)", c.block_m);
  if (!in(c.block_n, {32, 64, 128, 256})) return fmt::format("block_n {} not in 32..256 (power of 2)", c.block_n);
  if (!in(c.block_k, {16, 32, 64}) || c.block_k % mma_k != 0)
    return fmt::format("block_k {} not 16, 32 or 64 and a multiple of the mma's k ({})", c.block_k, mma_k);
  if (!in(c.warp_m, {16, 32, 64, 128}) || c.block_m % c.warp_m != 0)
    return fmt::format("warp_m {} not in 16..128 (power of 2) dividing block_m {}", c.warp_m, c.block_m);
  if (!in(c.warp_n, {16, 32, 64, 128}) || c.block_n % c.warp_n != 0)
    return fmt::format("warp_n {} not in 16..128 (power of 2) dividing block_n {}", c.warp_n, c.block_n);
  const bool a_k_major = op_a_transposed(c.layout), b_k_major = !op_b_transposed(c.layout);
  if (bytes == 4 && b_k_major && c.warp_n < 32)
    return fmt::format("warp_n {} below 32: FP32 B stored k x n is loaded 16 bytes a lane", c.warp_n);
  if (c.stages < 2 || c.stages > 6) return fmt::format("stages {} not in 2..6", c.stages);
  if (c.min_blocks < 1 || c.min_blocks > 4) return fmt::format("min_blocks {} not in 1..4", c.min_blocks);
  if (!is_power_of_two(c.swizzle) || c.swizzle > 64) return fmt::format("swizzle {} not in 1..64 (power of 2)", c.swizzle);
  if (c.split_k < 1 || c.split_k > 64) return fmt::format("split_k {} not in 1..64", c.split_k);
  const int threads = c.threads();
  if (threads < 32 || threads > 1024) return fmt::format("{} threads per block, not in 32..1024", threads);
  // Shared tiles keep the stored layout: their rows are 64 bytes or whole multiples of 128, every
  // thread copies whole chunks of whole rows, and 16-bit k-major tiles need 64+ columns (ldmatrix).
  for (const auto& [rows, cols, what] : {std::tuple<int, int, const char*>{a_k_major ? c.block_k : c.block_m,
                                                                           a_k_major ? c.block_m : c.block_k, "A"},
                                         {b_k_major ? c.block_k : c.block_n, b_k_major ? c.block_n : c.block_k, "B"}}) {
    const int per_row = cols / chunk;
    if (per_row != 4 && per_row % 8 != 0)
      return fmt::format("{}'s tile rows are {} bytes: 64 or a multiple of 128", what, cols * bytes);
    if ((rows * per_row) % threads != 0 || threads % per_row != 0)
      return fmt::format("{}'s {}x{} tile does not split into whole rows of chunks for {} threads", what, rows, cols,
                         threads);
  }
  if (bytes == 4 && a_k_major && c.block_m < 32) return std::string("FP32 A stored k x m needs block_m >= 32");
  if (bytes == 2 && ((a_k_major && c.block_m < 64) || (b_k_major && c.block_n < 64)))
    return std::string("16-bit tiles stored k-major need 64+ columns (block_m or block_n)");
  return std::nullopt;
}

// The Hopper kernels' rules (the static_asserts of kernel_templates/wgmma/shape.cuh and the
// kernel's), and what the template serves: every layout (tf32 outside nt, which its wgmma cannot
// read, through the A-in-registers kernel or K-major copies of the operands), split-K adding into C.
std::optional<std::string> wgmma_config_error(const KernelConfig& c) {
  if (c.precision == Precision::fp32) return std::string("precision fp32 runs on the CUDA cores, not wgmma");
  const int row_elements = 128 / operand_bytes(c.precision);
  if (c.block_k != row_elements)
    return fmt::format("block_k {} is not one 128-byte swizzle row ({} elements of {})", c.block_k, row_elements,
                       precision_name(c.precision));
  if (!in(c.consumers, {1, 2, 3})) return fmt::format("consumers {} not 1, 2 or 3", c.consumers);
  if (c.pingpong && c.consumers == 1) return std::string("pingpong needs 2 or 3 consumers to take turns");
  const int rows = wgmma_consumer_rows(c);
  if (!in(c.block_m, {64, 128, 192, 256}) || rows % 64 != 0 || (!c.pingpong && rows * c.consumers != c.block_m))
    return fmt::format("block_m {} is not 64 to 256 rows, a multiple of 64 per consumer warpgroup ({})", c.block_m,
                       c.consumers);
  if (!in(c.block_n, {64, 128, 192, 256})) return fmt::format("block_n {} not 64, 128, 192 or 256", c.block_n);
  // Each consumer thread holds rows / 64 accumulator blocks of block_n / 2 floats.
  if (rows / 64 * c.block_n / 2 > 128)
    return fmt::format("{} accumulators a consumer thread for {}x{} with {} consumers{}: over 128",
                       rows / 64 * c.block_n / 2, c.block_m, c.block_n, c.consumers, c.pingpong ? " in turn" : "");
  // The ring's depth is bounded by shared memory (a named constraint), not here: cuBLAS runs 8 to
  // 16 stages of small tiles at small and skinny shapes (ncu, H200, 2026-11-29).
  if (c.stages < 2 || c.stages > 16) return fmt::format("stages {} not in 2..16", c.stages);
  if (!in(c.cluster, {1, 2})) return fmt::format("cluster {} not 1 or 2", c.cluster);
  // A stored k x m (16-bit, read MN-major) lands in boxes of 64 rows of M: each CTA of a pair loads
  // whole boxes of its half (a half of 32 rows loaded nothing, and the kernel waited forever).
  if (c.cluster == 2 && op_a_transposed(c.layout) && !wgmma_a_in_registers(c) && !c.pretranspose &&
      (c.block_m / 2) % 64 != 0)
    return fmt::format("cluster 2 with A stored k x m ({}) needs block_m a multiple of 128, not {}",
                       layout_name(c.layout), c.block_m);
  if (!in(c.cluster_k, {1, 2})) return fmt::format("cluster_k {} not 1 or 2", c.cluster_k);
  if (c.cluster_k == 2 && c.cluster != 1)
    return fmt::format("cluster_k 2 with cluster {}: a cluster pairs CTAs along N or along K, not both", c.cluster);
  if (c.cluster_k == 2 && c.pingpong) return std::string("cluster_k 2: pingpong's consumers take whole tiles in turn");
  if (!is_power_of_two(c.swizzle) || c.swizzle > 64) return fmt::format("swizzle {} not in 1..64 (power of 2)", c.swizzle);
  if (c.split_k < 1 || c.split_k > 64) return fmt::format("split_k {} not in 1..64", c.split_k);
  // wgmma::SplitShape (3xtf32, and tf32 outside nt): A's fragments in registers, one m64 block a
  // consumer; 3 consumers, or 256 columns, spill (the 384 threads' 168 registers at entry).
  if (wgmma_a_in_registers(c)) {
    const std::string kernel = fmt::format("the A-in-registers kernel ({} {})", precision_name(c.precision),
                                           layout_name(c.layout));
    if (c.consumers != 2 || c.block_m != 128)
      return fmt::format("{} takes block_m 128 with 2 consumers, not {} with {}", kernel, c.block_m, c.consumers);
    if (!in(c.block_n, {64, 128})) return fmt::format("{} takes block_n 64 or 128, not {}", kernel, c.block_n);
    if (c.cluster != 1 || c.cluster_k != 1)
      return fmt::format("cluster {}, cluster_k {}: {} has no clusters", c.cluster, c.cluster_k, kernel);
    if (c.pingpong) return fmt::format("pingpong: {} has its consumers share each tile", kernel);
  }
  if (c.pretranspose && c.layout == Layout::nt)
    return std::string("pretranspose: layout nt has no MN-major operand to copy");
  return std::nullopt;
}

}  // namespace

std::optional<std::string> config_error(const KernelConfig& c) {
  if (auto unused = unused_field_error(c)) return unused;
  if (is_skinny(c.family)) return skinny_config_error(c);
  if (c.family == KernelFamily::mma) return mma_config_error(c);
  if (c.family == KernelFamily::wgmma) return wgmma_config_error(c);
  if (!in(c.block_m, {16, 32, 64, 128, 256})) return fmt::format("block_m {} not in 16..256 (power of 2)", c.block_m);
  if (!in(c.block_n, {16, 32, 64, 128, 256})) return fmt::format("block_n {} not in 16..256 (power of 2)", c.block_n);
  if (!in(c.block_k, {4, 8, 16, 32, 64})) return fmt::format("block_k {} not in 4..64 (power of 2)", c.block_k);
  if (!in(c.thread_m, {1, 2, 4, 8, 16})) return fmt::format("thread_m {} not in 1..16 (power of 2)", c.thread_m);
  if (!in(c.thread_n, {1, 2, 4, 8, 16})) return fmt::format("thread_n {} not in 1..16 (power of 2)", c.thread_n);
  if (!in(c.warp_rows, {1, 2, 4, 8, 16, 32})) return fmt::format("warp_rows {} does not divide 32", c.warp_rows);
  if (c.pad_a < 0 || c.pad_a > 8) return fmt::format("pad_a {} not in 0..8", c.pad_a);
  if (c.pad_b < 0 || c.pad_b > 8) return fmt::format("pad_b {} not in 0..8", c.pad_b);
  if (c.stages < 1 || c.stages > 8) return fmt::format("stages {} not in 1..8", c.stages);
  if (c.async_copy ? c.stages < 2 : c.stages > 2)
    return fmt::format("stages {} with async_copy={}: 1-2 stages without cp.async, 2+ with it", c.stages,
                       c.async_copy);
  if (!in(c.vector_width, {1, 2, 4})) return fmt::format("vector_width {} not 1, 2 or 4", c.vector_width);
  if (c.min_blocks < 1 || c.min_blocks > 8) return fmt::format("min_blocks {} not in 1..8", c.min_blocks);
  if (c.fma_order < kFmaOrderRows || c.fma_order > kFmaOrderColumnsSerpentine)
    return fmt::format("fma_order {} not in 0..2", c.fma_order);
  if (!is_power_of_two(c.swizzle) || c.swizzle > 64) return fmt::format("swizzle {} not in 1..64 (power of 2)", c.swizzle);
  if (c.split_k < 1 || c.split_k > 64) return fmt::format("split_k {} not in 1..64", c.split_k);

  // Structural rules the template's static_asserts enforce.
  const int warp_cols = 32 / c.warp_rows;
  if (c.block_m % (c.thread_m * c.warp_rows) != 0)
    return fmt::format("block_m {} is not a multiple of thread_m*warp_rows = {}", c.block_m, c.thread_m * c.warp_rows);
  if (c.block_n % (c.thread_n * warp_cols) != 0)
    return fmt::format("block_n {} is not a multiple of thread_n*(32/warp_rows) = {}", c.block_n, c.thread_n * warp_cols);
  const int threads = c.threads();
  if (threads < 32 || threads > 1024) return fmt::format("{} threads per block, not in 32..1024", threads);
  if (c.block_k % c.vector_width != 0 || c.block_n % c.vector_width != 0)
    return fmt::format("vector_width {} does not divide block_k and block_n", c.vector_width);
  if ((c.block_m * c.block_k) % (threads * c.vector_width) != 0)
    return fmt::format("A tile {}x{} does not split evenly into {} threads x {} floats", c.block_m, c.block_k,
                       threads, c.vector_width);
  if ((c.block_k * c.block_n) % (threads * c.vector_width) != 0)
    return fmt::format("B tile {}x{} does not split evenly into {} threads x {} floats", c.block_k, c.block_n,
                       threads, c.vector_width);
  return std::nullopt;
}

// The skinny kernels fall back to synchronous copies and scalar atomics before sm_80 and sm_90, so
// they too run from sm_75. The mma family needs its precision's tensor cores: fp16 runs on sm_75
// (two m16n8k8 per m16n8k16 and synchronous copies in place of cp.async: kernel_templates/mma/ptx.cuh).
int min_compute_capability(const KernelConfig& c) {
  if (c.family == KernelFamily::wgmma) return 90;
  if (c.family == KernelFamily::mma) return min_compute_capability(c.precision);
  return c.async_copy ? 80 : 75;
}

bool runs_on(const KernelConfig& c, int compute_capability) {
  if (c.family == KernelFamily::wgmma) return compute_capability == 90;
  return min_compute_capability(c) <= compute_capability;
}

std::string compile_arch(KernelFamily family, const std::string& arch) {
  if (family != KernelFamily::wgmma) return arch;
  if (arch == "sm_90" || arch == "sm_90a") return "sm_90a";
  throw std::invalid_argument(
      fmt::format("the wgmma kernels need sm_90a (wgmma and TMA, compute capability 9.0 only), not {}", arch));
}

KernelConfig default_config() {
  KernelConfig c;  // the member defaults: 64x64x8, 4x4 per thread, 256 threads, register double buffering
  return c;
}

void to_json(nlohmann::json& j, const KernelConfig& c) {
  j = nlohmann::json{{"block_m", c.block_m},         {"block_n", c.block_n},       {"block_k", c.block_k},
                     {"thread_m", c.thread_m},       {"thread_n", c.thread_n},     {"warp_rows", c.warp_rows},
                     {"pad_a", c.pad_a},             {"pad_b", c.pad_b},           {"stages", c.stages},
                     {"async_copy", c.async_copy},   {"transpose_a", c.transpose_a}, {"transpose_b", c.transpose_b},
                     {"vector_width", c.vector_width}, {"min_blocks", c.min_blocks}, {"fma_order", c.fma_order},
                     {"swizzle", c.swizzle},         {"split_k", c.split_k},
                     {"split_k_atomic", c.split_k_atomic}, {"layout", layout_name(c.layout)}};
  if (is_skinny(c.family)) {  // sgemm entries keep the fields they always had
    j["family"] = family_name(c.family);
    if (c.precision != Precision::fp32) j["precision"] = precision_name(c.precision);  // FP32's entries as before
    j["lanes_k"] = c.lanes_k;
    j["warps_n"] = c.warps_n;
    j["k_groups"] = c.k_groups;
    j["unroll"] = c.unroll;
    j["prefetch"] = c.prefetch;
  }
  if (c.family == KernelFamily::mma) {
    j["family"] = family_name(c.family);
    j["precision"] = precision_name(c.precision);
    j["warp_m"] = c.warp_m;
    j["warp_n"] = c.warp_n;
    j["round_split"] = c.round_split;
  }
  if (c.family == KernelFamily::wgmma) {
    j["family"] = family_name(c.family);
    j["precision"] = precision_name(c.precision);
    j["consumers"] = c.consumers;
    j["cluster"] = c.cluster;
    if (c.cluster_k != 1) j["cluster_k"] = c.cluster_k;  // absent in every entry from before it existed
    j["persistent"] = c.persistent;
    if (c.pretranspose) j["pretranspose"] = true;  // absent in every entry from before they existed
    if (c.pingpong) j["pingpong"] = true;
  }
  if (c.c16) j["c16"] = true;  // absent for FP32 C, as in every entry from before it existed
}

void from_json(const nlohmann::json& j, KernelConfig& c) {
  if (!j.is_object()) throw std::invalid_argument("kernel config must be a JSON object");
  auto get_int = [&](const char* key, int& out) {
    const auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(fmt::format("kernel config lacks '{}'", key));
    if (!it->is_number_integer()) throw std::invalid_argument(fmt::format("kernel config '{}' is not an integer", key));
    const auto v = it->get<long long>();
    if (v < -1000000 || v > 1000000) throw std::invalid_argument(fmt::format("kernel config '{}' out of range", key));
    out = static_cast<int>(v);
  };
  auto get_bool = [&](const char* key, bool& out) {
    const auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(fmt::format("kernel config lacks '{}'", key));
    if (!it->is_boolean()) throw std::invalid_argument(fmt::format("kernel config '{}' is not a boolean", key));
    out = it->get<bool>();
  };
  KernelConfig r;
  if (const auto it = j.find("family"); it != j.end()) {  // absent before there were families: sgemm
    if (!it->is_string()) throw std::invalid_argument("kernel config 'family' is not a string");
    try {
      r.family = parse_family(it->get<std::string>());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("kernel config 'family' ") + e.what());
    }
  }
  get_int("block_m", r.block_m);
  get_int("block_n", r.block_n);
  get_int("block_k", r.block_k);
  get_int("thread_m", r.thread_m);
  get_int("thread_n", r.thread_n);
  get_int("warp_rows", r.warp_rows);
  get_int("pad_a", r.pad_a);
  get_int("pad_b", r.pad_b);
  get_int("stages", r.stages);
  get_bool("async_copy", r.async_copy);
  get_bool("transpose_a", r.transpose_a);
  if (j.contains("transpose_b")) get_bool("transpose_b", r.transpose_b);  // absent before it existed
  get_int("vector_width", r.vector_width);
  get_int("min_blocks", r.min_blocks);
  if (j.contains("fma_order")) get_int("fma_order", r.fma_order);  // absent in caches written before it
  get_int("swizzle", r.swizzle);
  get_int("split_k", r.split_k);
  if (j.contains("split_k_atomic")) get_bool("split_k_atomic", r.split_k_atomic);  // absent before it existed
  if (const auto it = j.find("layout"); it != j.end()) {  // absent before it existed: nn
    if (!it->is_string()) throw std::invalid_argument("kernel config 'layout' is not a string");
    try {
      r.layout = parse_layout(it->get<std::string>());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("kernel config 'layout' ") + e.what());
    }
  }
  for (const auto& [key, field] : {std::pair<const char*, int*>{"lanes_k", &r.lanes_k},
                                   {"warps_n", &r.warps_n}, {"k_groups", &r.k_groups}, {"unroll", &r.unroll}})
    if (j.contains(key)) get_int(key, *field);  // the skinny families' own: absent in sgemm entries
  if (j.contains("prefetch")) get_bool("prefetch", r.prefetch);
  if (j.contains("warp_m")) get_int("warp_m", r.warp_m);  // the tensor-core family's own
  if (j.contains("warp_n")) get_int("warp_n", r.warp_n);
  if (j.contains("round_split")) get_bool("round_split", r.round_split);
  if (j.contains("consumers")) get_int("consumers", r.consumers);  // the Hopper family's own
  if (j.contains("cluster")) get_int("cluster", r.cluster);
  if (j.contains("cluster_k")) get_int("cluster_k", r.cluster_k);
  if (j.contains("persistent")) get_bool("persistent", r.persistent);
  if (j.contains("pretranspose")) get_bool("pretranspose", r.pretranspose);
  if (j.contains("pingpong")) get_bool("pingpong", r.pingpong);
  if (j.contains("c16")) get_bool("c16", r.c16);
  if (const auto it = j.find("precision"); it != j.end()) {
    const auto precision = it->is_string() ? parse_precision(it->get<std::string>()) : std::nullopt;
    if (!precision) throw std::invalid_argument("kernel config 'precision' is not fp32, 3xtf32, tf32, bf16 or fp16");
    r.precision = *precision;
  }
  if (auto err = config_error(r)) throw std::invalid_argument("kernel config: " + *err);
  c = r;
}

}  // namespace gemmtune
