// K halved in a cluster pair (CLUSTER_K 2): the two CTAs of a cluster take the same tile, each half of
// its k tiles, and CTA 1 hands its sums to CTA 0 through distributed shared memory; CTA 0 adds them and
// stores the tile. Split-K's parallelism for products of fewer tiles than SMs, without split-K's
// kernel over C or its additions in global memory, and in the same order every run.
// CTA 0's shared memory holds, after the stage ring: a "full" barrier (CTA 1's consumer threads
// arrive on it once their sums are in), a "free" one in CTA 1 (CTA 0's arrive once they have read
// them, before a persistent pair's next tile) and the buffer, BM x BN floats.

namespace gemmtune {
namespace wgmma {

// The shared-memory bytes the pair adds: the two barriers and the buffer.
template <int BM, int BN>
constexpr int kKPairBytes = 16 + BM * BN * 4;

// The k tiles [begin, end) of a unit narrowed to CTA k_rank's half (the first the larger).
__device__ __forceinline__ void k_pair_half(unsigned k_rank, int& begin, int& end) {
  const int mid = begin + (end - begin + 1) / 2;
  if (k_rank == 0)
    end = mid;
  else
    begin = mid;
}

// Every consumer thread of the other CTA arrives on each barrier.
__device__ __forceinline__ void k_pair_init(unsigned full_bar, int consumer_threads) {
  sm90::mbar_init(full_bar, consumer_threads);
  sm90::mbar_init(full_bar + 8, consumer_threads);
}

// After a tile's main loop, consumer thread `thread` (of CONSUMER_THREADS) of CTA k_rank: CTA 1 stores
// its sums into CTA 0's buffer and returns false (it stores nothing); CTA 0 waits for them, adds
// them and returns true. Thread t's 16-byte pieces lie CONSUMER_THREADS * 16 bytes apart, so a warp's
// stores and loads cover whole bank rows. handoffs counts the tiles handed over so far (the
// barriers' phases), the same in both CTAs.
template <int CONSUMER_THREADS, int MI, int ACC_REGS>
__device__ __forceinline__ bool k_pair_reduce(float (&acc)[MI][ACC_REGS], unsigned k_rank, unsigned full_bar,
                                              int thread, int& handoffs) {
  static_assert(ACC_REGS % 4 == 0, "whole 16-byte pieces");
  const unsigned free_bar = full_bar + 8, mine = full_bar + 16 + 16u * thread;
  constexpr unsigned kStride = 16u * CONSUMER_THREADS;
  if (k_rank == 1) {
    if (handoffs > 0) sm90::mbar_wait<true>(free_bar, (handoffs - 1) & 1);  // CTA 0 has read the last
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int q = 0; q < ACC_REGS / 4; ++q)
        sm90::st_cluster_quad(mine + kStride * (mi * ACC_REGS / 4 + q), 0, acc[mi][4 * q], acc[mi][4 * q + 1],
                              acc[mi][4 * q + 2], acc[mi][4 * q + 3]);
    sm90::mbar_arrive_cluster<true>(full_bar, 0);
    ++handoffs;
    return false;
  }
  sm90::mbar_wait<true>(full_bar, handoffs & 1);
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int q = 0; q < ACC_REGS / 4; ++q) {
      const float4 v = sm90::ld_shared_quad(mine + kStride * (mi * ACC_REGS / 4 + q));
      acc[mi][4 * q] += v.x, acc[mi][4 * q + 1] += v.y, acc[mi][4 * q + 2] += v.z, acc[mi][4 * q + 3] += v.w;
    }
  sm90::mbar_arrive_cluster<true>(free_bar, 1);
  ++handoffs;
  return true;
}

}  // namespace wgmma
}  // namespace gemmtune
