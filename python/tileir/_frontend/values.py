"""Compile-time values of the kernel language: what a name in a kernel can stand for.

A kernel's variables hold either ordinary Python objects (loosely typed numbers, tuples,
dtypes, enums, functions, dataclass instances: all compile-time constants) or the values
below, which stand for cuda_tile SSA values in the module being built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from .. import _api


def tile_type_text(shape: Tuple[int, ...], dtype: _api.DType) -> str:
    """``tile<4x8xf32>`` for shape (4, 8) and float32."""
    return "tile<" + "".join(f"{d}x" for d in shape) + dtype.ir + ">"


class Tile:
    """A tile in a kernel: an immutable value with a constant shape (each dimension a power
    of two) and a dtype. A 0-d tile is a scalar. ``handle`` is the native value."""

    __slots__ = ("handle", "shape", "dtype", "value")

    def __init__(self, handle: int, shape: Tuple[int, ...], dtype: _api.DType):
        self.handle = handle
        self.shape = tuple(shape)
        self.dtype = dtype
        #: The value of a 0-d strictly typed constant (``ct.float32(0.1)``) as written (the
        #: dtype rounds it); None otherwise. cuTile folds operations on such constants with Python's
        #: semantics (``//`` and ``%`` included), so the front end must know them.
        self.value = None

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    def type_text(self) -> str:
        """The cuda_tile type of the value."""
        return tile_type_text(self.shape, self.dtype)

    def same_type(self, other: "Tile") -> bool:
        """Same shape and dtype."""
        return self.shape == other.shape and self.dtype == other.dtype

    def __repr__(self) -> str:
        return f"Tile({self.dtype.name}, shape={self.shape})"

    def __bool__(self):
        raise TypeError("the truth value of a tile is only known at run time")


#: A scalar is a 0-d tile (cuTile's ``Scalar``).
Scalar = Tile


@dataclass
class Array:
    """An array in global memory (a kernel parameter or a slice of one): base pointer,
    shape and strides (runtime int32 scalars, or Python ints where constant) and its
    tensor view."""

    name: str
    dtype: _api.DType
    ptr: int
    shape: Tuple[Any, ...]
    strides: Tuple[Any, ...]
    view: int
    view_type: str
    tensor_type: str = ""
    views: Dict[Any, Tuple[int, str]] = field(default_factory=dict)

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    def __repr__(self) -> str:
        return f"Array({self.name}, {self.dtype.name}, ndim={self.ndim})"


@dataclass
class TiledView:
    """``array.tiled_view(tile_shape, padding_mode=…, traversal_steps=…)``: the array seen
    as a grid of tiles."""

    array: Array
    tile_shape: Tuple[int, ...]
    padding_mode: Any
    traversal_steps: Optional[Tuple[int, ...]]
    view: int
    view_type: str

    @property
    def dtype(self) -> _api.DType:
        """Element dtype."""
        return self.array.dtype


@dataclass
class RawMemory:
    """``array.get_raw_memory()``: the array's elements addressed by offset from its base
    pointer (methods in ``tileir._api.RawArrayMemory``)."""

    array: Array

    @property
    def dtype(self) -> _api.DType:
        """Element dtype."""
        return self.array.dtype


@dataclass(frozen=True)
class Undefined:
    """A variable assigned on only some paths (one branch of a runtime ``if``, or only
    inside a loop body): using it is an error."""

    name: str
    why: str


@dataclass
class BoundMember:
    """``tile.reshape``, ``array.slice``… : a method of a kernel value, not yet called."""

    obj: Any
    name: str


@dataclass
class FString:
    """An f-string argument of ``print``: formatted on the device (run-time values become
    printf conversions)."""

    node: Any


@dataclass
class ArrayList:
    """A list-of-arrays kernel parameter: a view of its records (one row of int64 words per
    array: base address, shapes, strides) and its run-time length. ``lst[i]`` loads row
    ``i`` and makes an :class:`Array` of it; ``len(lst)`` is the length."""

    name: str
    #: the facts every element shares (a ``specialize.ArraySpec``)
    element: Any
    length: Tile
    #: the partition view over the records, one (1 x words rounded up to a power of two) tile
    #: per array
    view: int
    view_type: str

    @property
    def dtype(self) -> _api.DType:
        """Element arrays' dtype."""
        return self.element.dtype

    @property
    def ndim(self) -> int:
        """Element arrays' rank."""
        return self.element.ndim

    def __repr__(self) -> str:
        return f"ArrayList({self.name}, {self.dtype.name}, ndim={self.ndim})"
