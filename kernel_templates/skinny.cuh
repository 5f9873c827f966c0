// Skinny (decode-sized) GEMM family, FP32 sums: C = alpha * op(A) * op(B) + beta * C, all row-major, for
// few rows of C (m from 1 to 32: the tokens of one decoding step) against a big operand B (k x n,
// or n x k when OP_B = 1, PyTorch's Linear weight). Such calls are memory-bound: the floor is
// reading B once, so both kernels stream B exactly once and keep everything else small.
//   - stream (skinny/stream.cuh), up to 8 rows: each thread keeps all the block's rows of C in
//     registers and B goes from global memory straight to registers;
//   - tiled (skinny/tiled.cuh), 8 to 32 rows: A and B tiles through a cp.async pipeline in shared
//     memory, a TM x TN piece of C per thread (registers run out for the first kernel there).
// OP_A, OP_B: the operands' layouts (0 as is; 1 stored transposed: A is k x m, B is n x k), fixed by
// the problem. PATH, chosen by the host per call (core/kernel_path.cpp): 1, every load of B a 16-byte
// vector (operands aligned to 16 bytes, leading dimensions, strides and the stored rows' lengths
// whole vectors, K a multiple of a step); 0, scalar loads with a bounds check per element, for every
// call. The stream kernel also takes bf16 and fp16 operands (ELEM), and with them a C of their own
// type (C16: rounded once, at the final write); the tiled kernel is FP32 only, C too.
// Both take the sgemm template's arguments, with the split count where it has the block swizzle;
// split-K reduces inside the one launch through a workspace that every launch leaves all zeros.
//
// Compiled at run time by NVRTC, one instantiation per candidate, named by an expression such as
// `gemmtune::skinny::stream<0,1,8,4,8,2,4,2,0,1,1,0>`; the host side (core/kernel_config.cpp) owns the
// parameters' meaning, ranges, shared-memory sizes and thread counts. No standard headers.

// Each part needs the ones before it: not to be sorted.
// clang-format off
#include "common/sixteen_bit_c.cuh"
#include "common/bias.cuh"
#include "skinny/memory.cuh"
#include "skinny/stream.cuh"
#include "skinny/tiled.cuh"
// clang-format on
