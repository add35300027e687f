"""The reference interpreter: runs cuda_tile IR on the CPU, exactly as the specification
defines it, on NumPy arrays (in place).

    >>> import numpy as np, tileir.ir, tileir.interpreter
    >>> m = tileir.ir.parse(text)
    >>> out = tileir.interpreter.run_module(m, "vadd", grid=(4,), args=(a, b, c))

Tiles execute as whole-array operations in Rust with the GIL released. Blocks run in a
deterministic order (x fastest) unless ``shuffle=seed`` asks for a seeded random order, which
exposes kernels that depend on block order (and implies race checking); ``detect_races=True``
reports data races: a byte one block writes and another block reads or writes, or one block
accesses plainly while another updates it atomically (the report names both blocks, the
argument and the element); faults raise :class:`tileir.errors.InterpreterError` with the
op's location.

Arrays for ``tile<ptr<f4E2M1FN>>`` parameters are raw bytes (e.g. ``uint8``) holding two
elements per byte, the element with the lower index in the low nibble.
"""

from __future__ import annotations

import re
import struct
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _native, errors

__all__ = ["run_module"]

_NUMPY_OF = {
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}


def _scalar_bits(elem: str, value: Any) -> int:
    """Bit pattern of ``value`` as element type ``elem`` (integers wrap, floats round to nearest)."""
    if elem.startswith("i"):
        width = int(elem[1:])
        if isinstance(value, (float, np.floating)):
            raise TypeError(f"an integer parameter ({elem}) got the float {value!r}")
        return int(value) & ((1 << width) - 1)
    if elem == "f64":
        return struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    if elem == "f32":
        return struct.unpack("<I", struct.pack("<f", float(value)))[0]
    if elem == "f16":
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    if elem == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
            return 0x7FC0
        # Round to nearest even on the 16 dropped bits.
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    raise TypeError(f"scalar parameters of type {elem} are not supported by the interpreter binding")


def _as_array(value: Any, what: str) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    raise TypeError(f"{what}: expected a NumPy array, got {type(value).__name__}")


def run_module(module: "_native.Module", entry: str, grid: Sequence[int], args: Sequence[Any], *,
               shuffle: Optional[int] = None, parallel: bool = False, detect_races: bool = False,
               check_assumes: bool = False) -> str:
    """Runs ``entry`` of ``module`` over ``grid`` (1 to 3 ints) with explicit arguments, one per
    entry parameter: a NumPy array for a ``tile<ptr<T>>`` parameter (its dtype must be ``T``;
    arrays are written back in place), a Python or NumPy number for a scalar parameter.
    Returns what the kernel printed."""
    params = module.entry_params(entry)
    if len(args) != len(params):
        raise TypeError(f"entry '{entry}' takes {len(params)} argument(s) ({', '.join(params)}), got {len(args)}")
    g = tuple(int(x) for x in grid) + (1,) * (3 - len(tuple(grid)))
    if len(g) != 3 or any(x < 1 for x in g):
        raise ValueError(f"grid must be 1 to 3 positive ints, got {tuple(grid)!r}")
    buffers, owners, specs = [], [], []
    for i, (param, value) in enumerate(zip(params, args)):
        ptr = re.fullmatch(r"tile<ptr<(\w+)>>", param)
        scalar = re.fullmatch(r"tile<(\w+)>", param)
        if ptr:
            arr = _as_array(value, f"argument #{i} ({param})")
            want = _NUMPY_OF.get(ptr.group(1))
            if want is not None and arr.dtype != np.dtype(want):
                raise TypeError(f"argument #{i} ({param}) needs dtype {np.dtype(want)}, got {arr.dtype}")
            if not arr.flags.c_contiguous:
                raise ValueError(f"argument #{i}: the interpreter binding needs C-contiguous arrays")
            index = next((k for k, o in enumerate(owners) if o is arr), None)
            if index is None:
                index = len(buffers)
                owners.append(arr)
                # A byte view of the array itself (no copy): the native side reads it, and
                # writes it back when the kernel wrote to it, in pieces. Read-only arrays go
                # as bytes (a view of them cannot be assigned to).
                flat = arr.reshape(-1).view(np.uint8)
                buffers.append(flat if arr.flags.writeable else arr.tobytes())
            specs.append(("ptr", index, 0))
        elif scalar:
            specs.append(("scalar", scalar.group(1), _scalar_bits(scalar.group(1), value)))
        else:
            raise TypeError(f"argument #{i}: parameters of type {param} are not supported by the interpreter binding")
    output, results = _native.interpret(module, entry, g, buffers, specs, shuffle, parallel, detect_races,
                                        check_assumes, only_written=True)
    for arr, data in zip(owners, results):
        # None: the kernel never wrote to this buffer, or it was written back in place.
        if data is not None:
            arr[...] = np.frombuffer(data, dtype=arr.dtype).reshape(arr.shape)
    return output
