"""Host time of gemmtune's Python on the direct paths, with what runs stubbed out (CPU tensors, no
GPU, no library call): gemmtune.mm over a no-op stored as its run, against the no-op called
directly; and gemmtune.nn.Linear's forward over a plan routed to a stubbed torch linear, against
torch.nn.Linear's forward with the same stub. Works with the direct_runs code (session 44) and
with the quick() code before it, so two checkouts compare on one machine. Prints JSON.
Usage: PYTHONPATH=<checkout>/python python3 parts.py [--number 200000]"""
import argparse
import json
import timeit

import torch

import gemmtune
from gemmtune import _torch_calls as calls


def noop(a, b):
    return a


def best_us(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--number", type=int, default=200000)
    opts = parser.parse_args()
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    if hasattr(calls, "direct_runs"):
        calls.direct_runs[calls.direct_key(calls.plan_mm, a, b, calls._tf32_allowed(), False)] = noop
    else:  # quick(): the plan's torch_call runs
        plan = calls._Plan(None, None, 0, 0, None, None, -1, noop)
        calls._quick_plans[(calls.plan_mm, type(a), type(b), a.shape, a.stride(), b.shape, b.stride(), a.dtype,
                            b.dtype, a.get_device(), b.get_device(), calls._tf32_allowed())] = plan
    assert gemmtune.mm(a, b) is a
    report = {"torch": torch.__version__}
    with torch.no_grad():
        report["noop"] = best_us(lambda: noop(a, b), opts.number)
        report["gemmtune.mm"] = best_us(lambda: gemmtune.mm(a, b), opts.number)
        report["torch.mm 64^3 (CPU)"] = best_us(lambda: torch.mm(a, b), opts.number // 10)
        # The layer: both modules' forward with torch's linear stubbed (the plan routes to it).
        theirs = torch.nn.Linear(64, 64)
        ours = gemmtune.nn.Linear.from_linear(theirs)
        stub = lambda x, w, bias=None: x  # noqa: E731
        calls._torch_linear = stub
        torch.nn.functional.linear = stub
        key_plan = calls._LinearPlan(None, None, calls.TORCH_OTHER, False, 0, 0, None, -1)
        try:
            ours(a)
        except Exception:  # noqa: BLE001 - CPU tensors: the plan is then TORCH_OTHER anyway
            pass
        for k in list(calls._linear_plans):
            calls._linear_plans[k] = key_plan
        assert ours(a) is a
        import torch.nn.modules.linear as linear_module
        linear_module.F.linear = stub
        report["torch.nn.Linear forward, linear stubbed"] = best_us(lambda: theirs(a), opts.number)
        report["gemmtune.nn.Linear forward, linear stubbed"] = best_us(lambda: ours(a), opts.number)
    report["gemmtune.mm over the no-op"] = report["gemmtune.mm"] - report["noop"]
    report["gemmtune Linear over torch's"] = (report["gemmtune.nn.Linear forward, linear stubbed"]
                                             - report["torch.nn.Linear forward, linear stubbed"])
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
