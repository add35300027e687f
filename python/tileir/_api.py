"""The kernel-side API: what kernels call (``ct.bid``, ``ct.load``, …), dtypes, enums,
annotations and exception classes, with cuTile Python's names, signatures and defaults.

The operations are stubs: calling one outside a kernel raises ``TypeError``. The front end
recognizes them in a kernel's source, binds the call against the stub's signature (so
argument names, keyword-only markers and defaults are exactly the ones written here) and
lowers it to cuda_tile ops.
"""

from __future__ import annotations

import enum
import inspect
from dataclasses import dataclass
from typing import Any, Dict, Generic, Optional, TypeVar

import numpy as np

from .errors import FrontendError


# ------------------------------------------------------------------------------------------
# dtypes
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DType:
    """A tile element type: its cuTile name and its cuda_tile element keyword.

    ``kind`` is ``"b"`` (bool), ``"i"`` (signed), ``"u"`` (unsigned) or ``"f"`` (float);
    ``restricted`` floats (tf32, fp8, fp4) are only valid as MMA inputs and in conversions.
    Calling a dtype in a kernel (``ct.int16(5)``) makes a strictly typed constant.
    """

    name: str
    ir: str
    bits: int
    kind: str
    restricted: bool = False

    @property
    def is_float(self) -> bool:
        """True for floating-point dtypes."""
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        """True for signed and unsigned integers (not bool)."""
        return self.kind in "iu"

    @property
    def is_signed(self) -> bool:
        """True for signed integers."""
        return self.kind == "i"

    @property
    def is_bool(self) -> bool:
        """True for ``bool_``."""
        return self.kind == "b"

    @property
    def itemsize(self) -> int:
        """Bytes per element in memory (fp4: 1, two elements share a byte)."""
        return max(self.bits // 8, 1)

    def __call__(self, value: Any) -> Any:
        raise TypeError(f"tileir.{self.name}(value) makes a typed constant inside a @tileir.kernel function only")

    def __repr__(self) -> str:
        return f"tileir.{self.name}"


bool_ = DType("bool_", "i1", 8, "b")
int8 = DType("int8", "i8", 8, "i")
int16 = DType("int16", "i16", 16, "i")
int32 = DType("int32", "i32", 32, "i")
int64 = DType("int64", "i64", 64, "i")
uint8 = DType("uint8", "i8", 8, "u")
uint16 = DType("uint16", "i16", 16, "u")
uint32 = DType("uint32", "i32", 32, "u")
uint64 = DType("uint64", "i64", 64, "u")
float16 = DType("float16", "f16", 16, "f")
bfloat16 = DType("bfloat16", "bf16", 16, "f")
float32 = DType("float32", "f32", 32, "f")
float64 = DType("float64", "f64", 64, "f")
tfloat32 = DType("tfloat32", "tf32", 32, "f", True)
float8_e4m3fn = DType("float8_e4m3fn", "f8E4M3FN", 8, "f", True)
float8_e5m2 = DType("float8_e5m2", "f8E5M2", 8, "f", True)
float8_e8m0fnu = DType("float8_e8m0fnu", "f8E8M0FNU", 8, "f", True)
#: cuda_tile (13.3) has no E5M3 element type: tiles of it are rejected with a clear error.
float8_e5m3fnu = DType("float8_e5m3fnu", "f8E5M3FNU", 8, "f", True)
float4_e2m1fn = DType("float4_e2m1fn", "f4E2M1FN", 4, "f", True)

ALL_DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32,
              float64, tfloat32, float8_e4m3fn, float8_e5m2, float8_e8m0fnu, float8_e5m3fnu, float4_e2m1fn)
_BY_NAME: Dict[str, DType] = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({"bool": bool_, "half": float16, "float": float32, "double": float64, "float8_e4m3fn": float8_e4m3fn,
                 "float8_e5m2": float8_e5m2, "float8_e8m0fnu": float8_e8m0fnu, "float4_e2m1fn_x2": float4_e2m1fn,
                 "float8_e5m3fnu": float8_e5m3fnu})

_NUMPY_TO_DTYPE = {
    np.dtype(np.bool_): bool_,
    np.dtype(np.int8): int8, np.dtype(np.int16): int16, np.dtype(np.int32): int32, np.dtype(np.int64): int64,
    np.dtype(np.uint8): uint8, np.dtype(np.uint16): uint16, np.dtype(np.uint32): uint32, np.dtype(np.uint64): uint64,
    np.dtype(np.float16): float16, np.dtype(np.float32): float32, np.dtype(np.float64): float64,
}


def dtype_of(obj: Any) -> Optional[DType]:
    """The DType for a tileir dtype, a NumPy dtype (or scalar type), a torch dtype, an
    ml_dtypes dtype, or a dtype name; None if there is none."""
    if isinstance(obj, DType):
        return obj
    if obj is None:
        return None  # np.dtype(None) is float64: no dtype must not read as one
    if obj is bool:
        return bool_
    if obj is int:
        return int32
    if obj is float:
        return float32
    if isinstance(obj, str):
        return _BY_NAME.get(obj)
    mod = type(obj).__module__ or ""
    if mod.startswith("torch"):
        return _BY_NAME.get(str(obj).replace("torch.", ""))
    try:
        npd = np.dtype(obj)
    except (TypeError, ValueError):
        return _BY_NAME.get(str(obj).replace("torch.", ""))
    hit = _NUMPY_TO_DTYPE.get(npd)
    if hit is not None:
        return hit
    return _BY_NAME.get(npd.name)  # ml_dtypes: bfloat16, float8_e4m3fn, ...


# ------------------------------------------------------------------------------------------
# enums, annotations, helpers
# ------------------------------------------------------------------------------------------

class PaddingMode(enum.Enum):
    """Value read for elements of a tile that fall outside the array."""

    UNDETERMINED = None
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


class RoundingMode(enum.Enum):
    """Rounding of arithmetic and conversions (cuda_tile keyword as the value)."""

    RN = "nearest_even"
    RZ = "zero"
    RM = "negative_inf"
    RP = "positive_inf"
    RA = "away_from_zero"
    FULL = "full"
    APPROX = "approx"
    RZI = "nearest_int_to_zero"


class MemoryOrder(enum.Enum):
    """Memory ordering of loads, stores and atomics."""

    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"


class MemoryScope(enum.Enum):
    """Scope of memory ordering: which threads observe it."""

    NONE = None
    BLOCK = "tl_blk"
    CLUSTER = "cluster"
    DEVICE = "device"
    SYS = "sys"


T = TypeVar("T")


class ConstantAnnotation:
    """Metadata marking a parameter as compile-time constant (``Constant[int]``)."""

    def __repr__(self) -> str:
        return "ConstantAnnotation()"


class Constant(Generic[T]):
    """Annotation of a kernel parameter whose value is a compile-time constant:
    ``TILE: ct.Constant[int]``. Each distinct value compiles its own specialization, and
    the parameter is left out of the kernel's ABI."""


@dataclass(frozen=True)
class ArrayAnnotation:
    """Per-array specialization choices: index dtype (int32 or int64)."""

    index_dtype: Any = None
    static_shape_dims: tuple = ()
    static_stride_dims: tuple = ()


#: Shorthand for ``ArrayAnnotation(index_dtype=int64)``.
IndexedWithInt64 = ArrayAnnotation(index_dtype=int64)


class ScalarInt64:
    """Annotation: an integer scalar parameter passed as int64 (default int32)."""


@dataclass(frozen=True)
class ListAnnotation:
    """Per-element annotation of a list-of-arrays parameter:
    ``Annotated[list, ListAnnotation(element=IndexedWithInt64)]`` passes the elements' shapes
    and strides as int64."""

    element: Any = None


class ByTarget:
    """A value chosen per GPU architecture: ``ByTarget(default=1, sm_100=2)``."""

    def __init__(self, default: Any = None, **per_target: Any):
        for k in per_target:
            if not k.startswith("sm_"):
                raise ValueError(f"ByTarget keys are sm_XX targets, got '{k}'")
        self.default = default
        self.per_target = dict(per_target)

    def resolve(self, target: str) -> Any:
        """The value for ``target`` (``sm_90a`` looks up ``sm_90``)."""
        t = target[:-1] if target.endswith("a") else target
        return self.per_target.get(t, self.default)

    def items(self):
        """(key, value) pairs, ``default`` first when set."""
        out = []
        if self.default is not None:
            out.append(("default", self.default))
        out.extend(sorted(self.per_target.items()))
        return out

    def __eq__(self, other):
        return isinstance(other, ByTarget) and (self.default, self.per_target) == (other.default, other.per_target)

    def __hash__(self):
        return hash((self.default, tuple(sorted(self.per_target.items()))))

    def __repr__(self) -> str:
        parts = ([f"default={self.default!r}"] if self.default is not None else []) + \
            [f"{k}={v!r}" for k, v in sorted(self.per_target.items())]
        return f"ByTarget({', '.join(parts)})"


@dataclass(frozen=True)
class Slice:
    """``Slice(start, length)``: a run of ``length`` (constant) elements from ``start``,
    used by advanced indexing."""

    start: Any
    length: int


def cdiv(a: int, b: int) -> int:
    """Ceiling division (host side, and in kernels)."""
    return -(-a // b)


def function(fn=None, /, *, host: bool = False, tile: bool = True):
    """Declares where a helper runs. Plain helpers are inlined into kernels anyway."""
    if fn is None:
        return lambda f: f
    return fn


# ------------------------------------------------------------------------------------------
# exceptions (cuTile's names; all are tileir FrontendErrors)
# ------------------------------------------------------------------------------------------

class TileError(FrontendError):
    """Base class of the errors a kernel's source can cause."""


class TileSyntaxError(TileError):
    """Python syntax the kernel language does not accept."""


class TileTypeError(TileError):
    """Operand types that do not fit an operation."""


class TileValueError(TileError):
    """An argument value out of range (shapes, axes, constants)."""


class TileUnsupportedFeatureError(TileError):
    """A feature tileir does not implement (yet)."""


class TileStaticAssertionError(TileError):
    """A ``static_assert`` failed."""


class TileStaticEvalError(TileError):
    """A ``static_eval`` expression raised."""


class TileRecursionError(TileError):
    """Helpers that call themselves (inlining would not end)."""


class TileInternalError(TileError):
    """A bug in the front end."""


class TileCompilerExecutionError(TileError):
    """The backend compiler failed."""


class TileCompilerTimeoutError(TileError):
    """The backend compiler ran out of time."""


# ------------------------------------------------------------------------------------------
# kernel-side operations: stubs with cuTile's signatures
# ------------------------------------------------------------------------------------------

_U = PaddingMode.UNDETERMINED
_W = MemoryOrder.WEAK
_SN = MemoryScope.NONE
_AR = MemoryOrder.ACQ_REL
_DEV = MemoryScope.DEVICE

#: name -> stub, every kernel-side operation.
OPS: Dict[str, Any] = {}


def _op(fn):
    def stub(*args, **kwargs):
        raise TypeError(f"tileir.{fn.__name__}() can only be used inside a @tileir.kernel function")

    stub.__name__ = fn.__name__
    stub.__qualname__ = fn.__name__
    stub.__doc__ = fn.__doc__ or f"Kernel-side operation ``{fn.__name__}``."
    stub.__signature__ = inspect.signature(fn)
    stub.__wrapped_op__ = True
    OPS[fn.__name__] = stub
    return stub


# Load/store and indexing (9)
@_op
def bid(axis):
    """Index of this tile block along grid axis 0, 1 or 2 (int32)."""
@_op
def num_blocks(axis):
    """Number of tile blocks along grid axis 0, 1 or 2 (int32)."""
@_op
def num_tiles(array, /, axis, shape, order="C"):
    """Number of tiles of ``shape`` along ``axis`` of ``array`` (``cdiv(dim, tile)``)."""
@_op
def load(array, /, index, shape, *, padding_mode=_U, order="C", check_bounds=True, latency=None, allow_tma=None,
         memory_order=_W, memory_scope=_SN):
    """Loads tile number ``index`` of ``array`` split into tiles of ``shape``."""
@_op
def store(array, /, index, tile, *, order="C", check_bounds=True, latency=None, allow_tma=None, memory_order=_W,
          memory_scope=_SN):
    """Stores ``tile`` as tile number ``index`` of ``array``; out-of-bounds elements are masked."""
@_op
def load_advanced_indexing(array, indices, /, *, padding_mode=_U, latency=None, allow_tma=None):
    """Loads with one dimension indexed by a 1-D integer tile, the others by ``Slice``."""
@_op
def store_advanced_indexing(array, indices, tile, /, *, latency=None, allow_tma=None):
    """Stores with one dimension indexed by a 1-D integer tile, the others by ``Slice``."""
@_op
def gather(array, indices, /, *, mask=None, padding_value=0, check_bounds=True, latency=None):
    """Element-wise gather; out-of-bounds or masked lanes read ``padding_value``."""
@_op
def scatter(array, indices, value, /, *, mask=None, check_bounds=True, latency=None):
    """Element-wise scatter; out-of-bounds or masked lanes are skipped."""


# Factories (5)
@_op
def arange(size, /, *, dtype, start=0, step=1):
    """``[start, start+step, …]`` with ``size`` (a constant power of two) elements."""
@_op
def full(shape, fill_value, dtype):
    """A tile of ``shape`` filled with ``fill_value``."""
@_op
def zeros(shape, dtype):
    """A tile of zeros."""
@_op
def ones(shape, dtype):
    """A tile of ones."""
@_op
def astile(value, /, *, dtype=None):
    """A scalar or nested tuple of scalars as a tile."""


# Shape and dtype (10)
@_op
def cat(tiles, /, axis):
    """Concatenates a pair of tiles along ``axis``."""
@_op
def broadcast_to(x, /, shape):
    """NumPy broadcasting to ``shape``."""
@_op
def expand_dims(x, /, axis):
    """Inserts a size-1 axis."""
@_op
def reshape(x, /, shape):
    """Same elements, new shape (row-major)."""
@_op
def permute(x, /, axes):
    """Permutes the axes."""
@_op
def transpose(x, /, axis0=None, axis1=None):
    """Swaps two axes (both may be omitted for 2-D tiles)."""
@_op
def astype(x, dtype, /, *, rounding_mode=None):
    """Converts to ``dtype``."""
@_op
def bitcast(x, /, dtype):
    """Reinterprets the bits as ``dtype`` (same width)."""
@_op
def pack_to_bytes(x, /):
    """Flattens into a 1-D uint8 tile of the raw bytes."""
@_op
def unpack_from_bytes(x, /, dtype):
    """Inverse of ``pack_to_bytes``."""


# Reductions (7)
@_op
def sum(x, /, axis=None, *, keepdims=False, rounding_mode=None, flush_to_zero=False):
    """Sum over ``axis`` (all axes when None)."""
@_op
def prod(x, /, axis=None, *, keepdims=False, rounding_mode=None, flush_to_zero=False):
    """Product over ``axis``."""
@_op
def max(x, /, axis=None, *, keepdims=False, flush_to_zero=False, propagate_nan=False):
    """Maximum over ``axis``."""
@_op
def min(x, /, axis=None, *, keepdims=False, flush_to_zero=False, propagate_nan=False):
    """Minimum over ``axis``."""
@_op
def argmax(x, /, axis=None, *, keepdims=False, propagate_nan=False):
    """Index of the maximum (the first one) over ``axis``."""
@_op
def argmin(x, /, axis=None, *, keepdims=False, propagate_nan=False):
    """Index of the minimum (the first one) over ``axis``."""
@_op
def reduce(x, /, axis, func, identity, *, keepdims=False):
    """Custom reduction with combiner ``func`` (tiles or tuples of tiles)."""


# Scans (3)
@_op
def cumsum(x, /, axis=0, *, reverse=False, rounding_mode=None, flush_to_zero=False):
    """Inclusive prefix sum."""
@_op
def cumprod(x, /, axis=0, *, reverse=False, rounding_mode=None, flush_to_zero=False):
    """Inclusive prefix product."""
@_op
def scan(x, /, axis, func, identity, *, reverse=False):
    """Custom inclusive scan."""


# Matmul (3)
@_op
def mma(x, y, /, acc, *, use_fast_acc=False):
    """``x @ y + acc`` in the accumulator's dtype (no promotion)."""
@_op
def mma_scaled(x, x_scale, y, y_scale, /, acc):
    """Block-scaled ``x @ y + acc``."""
@_op
def matmul(x, y, /):
    """Matrix product of 1-D to 3-D tiles (also ``@``)."""


# Selection (3)
@_op
def where(cond, x, y, /):
    """Element-wise ``x if cond else y``."""
@_op
def extract(x, /, index, shape):
    """Sub-tile number ``index`` of shape ``shape``."""
@_op
def insert(x, /, index, value):
    """``x`` with sub-tile number ``index`` replaced by ``value``."""


# Math (29)
@_op
def add(x, y, /, *, rounding_mode=None, flush_to_zero=False):
    """``x + y``."""
@_op
def sub(x, y, /, *, rounding_mode=None, flush_to_zero=False):
    """``x - y``."""
@_op
def mul(x, y, /, *, rounding_mode=None, flush_to_zero=False):
    """``x * y``."""
@_op
def truediv(x, y, /, *, rounding_mode=None, flush_to_zero=False):
    """``x / y``."""
@_op
def floordiv(x, y, /):
    """``x // y``."""
@_op
def cdiv_(x, y, /):
    """Ceiling division (kernel side; see ``cdiv``)."""
@_op
def pow(x, y, /):
    """``x ** y``."""
@_op
def atan2(x1, x2, /):
    """Arc tangent of ``x1 / x2`` in the right quadrant."""
@_op
def mod(x, y, /):
    """``x % y`` (sign of the divisor, like Python)."""
@_op
def divmod(x, y, /):
    """``(x // y, x % y)`` for integers."""
@_op
def minimum(x, y, /, *, flush_to_zero=False, propagate_nan=False):
    """Element-wise minimum."""
@_op
def maximum(x, y, /, *, flush_to_zero=False, propagate_nan=False):
    """Element-wise maximum."""
@_op
def negative(x, /):
    """``-x``."""
@_op
def abs(x, /):
    """``|x|``."""
@_op
def isnan(x, /):
    """True where ``x`` is NaN."""
@_op
def exp(x, /, *, rounding_mode=None):
    """e**x (rounding_mode FULL or APPROX)."""
@_op
def exp2(x, /, *, flush_to_zero=False):
    """2**x."""
@_op
def log(x, /):
    """Natural logarithm."""
@_op
def log2(x, /):
    """Base-2 logarithm."""
@_op
def sqrt(x, /, *, rounding_mode=None, flush_to_zero=False):
    """Square root."""
@_op
def rsqrt(x, /, *, flush_to_zero=False):
    """1 / sqrt(x)."""
@_op
def sin(x, /):
    """Sine."""
@_op
def cos(x, /):
    """Cosine."""
@_op
def tan(x, /):
    """Tangent."""
@_op
def sinh(x, /):
    """Hyperbolic sine."""
@_op
def cosh(x, /):
    """Hyperbolic cosine."""
@_op
def tanh(x, /, *, rounding_mode=None):
    """Hyperbolic tangent."""
@_op
def floor(x, /):
    """Round toward negative infinity."""
@_op
def ceil(x, /):
    """Round toward positive infinity."""


# Bitwise (6)
@_op
def bitwise_and(x, y, /):
    """``x & y``."""
@_op
def bitwise_or(x, y, /):
    """``x | y``."""
@_op
def bitwise_xor(x, y, /):
    """``x ^ y``."""
@_op
def bitwise_lshift(x, y, /):
    """``x << y``."""
@_op
def bitwise_rshift(x, y, /):
    """``x >> y`` (arithmetic for signed, logical for unsigned)."""
@_op
def bitwise_not(x, /):
    """``~x``."""


# Comparison (6)
@_op
def greater(x, y, /):
    """``x > y``."""
@_op
def greater_equal(x, y, /):
    """``x >= y``."""
@_op
def less(x, y, /):
    """``x < y``."""
@_op
def less_equal(x, y, /):
    """``x <= y``."""
@_op
def equal(x, y, /):
    """``x == y``."""
@_op
def not_equal(x, y, /):
    """``x != y``."""


# Atomics (8)
@_op
def atomic_cas(array, indices, expected, desired, /, *, check_bounds=True, memory_order=_AR, memory_scope=_DEV):
    """Compare-and-swap at gather-style ``indices``; returns the old values."""
@_op
def atomic_xchg(array, indices, update, /, *, check_bounds=True, memory_order=_AR, memory_scope=_DEV):
    """Exchange; returns the old values."""
@_op
def atomic_add(array, indices, update, /, *, check_bounds=True, memory_order=_AR, memory_scope=_DEV):
    """Atomic add; returns the old values."""
@_op
def atomic_max(array, indices, update, /, *, check_bounds=True, memory_order=_AR, memory_scope=_DEV):
    """Atomic maximum; returns the old values."""
@_op
def atomic_min(array, indices, update, /, *, check_bounds=True, memory_order=_AR, memory_scope=_DEV):
    """Atomic minimum; returns the old values."""
@_op
def atomic_and(array, indices, update, /, *, check_bounds=True, memory_order=_AR, memory_scope=_DEV):
    """Atomic and; returns the old values."""
@_op
def atomic_or(array, indices, update, /, *, check_bounds=True, memory_order=_AR, memory_scope=_DEV):
    """Atomic or; returns the old values."""
@_op
def atomic_xor(array, indices, update, /, *, check_bounds=True, memory_order=_AR, memory_scope=_DEV):
    """Atomic xor; returns the old values."""


# Utility (6)
@_op
def printf(format, /, *args):
    """C-style formatted device print."""
@_op
def print(*args, sep=" ", end="\n"):
    """Python-style device print (f-strings allowed)."""
@_op
def assert_(cond, /, message=None):
    """Checks that every element of ``cond`` is true."""
@_op
def assume_divisible_by(x, divisor, /):
    """Promises that ``x`` is a multiple of ``divisor`` (not checked)."""
@_op
def grid_dependency_control_wait():
    """Programmatic dependent launch: wait for the previous grid."""
@_op
def grid_dependency_control_launch_dependents():
    """Programmatic dependent launch: let the next grid start."""


# Metaprogramming (4)
@_op
def static_eval(expr, /):
    """Evaluates ``expr`` as ordinary Python at compile time."""
@_op
def static_assert(cond, msg=None, /):
    """A compile-time assertion."""
@_op
def static_iter(iterable, /):
    """Iterates a compile-time iterable; the loop is unrolled."""
@_op
def ensure_constant(v, /):
    """Fails to compile unless ``v`` is a compile-time constant."""


# ------------------------------------------------------------------------------------------
# RawArrayMemory: the methods of ``Array.get_raw_memory()`` (signature stubs)
# ------------------------------------------------------------------------------------------

def _method(fn):
    def stub(*args, **kwargs):
        raise TypeError(f"RawArrayMemory.{fn.__name__}() can only be used inside a @tileir.kernel function")

    stub.__name__ = fn.__name__
    stub.__qualname__ = f"RawArrayMemory.{fn.__name__}"
    stub.__doc__ = fn.__doc__
    stub.__signature__ = inspect.signature(fn)
    return stub


class RawArrayMemory:
    """What ``array.get_raw_memory()`` gives in a kernel (cuTile's undocumented escape
    hatch): the array's elements addressed by element offsets from its base pointer, with
    no bounds checks. Offsets are integer scalars or tiles; results have the offsets' shape;
    ``mask`` (broadcast to that shape) turns lanes off."""

    @_method
    def load_offset(self, offset, /, *, mask=None, padding_value=0, latency=None):
        """Loads ``base[offset]``; masked-off lanes read ``padding_value``."""

    @_method
    def store_offset(self, offset, value, /, *, mask=None, latency=None):
        """Stores ``value`` (broadcast to the offsets' shape) at ``base[offset]``."""

    @_method
    def atomic_cas_offset(self, offset, expected, desired, /, *, mask=None, memory_order=_AR, memory_scope=_DEV):
        """Compare-and-swap at ``base[offset]``; returns the old values."""

    @_method
    def atomic_xchg_offset(self, offset, update, /, *, mask=None, memory_order=_AR, memory_scope=_DEV):
        """Exchange at ``base[offset]``; returns the old values."""

    @_method
    def atomic_add_offset(self, offset, update, /, *, mask=None, memory_order=_AR, memory_scope=_DEV):
        """Atomic add at ``base[offset]``; returns the old values."""

    @_method
    def atomic_max_offset(self, offset, update, /, *, mask=None, memory_order=_AR, memory_scope=_DEV):
        """Atomic maximum at ``base[offset]``; returns the old values."""

    @_method
    def atomic_min_offset(self, offset, update, /, *, mask=None, memory_order=_AR, memory_scope=_DEV):
        """Atomic minimum at ``base[offset]``; returns the old values."""

    @_method
    def atomic_and_offset(self, offset, update, /, *, mask=None, memory_order=_AR, memory_scope=_DEV):
        """Atomic and at ``base[offset]``; returns the old values."""

    @_method
    def atomic_or_offset(self, offset, update, /, *, mask=None, memory_order=_AR, memory_scope=_DEV):
        """Atomic or at ``base[offset]``; returns the old values."""

    @_method
    def atomic_xor_offset(self, offset, update, /, *, mask=None, memory_order=_AR, memory_scope=_DEV):
        """Atomic xor at ``base[offset]``; returns the old values."""


#: RawArrayMemory method name -> signature stub.
RAW_MEMORY_METHODS = {n: f for n, f in vars(RawArrayMemory).items() if n.endswith("_offset")}


# ``cdiv`` works on the host and in kernels: the host function above is the one exported;
# the front end maps it to the kernel operation.
KERNEL_CDIV = OPS.pop("cdiv_")
KERNEL_CDIV.__name__ = "cdiv"
OPS["cdiv"] = cdiv

#: The 99 kernel-side operations, in cuTile's documentation order.
OP_NAMES = tuple(OPS)

__all__ = [
    "DType", "ALL_DTYPES", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "tfloat32", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu",
    "float8_e5m3fnu", "float4_e2m1fn", "dtype_of",
    "PaddingMode", "RoundingMode", "MemoryOrder", "MemoryScope", "Constant", "ConstantAnnotation",
    "ArrayAnnotation", "IndexedWithInt64", "ScalarInt64", "ListAnnotation", "ByTarget", "Slice", "cdiv", "function",
    "RawArrayMemory",
    "TileError", "TileSyntaxError", "TileTypeError", "TileValueError", "TileUnsupportedFeatureError",
    "TileStaticAssertionError", "TileStaticEvalError", "TileRecursionError", "TileInternalError",
    "TileCompilerExecutionError", "TileCompilerTimeoutError",
] + list(OP_NAMES)
