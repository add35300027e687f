"""The kernel-side API: what kernels call (``ct.bid``, ``ct.load``, …), dtypes, enums and
annotations. Calling these outside a kernel is an error: the front end recognizes them
in a kernel's source and translates them to cuda_tile ops."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

__all__ = [
    "DType", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "tfloat32", "float8_e4m3fn", "float8_e5m2",
    "PaddingMode", "Constant", "bid", "num_blocks", "load", "store", "cdiv",
]


@dataclass(frozen=True)
class DType:
    """A tile element type: its cuTile name and its cuda_tile element keyword."""

    name: str
    ir: str
    bits: int
    is_float: bool

    def __repr__(self) -> str:
        return f"tileir.{self.name}"


bool_ = DType("bool_", "i1", 8, False)
int8 = DType("int8", "i8", 8, False)
int16 = DType("int16", "i16", 16, False)
int32 = DType("int32", "i32", 32, False)
int64 = DType("int64", "i64", 64, False)
uint8 = DType("uint8", "i8", 8, False)
uint16 = DType("uint16", "i16", 16, False)
uint32 = DType("uint32", "i32", 32, False)
uint64 = DType("uint64", "i64", 64, False)
float16 = DType("float16", "f16", 16, True)
bfloat16 = DType("bfloat16", "bf16", 16, True)
float32 = DType("float32", "f32", 32, True)
float64 = DType("float64", "f64", 64, True)
tfloat32 = DType("tfloat32", "tf32", 32, True)
float8_e4m3fn = DType("float8_e4m3fn", "f8E4M3FN", 8, True)
float8_e5m2 = DType("float8_e5m2", "f8E5M2", 8, True)

_NUMPY_TO_DTYPE = {
    np.dtype(np.bool_): bool_,
    np.dtype(np.int8): int8, np.dtype(np.int16): int16, np.dtype(np.int32): int32, np.dtype(np.int64): int64,
    np.dtype(np.uint8): uint8, np.dtype(np.uint16): uint16, np.dtype(np.uint32): uint32, np.dtype(np.uint64): uint64,
    np.dtype(np.float16): float16, np.dtype(np.float32): float32, np.dtype(np.float64): float64,
}


def dtype_of(obj: Any) -> DType | None:
    """The DType for a NumPy dtype, a torch dtype, a DType, or a dtype name."""
    if isinstance(obj, DType):
        return obj
    try:
        return _NUMPY_TO_DTYPE.get(np.dtype(obj))
    except TypeError:
        pass
    name = str(obj).replace("torch.", "")
    aliases = {"bfloat16": bfloat16, "float16": float16, "half": float16, "float32": float32, "float": float32,
               "float64": float64, "double": float64, "int8": int8, "int16": int16, "int32": int32,
               "int64": int64, "uint8": uint8, "bool": bool_}
    return aliases.get(name)


class PaddingMode(enum.Enum):
    """Value read for elements of a tile that fall outside the array."""

    UNDETERMINED = None
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


T = TypeVar("T")


class Constant(Generic[T]):
    """Annotation of a kernel parameter whose value is a compile-time constant:
    ``TILE: ct.Constant[int]``. Each distinct value compiles its own specialization."""


def _kernel_only(name: str):
    def stub(*args, **kwargs):
        raise TypeError(f"tileir.{name}() can only be used inside a @tileir.kernel function")

    stub.__name__ = name
    stub.__qualname__ = name
    stub.__doc__ = f"Kernel-side operation ``{name}``; translated by the front end."
    return stub


bid = _kernel_only("bid")
num_blocks = _kernel_only("num_blocks")
load = _kernel_only("load")
store = _kernel_only("store")


def cdiv(a: int, b: int) -> int:
    """Ceiling division (host side, and on constants in kernels)."""
    return -(-a // b)
