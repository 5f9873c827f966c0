"""torch.ops.gemmtune without a GPU: schemas, fake kernels, autograd and compilation with no graph
break, through the ops' CPU reference kernels (torch's own). Skipped where torch cannot be imported."""

import pytest

torch = pytest.importorskip("torch")

import gemmtune  # noqa: E402


def test_schemas():
    keywords = "*, str? precision=None, ScalarType? out_dtype=None"
    assert str(torch.ops.gemmtune.mm.default._schema) == f"gemmtune::mm(Tensor a, Tensor b, {keywords}) -> Tensor"
    assert str(torch.ops.gemmtune.bmm.default._schema) == f"gemmtune::bmm(Tensor a, Tensor b, {keywords}) -> Tensor"
    addmm = str(torch.ops.gemmtune.addmm.default._schema)
    assert "Tensor b, float beta=1" in addmm and addmm.endswith(f"{keywords}) -> Tensor")
    assert "Tensor? bias=None, *, str? precision=None)" in str(torch.ops.gemmtune.linear.default._schema)


def _cases():
    g = torch.Generator().manual_seed(0)

    def r(*shape):
        return torch.randn(*shape, generator=g, requires_grad=True)

    return [
        (torch.ops.gemmtune.mm.default, (r(5, 7), r(7, 3))),
        (torch.ops.gemmtune.mm.default, (r(7, 5).t(), r(3, 7).t())),
        (torch.ops.gemmtune.bmm.default, (r(2, 5, 7), r(2, 7, 3))),
        (torch.ops.gemmtune.addmm.default, (r(3), r(5, 7), r(7, 3), 0.5, 2.0)),
        (torch.ops.gemmtune.linear.default, (r(2, 5, 7), r(3, 7), r(3))),
        (torch.ops.gemmtune.linear.default, (r(5, 7), r(3, 7), None)),
    ]


@pytest.mark.parametrize("case", range(6))
def test_opcheck(case):
    op, args = _cases()[case]
    torch.library.opcheck(op, args)


def _cases_16_bit(dtype):
    g = torch.Generator().manual_seed(2)

    def r(*shape):
        return torch.randn(*shape, generator=g).to(dtype).requires_grad_()

    return [
        (torch.ops.gemmtune.mm.default, (r(5, 7), r(7, 3)), {}),
        (torch.ops.gemmtune.mm.default, (r(7, 5).t(), r(3, 7).t()), {"out_dtype": torch.float32}),
        (torch.ops.gemmtune.bmm.default, (r(2, 5, 7), r(2, 7, 3)), {"precision": "bf16" if dtype is torch.bfloat16
                                                                    else "fp16"}),
        (torch.ops.gemmtune.addmm.default, (r(3), r(5, 7), r(7, 3), 0.5, 2.0), {}),
        (torch.ops.gemmtune.addmm.default, (r(3).float().detach().requires_grad_(), r(5, 7), r(7, 3)),
         {"out_dtype": torch.float32}),
        (torch.ops.gemmtune.linear.default, (r(2, 5, 7), r(3, 7), r(3)), {}),
    ]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("case", range(6))
def test_opcheck_16_bit(dtype, case):
    op, args, kwargs = _cases_16_bit(dtype)[case]
    out = op(*args, **kwargs)
    assert out.dtype == kwargs.get("out_dtype", dtype)
    torch.library.opcheck(op, args, kwargs)


def test_opcheck_float32_precisions():
    g = torch.Generator().manual_seed(3)
    a = torch.randn(5, 7, generator=g, requires_grad=True)
    b = torch.randn(7, 3, generator=g, requires_grad=True)
    for precision in ("fp32", "tf32", "3xtf32"):
        torch.library.opcheck(torch.ops.gemmtune.mm.default, (a, b), {"precision": precision})
    torch.library.opcheck(torch.ops.gemmtune.linear.default, (a, b.t(), None), {"precision": "3xtf32"})


def test_wrong_dtypes_name_the_argument():
    f32, bf16, f16 = torch.randn(4, 4), torch.randn(4, 4).bfloat16(), torch.randn(4, 4).half()
    mm = torch.ops.gemmtune.mm
    with pytest.raises(TypeError, match="argument 'b' is torch.float16 but argument 'a' is torch.bfloat16"):
        mm(bf16, f16)
    with pytest.raises(TypeError, match="argument 'a' is torch.float64"):
        mm(f32.double(), f32)
    with pytest.raises(TypeError, match="argument 'precision' is 'bf16' but the operands are torch.float32"):
        mm(f32, f32, precision="bf16")
    with pytest.raises(TypeError, match="argument 'precision' is '3xtf32' but the operands are torch.bfloat16"):
        mm(bf16, bf16, precision="3xtf32")
    with pytest.raises(ValueError, match="argument 'precision' is 'fp64'"):
        mm(f32, f32, precision="fp64")
    with pytest.raises(TypeError, match="argument 'out_dtype' is torch.float16"):
        mm(bf16, bf16, out_dtype=torch.float16)
    with pytest.raises(TypeError, match="argument 'c' is torch.float16"):
        torch.ops.gemmtune.addmm(f16[0], bf16, bf16)
    with pytest.raises(TypeError, match="argument 'bias' is torch.float32 but argument 'input' is torch.bfloat16"):
        torch.ops.gemmtune.linear(bf16, bf16, f32[0])
    with pytest.raises(TypeError, match="argument 'weight'"):
        torch.ops.gemmtune.linear(bf16, f16, None)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():  # the fake kernels apply the same rules while tracing
        with pytest.raises(TypeError, match="argument 'b'"):
            mm(torch.empty(4, 4, dtype=torch.bfloat16), torch.empty(4, 4, dtype=torch.float16))
        assert mm(torch.empty(4, 4, dtype=torch.bfloat16), torch.empty(4, 2, dtype=torch.bfloat16)).dtype == \
            torch.bfloat16
        assert mm(torch.empty(4, 4, dtype=torch.float16), torch.empty(4, 2, dtype=torch.float16),
                  out_dtype=torch.float32).dtype == torch.float32


def test_16_bit_gradients_have_their_inputs_dtype():
    g = torch.Generator().manual_seed(4)
    x = torch.randn(6, 8, generator=g).bfloat16().requires_grad_()
    w = torch.randn(4, 8, generator=g).bfloat16().requires_grad_()
    b = torch.randn(4, generator=g).bfloat16().requires_grad_()
    torch.ops.gemmtune.linear(x, w, b).float().pow(2).sum().backward()
    assert (x.grad.dtype, w.grad.dtype, b.grad.dtype) == (torch.bfloat16,) * 3
    ours = [t.grad.float() for t in (x, w, b)]
    for t in (x, w, b):
        t.grad = None
    torch.nn.functional.linear(x, w, b).float().pow(2).sum().backward()
    for o, t in zip(ours, (x.grad, w.grad, b.grad)):
        torch.testing.assert_close(o, t.float(), rtol=2e-2, atol=2e-2)
    a = torch.randn(5, 7, generator=g).half().requires_grad_()
    c = torch.randn(7, 3, generator=g).half().requires_grad_()
    torch.ops.gemmtune.mm(a, c, out_dtype=torch.float32).sum().backward()  # an FP32 gradient flows back
    assert a.grad.dtype == torch.float16 and c.grad.dtype == torch.float16


def test_fake_kernels_give_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a, b = torch.empty(64, 32), torch.empty(32, 16)
        assert torch.ops.gemmtune.mm(a, b).shape == (64, 16)
        assert torch.ops.gemmtune.bmm(torch.empty(3, 4, 5), torch.empty(3, 5, 6)).shape == (3, 4, 6)
        assert torch.ops.gemmtune.linear(torch.empty(2, 9, 32), torch.empty(16, 32), None).shape == (2, 9, 16)
        with pytest.raises(Exception):
            torch.ops.gemmtune.mm(a, a)


def test_gradients_equal_torchs():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(6, 8, generator=g, requires_grad=True)
    w = torch.randn(4, 8, generator=g, requires_grad=True)
    b = torch.randn(4, generator=g, requires_grad=True)
    torch.ops.gemmtune.linear(x, w, b).pow(2).sum().backward()
    grads = [t.grad.clone() for t in (x, w, b)]
    for t in (x, w, b):
        t.grad = None
    torch.nn.functional.linear(x, w, b).pow(2).sum().backward()
    for ours, theirs in zip(grads, (x.grad, w.grad, b.grad)):
        torch.testing.assert_close(ours, theirs)


class _Model(torch.nn.Module):
    """Uses every op, as a model compiled with the CUDA kernels would."""

    def __init__(self):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(32, 16))
        self.b1 = torch.nn.Parameter(torch.randn(32))
        self.w2 = torch.nn.Parameter(torch.randn(16, 32))

    def forward(self, x):
        h = torch.relu(torch.ops.gemmtune.linear(x, self.w1, self.b1))
        y = torch.ops.gemmtune.mm(h, self.w2.t())
        y = torch.ops.gemmtune.addmm(y, h, self.w2.t(), 0.5, 0.5)
        return torch.ops.gemmtune.bmm(y.unsqueeze(0), y.t().unsqueeze(0)).squeeze(0)


def test_compiles_16_bit_with_no_graph_break():
    torch._dynamo.reset()
    model = _Model().bfloat16()
    compiled = torch.compile(model, fullgraph=True, dynamic=True, backend="aot_eager")
    x = torch.randn(9, 16).bfloat16()
    out = compiled(x)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, model(x))

    def f(a, b):
        return torch.ops.gemmtune.mm(a, b, precision="3xtf32") + torch.ops.gemmtune.mm(a.bfloat16(), b.bfloat16(),
                                                                                      out_dtype=torch.float32)
    explanation = torch._dynamo.explain(f)(torch.randn(4, 8), torch.randn(8, 3))
    assert explanation.graph_break_count == 0


def test_compiles_with_no_graph_break():
    torch._dynamo.reset()
    model = _Model()
    compiled = torch.compile(model, fullgraph=True, dynamic=True, backend="aot_eager")
    for rows in (5, 9, 17):  # dynamic: one graph for every row count
        x = torch.randn(rows, 16, requires_grad=True)
        out = compiled(x)
        torch.testing.assert_close(out, model(x))
        out.sum().backward()
    explanation = torch._dynamo.explain(model)(torch.randn(4, 16))
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1


def test_public_functions_refuse_cpu_tensors():
    a = torch.randn(4, 4)
    with pytest.raises(ValueError, match="argument 'a' is on cpu"):
        gemmtune.mm(a, a)
    with pytest.raises(ValueError, match="argument 'a' is on cpu"):
        gemmtune.bmm(a[None], a[None])
    with pytest.raises(TypeError, match="argument 'a' must be a torch.Tensor|neither a torch.Tensor"):
        gemmtune.mm([[1.0]], a)


def test_precision_names():
    assert gemmtune.PRECISIONS == ("fp32", "3xtf32", "tf32", "bf16", "fp16")


def test_linear_keeps_its_precision():
    layer = gemmtune.nn.Linear(8, 4, precision="3xtf32")
    assert layer.precision == "3xtf32" and "precision='3xtf32'" in repr(layer)
    model = gemmtune.nn.replace_linear(torch.nn.Sequential(torch.nn.Linear(8, 4)), precision="tf32")
    assert model[0].precision == "tf32"
    x = torch.randn(3, 8)  # CPU: torch's linear
    torch.testing.assert_close(layer(x), torch.nn.functional.linear(x, layer.weight, layer.bias))


def test_linear_falls_back_to_torch_off_gpu():
    torch.manual_seed(0)
    ours = gemmtune.nn.Linear(8, 4)
    theirs = torch.nn.Linear(8, 4)
    theirs.load_state_dict(ours.state_dict())
    x = torch.randn(3, 8)
    torch.testing.assert_close(ours(x), theirs(x))
    model = gemmtune.nn.replace_linear(torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU()))
    assert type(model[0]) is gemmtune.nn.Linear


def test_linear_computes_weights_that_are_not_plain_parameters():
    """The layer reads its parameters from _parameters (cheaper than the attribute), but a weight or
    bias that a parametrization or weight_norm's hook computes is read as the attribute computes it."""
    import warnings

    from torch.nn.utils import parametrizations, parametrize

    class Doubled(torch.nn.Module):
        def forward(self, w):
            return 2 * w

    changes = {"weight parametrized": lambda m: parametrize.register_parametrization(m, "weight", Doubled()),
               "bias parametrized": lambda m: parametrize.register_parametrization(m, "bias", Doubled()),
               "weight_norm": parametrizations.weight_norm, "weight_norm, the hook": torch.nn.utils.weight_norm}
    x = torch.randn(3, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # torch.nn.utils.weight_norm is deprecated
        for name, change in changes.items():
            torch.manual_seed(0)
            theirs = change(torch.nn.Linear(8, 4))
            torch.manual_seed(0)
            ours = change(gemmtune.nn.Linear(8, 4))  # the same initial parameters
            torch.testing.assert_close(ours(x), theirs(x), msg=name)


def test_tf32_setting_is_read_through_either_api():
    """torch's legacy allow_tf32 and the fp32_precision API (torch >= 2.9, whose use makes the legacy
    getters raise) both decide what a float32 call with precision=None runs. In a subprocess: the
    settings are process-wide."""
    import os
    import subprocess
    import sys
    code = ("import torch, gemmtune\nfrom gemmtune import _torch_calls as c\nassert not c._tf32_allowed()\n"
            "torch.backends.cuda.matmul.allow_tf32 = True\nassert c._tf32_allowed()\n"
            "torch.backends.cuda.matmul.allow_tf32 = False\n"
            "if hasattr(torch.backends.cuda.matmul, 'fp32_precision'):\n"
            "    torch.backends.cuda.matmul.fp32_precision = 'tf32'\n    assert c._tf32_allowed()\n"
            "    torch.backends.cuda.matmul.fp32_precision = 'ieee'\n    assert not c._tf32_allowed()\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    assert result.returncode == 0, result.stderr


def test_linear_route_to_torch():
    """Where the library gives a layer's product to cuBLAS: torch's linear for 16-bit tensors, with a
    128x128 tile for more than a quarter of the SMs, or a short K, else its addmm over the expanded bias
    (cuBLAS may split K)."""
    from gemmtune._torch_calls import SPLIT_K_FROM, TORCH_ADDMM, TORCH_LINEAR, torch_linear_route
    assert torch_linear_route(64, 64, 64, 132, False) == TORCH_LINEAR
    assert torch_linear_route(64, 1024, 4096, 132, False) == TORCH_ADDMM
    assert torch_linear_route(512, 1024, 4096, 132, False) == TORCH_ADDMM  # 32 tiles
    assert torch_linear_route(64, 1024, 4096, 132, True) == TORCH_LINEAR  # 16-bit: always its linear
    assert torch_linear_route(64, 4096, SPLIT_K_FROM - 1, 132, False) == TORCH_LINEAR
    assert torch_linear_route(64, 4096, SPLIT_K_FROM, 132, False) == TORCH_ADDMM
    assert torch_linear_route(64, 4096, 1024, 132, False) == TORCH_LINEAR  # saves 4 us of GPU, costs more host
    assert torch_linear_route(512, 4096, 4096, 132, False) == TORCH_LINEAR  # 128 tiles
    assert torch_linear_route(512, 4096, 4096, 528, False) == TORCH_ADDMM  # a quarter of 528 SMs
    assert torch_linear_route(4096, 4096, 1024, 132, False) == TORCH_LINEAR


def test_linear_checks_name_the_argument_on_every_call():
    """The layer runs torch's linear for CPU tensors (a drop-in); the functional path raises, naming
    the argument, on every call: a cached plan of one never serves the other."""
    from gemmtune import _torch_calls
    ours = gemmtune.nn.Linear(8, 4)
    x = torch.randn(3, 8)
    with torch.no_grad():
        for _ in range(2):
            torch.testing.assert_close(ours(x), torch.nn.functional.linear(x, ours.weight, ours.bias))
            with pytest.raises(ValueError, match="argument 'input' is on cpu"):
                _torch_calls.linear(x, ours.weight, ours.bias)
            with pytest.raises(TypeError, match="argument 'input' must be a torch.Tensor"):
                _torch_calls.linear([[1.0]], ours.weight)
