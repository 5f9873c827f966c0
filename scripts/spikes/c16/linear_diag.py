"""Why a bf16 512x512x512 Linear through the library misses the K-scaled bound (session 33): what
runs, the error of each path against float64, and torch's own, element by element at the worst."""
import torch, gemmtune
from gemmtune import _torch_calls
m = n = k = 512
g = torch.Generator(device="cuda").manual_seed(70)
a = torch.randn(m, k, device="cuda", generator=g).bfloat16()
torch.manual_seed(0)
layer = gemmtune.nn.Linear(k, n).cuda().bfloat16()
w, bias = layer.weight.detach(), layer.bias.detach()
print("explain mm nt:", gemmtune.explain(a, w.t()))
with torch.no_grad(), gemmtune.record("/tmp/calls.jsonl"):
    y = layer(a)
    y_mm = gemmtune.mm(a, w.t())
ref = a.double() @ w.double().t() + bias.double()
scale = a.double().abs() @ w.double().abs().t() + bias.double().abs()
bound = (2 * k + 4) * 2.0**-23 * scale + 2.0**-8 * ref.abs() + 1e-30
theirs = torch.nn.functional.linear(a, w, bias)
for name, got in (("gemmtune linear", y), ("gemmtune mm+bias in fp64", y_mm.double() + bias.double()),
                  ("torch linear", theirs)):
    r = (got.double() - ref).abs() / bound
    i = int(r.argmax())
    print(name, "worst/bound", float(r.max()), "at", divmod(i, n), "got", float(got.flatten()[i]),
          "ref", float(ref.flatten()[i]), "bias", float(bias[i % n]))
print("plans", [(p.args.m, p.args.n, p.args.k, p.c_dtype, getattr(p, 'torch_route', None))
                for p in _torch_calls._linear_plans.values() if p.args])
