// Global -> shared memory: how the A and B tiles of one k step reach shared memory, in two ways.
// Register-staged (any GPU, STAGES 1 or 2): the next tile is fetched into registers while the
// current one is computed, then stored to shared memory. cp.async (ASYNC, sm_80+): copies land in
// shared memory without passing through registers, STAGES tiles in flight.
//
// Out-of-range tile elements are zero-filled here, at load time, so the inner loop never branches;
// only the copies and the epilogue know about edges. Vector loads are used only where the vector is
// in bounds and aligned, which makes every M, N, K and leading dimension correct. Each path has two
// variants, chosen once per kernel run (see whole_vectors in sgemm.cuh): whole-vector, where every
// VEC-float piece of a tile is entirely inside or entirely outside the matrix and each copy is one
// predicated vector access; and general, which checks every element.
//
// The A and B copies stay written out side by side: folded into one function per operand, the
// general variant compiled to different code (a function boundary changes what the optimizer sees
// first), and scripts/check-template-ptx.sh demands identical PTX.

namespace gemmtune {
namespace detail {

template <int W>
struct VecOf;
template <>
struct VecOf<1> {
  using type = float;
};
template <>
struct VecOf<2> {
  using type = float2;
};
template <>
struct VecOf<4> {
  using type = float4;
};

// Copies W consecutive floats into registers with one access where aligned.
template <int W, bool ALIGNED>
__device__ __forceinline__ void load_run(float* dst, const float* src) {
  if constexpr (ALIGNED && W > 1) {
    typename VecOf<W>::type v = *reinterpret_cast<const typename VecOf<W>::type*>(src);
    const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
    for (int i = 0; i < W; ++i) dst[i] = f[i];
  } else {
#pragma unroll
    for (int i = 0; i < W; ++i) dst[i] = src[i];
  }
}

__device__ __forceinline__ bool aligned_to(const void* p, unsigned bytes) {
  return (reinterpret_cast<unsigned long long>(p) % bytes) == 0;
}

// The piece (VEC floats, PER_ROW pieces to a tile row) that a thread copies in its i-th load, as
// (row, piece in the row): pieces are numbered along rows, THREADS of them per load. Where THREADS
// is a multiple of PER_ROW, piece i lies a constant number of rows below piece 0, so every load
// after the first addresses shared memory at an immediate offset from it.
template <int PER_ROW, int THREADS>
__device__ __forceinline__ int2 piece_of(int tid, int i) {
  if constexpr (THREADS % PER_ROW == 0) {
    return make_int2(tid / PER_ROW + i * (THREADS / PER_ROW), tid % PER_ROW);
  } else {
    const int v = tid + i * THREADS;
    return make_int2(v / PER_ROW, v % PER_ROW);
  }
}

// One block's copies of its A and B tiles, tile kt (of BK k values) into stage `stage` of shared
// memory, by either path; `whole` (a Flag) selects the variant. It holds references to the
// kernel's variables, as the lambdas these functions once were captured them: the same code then
// reaches the optimizer in the same shape, and the PTX stays byte for byte what it was (values
// copied into members instead compiled differently).
template <class S>
struct GlobalToShared {
  enum : int { BN = S::kBN, BK = S::kBK, VEC = S::kVec, TRANSPOSE_A = S::kTransposeA };  // the kernel's names

  const float* __restrict__& A;
  const int& lda;
  const float* __restrict__& B;
  const int& ldb;
  const int &M, &N, &K;
  const int &m0, &n0;  // the block's tile of C
  const int& tid;
  const bool &a_vec_ok, &b_vec_ok;  // vector loads allowed: leading dimension and base address aligned
  float*& smem;
  // cp.async, whole-vector: the pieces' first-tile addresses and in-matrix flags (see the kernel).
  const float* (&a_from)[S::kAsync ? S::kLoadsA : 1];
  const float* (&b_from)[S::kAsync ? S::kLoadsB : 1];
  bool (&a_row_in)[S::kAsync ? S::kLoadsA : 1];
  bool (&b_col_in)[S::kAsync ? S::kLoadsB : 1];
  // Register-staged: the tile in flight.
  float (&a_regs)[S::kAsync ? 1 : S::kLoadsA * VEC];
  float (&b_regs)[S::kAsync ? 1 : S::kLoadsB * VEC];

  // Element (r, c) of the A tile is A[m0 + r][k + c]; stored at As[c][r] when transposed.
  __device__ static int a_index(int r, int c) {
    return TRANSPOSE_A ? c * S::kStrideA + r : r * S::kStrideA + c;
  }

  // A vector load that yields zeros where `ok` is false: a predicated load, no branch.
  __device__ static void load_vector_or_zero(float* dst, const float* src, bool ok) {
    using Vec = typename VecOf<VEC>::type;
    Vec v;
    const float zero = 0.0f;
    float* f = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int j = 0; j < VEC; ++j) f[j] = zero;
    if (ok) v = *reinterpret_cast<const Vec*>(src);
#pragma unroll
    for (int j = 0; j < VEC; ++j) dst[j] = f[j];
  }

  // Register-staged: fetch tile kt of A and B into registers, zero outside the matrix and
  // everywhere when `live` is false (past the last tile), so callers need no branch.
  template <class Whole>
  __device__ void fetch_regs(int kt, bool live, Whole whole) {
    constexpr bool kWhole = decltype(whole)::value;
    const int k0 = kt * BK;
    const int k_end = live ? K : 0;  // a dead fetch is out of range everywhere
#pragma unroll
    for (int i = 0; i < S::kLoadsA; ++i) {
      const int v = tid + i * S::kThreads;
      const int r = v / (BK / VEC), c = (v % (BK / VEC)) * VEC;
      const int gm = m0 + r, gk = k0 + c;
      const float* src = A + static_cast<long long>(gm) * lda + gk;
      if constexpr (kWhole) {
        load_vector_or_zero(&a_regs[i * VEC], src, gm < M && gk < k_end);
      } else if (VEC > 1 && a_vec_ok && gm < M && gk + VEC <= k_end) {
        load_run<VEC, true>(&a_regs[i * VEC], src);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) a_regs[i * VEC + j] = (gm < M && gk + j < k_end) ? src[j] : 0.0f;
      }
    }
#pragma unroll
    for (int i = 0; i < S::kLoadsB; ++i) {
      const int v = tid + i * S::kThreads;
      const int r = v / (BN / VEC), c = (v % (BN / VEC)) * VEC;
      const int gk = k0 + r, gn = n0 + c;
      const float* src = B + static_cast<long long>(gk) * ldb + gn;
      if constexpr (kWhole) {
        load_vector_or_zero(&b_regs[i * VEC], src, gk < k_end && gn < N);
      } else if (VEC > 1 && b_vec_ok && gk < k_end && gn + VEC <= N) {
        load_run<VEC, true>(&b_regs[i * VEC], src);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) b_regs[i * VEC + j] = (gk < k_end && gn + j < N) ? src[j] : 0.0f;
      }
    }
  }

  __device__ void store_regs(int stage) {
    float* As = smem + stage * (S::kTileA + S::kTileB);
    float* Bs = As + S::kTileA;
#pragma unroll
    for (int i = 0; i < S::kLoadsA; ++i) {
      const int v = tid + i * S::kThreads;
      const int r = v / (BK / VEC), c = (v % (BK / VEC)) * VEC;
      if constexpr (!TRANSPOSE_A && VEC == 4 && S::kStrideA % 4 == 0) {
        *reinterpret_cast<float4*>(&As[a_index(r, c)]) =
            make_float4(a_regs[i * 4], a_regs[i * 4 + 1], a_regs[i * 4 + 2], a_regs[i * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) As[a_index(r, c + j)] = a_regs[i * VEC + j];
      }
    }
#pragma unroll
    for (int i = 0; i < S::kLoadsB; ++i) {
      const int v = tid + i * S::kThreads;
      const int r = v / (BN / VEC), c = (v % (BN / VEC)) * VEC;
      float* dst = &Bs[r * S::kStrideB + c];
      if constexpr (VEC == 4 && S::kStrideB % 4 == 0) {
        *reinterpret_cast<float4*>(dst) =
            make_float4(b_regs[i * 4], b_regs[i * 4 + 1], b_regs[i * 4 + 2], b_regs[i * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) dst[j] = b_regs[i * VEC + j];
      }
    }
  }

  // cp.async: copies land in shared memory without passing through registers. A transposed is
  // copied element by element (4-byte cp.async), everything else in 16-byte pieces. Out-of-range
  // pieces are zero-filled. Whole-vector mode: one predicated copy per piece from the pointers
  // worked out once. Otherwise every piece is checked for bounds and alignment.
  template <class Whole>
  __device__ void issue_async(int kt, int stage, bool live, Whole whole) {
    constexpr bool kWhole = decltype(whole)::value;
    const int k0 = kt * BK;
    const int k_end = live ? K : 0;  // a dead copy is out of range everywhere (zero-filled)
    float* As = smem + stage * (S::kTileA + S::kTileB);
    float* Bs = As + S::kTileA;
    constexpr bool kA16 = !TRANSPOSE_A && VEC == 4 && S::kStrideA % 4 == 0;
    constexpr bool kB16 = VEC == 4 && S::kStrideB % 4 == 0;
    if constexpr (kWhole && kB16) {
      const int k_left = k_end - k0;  // pieces this far into the tile along k are in the matrix
      const long long b_step = static_cast<long long>(k0) * ldb;
#pragma unroll
      for (int i = 0; i < S::kLoadsA; ++i) {
        const int2 p = piece_of<BK / VEC, S::kThreads>(tid, i);
        const int r = p.x, c = p.y * VEC;
        const bool ok = a_row_in[i] && c < k_left;
        if constexpr (kA16) {
          cp_async_f32x4(&As[a_index(r, c)], a_from[i] + k0, ok);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) cp_async_f32(&As[a_index(r, c + j)], a_from[i] + k0 + j, ok);
        }
      }
#pragma unroll
      for (int i = 0; i < S::kLoadsB; ++i) {
        const int2 p = piece_of<BN / VEC, S::kThreads>(tid, i);
        const bool ok = b_col_in[i] && p.x < k_left;
        cp_async_f32x4(&Bs[p.x * S::kStrideB + p.y * VEC], b_from[i] + b_step, ok);
      }
    } else {
#pragma unroll
      for (int i = 0; i < S::kLoadsA; ++i) {
        const int v = tid + i * S::kThreads;
        const int r = v / (BK / VEC), c = (v % (BK / VEC)) * VEC;
        const int gm = m0 + r, gk = k0 + c;
        const float* src = A + static_cast<long long>(gm) * lda + gk;
        if (kA16 && a_vec_ok && gm < M && gk + 4 <= k_end) {
          cp_async_f32x4(&As[a_index(r, c)], src, true);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) {
            const bool ok = gm < M && gk + j < k_end;
            cp_async_f32(&As[a_index(r, c + j)], src + j, ok);
          }
        }
      }
#pragma unroll
      for (int i = 0; i < S::kLoadsB; ++i) {
        const int v = tid + i * S::kThreads;
        const int r = v / (BN / VEC), c = (v % (BN / VEC)) * VEC;
        const int gk = k0 + r, gn = n0 + c;
        const float* src = B + static_cast<long long>(gk) * ldb + gn;
        float* dst = &Bs[r * S::kStrideB + c];
        if (kB16 && b_vec_ok && gk < k_end && gn + 4 <= N) {
          cp_async_f32x4(dst, src, true);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) {
            const bool ok = gk < k_end && gn + j < N;
            cp_async_f32(dst + j, src + j, ok);
          }
        }
      }
    }
  }
};

}  // namespace detail
}  // namespace gemmtune
