"""gemmtune.nn.Linear: torch.nn.Linear whose forward runs gemmtune's GEMM for CUDA inputs of float32,
bfloat16 or float16 (x @ weight.T + bias, the weight as op T, no copy) and torch's own linear for
anything else, so it is a drop-in for any module. replace_linear swaps it into an existing model in
place. Under torch.autocast the layer computes in the autocast dtype, as torch's Linear does (the
operands cast first; torch caches a weight's cast within the region, this layer casts per call).
precision: None computes as torch's Linear would (fp32, or tf32 where torch allows TF32, for float32;
bf16 and fp16 for 16-bit tensors); "3xtf32", "tf32" or "fp32" ask for one for float32 tensors.
The output has the input's dtype: for bfloat16 and float16 the library writes it in that dtype (FP32
sums and the bias added in FP32, each element rounded once, as cuBLASLt's bias epilogue does),
chosen from the results' c16 entries, with no FP32 intermediate or cast.
"""

from __future__ import annotations

from typing import Optional

import torch

from . import _torch_calls

_linear = _torch_calls.linear
_runs_here = _torch_calls._runs_here
_plain, _is_compiling, _grad_enabled = _torch_calls._plain, torch.compiler.is_compiling, torch.is_grad_enabled
# Without an argument, CUDA's autocast state: half the host time of is_autocast_enabled("cuda"),
# which parses the device name on every call.
_cuda_autocast_on = torch.is_autocast_enabled


def _autocast(input, weight, bias):
    """The operands in the CUDA autocast dtype while autocast is on (torch's Linear computes there)."""
    dtype = torch.get_autocast_dtype("cuda")
    return input.to(dtype), weight.to(dtype), None if bias is None else bias.to(dtype)


def _forward(input, weight, bias, name, precision):
    """The layer: at small shapes its host time is its time, so the direct path checks nothing that
    the cached plan of _torch_calls.linear already covers (dtypes and devices are in its key), and
    _torch_calls.through_op's test is spelled out here, a call cheaper."""
    if _cuda_autocast_on() and input.is_cuda:
        input, weight, bias = _autocast(input, weight, bias)
    if (_is_compiling() or type(input) not in _plain or type(weight) not in _plain
            or (bias is not None and type(bias) not in _plain)
            or (_grad_enabled() and (input.requires_grad or weight.requires_grad
                                     or (bias is not None and bias.requires_grad)))):
        if _runs_here(input, weight, bias):
            return torch.ops.gemmtune.linear(input, weight, bias, precision=precision)
        return torch.nn.functional.linear(input, weight, bias)
    return _linear(input, weight, bias, name, precision, True)


class functional:  # noqa: N801 - mirrors torch.nn.functional
    @staticmethod
    def linear(input, weight, bias=None, *, precision: Optional[str] = None):
        """torch.nn.functional.linear through gemmtune for CUDA tensors of one supported dtype,
        torch's otherwise."""
        return _forward(input, weight, bias, "gemmtune.nn.functional.linear", precision)


class Linear(torch.nn.Linear):
    """torch.nn.Linear (same parameters, initialisation and state dict) computed by gemmtune.
    precision (keyword): as gemmtune.mm's, None to compute as torch's Linear would."""

    precision: Optional[str] = None

    def __init__(self, *args, precision: Optional[str] = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.precision = precision

    def forward(self, input):
        # The parameters read from _parameters: nn.Module's __getattr__, which self.weight goes
        # through, costs more host time than the rest of a planned call. Where the weight or bias
        # is not a plain parameter (torch.nn.utils.parametrize, weight_norm's hook), the attribute.
        params = self._parameters
        weight = params["weight"] if "weight" in params else self.weight
        bias = params["bias"] if "bias" in params else self.bias
        return _forward(input, weight, bias, "gemmtune.nn.Linear", self.precision)

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
