"""gemmtune.nn.Linear: torch.nn.Linear whose forward runs gemmtune's GEMM for CUDA inputs of float32,
bfloat16 or float16 (x @ weight.T + bias, the weight as op T, no copy) and torch's own linear for
anything else, so it is a drop-in for any module. replace_linear swaps it into an existing model in
place. Under torch.autocast the layer computes in the autocast dtype, as torch's Linear does (the
operands cast first; torch caches a weight's cast within the region, this layer casts per call).
precision: None computes as torch's Linear would (fp32, or tf32 where torch allows TF32, for float32;
bf16 and fp16 for 16-bit tensors); "3xtf32", "tf32" or "fp32" ask for one for float32 tensors.
"""

from __future__ import annotations

from typing import Optional

import torch

from . import _torch_calls

_dtypes = (torch.float32, torch.bfloat16, torch.float16)
_through_op = _torch_calls.through_op
_linear = _torch_calls.linear
_autocast_on = torch.is_autocast_enabled


def _autocast(input, weight, bias):
    """The operands in the CUDA autocast dtype while autocast is on (torch's Linear computes there)."""
    dtype = torch.get_autocast_dtype("cuda")
    return input.to(dtype), weight.to(dtype), None if bias is None else bias.to(dtype)


def _runs_here(input, weight, bias) -> bool:
    dtype = input.dtype
    return (input.is_cuda and dtype in _dtypes and weight.is_cuda and weight.dtype is dtype
            and (bias is None or (bias.is_cuda and bias.dtype is dtype)))


class functional:  # noqa: N801 - mirrors torch.nn.functional
    @staticmethod
    def linear(input, weight, bias=None, *, precision: Optional[str] = None):
        """torch.nn.functional.linear through gemmtune for CUDA tensors of one supported dtype,
        torch's otherwise."""
        if input.is_cuda and _autocast_on("cuda"):
            input, weight, bias = _autocast(input, weight, bias)
        if not _runs_here(input, weight, bias):
            return torch.nn.functional.linear(input, weight, bias)
        if _through_op(input, weight, bias):
            return torch.ops.gemmtune.linear(input, weight, bias, precision=precision)
        return _linear(input, weight, bias, checked=True, precision=precision)


class Linear(torch.nn.Linear):
    """torch.nn.Linear (same parameters, initialisation and state dict) computed by gemmtune.
    precision (keyword): as gemmtune.mm's, None to compute as torch's Linear would."""

    precision: Optional[str] = None

    def __init__(self, *args, precision: Optional[str] = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.precision = precision

    def forward(self, input):
        # functional.linear inlined: at small shapes the host time of a layer is the layer's time.
        weight, bias = self.weight, self.bias
        if input.is_cuda and _autocast_on("cuda"):
            input, weight, bias = _autocast(input, weight, bias)
        dtype = input.dtype
        if not (input.is_cuda and dtype in _dtypes and weight.is_cuda and weight.dtype is dtype
                and (bias is None or (bias.is_cuda and bias.dtype is dtype))):
            return torch.nn.functional.linear(input, weight, bias)
        if _through_op(input, weight, bias):
            return torch.ops.gemmtune.linear(input, weight, bias, precision=self.precision)
        return _linear(input, weight, bias, "gemmtune.nn.Linear", True, self.precision)

    def extra_repr(self) -> str:
        text = super().extra_repr()
        return text if self.precision is None else f"{text}, precision={self.precision!r}"

    @classmethod
    def from_linear(cls, module: torch.nn.Linear, precision: Optional[str] = None) -> "Linear":
        """A gemmtune Linear sharing module's parameters (no copy)."""
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.in_features, new.out_features = module.in_features, module.out_features
        new.weight = module.weight
        new.bias = module.bias
        new.precision = precision
        return new


def replace_linear(model: torch.nn.Module, precision: Optional[str] = None) -> torch.nn.Module:
    """Replaces every torch.nn.Linear inside model by a gemmtune Linear sharing its parameters (with
    that precision); returns model (or the replacement, if model itself is a Linear)."""
    if type(model) is torch.nn.Linear:
        return Linear.from_linear(model, precision)
    for name, child in model.named_children():
        setattr(model, name, replace_linear(child, precision))
    return model
