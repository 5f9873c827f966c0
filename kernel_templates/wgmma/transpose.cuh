// The copy that lets tf32 run its TMA-fed kernel in every layout: tf32 wgmma reads K-major operands
// only, so a config with pretranspose (core/kernel_config.hpp) first copies each MN-major operand
// (A stored k x m, B stored k x n) K-major into the workspace, and the nt kernel reads the copies.
// The copy reads and writes each element once, which at 4096^3 is about a tenth of the GEMM's time;
// transposing in shared memory inside the GEMM (wgmma_gemm_tf32x with one pass) ran at half of
// cuBLAS TF32 (docs/kernel-notes.md, session 40).

namespace gemmtune {

// Writes the transpose of every batch entry's ROWS x COLS matrix (src, row pitch ld_src elements,
// entries stride_src apart; gridDim.y entries) to dst (COLS x ROWS, row pitch ld_dst, entries
// stride_dst apart). TILE x TILE tiles through shared memory, one more column than TILE so that a
// warp reading down a column meets every bank once; TILE x 8 threads, each moving TILE / 8 rows,
// the warps' global reads and writes both whole rows of the tile. Launched as a programmatic
// dependent: it waits for the stream's previous kernel (which may write src) before reading, and
// lets the GEMM launch only when it is done (the GEMM reads dst at once).
template <int TILE>
__global__ void __launch_bounds__(TILE * 8)
    wgmma_transpose(const float* __restrict__ src, int rows, int cols, long long ld_src, long long stride_src,
                    float* __restrict__ dst, long long ld_dst, long long stride_dst) {
  static_assert(TILE % 8 == 0, "each thread moves TILE / 8 rows");
  __shared__ float tile[TILE][TILE + 1];
  sm90::wait_for_previous_grid();
  const int tiles_c = (cols + TILE - 1) / TILE;
  const int row0 = static_cast<int>(blockIdx.x / tiles_c) * TILE;
  const int col0 = static_cast<int>(blockIdx.x % tiles_c) * TILE;
  src += blockIdx.y * stride_src;
  dst += blockIdx.y * stride_dst;
  const int x = threadIdx.x;
  if (col0 + x < cols)
    for (int r = threadIdx.y; r < TILE && row0 + r < rows; r += 8) tile[r][x] = src[(row0 + r) * ld_src + col0 + x];
  __syncthreads();
  // dst's row col0 + r holds src's column col0 + r: its elements row0 + x are the tile's column r.
  if (row0 + x < rows)
    for (int r = threadIdx.y; r < TILE && col0 + r < cols; r += 8) dst[(col0 + r) * ld_dst + row0 + x] = tile[x][r];
}

}  // namespace gemmtune
