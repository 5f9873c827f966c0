// Kernel loading and launch geometry: one block per BM x BN tile in a 1-D grid (no 65535 limit on
// M), K split over gridDim.z when split-K is on, then the reduction kernel (or, for atomic split-K
// without a workspace, a kernel scaling C by beta before the GEMM). On sm_90 every kernel is
// launched as a programmatic dependent of the stream's previous kernel: its blocks are scheduled
// while that kernel finishes and wait for it (griddepcontrol.wait) before touching memory, which
// hides the launch gap between back-to-back kernels (H100: +10% at 512, +2 to 3% at 1000 to
// 4096x64x4096, nothing at 2048 and up; docs/kernel-notes.md). The wgmma family is launched its own
// way (launch_wgmma): tensor maps encoded per call, clusters, a persistent grid, K's slices in the
// grid's units rather than gridDim.z.
#include "core/gemm_launch.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/cuda_check.hpp"
#include "core/tensor_map.hpp"

namespace gemmtune {

namespace {

// Thread blocks per K slice: one per BM x BN tile of C.
long long tile_count(const KernelConfig& config, int m, int n) {
  return static_cast<long long>((m + config.block_m - 1) / config.block_m) *
         ((n + config.block_n - 1) / config.block_n);
}

// The wgmma launch's attributes: a programmatic dependent (as launch_on), in clusters of
// config.cluster (pairs along N) or config.cluster_k (pairs along K) CTAs along x.
struct WgmmaLaunch {
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attrs[2] = {};
  WgmmaLaunch(const KernelConfig& kernel, dim3 grid, cudaStream_t stream, bool programmatic) {
    config.gridDim = grid;
    config.blockDim = dim3(static_cast<unsigned>(kernel.threads()));
    config.dynamicSmemBytes = kernel.dynamic_shared_bytes();
    config.stream = stream;
    config.attrs = attrs;
    attrs[0].id = cudaLaunchAttributeClusterDimension;
    attrs[0].val.clusterDim.x = static_cast<unsigned>(kernel.cluster * kernel.cluster_k);
    attrs[0].val.clusterDim.y = attrs[0].val.clusterDim.z = 1;
    attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[1].val.programmaticStreamSerializationAllowed = 1;
    config.numAttrs = programmatic ? 2 : 1;
  }
};

// How many CTAs (clusters of 2: how many clusters) are resident at once: the persistent grid. The
// occupancy calculator knows the shared memory and registers; for clusters, also the GPCs.
int wgmma_resident_units(cudaKernel_t kernel, const KernelConfig& config, int sm_count) {
  const void* fn = reinterpret_cast<const void*>(kernel);
  const int cluster = config.cluster * config.cluster_k;
  if (cluster == 1) {
    int per_sm = 0;
    GEMMTUNE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, config.threads(),
                                                                      config.dynamic_shared_bytes()));
    return std::max(1, per_sm * sm_count);
  }
  WgmmaLaunch launch(config, dim3(static_cast<unsigned>(cluster)), nullptr, false);
  int clusters = 0;
  GEMMTUNE_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, fn, &launch.config));
  return std::max(1, clusters);
}

}  // namespace

const char* gemm_arguments_error(const GemmArguments& a, Layout layout) {
  if (a.m < 0 || a.n < 0 || a.k < 0) return "m, n and k must not be negative";
  if (a.batch < 0) return "the batch count must not be negative";
  if (a.lda < std::max(1, op_a_transposed(layout) ? a.m : a.k)) return "lda is smaller than a row of A as stored";
  if (a.ldb < std::max(1, op_b_transposed(layout) ? a.k : a.n)) return "ldb is smaller than a row of B as stored";
  if (a.ldc < std::max(1, a.n)) return "ldc must be at least max(1, n)";
  if (a.m == 0 || a.n == 0 || a.batch == 0) return nullptr;  // nothing to compute: no operand is read
  if (a.c == nullptr) return "c must not be null";
  if (a.k > 0 && (a.a == nullptr || a.b == nullptr)) return "a and b must not be null";
  return nullptr;
}

PretransposeLayout pretranspose_layout(const KernelConfig& config, int m, int n, int k, int batch) {
  PretransposeLayout layout;
  if (!config.pretranspose) return layout;
  const long long vector = 16 / operand_bytes(config.precision);
  layout.ld = (std::max<long long>(k, 1) + vector - 1) / vector * vector;
  const std::size_t entries = std::size_t(std::clamp(batch, 1, kMaxBatchPerLaunch));
  if (pretransposes_a(config)) layout.a_floats = entries * std::size_t(std::max(m, 0)) * std::size_t(layout.ld);
  if (pretransposes_b(config)) layout.b_floats = entries * std::size_t(std::max(n, 0)) * std::size_t(layout.ld);
  return layout;
}

std::size_t workspace_bytes(const KernelConfig& config, int m, int n, int k, int batch) {
  if (config.pretranspose) {  // tf32 and 3xtf32 (FP32 C): their split-K adds into C and keeps nothing here
    const PretransposeLayout layout = pretranspose_layout(config, m, n, k, batch);
    return (layout.a_floats + layout.b_floats) * sizeof(float);
  }
  if (config.split_k <= 1) return 0;
  const std::size_t entries = std::size_t(std::clamp(batch, 1, kMaxBatchPerLaunch));
  if (is_skinny(config.family)) {  // kernel_templates/skinny/*.cuh: a tile's sums per slice (stream) or one
    const std::size_t tiles = entries * std::size_t(tile_count(config, m, n));
    const std::size_t slices = config.family == KernelFamily::skinny_stream ? std::size_t(config.split_k) : 1;
    return tiles * slices * std::size_t(config.block_m) * std::size_t(config.block_n) * sizeof(float) +
           tiles * sizeof(unsigned);
  }
  if (adds_slices_into_c(config)) return 0;  // nothing to keep
  if (config.split_k_atomic) return entries * std::size_t(tile_count(config, m, n)) * sizeof(unsigned long long);
  return entries * std::size_t(config.split_k) * std::size_t(m) * std::size_t(n) * sizeof(float);
}

WorkspaceKind workspace_kind(const KernelConfig& config) {
  if (is_skinny(config.family)) return WorkspaceKind::zeros;
  return config.split_k > 1 && config.split_k_atomic ? WorkspaceKind::counters : WorkspaceKind::scratch;
}

KernelPath kernel_path_for(const KernelConfig& config, const GemmArguments& args) {
  return kernel_path_for(config, args.m, args.n, args.k,
                         aligned_width(config.precision, args.lda, args.ldb, args.ldc, args.a, args.b, args.c,
                                       args.batch, args.stride_a, args.stride_b, args.stride_c));
}

LoadedKernel::LoadedKernel(const CompiledKernel& compiled, const KernelConfig& config)
    : config_(config), path_(compiled.path) {
  if (needs_reduction(config) && !compiled.reduce)
    throw std::invalid_argument(config.name() + " splits K but its binary came without the reduction kernel");
  if (config.pretranspose && !compiled.transpose)
    throw std::invalid_argument(config.name() + " copies operands first but its binary came without the copy kernel");
  GEMMTUNE_CUDA_CHECK(
      cudaLibraryLoadData(&library_, compiled.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  try {
    GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&gemm_, library_, compiled.symbol.c_str()));
    if (needs_reduction(config)) {
      GEMMTUNE_CUDA_CHECK(cudaLibraryLoadData(&reduce_library_, compiled.reduce->cubin.data(), nullptr, nullptr,
                                              0, nullptr, nullptr, 0));
      GEMMTUNE_CUDA_CHECK(cudaLibraryGetKernel(&reduce_, reduce_library_, compiled.reduce->symbol.c_str()));
    }
    if (config.pretranspose) {
      GEMMTUNE_CUDA_CHECK(cudaLibraryLoadData(&transpose_library_, compiled.transpose->cubin.data(), nullptr,
                                              nullptr, 0, nullptr, nullptr, 0));
      GEMMTUNE_CUDA_CHECK(
          cudaLibraryGetKernel(&transpose_, transpose_library_, compiled.transpose->symbol.c_str()));
    }
    GEMMTUNE_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(gemm_),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(config.dynamic_shared_bytes())));
    int device = 0, major = 0;
    GEMMTUNE_CUDA_CHECK(cudaGetDevice(&device));
    GEMMTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    GEMMTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
    programmatic_launch_ = major >= 9;
    if (config.family == KernelFamily::wgmma) resident_units_ = wgmma_resident_units(gemm_, config, sm_count_);
  } catch (...) {
    if (transpose_library_) cudaLibraryUnload(transpose_library_);
    if (reduce_library_) cudaLibraryUnload(reduce_library_);
    cudaLibraryUnload(library_);
    throw;
  }
}

LoadedKernel::~LoadedKernel() {
  if (transpose_library_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaLibraryUnload(transpose_library_));
  if (reduce_library_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaLibraryUnload(reduce_library_));
  if (library_) GEMMTUNE_CUDA_CHECK_NOTHROW(cudaLibraryUnload(library_));
}

namespace {

// One launch; programmatic: may start before the stream's previous kernel ends (sm_90+), which
// the kernel must then wait for itself (griddepcontrol.wait) before touching what it wrote.
cudaError_t launch_on(cudaKernel_t kernel, dim3 grid, dim3 block, std::size_t shared_bytes,
                      cudaStream_t stream, void** params, bool programmatic) {
  cudaLaunchConfig_t launch = {};
  launch.gridDim = grid;
  launch.blockDim = block;
  launch.dynamicSmemBytes = shared_bytes;
  launch.stream = stream;
  cudaLaunchAttribute overlap = {};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  if (programmatic) {
    launch.attrs = &overlap;
    launch.numAttrs = 1;
  }
  return cudaLaunchKernelExC(&launch, reinterpret_cast<const void*>(kernel), params);
}

// Split-K's reduction runs one element a thread (splitk_reduce says why) up to this many blocks.
constexpr long long kSliceReductionBlocks = 65535LL * 8;

// splitk_reduce's grid over an m x n C of `batch` entries (x: columns, y: rows, z: entries), at
// most about max_blocks blocks: the kernel loops over whatever it does not cover.
dim3 over_c_grid(int m, int n, int batch, long long max_blocks) {
  const long long x = std::min<long long>((n + kReduceThreads - 1) / kReduceThreads, max_blocks);
  const long long y = std::min<long long>({m, 65535, std::max<long long>(1, max_blocks / x)});
  const long long z = std::min<long long>({batch, 65535, std::max<long long>(1, max_blocks / (x * y))});
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y), static_cast<unsigned>(z));
}

// splitk_reduce (kernel) over C of args' sizes: C = alpha * (the sum of `slices` partial products)
// + beta * C + bias; with no slices, C = beta * C + bias (alpha unread).
cudaError_t launch_over_c(cudaKernel_t kernel, const GemmArguments& args, int slices, const float* partials,
                          long long max_blocks, cudaStream_t stream, bool programmatic) {
  int m = args.m, n = args.n, ldc = args.ldc, batch = args.batch;
  float alpha = args.alpha, beta = args.beta;
  void* c = args.c;
  long long stride_c = args.stride_c;
  const void* bias = args.bias;
  void* params[] = {&m, &n, &slices, &partials, &alpha, &beta, &c, &ldc, &batch, &stride_c, &bias};
  return launch_on(kernel, over_c_grid(m, n, batch, max_blocks), dim3(kReduceThreads), 0, stream, params,
                   programmatic);
}

}  // namespace

bool LoadedKernel::gemm_scales_c(const GemmArguments& args, const float* workspace) const {
  return workspace_kind(config_) == WorkspaceKind::counters && (args.beta != 1.0f || args.bias != nullptr) &&
         workspace != nullptr;
}

cudaError_t LoadedKernel::launch(const GemmArguments& args, float* workspace, cudaStream_t stream) const {
  if (gemm_arguments_error(args, config_.layout)) return cudaErrorInvalidValue;
  if (args.m == 0 || args.n == 0 || args.batch == 0) return cudaSuccess;
  if (kernel_path_for(config_, args) < path_) return cudaErrorInvalidValue;  // needs a less specialised binary
  // gridDim.y holds the batch entries of one launch; more than it can hold go in several launches,
  // which reuse the workspace in stream order.
  for (int first = 0; first < args.batch; first += kMaxBatchPerLaunch) {
    GemmArguments part = args;
    part.batch = std::min(kMaxBatchPerLaunch, args.batch - first);
    // A and B may hold 16-bit elements (the tensor-core precisions): step in bytes.
    const long long operand = operand_bytes(config_.precision);
    part.a = reinterpret_cast<const float*>(reinterpret_cast<const char*>(args.a) + first * args.stride_a * operand);
    part.b = reinterpret_cast<const float*>(reinterpret_cast<const char*>(args.b) + first * args.stride_b * operand);
    part.c = static_cast<char*>(args.c) + first * args.stride_c * (config_.c16 ? 2 : 4);
    if (const cudaError_t err = launch_entries(part, workspace, stream); err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

cudaError_t LoadedKernel::launch_entries(const GemmArguments& args, float* workspace, cudaStream_t stream) const {
  const long long tiles = tile_count(config_, args.m, args.n);
  if (tiles > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  int splits = config_.split_k;
  // Its workspace is optional; the tensor-core kernels split K only this way for an FP32 C (a 16-bit
  // C's slices go through the workspace and the reduction, as sgemm's non-atomic ones).
  const bool atomic = splits > 1 && (config_.split_k_atomic || adds_slices_into_c(config_));
  if (splits > 1 && !atomic && workspace == nullptr) return cudaErrorInvalidValue;
  const bool copies = config_.pretranspose && args.k > 0;  // K = 0 reads no operand
  if (copies && workspace == nullptr) return cudaErrorInvalidValue;
  if (is_skinny(config_.family)) return launch_skinny(args, workspace, stream, tiles);

  int m = args.m, n = args.n, k = args.k, lda = args.lda, ldb = args.ldb, ldc = args.ldc, batch = args.batch;
  long long stride_a = args.stride_a, stride_b = args.stride_b, stride_c = args.stride_c;
  float alpha = args.alpha, beta = args.beta;
  const float* a = args.a;
  const float* b = args.b;
  void* c = args.c;
  int swizzle = config_.swizzle;
  // The bias is added once an element: by the GEMM when K is not split or when its atomic slices'
  // first one sets C = beta * C + bias, else by the kernel over C.
  const void* bias = args.bias;
  const void* gemm_bias = splits > 1 && !gemm_scales_c(args, workspace) ? nullptr : bias;
  GemmArguments gemm_args = args;
  gemm_args.bias = gemm_bias;

  // Atomic split-K adds into C, so C = beta * C + bias must come first, unless beta is 1 and there is
  // no bias: done by each tile's first slice (sgemm), which needs the workspace's counters to tell the
  // others, or, without a workspace, by a kernel before the GEMM. The GEMM then starts as that
  // kernel's programmatic dependent and waits for it before its first addition.
  const bool scale_first = atomic && (beta != 1.0f || bias != nullptr) && !gemm_scales_c(args, workspace);
  float* gemm_workspace = scale_first ? nullptr : workspace;
  if (scale_first) {
    // One block per SM, so the GEMM's blocks find room beside it and run their main loops while
    // it scales; a block per 256 elements fills every SM's thread slots until it is done (H100:
    // 2% slower at 512, 0.3 to 0.6% on the skinny shapes).
    if (const cudaError_t err = launch_over_c(reduce_, args, 0, nullptr, sm_count_, stream, programmatic_launch_);
        err != cudaSuccess)
      return err;
  }
  if (config_.family == KernelFamily::wgmma) {
    // pretranspose: the nt kernel on K-major copies (FP32 C: no partial sums share the workspace).
    if (copies) {
      if (const cudaError_t err = pretranspose(gemm_args, workspace, stream); err != cudaSuccess) return err;
    }
    const cudaError_t err = config_.pretranspose ? launch_wgmma(gemm_args, Layout::nt, nullptr, stream)
                                                 : launch_wgmma(gemm_args, config_.layout, gemm_workspace, stream);
    if (err != cudaSuccess || splits == 1 || atomic) return err;
    return launch_over_c(reduce_, args, splits, workspace, kSliceReductionBlocks, stream, programmatic_launch_);
  }
  void* gemm_params[] = {&m,   &n,   &k,   &alpha,          &a,       &lda,      &b,        &ldb,       &beta,
                         &c,   &ldc, &gemm_workspace, &swizzle, &stride_a, &stride_b, &stride_c, &gemm_bias};
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(batch), static_cast<unsigned>(splits));
  const dim3 block(static_cast<unsigned>(config_.threads()));
  cudaError_t err =
      launch_on(gemm_, grid, block, config_.shared_bytes(), stream, gemm_params, programmatic_launch_);
  if (err != cudaSuccess || splits == 1 || atomic) return err;

  // The GEMM lets it launch from its epilogue, so it is scheduled while the last blocks run.
  return launch_over_c(reduce_, args, splits, workspace, kSliceReductionBlocks, stream, programmatic_launch_);
}

// kernel_templates/skinny.cuh: the sgemm template's arguments with the split count in the swizzle's
// place; the slices of a tile are neighbours in gridDim.x, and the last to finish reduces them.
cudaError_t LoadedKernel::launch_skinny(const GemmArguments& args, float* workspace, cudaStream_t stream,
                                        long long tiles) const {
  int m = args.m, n = args.n, k = args.k, lda = args.lda, ldb = args.ldb, ldc = args.ldc, splits = config_.split_k;
  long long stride_a = args.stride_a, stride_b = args.stride_b, stride_c = args.stride_c;
  float alpha = args.alpha, beta = args.beta;
  const float* a = args.a;
  const float* b = args.b;
  void* c = args.c;
  const void* bias = args.bias;  // the last slice of a tile adds it, with the others' sums
  if (tiles * splits > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  void* params[] = {&m, &n, &k, &alpha, &a, &lda, &b, &ldb, &beta, &c, &ldc, &workspace, &splits,
                    &stride_a, &stride_b, &stride_c, &bias};
  const dim3 grid(static_cast<unsigned>(tiles * splits), static_cast<unsigned>(args.batch));
  return launch_on(gemm_, grid, dim3(static_cast<unsigned>(config_.threads())), config_.dynamic_shared_bytes(),
                   stream, params, programmatic_launch_);
}

// kernel_templates/wgmma/transpose.cuh: one launch per copied operand, a block per 64 x 64 tile
// and batch entry (one entry where every entry shares the operand), each waiting for the stream's
// previous kernel; the GEMM's own wait then covers the copies.
cudaError_t LoadedKernel::pretranspose(GemmArguments& args, float* workspace, cudaStream_t stream) const {
  const PretransposeLayout layout = pretranspose_layout(config_, args.m, args.n, args.k, args.batch);
  long long ld_dst = layout.ld;
  int rows = args.k;
  // The operand stored k x cols (pointer, row pitch ld, batch stride) -> cols x k at dst, and the
  // arguments then point at the copy.
  auto copy = [&](const float*& operand, int& ld, long long& stride, int cols, float* dst) {
    const float* src = operand;
    long long ld_src = ld, stride_src = stride;
    const int entries = stride_src == 0 ? 1 : args.batch;
    long long stride_dst = stride_src == 0 ? 0 : cols * ld_dst;
    const long long tiles = static_cast<long long>((rows + kTransposeTile - 1) / kTransposeTile) *
                            ((cols + kTransposeTile - 1) / kTransposeTile);
    if (tiles > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    void* params[] = {&src, &rows, &cols, &ld_src, &stride_src, &dst, &ld_dst, &stride_dst};
    const cudaError_t err = launch_on(transpose_, dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(entries)),
                                      dim3(kTransposeTile * 4), 0, stream, params, programmatic_launch_);
    operand = dst;
    ld = static_cast<int>(ld_dst);
    stride = stride_dst;
    return err;
  };
  if (pretransposes_a(config_)) {  // A stored k x m -> m x k
    if (const cudaError_t err = copy(args.a, args.lda, args.stride_a, args.m, workspace); err != cudaSuccess)
      return err;
  }
  if (pretransposes_b(config_)) {  // B stored k x n -> n x k, after A's copies
    if (const cudaError_t err = copy(args.b, args.ldb, args.stride_b, args.n, workspace + layout.a_floats);
        err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}

// kernel_templates/wgmma.cuh: A and B through tensor maps encoded here (they hold the pointers),
// one CTA (cluster) per unit or, persistent, as many as are resident at once; the kernel loops.
// layout: the operands' as args holds them (nt after pretranspose).
cudaError_t LoadedKernel::launch_wgmma(const GemmArguments& args, Layout layout, float* workspace,
                                       cudaStream_t stream) const {
  const KernelConfig& c = config_;
  EncodedTensorMap map_a, map_b;
  int a_batched = 0, b_batched = 0;
  if (args.k > 0) {  // K = 0 reads no operand: C = beta * C, with maps left unencoded
    // Clusters multicast A in halves: each CTA of a pair loads half of the tile's rows. An operand
    // stored MN-major (the layouts other than nt) is K rows of M or N elements, read a k tile of
    // rows at a time.
    const int k_tile = c.block_k;
    const auto shape_a =
        op_a_transposed(layout)
            ? operand_map_shape(c.precision, args.a, args.k, args.m, args.lda, args.batch, args.stride_a, k_tile)
            : operand_map_shape(c.precision, args.a, args.m, args.k, args.lda, args.batch, args.stride_a,
                                c.block_m / c.cluster);
    const auto shape_b =
        op_b_transposed(layout)
            ? operand_map_shape(c.precision, args.b, args.n, args.k, args.ldb, args.batch, args.stride_b, c.block_n)
            : operand_map_shape(c.precision, args.b, args.k, args.n, args.ldb, args.batch, args.stride_b, k_tile);
    if (!shape_a || !shape_b) return cudaErrorInvalidValue;
    if (const cudaError_t err = encode_operand_map(*shape_a, c.precision, args.a, map_a); err != cudaSuccess)
      return err;
    if (const cudaError_t err = encode_operand_map(*shape_b, c.precision, args.b, map_b); err != cudaSuccess)
      return err;
    a_batched = shape_a->batched;
    b_batched = shape_b->batched;
  }
  // A unit is a tile (a cluster's pair of tiles) and, with split-K, one slice of its K.
  const long long units = static_cast<long long>((args.m + c.block_m - 1) / c.block_m) *
                          ((args.n + c.block_n * c.cluster - 1) / (c.block_n * c.cluster)) * args.batch * c.split_k;
  if (units > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  const long long grid_units = c.persistent ? std::min<long long>(units, resident_units_) : units;
  // cluster_k: both CTAs of a pair take each unit.
  const long long ctas_per_unit = c.cluster * c.cluster_k;
  if (grid_units * ctas_per_unit > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  int m = args.m, n = args.n, k = args.k, ldc = args.ldc, batch = args.batch, group_m = c.swizzle,
      splits = c.split_k;
  float alpha = args.alpha, beta = args.beta;
  void* cp = args.c;
  long long stride_c = args.stride_c;
  const void* bias = args.bias;  // none for split-K's slices (launch_entries)
  void* params[] = {&map_a,  &map_b,     &cp,    &m,       &n,        &k,         &ldc,
                    &alpha,  &beta,      &group_m, &batch, &stride_c, &a_batched, &b_batched,
                    &splits, &workspace, &bias};
  WgmmaLaunch launch(c, dim3(static_cast<unsigned>(grid_units * ctas_per_unit)), stream, programmatic_launch_);
  return cudaLaunchKernelExC(&launch.config, reinterpret_cast<const void*>(gemm_), params);
}

LoadedBiasPass::LoadedBiasPass(const CompiledKernel& reduce) {
  int device = 0;
  GEMMTUNE_CUDA_CHECK(cudaGetDevice(&device));
  GEMMTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
  GEMMTUNE_CUDA_CHECK(cudaLibraryLoadData(&library_, reduce.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  if (const cudaError_t err = cudaLibraryGetKernel(&kernel_, library_, reduce.symbol.c_str()); err != cudaSuccess) {
    cudaLibraryUnload(library_);
    GEMMTUNE_CUDA_CHECK(err);
  }
}

LoadedBiasPass::~LoadedBiasPass() { GEMMTUNE_CUDA_CHECK_NOTHROW(cudaLibraryUnload(library_)); }

cudaError_t LoadedBiasPass::launch(const GemmArguments& args, cudaStream_t stream) const {
  if (args.m <= 0 || args.n <= 0 || args.batch <= 0) return cudaSuccess;
  // One wave of full SMs (2048 threads each): every thread then stores many rows of its column.
  return launch_over_c(kernel_, args, 0, nullptr, static_cast<long long>(sm_count_) * (2048 / kReduceThreads),
                       stream, false);
}

}  // namespace gemmtune
