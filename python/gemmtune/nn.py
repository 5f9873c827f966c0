"""gemmtune.nn.Linear: torch.nn.Linear whose forward runs gemmtune's GEMM for float32 CUDA inputs
(x @ weight.T + bias, the weight as op T, no copy) and torch's own linear for anything else, so it
is a drop-in for any module. replace_linear swaps it into an existing model in place.
"""

from __future__ import annotations

import torch

from . import _torch_calls

_float32 = torch.float32
_through_op = _torch_calls.through_op
_linear = _torch_calls.linear


class functional:  # noqa: N801 - mirrors torch.nn.functional
    @staticmethod
    def linear(input, weight, bias=None):
        """torch.nn.functional.linear through gemmtune for float32 CUDA tensors, torch's otherwise."""
        if not (input.is_cuda and input.dtype is _float32 and weight.is_cuda and weight.dtype is _float32
                and (bias is None or (bias.is_cuda and bias.dtype is _float32))):
            return torch.nn.functional.linear(input, weight, bias)
        if _torch_calls.through_op(input, weight, bias):
            return torch.ops.gemmtune.linear(input, weight, bias)
        return _torch_calls.linear(input, weight, bias, checked=True)


class Linear(torch.nn.Linear):
    """torch.nn.Linear (same parameters, initialisation and state dict) computed by gemmtune."""

    def forward(self, input):
        # functional.linear inlined: at small shapes the host time of a layer is the layer's time.
        weight, bias = self.weight, self.bias
        if not (input.is_cuda and input.dtype is _float32 and weight.is_cuda and weight.dtype is _float32
                and (bias is None or (bias.is_cuda and bias.dtype is _float32))):
            return torch.nn.functional.linear(input, weight, bias)
        if _through_op(input, weight, bias):
            return torch.ops.gemmtune.linear(input, weight, bias)
        return _linear(input, weight, bias, "gemmtune.nn.Linear", True)

    @classmethod
    def from_linear(cls, module: torch.nn.Linear) -> "Linear":
        """A gemmtune Linear sharing module's parameters (no copy)."""
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.in_features, new.out_features = module.in_features, module.out_features
        new.weight = module.weight
        new.bias = module.bias
        return new


def replace_linear(model: torch.nn.Module) -> torch.nn.Module:
    """Replaces every torch.nn.Linear inside model by a gemmtune Linear sharing its parameters;
    returns model (or the replacement, if model itself is a Linear)."""
    if type(model) is torch.nn.Linear:
        return Linear.from_linear(model)
    for name, child in model.named_children():
        setattr(model, name, replace_linear(child))
    return model
