"""Arrays other than torch tensors, through the CUDA Array Interface (v3): CuPy's, and any producer
whose module can allocate the result (CuPy; others are converted with cupy.asarray first, which
reads their __cuda_array_interface__ or DLPack without a copy). The call runs on CuPy's current
stream, with CuPy's current device set to the array's. float32 arrays run fp32 (or the precision
asked for: tf32, 3xtf32; CuPy's own TF32 setting is not read), float16 arrays (and bfloat16 ones, where
the producer has that dtype) fp16 and bf16 with the result in their dtype unless out_dtype is float32
(_precision's rules, as for torch tensors): a 16-bit result is the library's C written in that dtype
(gemmtune_run_gemm_problem_ex with GEMMTUNE_C_OPERAND_TYPE, the c16 problem), never a cast; a float32
result is an FP32 C (GEMMTUNE_C_FP32).
"""

from __future__ import annotations

from . import _handles
from . import _library as L
from . import _precision
from ._layout import plan_bmm, plan_mm


def _cupy():
    try:
        import cupy
    except ImportError as e:
        raise TypeError("gemmtune: arrays other than torch tensors are taken through CuPy, which is not "
                        "installed") from e
    return cupy


def as_cupy(name: str, argument: str, x):
    """x as a CuPy array (no copy), checked for a CUDA device and a dtype gemmtune takes."""
    if not (hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")):
        raise TypeError(f"{name}: argument '{argument}' ({type(x).__name__}) is neither a torch.Tensor nor a "
                        f"CUDA array (__cuda_array_interface__ or __dlpack__)")
    cupy = _cupy()
    if not isinstance(x, cupy.ndarray):
        try:
            x = cupy.asarray(x) if hasattr(x, "__cuda_array_interface__") else cupy.from_dlpack(x)
        except Exception as e:  # a host array, an unsupported device
            raise ValueError(f"{name}: argument '{argument}' is not a CUDA array: {e}") from e
    if str(x.dtype) not in _precision.DTYPE_PRECISIONS:
        raise TypeError(f"{name}: argument '{argument}' is {x.dtype}; gemmtune supports float32, float16 and "
                        f"bfloat16")
    return x


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def _elementwise_strides_ok(name, argument, x):
    if any(s % x.itemsize for s in x.strides):
        raise ValueError(f"{name}: argument '{argument}' has strides {x.strides} bytes, not whole elements")


def types_of(name, a, b, precision, out_dtype, added_dtype=None):
    """(gemmtune_precision_t, gemmtune_c_type_t, the result's dtype name) for CuPy arrays a and b;
    added_dtype: the dtype name of what C starts as (addmm's c where beta != 0), None for nothing."""
    operands = _precision.check_operand_dtypes(name, (("a", str(a.dtype)), ("b", str(b.dtype))))
    value = _precision.resolve(name, operands, precision, False)
    result = _precision.output_dtype(name, operands, None if out_dtype is None else str(_cupy().dtype(out_dtype)))
    return value, _precision.c_type(operands, result, added_dtype), result


def gemm(planner, name, a, b, c=None, beta=0.0, alpha=1.0, precision=None, out_dtype=None):
    """A fresh contiguous result: C in the operands' 16-bit dtype (c16) or in FP32, the library's call
    on CuPy's current stream. addmm's c is copied into C, which the library scales by beta: into a
    16-bit C only where c has that dtype (exactly, and read as cublasGemmEx reads a 16-bit C); a
    float32 c goes into an FP32 C whole, rounded once to a 16-bit result by astype (_precision.c_type)."""
    a = as_cupy(name, "a", a)
    b = as_cupy(name, "b", b)
    cupy = _cupy()
    added = None
    if c is not None and beta != 0.0:
        c = as_cupy(name, "c", c)
        added = str(c.dtype)
    value, c_type, result = types_of(name, a, b, precision, out_dtype, added)
    operands = str(a.dtype)
    if added is not None and added not in (operands, "float32"):
        raise TypeError(f"{name}: argument 'c' is {c.dtype}; it may be {operands} or float32")
    if a.device.id != b.device.id:
        raise ValueError(f"{name}: arguments 'a' (device {a.device.id}) and 'b' (device {b.device.id}) are on "
                         f"different devices")
    _elementwise_strides_ok(name, "a", a)
    _elementwise_strides_ok(name, "b", b)
    args = planner(name, a.shape, _strides(a), b.shape, _strides(b))
    shape = (args.m, args.n) if planner is plan_mm else (args.batch, args.m, args.n)
    device = a.device.id
    with cupy.cuda.Device(device):
        out = cupy.empty(shape, dtype=a.dtype if c_type == _precision.C_OPERAND_TYPE else cupy.float32)
        if added is not None:
            try:
                out[...] = cupy.broadcast_to(c, shape)
            except ValueError as e:
                raise ValueError(f"{name}: argument 'c' of shape {c.shape} does not broadcast to {shape}") from e
        if out.size and (args.k == 0 or alpha == 0.0):
            if added is None:
                out.fill(0)
            elif out.dtype == cupy.float32:
                out *= beta
            else:  # beta * c in FP32, rounded once (a 16-bit in-place product would round beta first)
                out[...] = out.astype(cupy.float32) * beta
        elif out.size:
            handle = _handles.get(device, lambda: cupy.cuda.Device(device))
            stream = cupy.cuda.get_current_stream().ptr
            status = L.lib().gemmtune_run_gemm_problem_ex(handle, value, c_type,
                                                          L.sgemm_problem(args, float(alpha), float(beta)),
                                                          a.data.ptr, b.data.ptr, out.data.ptr, stream)
            L.raise_for_status(status, name)
        if str(out.dtype) != result:  # a float32 c added to a 16-bit result: the FP32 C rounded once
            out = out.astype(result)
    return out


def mm(a, b, precision=None, out_dtype=None):
    return gemm(plan_mm, "gemmtune.mm", a, b, precision=precision, out_dtype=out_dtype)


def bmm(a, b, precision=None, out_dtype=None):
    return gemm(plan_bmm, "gemmtune.bmm", a, b, precision=precision, out_dtype=out_dtype)


def addmm(c, a, b, beta=1.0, alpha=1.0, precision=None, out_dtype=None):
    return gemm(plan_mm, "gemmtune.addmm", a, b, c=c, beta=float(beta), alpha=float(alpha), precision=precision,
                out_dtype=out_dtype)
