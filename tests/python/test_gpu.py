"""The GPU tier: every layout and batch against a float64 reference, bad input, side streams, CUDA
graphs after warm-up, compilation with the CUDA kernels, CuPy arrays, and record -> tune -> reload.
Marked gpu: skipped without a CUDA GPU and torch."""

import os

import pytest

torch = pytest.importorskip("torch")

import gemmtune  # noqa: E402

pytestmark = pytest.mark.gpu
EPS = 2.0**-24


def within_bound(c, a64, b64, k, batched=False):
    """|c - a@b| <= k * eps * (|a| @ |b|) * 4 + tiny, in float64: the K-scaled bound of the project's
    correctness checks (any summation order of k float32 products stays inside it)."""
    mm = torch.bmm if batched else torch.mm
    ref = mm(a64, b64)
    scale = mm(a64.abs(), b64.abs())
    err = (c.double() - ref).abs()
    bound = 4 * max(k, 1) * EPS * scale + 1e-30
    return bool((err <= bound).all()), float((err / (scale + 1e-30)).max())


def rand(*shape, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(*shape, device="cuda", generator=g)


def view(x, transposed):
    """x (rows x cols) stored as given, or stored transposed and seen through .t() (op T)."""
    return x.t().contiguous().t() if transposed else x


@pytest.mark.parametrize("m, n, k", [(64, 64, 64), (127, 129, 65), (1, 300, 17), (300, 1, 17), (512, 512, 512),
                                     (64, 4096, 1024), (33, 7, 1)])
@pytest.mark.parametrize("layout", ["nn", "nt", "tn", "tt"])
def test_mm_every_layout(m, n, k, layout):
    a, b = view(rand(m, k, seed=1), layout[0] == "t"), view(rand(k, n, seed=2), layout[1] == "t")
    c = gemmtune.mm(a, b)
    assert c.shape == (m, n) and c.is_contiguous()
    ok, worst = within_bound(c, a.double(), b.double(), k)
    assert ok, worst


def test_padded_rows_and_slices():
    big = rand(200, 300)
    a = big[10:110, 20:84]        # lda 300
    b = big[:64, 100:250]         # ldb 300
    ok, worst = within_bound(gemmtune.mm(a, b), a.double(), b.double(), 64)
    assert ok, worst


@pytest.mark.parametrize("share", ["none", "a", "b"])
@pytest.mark.parametrize("layout", ["nn", "tt"])
def test_bmm_batches_and_stride_0(share, layout):
    batch, m, n, k = 6, 96, 80, 72
    a = rand(m, k, seed=3).expand(batch, m, k) if share == "a" else rand(batch, m, k, seed=3)
    b = rand(k, n, seed=4).expand(batch, k, n) if share == "b" else rand(batch, k, n, seed=4)
    if layout == "tt":
        a = a.transpose(1, 2).contiguous().transpose(1, 2) if share != "a" else rand(k, m, seed=3).t().expand(batch, m, k)
        b = b.transpose(1, 2).contiguous().transpose(1, 2) if share != "b" else rand(n, k, seed=4).t().expand(batch, k, n)
    assert (a.stride(0) == 0) == (share == "a")
    c = gemmtune.bmm(a, b)
    ok, worst = within_bound(c, a.double(), b.double(), k, batched=True)
    assert ok, worst


def test_addmm_and_linear():
    a, b, bias = rand(70, 50, seed=5), rand(50, 40, seed=6), rand(40, seed=7)
    out = gemmtune.addmm(bias, a, b, beta=0.5, alpha=2.0)
    ref = 0.5 * bias.double() + 2.0 * (a.double() @ b.double())
    assert float((out.double() - ref).abs().max()) < 1e-3
    torch.manual_seed(0)
    ours = gemmtune.nn.Linear(50, 40).cuda()
    theirs = torch.nn.Linear(50, 40).cuda()
    theirs.load_state_dict(ours.state_dict())
    x = rand(3, 7, 50, seed=8)
    with torch.no_grad():
        torch.testing.assert_close(ours(x), theirs(x), rtol=1e-4, atol=1e-4)


def test_bad_input_names_the_argument():
    a = rand(8, 8)
    with pytest.raises(TypeError, match="argument 'b' is torch.float64"):
        gemmtune.mm(a, a.double())
    with pytest.raises(ValueError, match="argument 'b' is on cpu"):
        gemmtune.mm(a, a.cpu())
    with pytest.raises(ValueError, match=r"cannot be multiplied"):
        gemmtune.mm(a, rand(9, 8))
    with pytest.raises(ValueError, match="argument 'a'.*neither contiguous rows nor contiguous columns"):
        gemmtune.mm(rand(8, 16)[:, ::2], a)
    with pytest.raises(ValueError, match="argument 'a' must be 3-D"):
        gemmtune.bmm(a, a)


def test_side_stream_is_used():
    src_a, b = rand(256, 256, seed=9), rand(256, 256, seed=10)
    a = torch.zeros_like(src_a)
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # ~tens of ms: a GEMM on any other stream would read zeros
        a.copy_(src_a)
        c = gemmtune.mm(a, b)
    side.synchronize()
    ok, worst = within_bound(c, src_a.double(), b.double(), 256)
    assert ok, worst


def _mlp(hidden=1024):
    torch.manual_seed(0)
    return torch.nn.Sequential(gemmtune.nn.Linear(512, hidden), torch.nn.ReLU(), gemmtune.nn.Linear(hidden, 512)).cuda()


def test_cuda_graph_replay_after_warmup_equals_eager(tmp_path):
    os.environ["GEMMTUNE_DETERMINISTIC"] = "1"  # atomic split-K would differ in the last bits run to run
    gemmtune.reload()
    try:
        model = _mlp()
        x = rand(64, 512, seed=11)
        record = tmp_path / "calls.jsonl"
        with torch.no_grad():
            with gemmtune.record(record):
                eager = model(x)
            assert gemmtune.warmup(record) == 2
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):  # workspaces for the capture stream, as torch advises
                model(x)
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            static_x = x.clone()
            with torch.cuda.graph(graph, stream=stream):
                static_out = model(static_x)
            graph.replay()
            torch.cuda.synchronize()
            assert torch.equal(static_out, eager)
            static_x.copy_(rand(64, 512, seed=12))
            graph.replay()
            torch.cuda.synchronize()
            assert torch.equal(static_out, model(static_x))
    finally:
        del os.environ["GEMMTUNE_DETERMINISTIC"]
        gemmtune.reload()


def test_opcheck_on_cuda():
    a, b = rand(33, 17, seed=13).requires_grad_(), rand(17, 9, seed=14).requires_grad_()
    torch.library.opcheck(torch.ops.gemmtune.mm.default, (a, b))
    torch.library.opcheck(torch.ops.gemmtune.linear.default, (rand(4, 5, 17).requires_grad_(), b.t().detach().contiguous().requires_grad_(), None))


def test_compiled_training_step_matches_eager():
    torch._dynamo.reset()
    model = _mlp(256)
    compiled = torch.compile(model, fullgraph=True, dynamic=True)
    for rows in (16, 48):
        x = rand(rows, 512, seed=rows)
        out = compiled(x)
        ref = model(x)
        torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-4)
        out.square().mean().backward()
    assert all(p.grad is not None for p in model.parameters())


def test_explain_names_the_shipped_results_for_this_gpu():
    name = torch.cuda.get_device_name()
    e = gemmtune.explain(rand(512, 512), rand(512, 512))
    assert e.implementation in ("tuned_kernel", "cublas") and e.reason
    if "H100 80GB HBM3" in name:
        assert e.source == "exact_shape", e  # the wheel's results are found from the library
    status = gemmtune.status(torch.cuda.current_device())
    assert status is not None and status[0] == "success", status
    t = gemmtune.explain(rand(512, 512).t(), rand(512, 512))
    assert t.reason


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    rng = cupy.random.default_rng(0)
    a = rng.standard_normal((65, 33), dtype=cupy.float32)
    b = rng.standard_normal((65, 47), dtype=cupy.float32)
    c = gemmtune.mm(a.T, b)  # a transposed view: op T
    assert isinstance(c, cupy.ndarray) and c.shape == (33, 47)
    ref = a.T.astype(cupy.float64) @ b.astype(cupy.float64)
    assert float(cupy.abs(c - ref).max()) < 1e-3
    with pytest.raises(TypeError, match="argument 'b'"):
        gemmtune.mm(a.T, b.astype(cupy.float64))
    batch = gemmtune.bmm(cupy.broadcast_to(a.T, (3, 33, 65)), cupy.stack([b] * 3))
    assert float(cupy.abs(batch[2] - ref).max()) < 1e-3


def test_record_tune_reload(tmp_path):
    record = tmp_path / "calls.jsonl"
    a, b = rand(96, 80, seed=15), rand(80, 112, seed=16)
    with gemmtune.record(record):
        gemmtune.mm(a, b)
        gemmtune.mm(a, b)
    assert '"m":96,"n":112,"k":80' in record.read_text().replace(" ", "")
    results = gemmtune.tune(sizes_from=record, results_dir=tmp_path / "results", budget=12, time_budget=60)
    try:
        e = gemmtune.explain(a, b)
        assert e.source == "exact_shape", e
        ok, worst = within_bound(gemmtune.mm(a, b), a.double(), b.double(), 80)
        assert ok, worst
        assert list(results.glob("*.json"))
    finally:
        gemmtune.reload()
    with pytest.raises(ValueError, match="gemmtune.tune"):
        gemmtune.tune(sizes=["0x-1"], results_dir=tmp_path / "r2", reload=False)
