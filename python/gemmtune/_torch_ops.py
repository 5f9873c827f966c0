"""The torch.library ops: torch.ops.gemmtune.mm, bmm, addmm and linear, each with a CUDA kernel (the
eager path of _torch_calls), a CPU reference kernel (torch's own, so schema, fake kernel, autograd
and compilation are checked on machines without a GPU), a fake kernel for tracing and an autograd
formula built from the same ops (a transpose is a view that becomes op T, never a copy).
Ops are defined with torch.library.Library rather than torch.library.custom_op: the dispatcher's
cost per call is lower, which matters at small shapes. The CUDA kernels copy operands whose strides
the C API cannot express, as a compiler may hand an op any strides; the public functions (gemmtune.mm)
raise for them instead. Every op takes float32, bfloat16 or float16 operands and the keyword-only
precision (None: as torch.mm, see _precision) and, but linear, out_dtype; the fake kernels apply the
same dtype rules, so a wrong combination fails while tracing as it would eagerly. The result has the
operands' dtype (for 16-bit operands the library's C written in it: the c16 problem) or float32 with
out_dtype=torch.float32.
"""

from __future__ import annotations

import torch

from . import _precision
from . import _torch_calls as calls

_lib = torch.library.Library("gemmtune", "DEF")
_lib.define("mm(Tensor a, Tensor b, *, str? precision=None, ScalarType? out_dtype=None) -> Tensor")
_lib.define("bmm(Tensor a, Tensor b, *, str? precision=None, ScalarType? out_dtype=None) -> Tensor")
_lib.define("addmm(Tensor c, Tensor a, Tensor b, float beta=1, float alpha=1, *, str? precision=None, "
            "ScalarType? out_dtype=None) -> Tensor")
_lib.define("linear(Tensor input, Tensor weight, Tensor? bias=None, *, str? precision=None) -> Tensor")


def _with_copies(function, name, *tensors, **kwargs):
    try:
        return function(*tensors, name=name, **kwargs)
    except ValueError:
        copies = [t.contiguous() if isinstance(t, torch.Tensor) else t for t in tensors]
        if all(c is t for c, t in zip(copies, tensors)):
            raise
        return function(*copies, name=name, **kwargs)


def _mm_cuda(a, b, *, precision=None, out_dtype=None):
    return _with_copies(calls.mm, "torch.ops.gemmtune.mm", a, b, precision=precision, out_dtype=out_dtype)


def _bmm_cuda(a, b, *, precision=None, out_dtype=None):
    return _with_copies(calls.bmm, "torch.ops.gemmtune.bmm", a, b, precision=precision, out_dtype=out_dtype)


def _addmm_cuda(c, a, b, beta=1.0, alpha=1.0, *, precision=None, out_dtype=None):
    return _with_copies(calls.addmm, "torch.ops.gemmtune.addmm", c, a, b, beta=beta, alpha=alpha,
                        precision=precision, out_dtype=out_dtype)


def _linear_cuda(x, weight, bias=None, *, precision=None):
    return calls.linear(x, weight, bias, name="torch.ops.gemmtune.linear", precision=precision)


def _result_dtype(name, precision, out_dtype, **tensors):
    """The dtype rules of the CUDA kernels (_precision), for the CPU and fake kernels: the result's
    torch dtype. TypeError or ValueError naming the argument, as the CUDA kernels raise."""
    pairs = [(k, None if t is None else t.dtype) for k, t in tensors.items() if k != "c"]
    operands = _precision.check_operand_dtypes(name, pairs)
    _precision.resolve(name, operands, precision, False)
    result = _precision.output_dtype(name, operands, out_dtype)
    c = tensors.get("c")
    if c is not None and _precision.dtype_name(c.dtype) not in (operands, "float32"):
        raise TypeError(f"{name}: argument 'c' is {c.dtype}; it may be torch.{operands} or torch.float32")
    return getattr(torch, result)


# CPU: torch's own kernels in FP32 as the reference, with the CUDA kernels' dtype rules: FP32 sums
# rounded once to the result's dtype, as the CUDA kernels' library call writes a 16-bit C (a 16-bit
# c or bias read exactly, a float32 c added whole before that rounding).
def _mm_cpu(a, b, *, precision=None, out_dtype=None):
    result = _result_dtype("torch.ops.gemmtune.mm", precision, out_dtype, a=a, b=b)
    return torch.mm(a.float(), b.float()).to(result)


def _bmm_cpu(a, b, *, precision=None, out_dtype=None):
    result = _result_dtype("torch.ops.gemmtune.bmm", precision, out_dtype, a=a, b=b)
    return torch.bmm(a.float(), b.float()).to(result)


def _addmm_cpu(c, a, b, beta=1.0, alpha=1.0, *, precision=None, out_dtype=None):
    result = _result_dtype("torch.ops.gemmtune.addmm", precision, out_dtype, c=c, a=a, b=b)
    return torch.addmm(c.float(), a.float(), b.float(), beta=beta, alpha=alpha).to(result)


def _linear_cpu(x, weight, bias=None, *, precision=None):
    result = _result_dtype("torch.ops.gemmtune.linear", precision, None, input=x, weight=weight, bias=bias)
    return torch.nn.functional.linear(x.float(), weight.float(), None if bias is None else bias.float()).to(result)


for _name, _cuda, _cpu in (("mm", _mm_cuda, _mm_cpu), ("bmm", _bmm_cuda, _bmm_cpu),
                           ("addmm", _addmm_cuda, _addmm_cpu), ("linear", _linear_cuda, _linear_cpu)):
    _lib.impl(_name, _cuda, "CUDA")
    _lib.impl(_name, _cpu, "CPU")


@torch.library.register_fake("gemmtune::mm")
def _mm_fake(a, b, *, precision=None, out_dtype=None):
    result = _result_dtype("gemmtune.mm", precision, out_dtype, a=a, b=b)
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "gemmtune.mm: a and b must be 2-D")
    torch._check(a.shape[1] == b.shape[0], lambda: f"gemmtune.mm: {a.shape} @ {b.shape}")
    return a.new_empty((a.shape[0], b.shape[1]), dtype=result)


@torch.library.register_fake("gemmtune::bmm")
def _bmm_fake(a, b, *, precision=None, out_dtype=None):
    result = _result_dtype("gemmtune.bmm", precision, out_dtype, a=a, b=b)
    torch._check(a.dim() == 3 and b.dim() == 3, lambda: "gemmtune.bmm: a and b must be 3-D")
    torch._check(a.shape[0] == b.shape[0], lambda: f"gemmtune.bmm: batch {a.shape[0]} != {b.shape[0]}")
    torch._check(a.shape[2] == b.shape[1], lambda: f"gemmtune.bmm: {a.shape} @ {b.shape}")
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]), dtype=result)


@torch.library.register_fake("gemmtune::addmm")
def _addmm_fake(c, a, b, beta=1.0, alpha=1.0, *, precision=None, out_dtype=None):
    result = _result_dtype("gemmtune.addmm", precision, out_dtype, c=c, a=a, b=b)
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "gemmtune.addmm: a and b must be 2-D")
    torch._check(a.shape[1] == b.shape[0], lambda: f"gemmtune.addmm: {a.shape} @ {b.shape}")
    return a.new_empty((a.shape[0], b.shape[1]), dtype=result)


@torch.library.register_fake("gemmtune::linear")
def _linear_fake(x, weight, bias=None, *, precision=None):
    result = _result_dtype("gemmtune.linear", precision, None, input=x, weight=weight, bias=bias)
    torch._check(weight.dim() == 2, lambda: "gemmtune.linear: weight must be 2-D")
    torch._check(x.dim() >= 1 and x.shape[-1] == weight.shape[1],
                 lambda: f"gemmtune.linear: input {x.shape}, weight {weight.shape}")
    return x.new_empty((*x.shape[:-1], weight.shape[0]), dtype=result)


# Autograd: the gradients of a product are products with one operand transposed (a view: op T), in
# the forward call's precision; a gradient arriving in FP32 (out_dtype) is rounded to the operands'
# dtype first, so each gradient has its input's dtype.
def _save_inputs(ctx, inputs, keyword_only_inputs, output):
    ctx.save_for_backward(*inputs[:2])
    ctx.precision = keyword_only_inputs.get("precision")


def _operand_grad(grad, like):
    return grad if grad.dtype == like.dtype else grad.to(like.dtype)


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad, p = _operand_grad(grad, a), ctx.precision
    grad_a = torch.ops.gemmtune.mm(grad, b.t(), precision=p) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.gemmtune.mm(a.t(), grad, precision=p) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad, p = _operand_grad(grad, a), ctx.precision
    grad_a = torch.ops.gemmtune.bmm(grad, b.transpose(1, 2), precision=p) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.gemmtune.bmm(a.transpose(1, 2), grad, precision=p) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


def _addmm_setup(ctx, inputs, keyword_only_inputs, output):
    c, a, b = inputs[:3]
    ctx.inputs = len(inputs)  # the defaults may be left out: one gradient per input given
    ctx.save_for_backward(a, b)
    ctx.c_shape, ctx.c_dtype = c.shape, c.dtype
    ctx.beta = inputs[3] if len(inputs) > 3 else 1.0
    ctx.alpha = inputs[4] if len(inputs) > 4 else 1.0
    ctx.precision = keyword_only_inputs.get("precision")


def _addmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_c = (grad * ctx.beta).sum_to_size(ctx.c_shape).to(ctx.c_dtype) if ctx.needs_input_grad[0] else None
    grad, p = _operand_grad(grad, a), ctx.precision
    grad_a = torch.ops.gemmtune.mm(grad, b.t(), precision=p) * ctx.alpha if ctx.needs_input_grad[1] else None
    grad_b = torch.ops.gemmtune.mm(a.t(), grad, precision=p) * ctx.alpha if ctx.needs_input_grad[2] else None
    return (grad_c, grad_a, grad_b, None, None)[:ctx.inputs]


def _linear_setup(ctx, inputs, keyword_only_inputs, output):
    x, weight = inputs[:2]
    ctx.inputs = len(inputs)  # bias may be left out
    ctx.save_for_backward(x, weight)
    ctx.precision = keyword_only_inputs.get("precision")


def _linear_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    rows, p = grad.reshape(-1, grad.shape[-1]), ctx.precision
    grad_x = (torch.ops.gemmtune.mm(rows, weight, precision=p).reshape(x.shape)
              if ctx.needs_input_grad[0] else None)
    grad_w = (torch.ops.gemmtune.mm(rows.t(), x.reshape(-1, x.shape[-1]), precision=p)
              if ctx.needs_input_grad[1] else None)
    grad_bias = rows.sum(0) if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2] else None
    return (grad_x, grad_w, grad_bias)[:ctx.inputs]


torch.library.register_autograd("gemmtune::mm", _mm_backward, setup_context=_save_inputs)
torch.library.register_autograd("gemmtune::bmm", _bmm_backward, setup_context=_save_inputs)
torch.library.register_autograd("gemmtune::addmm", _addmm_backward, setup_context=_addmm_setup)
torch.library.register_autograd("gemmtune::linear", _linear_backward, setup_context=_linear_setup)
