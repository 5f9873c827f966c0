"""The eager torch path (gemmtune/_torch_calls.py) without a GPU: which C function each call makes,
with which precision and C type, into which buffer. The library is replaced by a recorder and the
tensors live on the CPU (device -1 stands for the CUDA device), so what is checked is the plumbing:
a 16-bit result is the buffer the library wrote as a 16-bit C (gemmtune_run_gemm_problem_ex with
GEMMTUNE_C_OPERAND_TYPE), never an FP32 C cast afterwards; float32 results keep the FP32-C calls.
Numbers are the GPU tier's (test_gpu.py). Skipped where torch cannot be imported."""

import ctypes

import pytest

torch = pytest.importorskip("torch")

import gemmtune  # noqa: E402
from gemmtune import _handles, _torch_calls as calls  # noqa: E402
from gemmtune import _library as L  # noqa: E402

BF16, FP16, FP32, TF32X3 = 3, 4, 0, 1  # gemmtune_precision_t
C_FP32, C_OPERAND_TYPE = 0, 1  # gemmtune_c_type_t
DEVICE = -1  # a CPU tensor's get_device()


class Library:
    """Stands in for libgemmtune: records each call, and what C held when the product was asked for
    (so a test sees that c or the bias was copied in exactly)."""

    def __init__(self, implementation="mma_bf16_64x64x32_w32x32_s3_b1_z1_k1"):
        self.implementation = implementation  # what choose answers
        self.runs = []  # (function, precision, c_type, problem, pc, bytes of C before the call)
        self.biases = []  # pbias of every gemmtune_run_gemm_problem_bias
        self.chosen = []  # (precision, c_type) of every choose

    def run(self, handle, precision, problem, pa, pb, pc, stream):
        return self._record("gemmtune_run_gemm_problem", precision, C_FP32, problem, pc)

    def run_ex(self, handle, precision, c_type, problem, pa, pb, pc, stream):
        return self._record("gemmtune_run_gemm_problem_ex", precision, c_type, problem, pc)

    def run_bias(self, handle, precision, c_type, problem, pa, pb, pbias, pc, stream):
        self.biases.append(pbias)
        return self._record("gemmtune_run_gemm_problem_bias", precision, c_type, problem, pc)

    def _record(self, function, precision, c_type, problem, pc):
        size = 2 if c_type == C_OPERAND_TYPE else 4
        c_bytes = ctypes.string_at(pc, size * problem.stride_c * problem.batch_count)
        self.runs.append((function, precision, c_type, problem, pc, c_bytes))
        return L.SUCCESS

    def choose(self, handle, precision, c_type, *arguments):
        self.chosen.append((precision, c_type))
        config = arguments[-4]
        config.value = self.implementation.encode()
        return L.SUCCESS


@pytest.fixture
def library(monkeypatch):
    fake = Library()
    monkeypatch.setattr(calls, "_run_problem", fake.run)
    monkeypatch.setattr(calls, "_run_problem_ex", fake.run_ex)
    monkeypatch.setattr(calls, "_run_problem_bias", fake.run_bias)
    monkeypatch.setattr(L, "choose_gemm", fake.choose)
    monkeypatch.setattr(calls, "_raw_stream", lambda device: 0)
    monkeypatch.setitem(_handles._handles, DEVICE, 1)
    real_check = calls.check_tensor

    def check_tensor(name, argument, x):  # the real checks but the device's
        if isinstance(x, torch.Tensor) and not x.is_cuda and x.dtype in calls._dtypes:
            return
        real_check(name, argument, x)

    monkeypatch.setattr(calls, "check_tensor", check_tensor)
    for cache in _handles.choice_caches:  # plans of the fake library stay with it
        cache.clear()
    yield fake
    for cache in _handles.choice_caches:
        cache.clear()


def rand(*shape, dtype=torch.float32, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


def as_bytes(t):
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


@pytest.mark.parametrize("dtype, precision", [(torch.bfloat16, BF16), (torch.float16, FP16)])
def test_16_bit_mm_and_bmm_write_a_16_bit_c(library, dtype, precision):
    a, b = rand(5, 7, dtype=dtype), rand(3, 7, dtype=dtype).t()
    c = calls.mm(a, b)
    assert c.dtype == dtype and c.shape == (5, 3)
    function, run_precision, c_type, problem, pc, _ = library.runs[-1]
    assert (function, run_precision, c_type) == ("gemmtune_run_gemm_problem_ex", precision, C_OPERAND_TYPE)
    assert pc == c.data_ptr()  # the result is the library's C itself: no FP32 buffer, no cast
    assert (problem.op_b, problem.ldc, problem.beta) == (L.OP_T, 3, 0.0)
    assert library.chosen == [(precision, C_OPERAND_TYPE)]  # torch's call or ours: asked for the c16 problem
    batched = calls.bmm(rand(4, 5, 7, dtype=dtype), rand(7, 3, dtype=dtype).expand(4, 7, 3))
    assert batched.dtype == dtype and batched.shape == (4, 5, 3)
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem_ex", precision, C_OPERAND_TYPE)
    assert library.runs[-1][4] == batched.data_ptr()
    assert library.chosen[-1] == (precision, C_OPERAND_TYPE)


def test_fp32_results_keep_the_fp32_c_calls(library):
    a, b = rand(5, 7), rand(7, 3)
    c = calls.mm(a, b)
    assert c.dtype == torch.float32
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem", FP32, C_FP32) and library.runs[-1][4] == c.data_ptr()
    c = calls.mm(a.bfloat16(), b.bfloat16(), out_dtype=torch.float32)  # the FP32-C problem
    assert c.dtype == torch.float32
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem", BF16, C_FP32) and library.runs[-1][4] == c.data_ptr()
    assert library.chosen == [(FP32, C_FP32)]  # asked once, for the float32 product; a kernel: the library


def test_float32_products_given_to_cublas_run_torchs_call(library, monkeypatch):
    """cuBLAS's default call chosen for a float32 product in FP32: torch's mm, bmm and addmm make it (no
    library call); a cuBLASLt algorithm, TF32 allowed in torch, or another precision asked for: the
    library; while recording, the library."""
    library.implementation = "cublas"
    a, b = rand(5, 7), rand(7, 3)
    assert torch.equal(calls.mm(a, b), torch.mm(a, b))
    assert torch.equal(calls.bmm(a[None], b[None]), torch.bmm(a[None], b[None]))
    c = rand(5, 3, seed=4)
    assert torch.equal(calls.addmm(c, a, b, beta=0.5, alpha=2.0), torch.addmm(c, a, b, beta=0.5, alpha=2.0))
    assert library.runs == [] and library.chosen == [(FP32, C_FP32)] * 3
    calls.mm(a, b, precision="3xtf32")
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem", TF32X3, C_FP32)
    library.implementation = "cublaslt"
    calls.mm(a.t().contiguous().t(), b)  # another plan (strides), cuBLASLt chosen
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem", FP32, C_FP32)
    library.implementation = "cublas"
    monkeypatch.setattr(calls, "_tf32_allowed", lambda: True)  # torch would compute in TF32
    calls.mm(a, b, precision="fp32")
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem", FP32, C_FP32)
    monkeypatch.setattr(calls, "_tf32_allowed", lambda: False)
    monkeypatch.setattr(_handles, "recording", 1)
    c = calls.mm(a, b)
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem", FP32, C_FP32) and library.runs[-1][4] == c.data_ptr()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_16_bit_products_given_to_cublas_run_torchs_call_but_while_recording(library, dtype, monkeypatch):
    library.implementation = "cublas"
    a, b = rand(5, 7, dtype=dtype), rand(7, 3, dtype=dtype)
    assert torch.equal(calls.mm(a, b), torch.mm(a, b))
    assert library.runs == [] and library.chosen == [(BF16 if dtype is torch.bfloat16 else FP16, C_OPERAND_TYPE)]
    library.implementation = "cublaslt"
    bias = rand(3, dtype=dtype, seed=1)
    assert torch.equal(calls.addmm(bias, a, b, beta=0.5), torch.addmm(bias, a, b, beta=0.5))
    assert library.runs == [] and library.chosen[-1][1] == C_OPERAND_TYPE
    monkeypatch.setattr(_handles, "recording", 1)  # every call reaches the library, which records its key
    c = calls.mm(a, b)
    assert c.dtype == dtype and library.runs[-1][2] == C_OPERAND_TYPE and library.runs[-1][4] == c.data_ptr()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_addmm_reads_a_16_bit_c_as_16_bit_and_keeps_a_float32_c_whole(library, dtype):
    a, b = rand(5, 7, dtype=dtype), rand(7, 3, dtype=dtype)
    bias = rand(3, dtype=dtype, seed=2)
    out = calls.addmm(bias, a, b, beta=0.5, alpha=2.0)
    function, _, c_type, problem, pc, c_before = library.runs[-1]
    assert (function, c_type, out.dtype, pc) == ("gemmtune_run_gemm_problem_ex", C_OPERAND_TYPE, dtype,
                                                  out.data_ptr())
    assert (problem.alpha, problem.beta) == (2.0, 0.5)
    assert c_before == as_bytes(bias.expand(5, 3).contiguous())  # C starts as c, exactly, in 16 bits
    fine = rand(3, seed=3)  # float32: rounding it to 16 bits before beta * c would lose its low bits
    out = calls.addmm(fine, a, b, beta=0.5)
    function, _, c_type, problem, pc, c_before = library.runs[-1]
    assert (function, c_type, out.dtype) == ("gemmtune_run_gemm_problem", C_FP32, dtype)
    assert c_before == as_bytes(fine.expand(5, 3).contiguous())  # an FP32 C holding c whole, then one rounding
    out = calls.addmm(fine, a, b, beta=0.0)  # c is not read: the c16 problem
    assert out.dtype == dtype and library.runs[-1][2] == C_OPERAND_TYPE


def test_addmm_without_a_product_rounds_once(library):
    c = rand(5, 3, dtype=torch.bfloat16, seed=4)
    a, b = rand(5, 0, dtype=torch.bfloat16), rand(0, 3, dtype=torch.bfloat16)
    out = calls.addmm(c, a, b, beta=0.3)
    assert out.dtype == torch.bfloat16 and library.runs == []
    assert torch.equal(out, (c.float() * 0.3).bfloat16())


@pytest.mark.parametrize("dtype, precision", [(torch.bfloat16, BF16), (torch.float16, FP16)])
def test_16_bit_linear_writes_a_16_bit_c_and_gives_the_library_its_bias(library, dtype, precision):
    """The bias row goes to the library (its kernels add it as they store C): beta 0, no copy into C.
    A bias of stride 2 is made contiguous first; a bias of another shape is copied into C (beta 1)."""
    x, weight, bias = rand(2, 5, 7, dtype=dtype), rand(3, 7, dtype=dtype, seed=1), rand(3, dtype=dtype, seed=2)
    y = calls.linear(x, weight, bias)
    assert y.dtype == dtype and y.shape == (2, 5, 3)
    function, run_precision, c_type, problem, pc, _ = library.runs[-1]
    assert (function, run_precision, c_type) == ("gemmtune_run_gemm_problem_bias", precision, C_OPERAND_TYPE)
    assert pc == y.data_ptr() and (problem.op_b, problem.beta) == (L.OP_T, 0.0)
    assert library.biases == [bias.data_ptr()]
    strided = rand(6, dtype=dtype, seed=3)[::2]
    calls.linear(x, weight, strided)
    assert library.runs[-1][0] == "gemmtune_run_gemm_problem_bias" and library.biases[-1] != strided.data_ptr()
    square = rand(10, 3, dtype=dtype, seed=4)  # one value per element: C starts as it
    calls.linear(x, weight, square)
    function, _, _, problem, _, c_before = library.runs[-1]
    assert (function, problem.beta) == ("gemmtune_run_gemm_problem_ex", 1.0)
    assert c_before == as_bytes(square)
    assert library.chosen[0] == (precision, C_OPERAND_TYPE)
    plan = next(iter(calls._linear_plans.values()))
    assert (plan.c_type, plan.c_dtype, plan.torch_route) == (C_OPERAND_TYPE, dtype, 0)


def test_16_bit_linear_given_to_cublas_is_torchs_linear(library, monkeypatch):
    library.implementation = "cublaslt"
    monkeypatch.setitem(calls._sm_counts, DEVICE, 132)
    x, weight, bias = rand(5, 7, dtype=torch.bfloat16), rand(3, 7, dtype=torch.bfloat16), rand(3, dtype=torch.bfloat16)
    assert torch.equal(calls.linear(x, weight, bias), torch.nn.functional.linear(x, weight, bias))
    assert library.runs == [] and library.chosen == [(BF16, C_OPERAND_TYPE)]
    plan = next(iter(calls._linear_plans.values()))
    assert plan.torch_route == calls.TORCH_LINEAR


def test_float32_linear_keeps_the_fp32_c_calls(library):
    x, weight, bias = rand(5, 7), rand(3, 7, seed=1), rand(3, seed=2)
    y = calls.linear(x, weight, bias)
    assert y.dtype == torch.float32
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem_bias", FP32, C_FP32)
    assert library.runs[-1][4] == y.data_ptr() and library.biases == [bias.data_ptr()]
    calls.linear(x, weight)
    assert library.runs[-1][:3] == ("gemmtune_run_gemm_problem", FP32, C_FP32)
    assert library.chosen == [(FP32, C_FP32)]


def test_explain_asks_for_the_problem_the_call_makes(library):
    a, b = rand(5, 7, dtype=torch.bfloat16), rand(7, 3, dtype=torch.bfloat16)
    assert gemmtune.explain(a, b).config == library.implementation
    assert gemmtune.explain(a, b, out_dtype=torch.float32).implementation == "tuned_kernel"
    gemmtune.explain(rand(5, 7), rand(7, 3))
    assert library.chosen == [(BF16, C_OPERAND_TYPE), (BF16, C_FP32), (FP32, C_FP32)]


def test_repeated_mm_and_bmm_take_the_direct_path(library, monkeypatch):
    """gemmtune.mm and bmm of plain tensors with no precision asked: the first call is checked and
    planned, a repeated one finds what runs it by one key (no checks, no choice) and runs the same."""
    calls.direct_runs.clear()
    a, b = rand(5, 7), rand(3, 7).t()
    calls.mm(a, b)  # as the op's kernel calls it: planned, not kept for the direct call
    assert not calls.direct_runs
    first = gemmtune.mm(a, b)
    assert len(library.chosen) == 1 and len(calls.direct_runs) == 1  # the general path's plan, cached
    gemmtune.bmm(a[None], b[None])
    assert len(library.chosen) == 2 and len(calls.direct_runs) == 2

    def refuse(*arguments, **keywords):
        raise AssertionError("the general path ran for a planned call")

    monkeypatch.setattr(calls, "_plan", refuse)
    again = gemmtune.mm(rand(5, 7, seed=1), rand(3, 7, seed=2).t())
    assert library.runs[-1][4] == again.data_ptr() and library.runs[-1][3].op_b == L.OP_T
    assert len(library.chosen) == 2 and again.shape == first.shape
    batched = gemmtune.bmm(rand(5, 7, seed=1)[None], rand(3, 7, seed=2).t()[None])  # bmm's own inline key
    assert library.runs[-1][4] == batched.data_ptr() and batched.shape == (1, 5, 3)
    with pytest.raises(AssertionError):  # another stride, dtype or precision asked: the general path
        gemmtune.mm(a, b.contiguous())
    with pytest.raises(AssertionError):
        gemmtune.mm(a, b, precision="fp32")
    with pytest.raises(AssertionError):
        gemmtune.bmm(a[None].expand(2, 5, 7), b[None].expand(2, 7, 3))

    def legacy_tf32_getter():
        raise RuntimeError("as torch's legacy TF32 getter refuses once its newer setting was used")

    monkeypatch.setattr(gemmtune, "_legacy_tf32_allowed", legacy_tf32_getter)
    monkeypatch.setattr(calls, "_tf32_allowed", lambda: False)  # what the newer setting says
    runs = len(library.runs)
    gemmtune.mm(rand(5, 7, seed=3), rand(3, 7, seed=4).t())  # found by direct_run: still no general path
    assert len(library.chosen) == 2 and len(library.runs) == runs + 1
    calls.direct_runs.clear()


def test_the_direct_path_leaves_autograd_subclasses_bad_arguments_and_recording_to_the_general_one(library):
    calls.direct_runs.clear()
    a, b = rand(5, 7), rand(7, 3)
    gemmtune.mm(a, b)
    key = next(iter(calls.direct_runs))
    assert calls.direct_run(calls.plan_mm, a, b) is not None
    assert calls.direct_run(calls.plan_mm, a.requires_grad_(), b) is None  # autograd records it
    with torch.no_grad():
        assert calls.direct_run(calls.plan_mm, a, b) is not None  # nothing to record
    a.requires_grad_(False)

    class Sub(torch.Tensor):
        pass

    assert calls.direct_run(calls.plan_mm, a.as_subclass(Sub), b) is None  # the op serves subclasses
    assert calls.direct_run(calls.plan_mm, a, [[1.0]]) is None
    with pytest.raises(TypeError, match="argument 'b'"):
        gemmtune.mm(a, [[1.0]])
    assert set(calls.direct_runs) == {key}
    assert any(cache is calls.direct_runs for cache in _handles.choice_caches)  # reload() empties it
    _handles.start_recording()  # a recorded call must reach the library: nothing bypasses it
    try:
        assert not calls.direct_runs
        gemmtune.mm(a, b)
        assert not calls.direct_runs
    finally:
        _handles.stop_recording()
    assert _handles.recording == 0
    gemmtune.mm(a, b)
    assert set(calls.direct_runs) == {key}
    calls.direct_runs.clear()
