"""How an array's shape and strides become the C API's arguments, with no copy: a matrix whose rows
are contiguous is op N with ld = its row stride; one whose columns are contiguous (a transposed
view) is the row-major transpose it is, op T with ld = its column stride; a batch stride of 0 shares
one matrix across the batch. Pure Python over (shape, strides) in elements, so it is tested without
a GPU or torch; anything else (overlapping rows, negative strides, a broadcast row) cannot be
expressed and raises ValueError naming the argument.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ._library import OP_N, OP_T

INT_MAX = 2**31 - 1


class GemmArguments(NamedTuple):
    """Everything of gemmtune_sgemm_strided_batched but pointers, alpha, beta and the stream.
    C is always a fresh contiguous array: ldc = n, stride_c = m * n."""
    op_a: int
    op_b: int
    m: int
    n: int
    k: int
    lda: int
    stride_a: int
    ldb: int
    stride_b: int
    batch: int


def matrix_operand(what: str, rows: int, cols: int, row_stride: int, col_stride: int):
    """(op, ld) for a rows x cols matrix with those element strides; ValueError if none fits."""
    # A dimension of extent 1 never steps, so its stride is free: choose the packed one.
    if col_stride == 1 or cols <= 1:
        ld = row_stride if rows > 1 else max(cols, 1)
        if ld >= max(cols, 1):
            return OP_N, _int(what, "leading dimension", ld)
    if row_stride == 1 or rows <= 1:
        ld = col_stride if cols > 1 else max(rows, 1)
        if ld >= max(rows, 1):
            return OP_T, _int(what, "leading dimension", ld)
    raise ValueError(
        f"{what}: a {rows}x{cols} matrix with strides ({row_stride}, {col_stride}) has neither contiguous "
        f"rows nor contiguous columns; pass a contiguous copy (.contiguous())")


def batch_stride(what: str, batch: int, stride: int) -> int:
    if batch <= 1:
        return 0
    if stride < 0:
        raise ValueError(f"{what}: a negative batch stride ({stride}) cannot be expressed; pass a contiguous copy")
    return stride


def _int(what: str, quantity: str, value: int) -> int:
    if value > INT_MAX:
        raise ValueError(f"{what}: {quantity} {value} exceeds the C API's int range")
    return value


def plan_mm(name: str, a_shape: Sequence[int], a_strides: Sequence[int], b_shape: Sequence[int],
            b_strides: Sequence[int]) -> GemmArguments:
    """C (m x n) = A (m x k) @ B (k x n); name is the calling function, e.g. 'gemmtune.mm'."""
    if len(a_shape) != 2:
        raise ValueError(f"{name}: argument 'a' must be 2-D, got shape {tuple(a_shape)}")
    if len(b_shape) != 2:
        raise ValueError(f"{name}: argument 'b' must be 2-D, got shape {tuple(b_shape)}")
    m, k = a_shape
    k_b, n = b_shape
    if k != k_b:
        raise ValueError(f"{name}: shapes {tuple(a_shape)} (argument 'a') and {tuple(b_shape)} (argument 'b') "
                         f"cannot be multiplied ({k} != {k_b})")
    op_a, lda = matrix_operand(f"{name}: argument 'a'", m, k, a_strides[0], a_strides[1])
    op_b, ldb = matrix_operand(f"{name}: argument 'b'", k, n, b_strides[0], b_strides[1])
    for quantity, value in (("m", m), ("n", n), ("k", k)):
        _int(name, quantity, value)
    return GemmArguments(op_a, op_b, m, n, k, lda, 0, ldb, 0, 1)


def plan_bmm(name: str, a_shape: Sequence[int], a_strides: Sequence[int], b_shape: Sequence[int],
             b_strides: Sequence[int]) -> GemmArguments:
    """C (batch x m x n) = A (batch x m x k) @ B (batch x k x n), entry by entry."""
    if len(a_shape) != 3:
        raise ValueError(f"{name}: argument 'a' must be 3-D, got shape {tuple(a_shape)}")
    if len(b_shape) != 3:
        raise ValueError(f"{name}: argument 'b' must be 3-D, got shape {tuple(b_shape)}")
    if a_shape[0] != b_shape[0]:
        raise ValueError(f"{name}: batch sizes differ: {a_shape[0]} (argument 'a') and {b_shape[0]} (argument 'b')")
    mm = plan_mm(name, a_shape[1:], a_strides[1:], b_shape[1:], b_strides[1:])
    batch = _int(name, "batch", a_shape[0])
    return mm._replace(stride_a=batch_stride(f"{name}: argument 'a'", batch, a_strides[0]),
                       stride_b=batch_stride(f"{name}: argument 'b'", batch, b_strides[0]), batch=batch)


def contiguous_strides(shape: Sequence[int]):
    """Row-major element strides of shape (as a fresh array has)."""
    strides = []
    step = 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))
