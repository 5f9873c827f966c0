// The copy that lets tf32 run its TMA-fed kernel in every layout: tf32 wgmma reads K-major operands
// only, so a config with pretranspose (core/kernel_config.hpp) first copies each MN-major operand
// (A stored k x m, B stored k x n) K-major into the workspace, and the nt kernel reads the copies.
// Transposing in shared memory inside the GEMM instead (wgmma_gemm_tf32x with one pass) ran at half
// of cuBLAS TF32 from 2048 up; with the copies 4096^3 nn runs at 0.87 (H200, 2026-11-29;
// docs/kernel-notes.md, session 40).

namespace gemmtune {

// Writes the transpose of every batch entry's ROWS x COLS matrix (src, row pitch ld_src elements,
// entries stride_src apart; gridDim.y entries) to dst (COLS x ROWS, row pitch ld_dst, entries
// stride_dst apart), and zeros in each dst row from ROWS to the next multiple of 4 (ld_dst is one).
// TILE x TILE tiles, a block of TILE * 4 threads: each thread reads TILE / 16 16-byte vectors of
// the tile's rows and writes as many of its transpose, through shared memory padded by a column
// (a warp's column reads then meet each bank at most twice). A 32 x 32 tile of scalar copies
// moved 2.8 TB/s on the H200, two thirds of a copy: too few bytes in flight.
// src's rows and ld_src are 16-byte aligned (the wgmma family serves the whole-vector path only);
// the vectors past COLS at a row's end are read element by element.
// Launched as a programmatic dependent: it waits for the stream's previous kernel (which may write
// src) before reading, and lets the GEMM launch only when it is done (the GEMM reads dst at once).
template <int TILE>
__global__ void __launch_bounds__(TILE * 4)
    wgmma_transpose(const float* __restrict__ src, int rows, int cols, long long ld_src, long long stride_src,
                    float* __restrict__ dst, long long ld_dst, long long stride_dst) {
  static_assert(TILE % 16 == 0, "TILE / 4 vectors a row, TILE * 4 threads");
  constexpr int kVectors = TILE / 4;             // 16-byte vectors in a row of the tile
  constexpr int kRowsPerPass = TILE * 4 / kVectors;  // rows the block covers at once
  __shared__ float tile[TILE][TILE + 1];
  sm90::wait_for_previous_grid();
  const int tiles_c = (cols + TILE - 1) / TILE;
  const int row0 = static_cast<int>(blockIdx.x / tiles_c) * TILE;
  const int col0 = static_cast<int>(blockIdx.x % tiles_c) * TILE;
  src += blockIdx.y * stride_src;
  dst += blockIdx.y * stride_dst;
  const int v = threadIdx.x % kVectors, r0 = threadIdx.x / kVectors;
  // src rows row0 + r, columns col0 + 4v .. + 3; zeros outside the matrix.
  const int c = col0 + 4 * v;
#pragma unroll
  for (int r = r0; r < TILE; r += kRowsPerPass) {
    float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row0 + r < rows) {
      const float* p = src + (row0 + r) * ld_src + c;
      if (c + 3 < cols) {
        x = *reinterpret_cast<const float4*>(p);
      } else if (c < cols) {
        x.x = p[0];
        if (c + 1 < cols) x.y = p[1];
        if (c + 2 < cols) x.z = p[2];
      }
    }
    tile[r][4 * v] = x.x, tile[r][4 * v + 1] = x.y, tile[r][4 * v + 2] = x.z, tile[r][4 * v + 3] = x.w;
  }
  __syncthreads();
  // dst row col0 + r holds src column col0 + r: its elements row0 + 4v .. + 3 are the tile's column
  // r, rows 4v .. + 3 (zeros past ROWS, inside the row's pitch).
  const int d = row0 + 4 * v;
  if (d >= rows) return;
#pragma unroll
  for (int r = r0; r < TILE; r += kRowsPerPass)
    if (col0 + r < cols)
      *reinterpret_cast<float4*>(dst + (col0 + r) * ld_dst + d) =
          make_float4(tile[4 * v][r], tile[4 * v + 1][r], tile[4 * v + 2][r], tile[4 * v + 3][r]);
}

}  // namespace gemmtune
