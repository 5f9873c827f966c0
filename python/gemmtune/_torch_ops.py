"""The torch.library ops: torch.ops.gemmtune.mm, bmm, addmm and linear, each with a CUDA kernel (the
eager path of _torch_calls), a CPU reference kernel (torch's own, so schema, fake kernel, autograd
and compilation are checked on machines without a GPU), a fake kernel for tracing and an autograd
formula built from the same ops (a transpose is a view that becomes op T, never a copy).
Ops are defined with torch.library.Library rather than torch.library.custom_op: the dispatcher's
cost per call is lower, which matters at small shapes. The CUDA kernels copy operands whose strides
the C API cannot express, as a compiler may hand an op any strides; the public functions (gemmtune.mm)
raise for them instead.
"""

from __future__ import annotations

import torch

from . import _torch_calls as calls

_lib = torch.library.Library("gemmtune", "DEF")
_lib.define("mm(Tensor a, Tensor b) -> Tensor")
_lib.define("bmm(Tensor a, Tensor b) -> Tensor")
_lib.define("addmm(Tensor c, Tensor a, Tensor b, float beta=1, float alpha=1) -> Tensor")
_lib.define("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")


def _with_copies(function, name, *tensors, **kwargs):
    try:
        return function(*tensors, name=name, **kwargs)
    except ValueError:
        copies = [t.contiguous() if isinstance(t, torch.Tensor) else t for t in tensors]
        if all(c is t for c, t in zip(copies, tensors)):
            raise
        return function(*copies, name=name, **kwargs)


def _mm_cuda(a, b):
    return _with_copies(calls.mm, "torch.ops.gemmtune.mm", a, b)


def _bmm_cuda(a, b):
    return _with_copies(calls.bmm, "torch.ops.gemmtune.bmm", a, b)


def _addmm_cuda(c, a, b, beta=1.0, alpha=1.0):
    return _with_copies(calls.addmm, "torch.ops.gemmtune.addmm", c, a, b, beta=beta, alpha=alpha)


def _linear_cuda(x, weight, bias=None):
    return calls.linear(x, weight, bias, name="torch.ops.gemmtune.linear")


def _float32_only(name, **tensors):
    for argument, t in tensors.items():
        if t is not None and t.dtype != torch.float32:
            raise TypeError(f"{name}: argument '{argument}' is {t.dtype}; gemmtune supports torch.float32")


# CPU: torch's own kernels as the reference, with the CUDA kernels' dtype rule.
def _mm_cpu(a, b):
    _float32_only("torch.ops.gemmtune.mm", a=a, b=b)
    return torch.mm(a, b)


def _bmm_cpu(a, b):
    _float32_only("torch.ops.gemmtune.bmm", a=a, b=b)
    return torch.bmm(a, b)


def _addmm_cpu(c, a, b, beta=1.0, alpha=1.0):
    _float32_only("torch.ops.gemmtune.addmm", c=c, a=a, b=b)
    return torch.addmm(c, a, b, beta=beta, alpha=alpha)


def _linear_cpu(x, weight, bias=None):
    _float32_only("torch.ops.gemmtune.linear", input=x, weight=weight, bias=bias)
    return torch.nn.functional.linear(x, weight, bias)


for _name, _cuda, _cpu in (("mm", _mm_cuda, _mm_cpu), ("bmm", _bmm_cuda, _bmm_cpu),
                           ("addmm", _addmm_cuda, _addmm_cpu), ("linear", _linear_cuda, _linear_cpu)):
    _lib.impl(_name, _cuda, "CUDA")
    _lib.impl(_name, _cpu, "CPU")


def _check_float32(*tensors):
    for t in tensors:
        if t is not None:
            torch._check(t.dtype == torch.float32, lambda: f"gemmtune supports torch.float32, got {t.dtype}")


@torch.library.register_fake("gemmtune::mm")
def _mm_fake(a, b):
    _check_float32(a, b)
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "gemmtune.mm: a and b must be 2-D")
    torch._check(a.shape[1] == b.shape[0], lambda: f"gemmtune.mm: {a.shape} @ {b.shape}")
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.register_fake("gemmtune::bmm")
def _bmm_fake(a, b):
    _check_float32(a, b)
    torch._check(a.dim() == 3 and b.dim() == 3, lambda: "gemmtune.bmm: a and b must be 3-D")
    torch._check(a.shape[0] == b.shape[0], lambda: f"gemmtune.bmm: batch {a.shape[0]} != {b.shape[0]}")
    torch._check(a.shape[2] == b.shape[1], lambda: f"gemmtune.bmm: {a.shape} @ {b.shape}")
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


@torch.library.register_fake("gemmtune::addmm")
def _addmm_fake(c, a, b, beta=1.0, alpha=1.0):
    _check_float32(c, a, b)
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "gemmtune.addmm: a and b must be 2-D")
    torch._check(a.shape[1] == b.shape[0], lambda: f"gemmtune.addmm: {a.shape} @ {b.shape}")
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.register_fake("gemmtune::linear")
def _linear_fake(x, weight, bias=None):
    _check_float32(x, weight, bias)
    torch._check(weight.dim() == 2, lambda: "gemmtune.linear: weight must be 2-D")
    torch._check(x.dim() >= 1 and x.shape[-1] == weight.shape[1],
                 lambda: f"gemmtune.linear: input {x.shape}, weight {weight.shape}")
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


# Autograd: the gradients of a product are products with one operand transposed (a view: op T).
def _save_inputs(ctx, inputs, output):
    ctx.save_for_backward(*inputs[:2])


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = torch.ops.gemmtune.mm(grad, b.t()) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.gemmtune.mm(a.t(), grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = torch.ops.gemmtune.bmm(grad, b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.gemmtune.bmm(a.transpose(1, 2), grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


def _addmm_setup(ctx, inputs, output):
    c, a, b = inputs[:3]
    ctx.inputs = len(inputs)  # the defaults may be left out: one gradient per input given
    ctx.save_for_backward(a, b)
    ctx.c_shape = c.shape
    ctx.beta = inputs[3] if len(inputs) > 3 else 1.0
    ctx.alpha = inputs[4] if len(inputs) > 4 else 1.0


def _addmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_c = (grad * ctx.beta).sum_to_size(ctx.c_shape) if ctx.needs_input_grad[0] else None
    grad_a = torch.ops.gemmtune.mm(grad, b.t()) * ctx.alpha if ctx.needs_input_grad[1] else None
    grad_b = torch.ops.gemmtune.mm(a.t(), grad) * ctx.alpha if ctx.needs_input_grad[2] else None
    return (grad_c, grad_a, grad_b, None, None)[:ctx.inputs]


def _linear_setup(ctx, inputs, output):
    x, weight = inputs[:2]
    ctx.inputs = len(inputs)  # bias may be left out
    ctx.save_for_backward(x, weight)


def _linear_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    rows = grad.reshape(-1, grad.shape[-1])
    grad_x = torch.ops.gemmtune.mm(rows, weight).reshape(x.shape) if ctx.needs_input_grad[0] else None
    grad_w = (torch.ops.gemmtune.mm(rows.t(), x.reshape(-1, x.shape[-1]))
              if ctx.needs_input_grad[1] else None)
    grad_bias = rows.sum(0) if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2] else None
    return (grad_x, grad_w, grad_bias)[:ctx.inputs]


torch.library.register_autograd("gemmtune::mm", _mm_backward, setup_context=_save_inputs)
torch.library.register_autograd("gemmtune::bmm", _bmm_backward, setup_context=_save_inputs)
torch.library.register_autograd("gemmtune::addmm", _addmm_backward, setup_context=_addmm_setup)
torch.library.register_autograd("gemmtune::linear", _linear_backward, setup_context=_linear_setup)
