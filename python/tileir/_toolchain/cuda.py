"""The CUDA driver API through ctypes (no dependency beyond the NVIDIA driver itself).

Importing this module never touches the driver: ``libcuda`` is loaded on the first
call that needs it, and a machine without a GPU gets a
:class:`~tileir.errors.LaunchError` that says so. Compiling never needs this module.

Contents:

* driver access: :func:`libcuda`, :func:`check`, :func:`get_context`,
  :func:`device_count`, :func:`compute_capability`;
* kernels: :func:`load_module` -> :class:`Module` -> :class:`Function`, :func:`launch`;
* streams and arrays from other libraries: :func:`stream_handle`, :func:`array_info`
  (``__cuda_array_interface__`` v2/v3 and DLPack), :func:`device_pointer`;
* a minimal :class:`DeviceArray` (:func:`to_device`, :func:`empty`, :func:`zeros`) so
  that examples and tests run without torch or cupy;
* timing and copies: :class:`Event`, :func:`synchronize`, :func:`memcpy_dtod`.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import operator
import os
import sys
import threading
from ctypes import (POINTER, Structure, byref, c_char_p, c_double, c_float, c_int, c_int16,
                    c_int32, c_int64, c_size_t, c_uint, c_uint8, c_uint16, c_uint32, c_uint64,
                    c_void_p)
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple

from ..errors import LaunchError

__all__ = [
    "NO_DRIVER_MESSAGE",
    "libcuda",
    "is_available",
    "check",
    "Context",
    "get_context",
    "device_count",
    "compute_capability",
    "driver_version",
    "Module",
    "Function",
    "load_module",
    "launch",
    "stream_handle",
    "ArrayInfo",
    "array_info",
    "device_pointer",
    "DeviceArray",
    "to_device",
    "empty",
    "zeros",
    "Event",
    "synchronize",
    "memcpy_dtod",
]

_LIB_NAME = "nvcuda.dll" if os.name == "nt" else "libcuda.so.1"
NO_DRIVER_MESSAGE = (
    "no CUDA driver found (%s could not be loaded): a GPU and an NVIDIA driver are needed "
    "to launch kernels; compiling works without them" % _LIB_NAME)

CUresult = c_int
CUdevice = c_int
CUdeviceptr = c_uint64
_P = POINTER

# name -> (argtypes); every function returns CUresult.
_SIGNATURES: Dict[str, Tuple[Any, ...]] = {
    "cuInit": (c_uint,),
    "cuDriverGetVersion": (_P(c_int),),
    "cuGetErrorName": (CUresult, _P(c_char_p)),
    "cuGetErrorString": (CUresult, _P(c_char_p)),
    "cuDeviceGetCount": (_P(c_int),),
    "cuDeviceGet": (_P(CUdevice), c_int),
    "cuDeviceGetAttribute": (_P(c_int), c_int, CUdevice),
    "cuDeviceGetName": (c_char_p, c_int, CUdevice),
    "cuCtxGetCurrent": (_P(c_void_p),),
    "cuCtxSetCurrent": (c_void_p,),
    "cuCtxGetDevice": (_P(CUdevice),),
    "cuCtxPushCurrent_v2": (c_void_p,),
    "cuCtxPopCurrent_v2": (_P(c_void_p),),
    "cuCtxSynchronize": (),
    "cuDevicePrimaryCtxRetain": (_P(c_void_p), CUdevice),
    "cuModuleLoadData": (_P(c_void_p), c_void_p),
    "cuModuleUnload": (c_void_p,),
    "cuModuleGetFunction": (_P(c_void_p), c_void_p, c_char_p),
    "cuFuncGetAttribute": (_P(c_int), c_int, c_void_p),
    "cuFuncSetAttribute": (c_void_p, c_int, c_int),
    "cuLaunchKernel": (c_void_p, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
                       c_void_p, _P(c_void_p), _P(c_void_p)),
    "cuMemAlloc_v2": (_P(CUdeviceptr), c_size_t),
    "cuMemFree_v2": (CUdeviceptr,),
    "cuMemcpyHtoD_v2": (CUdeviceptr, c_void_p, c_size_t),
    "cuMemcpyDtoH_v2": (c_void_p, CUdeviceptr, c_size_t),
    "cuMemcpyDtoDAsync_v2": (CUdeviceptr, CUdeviceptr, c_size_t, c_void_p),
    "cuMemsetD8_v2": (CUdeviceptr, c_uint8, c_size_t),
    "cuMemsetD8Async": (CUdeviceptr, c_uint8, c_size_t, c_void_p),
    "cuStreamSynchronize": (c_void_p,),
    "cuStreamWaitEvent": (c_void_p, c_void_p, c_uint),
    "cuEventCreate": (_P(c_void_p), c_uint),
    "cuEventRecord": (c_void_p, c_void_p),
    "cuEventSynchronize": (c_void_p,),
    "cuEventElapsedTime": (_P(c_float), c_void_p, c_void_p),
    "cuEventDestroy_v2": (c_void_p,),
    "cuTensorMapEncodeTiled": (c_void_p, c_int, c_uint, c_void_p, _P(ctypes.c_uint64), _P(ctypes.c_uint64),
                               _P(c_uint), _P(c_uint), c_int, c_int, c_int, c_int),
}

# Driver enums used here.
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38
CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_EVENT_DEFAULT = 0
CU_EVENT_DISABLE_TIMING = 2
# The dynamic shared memory a function is opted into until set. 0, not 48 KiB: without the
# opt-in a launch gets 48 KiB *less the function's static shared memory*, so a kernel with
# 48 KiB of dynamic and some static shared memory (mbarriers) fails to launch (found on an H100).
_DEFAULT_DYNAMIC_SMEM_LIMIT = 0

# Errors after which the context is unusable (the process must be restarted).
_STICKY_ERRORS = frozenset({
    "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_ASSERT", "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_LAUNCH_FAILED",
})


class _Driver:
    """libcuda with argtypes/restype declared on first use of each function."""

    def __init__(self, dll: ctypes.CDLL, path: str):
        self._dll = dll
        self.path = path

    def __getattr__(self, name: str):
        argtypes = _SIGNATURES.get(name)
        if argtypes is None:
            raise AttributeError(name)
        try:
            fn = getattr(self._dll, name)
        except AttributeError:
            raise LaunchError("the CUDA driver (%s) has no %s; update the NVIDIA driver"
                              % (self.path, name)) from None
        fn.argtypes = list(argtypes)
        fn.restype = CUresult
        setattr(self, name, fn)
        return fn


_lib: Optional[_Driver] = None
_lib_lock = threading.RLock()
_lib_path_override: Optional[str] = None


def _reset_for_tests(library_path: Optional[str] = None) -> None:
    """Forget the loaded driver and all cached state; load ``library_path`` next time."""
    global _lib, _lib_path_override
    with _lib_lock:
        _lib = None
        _lib_path_override = library_path
        _primary_contexts.clear()
        with _module_lock:
            _module_cache.clear()


def libcuda() -> _Driver:
    """The CUDA driver library, loaded and initialised (``cuInit(0)``) on first call."""
    global _lib
    lib = _lib
    if lib is not None:
        return lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = _lib_path_override or _LIB_NAME
        try:
            dll = ctypes.CDLL(path)
        except OSError as exc:
            raise LaunchError(NO_DRIVER_MESSAGE) from exc
        lib = _Driver(dll, path)
        rc = lib.cuInit(0)
        if rc != 0:
            name, text = _error_name(lib, rc)
            err = LaunchError("the CUDA driver could not be initialised: cuInit(0) returned "
                              "%s (%d): %s" % (name, rc, text))
            err.code, err.name = rc, name  # type: ignore[attr-defined]
            raise err
        _lib = lib
        return lib


# CUtensorMapDataType of tileir's element names (8-bit types are copied as bytes).
_TENSOR_MAP_TYPES = {"f16": 6, "bf16": 9, "f32": 7, "i8": 0, "f8E4M3FN": 0, "f8E5M2": 0}
_TENSOR_MAP_SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}


def encode_tensor_map(elem: str, address: int, sizes: Sequence[int], strides_bytes: Sequence[int],
                      box: Sequence[int], swizzle_bytes: int) -> bytes:
    """The 128-byte tensor map (tile mode, zero fill, 128-byte L2 promotion) of a row-major
    array, by ``cuTensorMapEncodeTiled``: ``sizes``, ``strides_bytes`` and ``box`` outermost
    first (the innermost stride is the element's size)."""
    rank = len(sizes)
    if not 1 <= rank <= 5 or len(box) != rank or len(strides_bytes) != rank:
        raise LaunchError("a rank-%d tensor map needs %d box dimensions and strides" % (rank, rank))
    if elem not in _TENSOR_MAP_TYPES or swizzle_bytes not in _TENSOR_MAP_SWIZZLES:
        raise LaunchError("no tensor map for element %r with a %r-byte swizzle" % (elem, swizzle_bytes))
    # The driver lists dimensions innermost first; it takes the strides of dimensions 1.. only.
    dims = (ctypes.c_uint64 * rank)(*reversed([int(s) for s in sizes]))
    strides = (ctypes.c_uint64 * max(rank - 1, 1))(*list(reversed([int(s) for s in strides_bytes]))[1:] or [0])
    boxes = (c_uint * rank)(*reversed([int(b) for b in box]))
    ones = (c_uint * rank)(*([1] * rank))
    out = ctypes.create_string_buffer(128)
    rc = libcuda().cuTensorMapEncodeTiled(ctypes.addressof(out), _TENSOR_MAP_TYPES[elem], rank, address, dims,
                                          strides, boxes, ones, 0, _TENSOR_MAP_SWIZZLES[swizzle_bytes], 2, 0)
    check(rc, "cuTensorMapEncodeTiled(%s, sizes=%r, box=%r)" % (elem, list(sizes), list(box)))
    return out.raw


def _raw_function(name: str) -> Any:
    """A second handle on driver function ``name``, without argtypes (restype CUresult),
    for callers that pass ready-made ctypes arguments on a hot path (tileir.launch's
    launchers): ctypes then converts nothing. ``name`` must be in the signature table."""
    lib = libcuda()
    if name not in _SIGNATURES:
        raise AttributeError(name)
    getattr(lib, name)  # a missing function is a LaunchError, as for every other use
    fn = lib._dll[name]  # [] makes a new function object; attribute access would share one
    fn.restype = CUresult
    return fn


def is_available() -> bool:
    """True when the CUDA driver loads and initialises (at least one device)."""
    try:
        libcuda()
    except LaunchError:
        return False
    return True


def _error_name(lib: _Driver, code: int) -> Tuple[str, str]:
    name = c_char_p()
    text = c_char_p()
    try:
        if lib.cuGetErrorName(code, byref(name)) != 0 or not name.value:
            return "CUDA error %d" % code, "unknown error"
        lib.cuGetErrorString(code, byref(text))
    except LaunchError:
        return "CUDA error %d" % code, "unknown error"
    return (name.value.decode("ascii", "replace"),
            (text.value or b"").decode("utf-8", "replace"))


def check(result: int, what: str) -> None:
    """Raise LaunchError for a CUresult other than CUDA_SUCCESS."""
    if result == 0:
        return
    lib = _lib
    name, text = _error_name(lib, result) if lib is not None else ("CUDA error %d" % result, "")
    message = "%s failed: %s (%d)" % (what, name, result)
    if text:
        message += ": " + text
    if name in _STICKY_ERRORS:
        message += (" [this error leaves the CUDA context unusable: later CUDA calls in this "
                    "process fail too; restart the process]")
    err = LaunchError(message)
    err.code, err.name = result, name  # type: ignore[attr-defined]
    raise err


# --------------------------------------------------------------------------------------
# Devices and contexts
# --------------------------------------------------------------------------------------

def driver_version() -> int:
    """The driver's CUDA version as an int, e.g. 12090."""
    lib = libcuda()
    v = c_int()
    check(lib.cuDriverGetVersion(byref(v)), "cuDriverGetVersion")
    return v.value


def device_count() -> int:
    lib = libcuda()
    n = c_int()
    check(lib.cuDeviceGetCount(byref(n)), "cuDeviceGetCount")
    return n.value


def _device(ordinal: int) -> int:
    lib = libcuda()
    count = device_count()
    if not 0 <= ordinal < count:
        raise LaunchError("CUDA device %d does not exist (%d device%s found)"
                          % (ordinal, count, "" if count == 1 else "s"))
    dev = CUdevice()
    check(lib.cuDeviceGet(byref(dev), ordinal), "cuDeviceGet(%d)" % ordinal)
    return dev.value


def compute_capability(device: int = 0) -> Tuple[int, int]:
    """``(major, minor)`` of a device, e.g. ``(9, 0)`` for H100/H200."""
    lib = libcuda()
    dev = _device(device)
    major, minor = c_int(), c_int()
    check(lib.cuDeviceGetAttribute(byref(major), CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                   dev), "cuDeviceGetAttribute")
    check(lib.cuDeviceGetAttribute(byref(minor), CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                   dev), "cuDeviceGetAttribute")
    return major.value, minor.value


def device_name(device: int = 0) -> str:
    """The device's name (``NVIDIA H100 80GB HBM3``)."""
    buf = ctypes.create_string_buffer(256)
    check(libcuda().cuDeviceGetName(buf, 256, _device(device)), "cuDeviceGetName")
    return buf.value.decode("utf-8", "replace")


def l2_cache_bytes(device: int = 0) -> int:
    """The device's L2 cache size in bytes."""
    size = c_int()
    check(libcuda().cuDeviceGetAttribute(byref(size), CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, _device(device)),
          "cuDeviceGetAttribute(L2_CACHE_SIZE)")
    return size.value


def memset_async(array: Any, value: int, nbytes: int, stream: Any = None) -> None:
    """Fills the first ``nbytes`` of ``array`` (an address or a device array) with the byte
    ``value``, queued on ``stream``."""
    get_context()
    check(libcuda().cuMemsetD8Async(device_pointer(array, stream=stream), int(value) & 0xFF, int(nbytes),
                                    stream_handle(stream) or None), "cuMemsetD8Async(%d bytes)" % int(nbytes))


@dataclass(frozen=True)
class Context:
    """A CUDA context: ``handle`` (CUcontext) on device ordinal ``device``."""

    handle: int
    device: int
    primary: bool   # True when tileir retained the device's primary context


_primary_contexts: Dict[int, int] = {}


def _current_context() -> int:
    lib = libcuda()
    cur = c_void_p()
    check(lib.cuCtxGetCurrent(byref(cur)), "cuCtxGetCurrent")
    return cur.value or 0


def get_context(device: Optional[int] = None) -> Context:
    """The context to work in, made current on this thread.

    The thread's current context is used when there is one (e.g. made by torch) and it
    is on ``device`` (any device when ``device`` is None). Otherwise the primary
    context of ``device`` (default 0) is retained and made current.
    """
    lib = libcuda()
    cur = _current_context()
    if cur:
        dev = CUdevice()
        check(lib.cuCtxGetDevice(byref(dev)), "cuCtxGetDevice")
        if device is None or dev.value == device:
            return Context(cur, dev.value, primary=_primary_contexts.get(dev.value) == cur)
    ordinal = 0 if device is None else int(device)
    with _lib_lock:
        handle = _primary_contexts.get(ordinal)
        if handle is None:
            dev_handle = _device(ordinal)
            ctx = c_void_p()
            check(lib.cuDevicePrimaryCtxRetain(byref(ctx), dev_handle),
                  "cuDevicePrimaryCtxRetain(device %d)" % ordinal)
            handle = ctx.value or 0
            _primary_contexts[ordinal] = handle
    check(lib.cuCtxSetCurrent(handle), "cuCtxSetCurrent")
    return Context(handle, ordinal, primary=True)


class _InContext:
    """Make ``handle`` current for a block (push/pop only when it is not already)."""

    def __init__(self, handle: int):
        self.handle = handle
        self.pushed = False

    def __enter__(self) -> None:
        if self.handle and _current_context() != self.handle:
            check(libcuda().cuCtxPushCurrent_v2(self.handle), "cuCtxPushCurrent")
            self.pushed = True

    def __exit__(self, *exc) -> None:
        if self.pushed:
            popped = c_void_p()
            libcuda().cuCtxPopCurrent_v2(byref(popped))


# --------------------------------------------------------------------------------------
# Modules, functions, launches
# --------------------------------------------------------------------------------------

class Function:
    """A kernel (CUfunction) of a loaded :class:`Module`."""

    def __init__(self, handle: int, name: str, module: "Module"):
        self.handle = handle
        self.name = name
        self.module = module
        self._dynamic_smem_limit = _DEFAULT_DYNAMIC_SMEM_LIMIT

    def get_attribute(self, attribute: int) -> int:
        value = c_int()
        with _InContext(self.module.context.handle):
            check(libcuda().cuFuncGetAttribute(byref(value), attribute, self.handle),
                  "cuFuncGetAttribute(%s)" % self.name)
        return value.value

    def set_attribute(self, attribute: int, value: int) -> None:
        with _InContext(self.module.context.handle):
            check(libcuda().cuFuncSetAttribute(self.handle, attribute, int(value)),
                  "cuFuncSetAttribute(%s, %d, %d)" % (self.name, attribute, value))

    @property
    def num_regs(self) -> int:
        return self.get_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS)

    @property
    def max_threads_per_block(self) -> int:
        return self.get_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)

    def set_max_dynamic_shared_memory(self, nbytes: int) -> None:
        """Allow launches with ``nbytes`` of dynamic shared memory (needed above 48 KiB)."""
        self.set_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, nbytes)
        self._dynamic_smem_limit = int(nbytes)

    def __repr__(self) -> str:
        return "<tileir CUDA function %r at 0x%x>" % (self.name, self.handle)


class Module:
    """A loaded cubin (CUmodule)."""

    def __init__(self, handle: int, context: Context, sha256: str):
        self.handle = handle
        self.context = context
        self.sha256 = sha256
        self._functions: Dict[str, Function] = {}
        self._lock = threading.Lock()

    def get_function(self, name: str) -> Function:
        with self._lock:
            fn = self._functions.get(name)
            if fn is not None:
                return fn
            handle = c_void_p()
            with _InContext(self.context.handle):
                rc = libcuda().cuModuleGetFunction(byref(handle), self.handle,
                                                   name.encode("utf-8"))
            if rc != 0:
                try:
                    check(rc, "cuModuleGetFunction(%r)" % name)
                except LaunchError as exc:
                    if getattr(exc, "name", "") == "CUDA_ERROR_NOT_FOUND":
                        raise LaunchError("kernel %r is not in the loaded module (an "
                                          "entry of that name must be in the cubin)"
                                          % name) from None
                    raise
            fn = Function(handle.value or 0, name, self)
            self._functions[name] = fn
            return fn

    def __repr__(self) -> str:
        return "<tileir CUDA module %s... on device %d>" % (self.sha256[:12], self.context.device)


_module_cache: Dict[Tuple[int, str], Module] = {}
_module_lock = threading.Lock()


def load_module(cubin: bytes, *, device: Optional[int] = None) -> Module:
    """Load a cubin into the current (or the primary) context; cached per
    ``(context, sha256(cubin))``."""
    if not isinstance(cubin, (bytes, bytearray, memoryview)):
        raise TypeError("cubin must be bytes, not %s" % type(cubin).__name__)
    data = bytes(cubin)
    ctx = get_context(device)
    digest = hashlib.sha256(data).hexdigest()
    key = (ctx.handle, digest)
    with _module_lock:
        mod = _module_cache.get(key)
        if mod is not None:
            return mod
        handle = c_void_p()
        buf = ctypes.create_string_buffer(data, len(data))
        rc = libcuda().cuModuleLoadData(byref(handle), ctypes.cast(buf, c_void_p))
        if rc != 0:
            try:
                check(rc, "cuModuleLoadData")
            except LaunchError as exc:
                if getattr(exc, "name", "") in ("CUDA_ERROR_NO_BINARY_FOR_GPU",
                                                "CUDA_ERROR_INVALID_IMAGE"):
                    try:
                        major, minor = compute_capability(ctx.device)
                        exc.args = (exc.args[0] + " (the device is sm_%d%d; was the cubin "
                                    "compiled for another architecture?)" % (major, minor),)
                    except LaunchError:
                        pass
                raise
        mod = Module(handle.value or 0, ctx, digest)
        _module_cache[key] = mod
        return mod


_SCALAR_KINDS: Dict[str, Tuple[Any, Optional[Tuple[int, int]]]] = {
    "ptr": (c_uint64, (0, 2 ** 64)),
    "u64": (c_uint64, (0, 2 ** 64)),
    "i64": (c_int64, (-2 ** 63, 2 ** 63)),
    "u32": (c_uint32, (0, 2 ** 32)),
    "i32": (c_int32, (-2 ** 31, 2 ** 31)),
    "u16": (c_uint16, (0, 2 ** 16)),
    "i16": (c_int16, (-2 ** 15, 2 ** 15)),
    "f32": (c_float, None),
    "f64": (c_double, None),
}
PARAM_KINDS = tuple(_SCALAR_KINDS) + ("bytes",)


def _dim3(value: Any, what: str) -> Tuple[int, int, int]:
    if isinstance(value, int):
        value = (value,)
    dims = tuple(operator.index(v) for v in value)
    if not 1 <= len(dims) <= 3:
        raise LaunchError("%s must have 1 to 3 dimensions, got %r" % (what, value))
    dims = dims + (1,) * (3 - len(dims))
    if any(d < 1 or d >= 2 ** 32 for d in dims):
        raise LaunchError("%s dimensions must be positive, got %r" % (what, dims))
    return dims  # type: ignore[return-value]


def _param_holder(index: int, kind: str, value: Any, stream: int):
    if kind == "bytes":
        data = bytes(value)
        if not data:
            raise LaunchError("kernel parameter %d: an empty 'bytes' parameter" % index)
        return ctypes.create_string_buffer(data, len(data))
    spec = _SCALAR_KINDS.get(kind)
    if spec is None:
        raise LaunchError("kernel parameter %d: unknown kind %r (expected one of %s)"
                          % (index, kind, ", ".join(PARAM_KINDS)))
    ctype, bounds = spec
    if kind == "ptr" and not isinstance(value, int):
        value = device_pointer(value, stream=stream)
    if bounds is None:
        return ctype(float(value))
    try:
        ivalue = operator.index(value)
    except TypeError:
        raise LaunchError("kernel parameter %d (%s): expected an integer, got %s"
                          % (index, kind, type(value).__name__)) from None
    lo, hi = bounds
    if not lo <= ivalue < hi:
        raise LaunchError("kernel parameter %d (%s): %d is out of range" % (index, kind, ivalue))
    return ctype(ivalue)


def launch(function: Any, grid: Sequence[int], block: Sequence[int], shared_mem: int = 0,
           stream: Any = None, params: Iterable[Tuple[str, Any]] = ()) -> None:
    """Launch ``function`` (a :class:`Function` or a raw CUfunction handle).

    ``params`` is a list of ``(kind, value)``; kind is ``"ptr"`` (a device address, or
    any array :func:`device_pointer` accepts), ``"i32"``, ``"i64"``, ``"u32"``,
    ``"u64"``, ``"i16"``, ``"u16"``, ``"f32"``, ``"f64"``, or ``"bytes"`` (a by-value
    blob such as a 128-byte CUtensorMap). ``stream`` is anything :func:`stream_handle`
    accepts. Dynamic shared memory above 48 KiB is opted into automatically.
    """
    lib = libcuda()
    gx, gy, gz = _dim3(grid, "grid")
    bx, by, bz = _dim3(block, "block")
    shared_mem = int(shared_mem)
    if shared_mem < 0:
        raise LaunchError("shared_mem must be >= 0, got %d" % shared_mem)
    hstream = stream_handle(stream)
    holders = [_param_holder(i, kind, value, hstream) for i, (kind, value) in enumerate(params)]
    if holders:
        args = (c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        kernel_params = ctypes.cast(args, _P(c_void_p))
    else:
        kernel_params = None
    if isinstance(function, Function):
        handle, name = function.handle, function.name
        ctx_handle = function.module.context.handle
    else:
        handle, name, ctx_handle = int(function), "0x%x" % int(function), 0
        if ctx_handle == 0:
            get_context()
    with _InContext(ctx_handle):
        if isinstance(function, Function) and shared_mem > function._dynamic_smem_limit:
            function.set_max_dynamic_shared_memory(shared_mem)
        rc = lib.cuLaunchKernel(handle, gx, gy, gz, bx, by, bz, shared_mem, hstream or None,
                                kernel_params, None)
    check(rc, "cuLaunchKernel(%s, grid=%r, block=%r, shared_mem=%d)"
          % (name, (gx, gy, gz), (bx, by, bz), shared_mem))


# --------------------------------------------------------------------------------------
# Streams
# --------------------------------------------------------------------------------------

def _as_int(value: Any) -> Optional[int]:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, c_void_p):
        return value.value or 0
    try:
        return operator.index(value)
    except TypeError:
        pass
    if hasattr(value, "__int__") and not isinstance(value, float):
        try:
            return int(value)
        except (TypeError, ValueError):
            return None
    return None


def stream_handle(stream: Any) -> int:
    """The CUstream handle (an int; 0 is the default stream) of ``stream``.

    Accepts None or 0, an int, an object with ``__cuda_stream__`` (returning
    ``(version, handle)``), a torch.cuda.Stream (``.cuda_stream``), a cupy Stream
    (``.ptr``) and objects with a ctypes ``.handle`` (numba).
    """
    if stream is None:
        return 0
    if isinstance(stream, bool):
        raise LaunchError("a bool is not a CUDA stream")
    direct = isinstance(stream, (int, c_void_p)) or hasattr(stream, "__index__")
    value = _as_int(stream) if direct else None
    if value is None:
        proto = getattr(stream, "__cuda_stream__", None)
        if proto is not None:
            got = proto() if callable(proto) else proto
            if isinstance(got, tuple) and len(got) == 2:
                value = _as_int(got[1])
            else:
                value = _as_int(got)
            if value is None:
                raise LaunchError("%r.__cuda_stream__ returned %r, expected (version, handle)"
                                  % (type(stream).__name__, got))
    if value is None:
        for attr in ("cuda_stream", "ptr", "handle"):
            value = _as_int(getattr(stream, attr, None))
            if value is not None:
                break
    if value is None:
        raise LaunchError(
            "cannot use a %s as a CUDA stream: pass None (the default stream), an int "
            "handle, a torch.cuda.Stream, a cupy Stream or an object with __cuda_stream__"
            % type(stream).__name__)
    if value < 0 or value >= 2 ** 64:
        raise LaunchError("invalid CUDA stream handle %d" % value)
    return value


# --------------------------------------------------------------------------------------
# Arrays: __cuda_array_interface__ and DLPack
# --------------------------------------------------------------------------------------

DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED = 1, 2, 3, 13
_DEVICE_TYPE_NAMES = {1: "CPU", 2: "CUDA", 3: "CUDAHost", 4: "OpenCL", 7: "Vulkan",
                      8: "Metal", 9: "VPI", 10: "ROCM", 11: "ROCMHost", 12: "ExtDev",
                      13: "CUDAManaged", 14: "OneAPI", 15: "WebGPU", 16: "Hexagon",
                      17: "MAIA", 18: "Trn"}
_CUDA_ACCESSIBLE = (DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED)

# DLPack (code, bits) -> canonical dtype name.
_DLPACK_DTYPES: Dict[Tuple[int, int], str] = {
    (0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
    (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64",
    (2, 16): "float16", (2, 32): "float32", (2, 64): "float64",
    (4, 16): "bfloat16",
    (5, 64): "complex64", (5, 128): "complex128",
    (6, 8): "bool",
    (7, 8): "float8_e3m4", (8, 8): "float8_e4m3", (9, 8): "float8_e4m3b11fnuz",
    (10, 8): "float8_e4m3fn", (11, 8): "float8_e4m3fnuz", (12, 8): "float8_e5m2",
    (13, 8): "float8_e5m2fnuz", (14, 8): "float8_e8m0fnu",
    (15, 6): "float6_e2m3fn", (16, 6): "float6_e3m2fn", (17, 4): "float4_e2m1fn",
}


def _numpy():
    import numpy
    return numpy


def _numpy_dtype_for(name: str):
    """numpy dtype for a canonical name, or None (bfloat16/float8 need ml_dtypes)."""
    np = _numpy()
    try:
        return np.dtype(name)
    except TypeError:
        pass
    if "ml_dtypes" in sys.modules or _has_ml_dtypes():
        try:
            import ml_dtypes  # optional
            return np.dtype(getattr(ml_dtypes, name))
        except (ImportError, AttributeError, TypeError):
            return None
    return None


_ml_dtypes_checked: Optional[bool] = None


def _has_ml_dtypes() -> bool:
    global _ml_dtypes_checked
    if _ml_dtypes_checked is None:
        import importlib.util
        _ml_dtypes_checked = importlib.util.find_spec("ml_dtypes") is not None
    return _ml_dtypes_checked


@dataclass
class ArrayInfo:
    """Where an array lives and how it is laid out.

    ``strides_elems`` are in elements. ``dtype`` is a numpy dtype, or None for types
    numpy cannot spell without ml_dtypes (bfloat16, float8_*); ``dtype_name`` is always
    set. ``owner`` keeps the producer (and a DLPack capsule) alive.
    """

    ptr: int
    shape: Tuple[int, ...]
    strides_elems: Tuple[int, ...]
    dtype: Any
    device_type: int
    device_id: Optional[int] = None
    dtype_name: str = ""
    bits: int = 0
    readonly: bool = False
    source: str = ""            # "device_array" | "cuda_array_interface" | "dlpack"
    owner: Any = field(default=None, repr=False, compare=False)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        """Bytes per element (0 for sub-byte types)."""
        return self.bits // 8

    @property
    def nbytes(self) -> int:
        return (self.size * self.bits + 7) // 8

    @property
    def device_type_name(self) -> str:
        return _DEVICE_TYPE_NAMES.get(self.device_type, "device type %d" % self.device_type)

    @property
    def is_cuda_accessible(self) -> bool:
        return self.device_type in _CUDA_ACCESSIBLE

    @property
    def is_c_contiguous(self) -> bool:
        return self.strides_elems == _c_strides(self.shape)


def _c_strides(shape: Sequence[int]) -> Tuple[int, ...]:
    strides = []
    acc = 1
    for dim in reversed(tuple(shape)):
        strides.append(acc)
        acc *= max(int(dim), 1)
    return tuple(reversed(strides))


class _DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class _DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class _DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", _DLDevice), ("ndim", c_int32),
                ("dtype", _DLDataType), ("shape", _P(c_int64)), ("strides", _P(c_int64)),
                ("byte_offset", c_uint64)]


class _DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


class _DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class _DLManagedTensorVersioned(Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", c_void_p), ("deleter", c_void_p),
                ("flags", c_uint64), ("dl_tensor", _DLTensor)]


_DLPACK_FLAG_READ_ONLY = 1
# Private prototypes bound to the CPython C API (not the shared ctypes.pythonapi objects,
# whose argtypes other libraries may set differently).
_capsule_get_name = ctypes.PYFUNCTYPE(c_char_p, ctypes.py_object)(
    ("PyCapsule_GetName", ctypes.pythonapi))
_capsule_get_pointer = ctypes.PYFUNCTYPE(c_void_p, ctypes.py_object, c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def _from_capsule(capsule: Any, producer: Any) -> ArrayInfo:
    if type(capsule).__name__ != "PyCapsule":
        raise LaunchError("__dlpack__() returned a %s, not a PyCapsule" % type(capsule).__name__)
    name = _capsule_get_name(capsule)
    readonly = False
    if name == b"dltensor":
        address = _capsule_get_pointer(capsule, b"dltensor")
        tensor = _DLManagedTensor.from_address(address).dl_tensor
    elif name == b"dltensor_versioned":
        address = _capsule_get_pointer(capsule, b"dltensor_versioned")
        managed = _DLManagedTensorVersioned.from_address(address)
        if managed.version.major != 1:
            raise LaunchError("unsupported DLPack version %d.%d"
                              % (managed.version.major, managed.version.minor))
        tensor = managed.dl_tensor
        readonly = bool(managed.flags & _DLPACK_FLAG_READ_ONLY)
    else:
        raise LaunchError("the DLPack capsule is named %r (already consumed?)" % (name,))
    ndim = int(tensor.ndim)
    shape = tuple(int(tensor.shape[i]) for i in range(ndim))
    if tensor.strides:
        strides = tuple(int(tensor.strides[i]) for i in range(ndim))
    else:
        strides = _c_strides(shape)
    code, bits, lanes = int(tensor.dtype.code), int(tensor.dtype.bits), int(tensor.dtype.lanes)
    if lanes != 1:
        raise LaunchError("DLPack vector dtypes (lanes=%d) are not supported" % lanes)
    dtype_name = _DLPACK_DTYPES.get((code, bits))
    if dtype_name is None:
        raise LaunchError("unsupported DLPack dtype (code %d, %d bits)" % (code, bits))
    ptr = (tensor.data or 0) + int(tensor.byte_offset)
    # Everything needed has been copied out; keep the producer (its memory) and the
    # capsule (in case the export owns the memory). The capsule is not consumed, so
    # its destructor calls the DLPack deleter when it is collected.
    return ArrayInfo(ptr=ptr, shape=shape, strides_elems=strides,
                     dtype=_numpy_dtype_for(dtype_name), device_type=int(tensor.device.device_type),
                     device_id=int(tensor.device.device_id), dtype_name=dtype_name, bits=bits,
                     readonly=readonly, source="dlpack", owner=(producer, capsule))


def _from_cai(obj: Any, cai: Dict[str, Any], stream: Optional[int]) -> ArrayInfo:
    np = _numpy()
    try:
        shape = tuple(int(d) for d in cai["shape"])
        typestr = cai["typestr"]
        data = cai["data"]
    except (KeyError, TypeError) as exc:
        raise LaunchError("malformed __cuda_array_interface__ (%s): %r" % (exc, cai)) from None
    if cai.get("mask") is not None:
        raise LaunchError("masked arrays (__cuda_array_interface__ 'mask') are not supported")
    try:
        dtype = np.dtype(typestr)
    except TypeError:
        raise LaunchError("unsupported __cuda_array_interface__ typestr %r" % (typestr,)) from None
    if not dtype.isnative and dtype.itemsize > 1:
        raise LaunchError("non-native byte order %r is not supported" % (typestr,))
    if data is None:
        ptr, readonly = 0, False
    else:
        ptr, readonly = int(data[0] or 0), bool(data[1])
    byte_strides = cai.get("strides")
    if byte_strides is None:
        strides = _c_strides(shape)
    else:
        strides_list = []
        for s in byte_strides:
            s = int(s)
            if s % dtype.itemsize:
                raise LaunchError("array stride of %d bytes is not a multiple of the element "
                                  "size %d" % (s, dtype.itemsize))
            strides_list.append(s // dtype.itemsize)
        strides = tuple(strides_list)
    producer_stream = cai.get("stream") if int(cai.get("version", 0)) >= 3 else None
    if producer_stream is not None and stream is not None and ptr:
        _wait_for_producer(int(producer_stream), stream)
    name = dtype.name if dtype.kind != "V" else str(dtype)
    return ArrayInfo(ptr=ptr, shape=shape, strides_elems=strides, dtype=dtype,
                     device_type=DL_CUDA, device_id=None, dtype_name=name,
                     bits=dtype.itemsize * 8, readonly=readonly, source="cuda_array_interface",
                     owner=obj)


def _wait_for_producer(producer: int, consumer: int) -> None:
    """__cuda_array_interface__ v3: order ``consumer`` after work queued on ``producer``."""
    if producer == consumer or (producer in (0, 1) and consumer in (0, 1)):
        return
    lib = libcuda()
    get_context()
    event = c_void_p()
    check(lib.cuEventCreate(byref(event), CU_EVENT_DISABLE_TIMING), "cuEventCreate")
    try:
        check(lib.cuEventRecord(event, producer or None), "cuEventRecord")
        check(lib.cuStreamWaitEvent(consumer or None, event, 0), "cuStreamWaitEvent")
    finally:
        lib.cuEventDestroy_v2(event)


def has_array_interface(obj: Any) -> bool:
    """Whether ``obj`` offers ``__dlpack__`` or ``__cuda_array_interface__``.

    Not ``hasattr`` alone: it evaluates a property and lets every exception but
    AttributeError through, and torch's ``__cuda_array_interface__`` raises KeyError for
    float8 tensors (which DLPack describes); :func:`array_info` reports a failing interface.
    """
    if hasattr(obj, "__dlpack__"):
        return True
    try:
        return hasattr(obj, "__cuda_array_interface__")
    except Exception:
        return True


def array_info(obj: Any, *, stream: Any = None) -> ArrayInfo:
    """Describe ``obj``: a :class:`DeviceArray`, an object with
    ``__cuda_array_interface__`` (v2/v3), or one with ``__dlpack__``.

    ``stream`` is the stream the consumer will use: it is passed to ``__dlpack__``
    (CUDA producers only) and used to order after a CAI v3 producer stream. Host arrays
    are described too (device type CPU); :func:`device_pointer` rejects them.
    """
    if isinstance(obj, ArrayInfo):
        return obj
    if isinstance(obj, DeviceArray):
        return obj._info()
    hstream = stream_handle(stream) if stream is not None else None
    cai_error: Optional[BaseException] = None
    try:
        cai = getattr(obj, "__cuda_array_interface__", None)
    except Exception as exc:  # e.g. torch raises TypeError for bfloat16
        cai, cai_error = None, exc
    dlpack = getattr(obj, "__dlpack__", None)
    if cai is not None and not (dlpack is not None and str(cai.get("typestr", ""))[1:2] == "V"):
        return _from_cai(obj, cai, hstream)
    # A void typestr ("<V2": how torch exports bfloat16) names no element type: DLPack does.
    if dlpack is None:
        if cai_error is not None:
            raise LaunchError("%s.__cuda_array_interface__ failed: %s"
                              % (type(obj).__name__, cai_error)) from cai_error
        raise LaunchError("cannot use a %s as an array: it has neither __cuda_array_interface__ "
                          "nor __dlpack__" % type(obj).__name__)
    device_type = None
    dev_fn = getattr(obj, "__dlpack_device__", None)
    if dev_fn is not None:
        try:
            device_type = int(dev_fn()[0])
        except Exception:
            device_type = None
    if device_type in (DL_CUDA, DL_CUDA_MANAGED) and hstream is not None:
        # DLPack: 0 is ambiguous and disallowed; 1 is the legacy default stream.
        capsule = dlpack(stream=hstream if hstream != 0 else 1)
    else:
        capsule = dlpack()
    return _from_capsule(capsule, obj)


def device_pointer(obj: Any, *, stream: Any = None) -> int:
    """The device address of ``obj``'s data; host (CPU) arrays are rejected."""
    if isinstance(obj, int) and not isinstance(obj, bool):
        return obj
    np = _numpy() if "numpy" in sys.modules else None
    if np is not None and isinstance(obj, np.ndarray):
        raise LaunchError(
            "a NumPy array lives in host memory and cannot be passed to a kernel: copy it to "
            "the GPU first (tileir._toolchain.cuda.to_device(array), or a torch/cupy CUDA "
            "tensor)")
    info = array_info(obj, stream=stream)
    if not info.is_cuda_accessible:
        raise LaunchError(
            "a %s array on the %s device cannot be passed to a kernel: it must be in GPU "
            "memory (copy it with tileir._toolchain.cuda.to_device, or use a CUDA tensor)"
            % (type(obj).__name__, info.device_type_name))
    return info.ptr


# --------------------------------------------------------------------------------------
# A minimal device array
# --------------------------------------------------------------------------------------

class DeviceArray:
    """A C-contiguous array in device memory (cuMemAlloc), freed when collected."""

    def __init__(self, shape: Any, dtype: Any):
        np = _numpy()
        if isinstance(shape, int):
            shape = (shape,)
        self.shape: Tuple[int, ...] = tuple(operator.index(d) for d in shape)
        if any(d < 0 for d in self.shape):
            raise ValueError("negative dimension in shape %r" % (self.shape,))
        self.dtype = np.dtype(dtype)
        self._strides_elems = _c_strides(self.shape)
        #: (signature entry, flat parameter values) for tileir.launch's fast path
        self._launch_facts: Any = None
        self.size = math.prod(self.shape)
        self.nbytes = self.size * self.dtype.itemsize
        self.ptr = 0
        self._ctx = 0
        self._free_fn = None
        lib = libcuda()
        ctx = get_context()
        self.device = ctx.device
        self._ctx = ctx.handle
        if self.nbytes:
            dptr = CUdeviceptr()
            check(lib.cuMemAlloc_v2(byref(dptr), self.nbytes),
                  "cuMemAlloc(%d bytes)" % self.nbytes)
            self.ptr = dptr.value
            self._free_fn = lib.cuMemFree_v2

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def strides(self) -> Tuple[int, ...]:
        """Byte strides, as numpy reports them."""
        return tuple(s * self.dtype.itemsize for s in _c_strides(self.shape))

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
                "strides": None, "version": 3, "stream": None}

    def _info(self) -> ArrayInfo:
        return ArrayInfo(ptr=self.ptr, shape=self.shape, strides_elems=self._strides_elems,
                         dtype=self.dtype, device_type=DL_CUDA, device_id=self.device,
                         dtype_name=self.dtype.name, bits=self.dtype.itemsize * 8,
                         source="device_array", owner=self)

    def copy_from_host(self, array: Any) -> "DeviceArray":
        np = _numpy()
        host = np.ascontiguousarray(array, dtype=self.dtype)
        if host.shape != self.shape:
            raise ValueError("shape mismatch: %r into %r" % (host.shape, self.shape))
        if self.nbytes:
            with _InContext(self._ctx):
                check(libcuda().cuMemcpyHtoD_v2(self.ptr, host.ctypes.data, self.nbytes),
                      "cuMemcpyHtoD(%d bytes)" % self.nbytes)
        return self

    def copy_to_host(self) -> Any:
        """A new numpy array with the contents (synchronous copy)."""
        np = _numpy()
        out = np.empty(self.shape, dtype=self.dtype)
        if self.nbytes:
            with _InContext(self._ctx):
                check(libcuda().cuMemcpyDtoH_v2(out.ctypes.data, self.ptr, self.nbytes),
                      "cuMemcpyDtoH(%d bytes)" % self.nbytes)
        return out

    def fill_zero(self) -> "DeviceArray":
        if self.nbytes:
            with _InContext(self._ctx):
                check(libcuda().cuMemsetD8_v2(self.ptr, 0, self.nbytes), "cuMemsetD8")
        return self

    def free(self) -> None:
        """Release the memory now (also done when the array is collected)."""
        ptr, self.ptr = self.ptr, 0
        self._launch_facts = None
        free_fn, self._free_fn = self._free_fn, None
        if not ptr or free_fn is None:
            return
        if sys.is_finalizing():
            return  # the driver may already be shut down; the OS reclaims everything
        try:
            with _InContext(self._ctx):
                free_fn(ptr)
        except Exception:
            pass

    def __del__(self) -> None:
        try:
            self.free()
        except Exception:
            pass

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return "DeviceArray(shape=%r, dtype=%s, ptr=0x%x)" % (self.shape, self.dtype, self.ptr)


def to_device(array: Any) -> DeviceArray:
    """Copy a host (numpy) array to a new :class:`DeviceArray`."""
    np = _numpy()
    host = np.ascontiguousarray(array)
    return DeviceArray(host.shape, host.dtype).copy_from_host(host)


def empty(shape: Any, dtype: Any = "float32") -> DeviceArray:
    """An uninitialised :class:`DeviceArray`."""
    return DeviceArray(shape, dtype)


def zeros(shape: Any, dtype: Any = "float32") -> DeviceArray:
    return DeviceArray(shape, dtype).fill_zero()


# --------------------------------------------------------------------------------------
# Events, synchronisation, copies
# --------------------------------------------------------------------------------------

class Event:
    """A CUDA event for timing (``Event().record(stream)`` ... ``start.elapsed_ms(end)``)."""

    def __init__(self, flags: int = CU_EVENT_DEFAULT):
        lib = libcuda()
        self._ctx = get_context().handle
        handle = c_void_p()
        check(lib.cuEventCreate(byref(handle), int(flags)), "cuEventCreate")
        self.handle = handle.value or 0
        self._destroy = lib.cuEventDestroy_v2

    def record(self, stream: Any = None) -> "Event":
        check(libcuda().cuEventRecord(self.handle, stream_handle(stream) or None), "cuEventRecord")
        return self

    def synchronize(self) -> "Event":
        check(libcuda().cuEventSynchronize(self.handle), "cuEventSynchronize")
        return self

    def elapsed_ms(self, end: "Event") -> float:
        """Milliseconds from this event to ``end`` (both recorded; ``end`` is waited for)."""
        end.synchronize()
        ms = c_float()
        check(libcuda().cuEventElapsedTime(byref(ms), self.handle, end.handle),
              "cuEventElapsedTime")
        return float(ms.value)

    def __del__(self) -> None:
        try:
            handle, self.handle = self.handle, 0
            if handle and not sys.is_finalizing():
                with _InContext(self._ctx):
                    self._destroy(handle)
        except Exception:
            pass


def synchronize(stream: Any = None) -> None:
    """Wait for the current context (or only ``stream``, when given) to finish."""
    lib = libcuda()
    if stream is None:
        get_context()
        check(lib.cuCtxSynchronize(), "cuCtxSynchronize")
    else:
        check(lib.cuStreamSynchronize(stream_handle(stream) or None), "cuStreamSynchronize")


def memcpy_dtod(dst: Any, src: Any, nbytes: int, stream: Any = None) -> None:
    """Asynchronous device-to-device copy of ``nbytes`` (addresses or arrays)."""
    lib = libcuda()
    hstream = stream_handle(stream)
    get_context()
    d = device_pointer(dst, stream=stream)
    s = device_pointer(src, stream=stream)
    check(lib.cuMemcpyDtoDAsync_v2(d, s, int(nbytes), hstream or None),
          "cuMemcpyDtoDAsync(%d bytes)" % int(nbytes))
