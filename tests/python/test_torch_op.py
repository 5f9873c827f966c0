"""torch.ops.gemmtune without a GPU: schemas, fake kernels, autograd and compilation with no graph
break, through the ops' CPU reference kernels (torch's own). Skipped where torch cannot be imported."""

import pytest

torch = pytest.importorskip("torch")

import gemmtune  # noqa: E402


def test_schemas():
    assert str(torch.ops.gemmtune.mm.default._schema) == "gemmtune::mm(Tensor a, Tensor b) -> Tensor"
    assert str(torch.ops.gemmtune.bmm.default._schema) == "gemmtune::bmm(Tensor a, Tensor b) -> Tensor"
    assert "Tensor b, float beta=1" in str(torch.ops.gemmtune.addmm.default._schema)
    assert "Tensor? bias=None" in str(torch.ops.gemmtune.linear.default._schema)


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


def test_linear_falls_back_to_torch_off_gpu():
    torch.manual_seed(0)
    ours = gemmtune.nn.Linear(8, 4)
    theirs = torch.nn.Linear(8, 4)
    theirs.load_state_dict(ours.state_dict())
    x = torch.randn(3, 8)
    torch.testing.assert_close(ours(x), theirs(x))
    model = gemmtune.nn.replace_linear(torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU()))
    assert type(model[0]) is gemmtune.nn.Linear
