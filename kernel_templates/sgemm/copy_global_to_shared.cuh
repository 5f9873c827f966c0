// Global -> shared memory: how the A and B tiles of one k step reach shared memory, in two ways.
// Register-staged (any GPU, STAGES 1 or 2): the next tile is fetched into registers while the
// current one is computed, then stored to shared memory. cp.async (ASYNC, sm_80+): copies land in
// shared memory without passing through registers, STAGES tiles in flight.
//
// Both operands are copied by one piece of code, OperandCopy, which sees a tile as it lies in global
// memory: rows of contiguous floats, read VEC at a time. Whether k runs along those rows or down
// them depends on the operand and its layout (A as stored is m x k, or k x m when op(A) = A^T; B is
// k x n, or n x k); in shared memory A is [m][k] or, TRANSPOSE_A, [k][m]. A
// piece whose floats land contiguously in shared memory is stored (or cp.async'd) as one vector;
// otherwise the copy transposes it, float by float. (B is [k][n] there, or [n][k] with TRANSPOSE_B.)
//
// Out-of-range tile elements are zero-filled here, at load time, so the inner loop never branches;
// only the copies and the epilogue know about edges. Vector loads are used only where the vector is
// in bounds and aligned, which makes every M, N, K and leading dimension correct. Each path has two
// variants, chosen at compile time by the binary's PATH (sgemm.cuh): whole-vector, where every
// VEC-float piece of a tile is entirely inside or entirely outside the matrix and each copy is one
// predicated vector access; and general, which checks every element.

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

// A and B are only read while the kernel runs: their register-staged loads take the read-only data
// path (ld.global.nc). Said explicitly because __restrict__ on the copier's member pointer, unlike
// on a kernel parameter, does not tell the compiler so (H100: the register-staged 4096x4096x64
// winner ran 8% slower without it).
template <int W>
__device__ __forceinline__ typename VecOf<W>::type load_global(const float* src) {
  return __ldg(reinterpret_cast<const typename VecOf<W>::type*>(src));
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

// How operand A's tile lies in global and in shared memory.
template <class S>
struct OperandA {
  enum : int {
    kKAlongRows = S::kOpA,                   // A^T as stored: a tile row is one k
    kRows = S::kOpA ? S::kBK : S::kBM,       // the tile as stored: kRows rows of kCols floats
    kCols = S::kOpA ? S::kBM : S::kBK,
    kContiguous = S::kOpA == S::kTransposeA,  // a stored row is a shared-memory row
    kStride = S::kStrideA,                   // floats between shared-memory rows
    kOffset = 0,                             // of the tile within a stage
    kLoads = S::kLoadsA,                     // pieces per thread
  };
};

// How operand B's tile lies in global and in shared memory.
template <class S>
struct OperandB {
  enum : int {
    kKAlongRows = !S::kOpB,
    kRows = S::kOpB ? S::kBN : S::kBK,
    kCols = S::kOpB ? S::kBK : S::kBN,
    kContiguous = S::kOpB == S::kTransposeB,
    kStride = S::kStrideB,
    kOffset = S::kTileA,
    kLoads = S::kLoadsB,
  };
};

// One operand's copies, tile kt of K into stage `stage` of shared memory, by either path.
template <class S, class Operand>
struct OperandCopy {
  enum : int {
    BK = S::kBK,
    VEC = S::kVec,
    THREADS = S::kThreads,
    kLoads = Operand::kLoads,
    kPerRow = Operand::kCols / VEC,
    kKAlongRows = Operand::kKAlongRows,
    kContiguous = Operand::kContiguous,
    kStride = Operand::kStride,
    // A whole 16-byte piece goes to one aligned shared-memory address.
    kVector16 = kContiguous && VEC == 4 && kStride % 4 == 0,
  };

  const float* __restrict__ base;  // the operand, as stored (this batch entry's)
  int ld;
  int mn0;     // the block's first row of C (A) or column of C (B)
  int extent;  // M (A) or N (B)
  int K;
  int tid;
  bool vec_ok;  // vector loads allowed: leading dimension and base address aligned
  // cp.async, whole-vector: where this thread's pieces of tile 0 start, and whether their m (n) lies
  // inside the matrix, worked out once; per tile only k moves, so the main loop spends two
  // instructions per copy on its address instead of a 64-bit multiply-add.
  const float* from[S::kAsync ? kLoads : 1];
  bool mn_in[S::kAsync ? kLoads : 1];
  float regs[S::kAsync ? 1 : kLoads * VEC];  // register-staged: the tile in flight

  __device__ OperandCopy(const float* __restrict__ base_, int ld_, int mn0_, int extent_, int K_, int tid_,
                         bool vec_ok_)
      : base(base_), ld(ld_), mn0(mn0_), extent(extent_), K(K_), tid(tid_), vec_ok(vec_ok_) {
    if constexpr (S::kAsync) {
#pragma unroll
      for (int i = 0; i < kLoads; ++i) {
        const int2 p = piece_of<kPerRow, THREADS>(tid, i);
        if constexpr (kKAlongRows) {
          from[i] = base + static_cast<long long>(p.x) * ld + mn0 + p.y * VEC;
          mn_in[i] = mn0 + p.y * VEC < extent;
        } else {
          from[i] = base + static_cast<long long>(mn0 + p.x) * ld + p.y * VEC;
          mn_in[i] = mn0 + p.x < extent;
        }
      }
    }
  }

  // Where float (row, col) of the tile as stored goes in its shared-memory tile.
  __device__ static int shared_index(int row, int col) {
    return kContiguous ? row * kStride + col : col * kStride + row;
  }

  // The piece of tile k0 at (r, c) in global memory, and how far its row and column may reach.
  struct Piece {
    const float* src;
    bool row_in;    // its row is inside the matrix
    int col_limit;  // columns before this one: inside the matrix
  };
  __device__ Piece piece(int k0, int k_end, int r, int c) const {
    if constexpr (kKAlongRows) {
      return {base + static_cast<long long>(k0 + r) * ld + mn0 + c, k0 + r < k_end, extent - mn0 - c};
    } else {
      return {base + static_cast<long long>(mn0 + r) * ld + k0 + c, mn0 + r < extent, k_end - k0 - c};
    }
  }

  // A vector load that yields zeros where `ok` is false: a predicated load, no branch.
  __device__ static void load_vector_or_zero(float* dst, const float* src, bool ok) {
    using Vec = typename VecOf<VEC>::type;
    Vec v;
    const float zero = 0.0f;
    float* f = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int j = 0; j < VEC; ++j) f[j] = zero;
    if (ok) v = load_global<VEC>(src);
#pragma unroll
    for (int j = 0; j < VEC; ++j) dst[j] = f[j];
  }

  // Register-staged: fetch tile kt into registers, zero outside the matrix and everywhere when
  // `live` is false (past the last tile), so callers need no branch.
  template <bool WHOLE>
  __device__ void fetch_regs(int kt, bool live) {
    const int k0 = kt * BK;
    const int k_end = live ? K : 0;  // a dead fetch is out of range everywhere
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const int2 p = piece_of<kPerRow, THREADS>(tid, i);
      const Piece g = piece(k0, k_end, p.x, p.y * VEC);
      if constexpr (WHOLE) {
        load_vector_or_zero(&regs[i * VEC], g.src, g.row_in && g.col_limit > 0);
      } else if (VEC > 1 && vec_ok && g.row_in && g.col_limit >= VEC) {
        const typename VecOf<VEC>::type v = load_global<VEC>(g.src);
        const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
        for (int j = 0; j < VEC; ++j) regs[i * VEC + j] = f[j];
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) regs[i * VEC + j] = (g.row_in && j < g.col_limit) ? __ldg(g.src + j) : 0.0f;
      }
    }
  }

  __device__ void store_regs(float* tile) const {
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const int2 p = piece_of<kPerRow, THREADS>(tid, i);
      const int r = p.x, c = p.y * VEC;
      if constexpr (kVector16) {
        *reinterpret_cast<float4*>(&tile[shared_index(r, c)]) =
            make_float4(regs[i * 4], regs[i * 4 + 1], regs[i * 4 + 2], regs[i * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) tile[shared_index(r, c + j)] = regs[i * VEC + j];
      }
    }
  }

  // cp.async: copies land in shared memory without passing through registers; 16-byte pieces where
  // they land contiguously and aligned, else float by float (4-byte cp.async). Out-of-range pieces
  // are zero-filled. Whole-vector mode: one predicated copy per piece from the pointers worked out
  // once. Otherwise every piece is checked for bounds and alignment.
  template <bool WHOLE>
  __device__ void issue_async(int kt, float* tile, bool live) const {
    const int k0 = kt * BK;
    const int k_end = live ? K : 0;  // a dead copy is out of range everywhere (zero-filled)
    if constexpr (WHOLE) {
      const int k_left = k_end - k0;  // pieces this far into the tile along k are in the matrix
      const long long row_step = kKAlongRows ? static_cast<long long>(k0) * ld : k0;
#pragma unroll
      for (int i = 0; i < kLoads; ++i) {
        const int2 p = piece_of<kPerRow, THREADS>(tid, i);
        const int r = p.x, c = p.y * VEC;
        const bool ok = mn_in[i] && (kKAlongRows ? r : c) < k_left;
        const float* src = from[i] + row_step;
        if constexpr (kVector16) {
          cp_async_f32x4(&tile[shared_index(r, c)], src, ok);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) cp_async_f32(&tile[shared_index(r, c + j)], src + j, ok);
        }
      }
    } else {
#pragma unroll
      for (int i = 0; i < kLoads; ++i) {
        const int2 p = piece_of<kPerRow, THREADS>(tid, i);
        const int r = p.x, c = p.y * VEC;
        const Piece g = piece(k0, k_end, r, c);
        if (kVector16 && vec_ok && g.row_in && g.col_limit >= 4) {
          cp_async_f32x4(&tile[shared_index(r, c)], g.src, true);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) cp_async_f32(&tile[shared_index(r, c + j)], g.src + j, g.row_in && j < g.col_limit);
        }
      }
    }
  }
};

// One block's copies of its A and B tiles into a stage of shared memory; `whole` (a Flag) selects
// the whole-vector variant.
template <class S>
struct GlobalToShared {
  OperandCopy<S, OperandA<S>>& a;
  OperandCopy<S, OperandB<S>>& b;
  float* smem;

  __device__ float* stage_tile(int stage, int offset) const { return smem + stage * (S::kTileA + S::kTileB) + offset; }

  template <class Whole>
  __device__ void fetch_regs(int kt, bool live, Whole) {
    a.template fetch_regs<Whole::value>(kt, live);
    b.template fetch_regs<Whole::value>(kt, live);
  }
  __device__ void store_regs(int stage) {
    a.store_regs(stage_tile(stage, OperandA<S>::kOffset));
    b.store_regs(stage_tile(stage, OperandB<S>::kOffset));
  }
  template <class Whole>
  __device__ void issue_async(int kt, int stage, bool live, Whole) {
    a.template issue_async<Whole::value>(kt, stage_tile(stage, OperandA<S>::kOffset), live);
    b.template issue_async<Whole::value>(kt, stage_tile(stage, OperandB<S>::kOffset), live);
  }
};

}  // namespace detail
}  // namespace gemmtune
