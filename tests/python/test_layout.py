"""Stride -> (op, ld, batch stride) mapping, pure Python: what the C API receives for each view."""

import pytest

from gemmtune import plan_bmm, plan_mm
from gemmtune._layout import contiguous_strides, matrix_operand

N, T = 0, 1


@pytest.mark.parametrize("rows, cols, strides, expected", [
    (3, 5, (5, 1), (N, 5)),      # contiguous
    (3, 5, (8, 1), (N, 8)),      # a slice of a wider matrix: padded rows
    (3, 5, (1, 3), (T, 3)),      # the transpose of a contiguous 5x3: op T, no copy
    (3, 5, (1, 7), (T, 7)),      # the transpose of a padded one
    (1, 5, (99, 1), (N, 5)),     # one row: its row stride never steps
    (1, 5, (1, 1), (N, 5)),
    (3, 1, (1, 1), (N, 1)),      # one column
    (3, 1, (1, 42), (N, 1)),
    (3, 1, (4, 42), (N, 4)),
    (1, 1, (1, 1), (N, 1)),
    (0, 5, (5, 1), (N, 5)),
    (4, 4, (4, 1), (N, 4)),
])
def test_matrix_operand(rows, cols, strides, expected):
    assert matrix_operand("x", rows, cols, *strides) == expected


@pytest.mark.parametrize("rows, cols, strides", [
    (3, 5, (10, 2)),   # every other column: neither rows nor columns contiguous
    (3, 5, (1, 1)),    # overlapping rows
    (3, 5, (0, 1)),    # a broadcast row (expand)
    (3, 5, (2, 1)),    # rows overlap (ld < cols)
    (3, 5, (-5, 1)),   # negative (CuPy's flipped views)
])
def test_matrix_operand_refuses(rows, cols, strides):
    with pytest.raises(ValueError, match="argument 'q'"):
        matrix_operand("f: argument 'q'", rows, cols, *strides)


def test_plan_mm_layouts():
    # a (4x6) @ b (6x8): every combination of stored and transposed operands.
    a_n, a_t = ((4, 6), (6, 1)), ((4, 6), (1, 4))
    b_n, b_t = ((6, 8), (8, 1)), ((6, 8), (1, 6))
    for (a, op_a, lda) in ((a_n, N, 6), (a_t, T, 4)):
        for (b, op_b, ldb) in ((b_n, N, 8), (b_t, T, 6)):
            p = plan_mm("mm", a[0], a[1], b[0], b[1])
            assert (p.op_a, p.lda, p.op_b, p.ldb) == (op_a, lda, op_b, ldb)
            assert (p.m, p.n, p.k, p.batch, p.stride_a, p.stride_b) == (4, 8, 6, 1, 0, 0)


def test_plan_bmm_shares_a_matrix_with_stride_0():
    p = plan_bmm("bmm", (5, 4, 6), (0, 6, 1), (5, 6, 8), (48, 8, 1))
    assert (p.batch, p.stride_a, p.stride_b) == (5, 0, 48)
    p = plan_bmm("bmm", (5, 4, 6), (24, 6, 1), (5, 6, 8), (0, 1, 6))  # shared and transposed B
    assert (p.op_b, p.ldb, p.stride_b) == (T, 6, 0)
    p = plan_bmm("bmm", (1, 4, 6), (7, 6, 1), (1, 6, 8), (9, 8, 1))  # one entry: strides are free
    assert (p.stride_a, p.stride_b) == (0, 0)


@pytest.mark.parametrize("a, b, message", [
    (((4, 6), (6, 1)), ((5, 8), (8, 1)), "cannot be multiplied"),
    (((4, 6, 1), (6, 1, 1)), ((6, 8), (8, 1)), "argument 'a' must be 2-D"),
    (((4, 6), (6, 1)), ((8,), (1,)), "argument 'b' must be 2-D"),
    (((4, 6), (6, 1)), ((6, 8), (16, 2)), "argument 'b'"),
])
def test_plan_mm_bad_input_names_the_argument(a, b, message):
    with pytest.raises(ValueError, match=message):
        plan_mm("gemmtune.mm", a[0], a[1], b[0], b[1])


def test_plan_bmm_bad_input():
    with pytest.raises(ValueError, match="batch sizes differ"):
        plan_bmm("bmm", (2, 4, 6), (24, 6, 1), (3, 6, 8), (48, 8, 1))
    with pytest.raises(ValueError, match="negative batch stride"):
        plan_bmm("bmm", (2, 4, 6), (-24, 6, 1), (2, 6, 8), (48, 8, 1))


def test_sizes_beyond_int_are_refused():
    with pytest.raises(ValueError, match="int range"):
        matrix_operand("x", 2, 4, 2**31, 1)


def test_contiguous_strides():
    assert contiguous_strides((2, 3, 4)) == (12, 4, 1)
    assert contiguous_strides((0, 3)) == (3, 1)
