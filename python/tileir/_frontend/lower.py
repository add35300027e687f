"""Lowering of cuTile's kernel-side operations to cuda_tile ops.

A mixin of :class:`~tileir._frontend.translate.Translator`: each ``op_<name>`` method takes
the call node and the arguments bound against the stub's signature in ``tileir._api``.
Type promotion follows cuTile's table (``promote_dtypes``): categories bool < int < float;
a loosely typed Python number adopts the other operand's dtype; otherwise the wider dtype
of the higher category wins, and float16 with bfloat16, mixed signedness and restricted
floats with anything else are errors. Shapes broadcast like NumPy.
"""

from __future__ import annotations

import ast
import struct
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from .. import _api
from .._api import (TileTypeError, TileUnsupportedFeatureError, TileValueError)
from .values import Array, ArrayList, FString, RawMemory, Tile, TiledView, tile_type_text

_MAX_ELEMS = 1 << 24


def _pow2(d) -> bool:
    return isinstance(d, int) and not isinstance(d, bool) and d > 0 and (d & (d - 1)) == 0


def _f32_bits(v: float) -> int:
    return int(np.array(v, dtype=np.float32).view(np.uint32))


def float_bits(value: float, dtype: _api.DType) -> int:
    """Bit pattern of ``value`` in float ``dtype`` (round to nearest even)."""
    ir = dtype.ir
    with np.errstate(over="ignore", invalid="ignore"):
        if ir in ("f32", "tf32"):
            return _f32_bits(value)
        if ir == "f64":
            return struct.unpack("<Q", struct.pack("<d", float(value)))[0]
        if ir == "f16":
            return int(np.array(value, dtype=np.float16).view(np.uint16))
        if ir == "bf16":
            b = _f32_bits(value)
            if (b & 0x7FFFFFFF) > 0x7F800000:
                return 0x7FC0
            return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
    table = _minifloat_table(ir)
    if table is not None:
        v = float(value)
        if v != v:
            nan = [c for c, x in table if x != x]
            if nan:
                return nan[0]
        finite = [(c, x) for c, x in table if x == x]
        # nearest representable value; ties go to the even code (round to nearest even)
        best = min(finite, key=lambda cx: (abs(cx[1] - v) if abs(v) != float("inf") or abs(cx[1]) == float("inf")
                                           else float("inf"), cx[0] & 1))
        return best[0]
    raise TileUnsupportedFeatureError(f"constants of dtype {dtype.name} need the ml_dtypes package")


_MINIFLOAT = {}


def _minifloat_table(ir: str):
    """(code, value) for every code of an 8- or 4-bit float format."""
    if ir in _MINIFLOAT:
        return _MINIFLOAT[ir]
    fmt = {"f8E4M3FN": (4, 3, 7), "f8E5M2": (5, 2, 15), "f8E8M0FNU": (8, 0, 127), "f4E2M1FN": (2, 1, 1)}.get(ir)
    if fmt is None:
        return None
    e_bits, m_bits, bias = fmt
    signed = ir != "f8E8M0FNU"
    total = (1 if signed else 0) + e_bits + m_bits
    out = []
    for code in range(1 << total):
        sign = -1.0 if signed and code >> (e_bits + m_bits) & 1 else 1.0
        e = (code >> m_bits) & ((1 << e_bits) - 1)
        m = code & ((1 << m_bits) - 1)
        if ir == "f8E8M0FNU":
            val = float("nan") if e == 255 else 2.0 ** (e - bias)
        elif ir == "f8E5M2" and e == 31:
            val = sign * float("inf") if m == 0 else float("nan")
        elif ir == "f8E4M3FN" and e == 15 and m == 7:
            val = float("nan")
        elif e == 0:
            val = sign * (m / (1 << m_bits)) * 2.0 ** (1 - bias)
        else:
            val = sign * (1 + m / (1 << m_bits)) * 2.0 ** (e - bias)
        out.append((code, val))
    _MINIFLOAT[ir] = out
    return out


def value_bits(value: Any, dtype: _api.DType) -> int:
    """Bit pattern of a Python number as an element of ``dtype``."""
    if dtype.is_bool:
        return 1 if value else 0
    if dtype.is_int:
        return int(value) & ((1 << dtype.bits) - 1)
    return float_bits(float(value), dtype)


def float_from_bits(bits: int, dtype: _api.DType) -> float:
    """The value of float bit pattern ``bits`` of ``dtype``."""
    ir = dtype.ir
    if ir in ("f32", "tf32"):
        return float(np.array(bits, dtype=np.uint32).view(np.float32))
    if ir == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if ir == "f16":
        return float(np.array(bits, dtype=np.uint16).view(np.float16))
    if ir == "bf16":
        return float(np.array(bits << 16, dtype=np.uint32).view(np.float32))
    table = _minifloat_table(ir)
    if table is not None:
        return dict(table)[bits]
    raise TileUnsupportedFeatureError(f"constants of dtype {dtype.name} are not supported")


def canonical_value(value: Any, dtype: _api.DType) -> Any:
    """``value`` as an element of ``dtype`` holds it: floats rounded to the dtype, integers
    wrapped to its width (cuTile's canonical form of a strictly typed constant)."""
    if dtype.is_bool:
        return bool(value)
    if dtype.is_int:
        v = int(value) & ((1 << dtype.bits) - 1)
        if dtype.is_signed and v >> (dtype.bits - 1):
            v -= 1 << dtype.bits
        return v
    return float_from_bits(float_bits(float(value), dtype), dtype)


_ROUNDING = {_api.RoundingMode.RN: "nearest_even", _api.RoundingMode.RZ: "zero", _api.RoundingMode.RM: "negative_inf",
             _api.RoundingMode.RP: "positive_inf", _api.RoundingMode.FULL: "full",
             _api.RoundingMode.APPROX: "approx", _api.RoundingMode.RZI: "nearest_int_to_zero"}

_CMP = {"less": "less_than", "less_equal": "less_than_or_equal", "greater": "greater_than",
        "greater_equal": "greater_than_or_equal", "equal": "equal", "not_equal": "not_equal"}

_UNIT = ("unit",)


class Lowering:
    """cuTile operations → cuda_tile ops (mixed into the Translator)."""

    # ---------------------------------------------------------------------------------
    # argument checking helpers
    # ---------------------------------------------------------------------------------
    def anode(self, node, pname):
        return self.arg_node(node, self._stub, pname) if hasattr(self, "_stub") else node

    def want_tile(self, node, v, what="x") -> Tile:
        if isinstance(v, Tile):
            return v
        if isinstance(v, (bool, int, float)):
            return self.to_tile(v, None, node)
        raise self.error(node, f"{what} must be a tile or a number, got {self.describe(v)}")

    def const_int(self, node, v, what: str) -> int:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise self.error(node, f"{what} must be a compile-time integer, got {self.describe(v)}", TileTypeError)
        return int(v)

    def const_shape(self, node, shape, what="shape") -> Tuple[int, ...]:
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = (int(shape),)
        if isinstance(shape, list):
            shape = tuple(shape)
        if not isinstance(shape, tuple) or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                   for d in shape):
            raise self.error(node, f"{what} must be a tuple of compile-time integers, got {self.describe(shape)}",
                             TileTypeError)
        shape = tuple(int(d) for d in shape)
        total = 1
        for d in shape:
            if not _pow2(d):
                raise self.error(node, f"tile dimension {d} is not a power of two", TileValueError)
            total *= d
        if total > _MAX_ELEMS:
            raise self.error(node, f"tile has {total} elements, more than the maximum 2^24", TileValueError)
        return shape

    def want_dtype(self, node, d) -> _api.DType:
        dt = _api.dtype_of(d) if d is not None else None
        if dt is None:
            raise self.error(node, f"expected a dtype (tileir, NumPy, torch or ml_dtypes), got {d!r}", TileTypeError)
        if dt is _api.float8_e5m3fnu:
            raise self.error(node, "float8_e5m3fnu has no cuda_tile element type (it needs TileIR 13.4)",
                             TileUnsupportedFeatureError)
        return dt

    def axis_of(self, node, axis, ndim: int) -> int:
        a = self.const_int(node, axis, "axis")
        if not -ndim <= a < ndim:
            raise self.error(node, f"axis {a} is out of range for a tile of rank {ndim}", TileValueError)
        return a % ndim

    def rounding(self, node, rm, allowed: Sequence[str], dtype) -> Optional[str]:
        if rm is None:
            return None
        if not isinstance(rm, _api.RoundingMode):
            raise self.error(node, f"rounding_mode must be a tileir.RoundingMode, got {rm!r}")
        kw = _ROUNDING.get(rm)
        if kw is None or kw not in allowed:
            raise self.error(node, f"rounding mode {rm.name} is not supported here; expected one of: "
                             f"{', '.join(k.name for k, v in _ROUNDING.items() if v in allowed)}", TileValueError)
        if kw in ("approx", "full") and dtype.ir != "f32" and kw == "approx":
            raise self.error(node, f"rounding mode APPROX needs float32, got {dtype.name}", TileTypeError)
        return kw

    def ftz(self, node, flag, dtype):
        if not flag:
            return None
        if dtype.ir != "f32":
            raise self.error(node, f"flush_to_zero needs float32, got {dtype.name}", TileTypeError)
        return _UNIT

    # ---------------------------------------------------------------------------------
    # constants and conversions
    # ---------------------------------------------------------------------------------
    def constant(self, value, dtype: _api.DType, shape=(), node=None) -> Tile:
        shape = tuple(shape)
        key = (value, type(value), dtype, shape)
        for cache in reversed(self.const_cache):
            hit = cache.get(key)
            if hit is not None:
                return hit
        if dtype.is_int and isinstance(value, float):
            raise self.error(node, f"cannot use float {value!r} as a {dtype.name} value", TileTypeError)
        if dtype.is_int and not isinstance(value, bool):
            v = int(value)
            lo = -(1 << (dtype.bits - 1)) if dtype.is_signed else -(1 << (dtype.bits - 1))
            if not lo <= v < (1 << dtype.bits):
                raise self.error(node, f"{v} does not fit in {dtype.name}", TileValueError)
        bits = value_bits(value, dtype)
        t = self.op1("constant", [], shape, dtype, {"value": ("dense", dtype.ir, list(shape), [bits])}, node)
        if not shape:
            t.value = value  # rounded to the dtype only when folded (fold_constants)
        self.const_cache[-1][key] = t
        return t

    def typed_constant(self, value, dtype: _api.DType, node) -> Tile:
        dtype = self.want_dtype(node, dtype)
        if isinstance(value, Tile):
            return self.convert(value, dtype, node)
        if not isinstance(value, (bool, int, float)):
            raise self.error(node, f"{dtype.name}() needs a number, got {self.describe(value)}")
        return self.constant(value, dtype, (), node)

    def to_tile(self, v, dtype: Optional[_api.DType], node) -> Tile:
        if isinstance(v, Tile):
            return v
        if isinstance(v, (bool, int, float, np.number)):
            if dtype is None:
                dtype = _api.bool_ if isinstance(v, bool) else _api.float32 if isinstance(v, float) else _api.int32
                if isinstance(v, int) and not isinstance(v, bool) and not -(1 << 31) <= v < (1 << 31):
                    dtype = _api.int64
            return self.constant(v.item() if isinstance(v, np.number) else v, dtype, (), node)
        raise self.error(node, f"expected a tile or a number, got {self.describe(v)}")

    def convert(self, t: Tile, dtype: _api.DType, node, rounding: Optional[str] = None) -> Tile:
        src = t.dtype
        if src == dtype:
            return t
        if src.ir == dtype.ir:  # int32 <-> uint32: same cuda_tile type
            return Tile(t.handle, t.shape, dtype)
        shape = t.shape
        if dtype.is_bool:
            return self.compare("not_equal", t, 0, node)
        if src.is_bool:
            if dtype.is_float:
                return self.op1("itof", [t.handle], shape, dtype, {"signedness": "unsigned"}, node)
            return self.op1("exti", [t.handle], shape, dtype, {"signedness": "unsigned"}, node)
        if src.is_int and dtype.is_int:
            if dtype.bits > src.bits:
                return self.op1("exti", [t.handle], shape, dtype, {"signedness": "signed" if src.is_signed else "unsigned"},
                                node)
            return self.op1("trunci", [t.handle], shape, dtype, None, node)
        if src.is_int and dtype.is_float:
            return self.op1("itof", [t.handle], shape, dtype, {"signedness": "signed" if src.is_signed else "unsigned"},
                            node)
        if src.is_float and dtype.is_int:
            return self.op1("ftoi", [t.handle], shape, dtype, {"signedness": "signed" if dtype.is_signed else "unsigned"},
                            node)
        attrs = {"rounding_mode": rounding} if rounding else None
        return self.op1("ftof", [t.handle], shape, dtype, attrs, node)

    def reshape_tile(self, t: Tile, shape, node) -> Tile:
        shape = tuple(shape)
        if shape == t.shape:
            return t
        return self.op1("reshape", [t.handle], shape, t.dtype, None, node)

    def broadcast_tile(self, t: Tile, shape, node) -> Tile:
        shape = tuple(shape)
        if t.shape == shape:
            return t
        if len(t.shape) > len(shape):
            raise self.error(node, f"cannot broadcast shape {t.shape} to {shape}", TileValueError)
        lifted = (1,) * (len(shape) - len(t.shape)) + t.shape
        for a, b in zip(lifted, shape):
            if a != b and a != 1:
                raise self.error(node, f"cannot broadcast shape {t.shape} to {shape}", TileValueError)
        t = self.reshape_tile(t, lifted, node)
        if lifted == shape:
            return t
        return self.op1("broadcast", [t.handle], shape, t.dtype, None, node)

    def broadcast_shapes(self, node, *shapes) -> Tuple[int, ...]:
        rank = max(len(s) for s in shapes)
        out = []
        for i in range(rank):
            dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0}
            dims.discard(1)
            if len(dims) > 1:
                raise self.error(node, f"shapes {' and '.join(str(s) for s in shapes)} cannot be broadcast together",
                                 TileValueError)
            out.append(dims.pop() if dims else 1)
        return tuple(out)

    def promote_dtypes(self, a: _api.DType, b: _api.DType, node) -> _api.DType:
        """cuTile's promotion table for two strictly typed dtypes: bool adopts the other
        dtype; any float beats any integer; two floats give the wider one, except that
        float16 with bfloat16 is an error; two integers of the same signedness give the
        wider one, mixed signedness is an error; restricted floats (tf32, fp8, fp4) only
        combine with themselves."""
        if a == b:
            return a
        if a.restricted or b.restricted:
            raise self.error(node, f"Implicit promotion of {a.name} and {b.name} is not supported as it involves "
                             f"restricted float dtypes. Please perform an explicit cast instead.", TileTypeError)
        if a.is_bool or b.is_bool:
            return b if a.is_bool else a
        if a.is_float != b.is_float:
            return a if a.is_float else b
        if a.kind == b.kind and not (a.is_float and a.bits == b.bits):
            return a if a.bits > b.bits else b
        raise self.error(node, f"Implicit promotion of {a.name} and {b.name} is not supported. Please perform an "
                         f"explicit cast instead.", TileTypeError)

    def common_dtype(self, node, vals, min_kind: Optional[str] = None) -> _api.DType:
        """The dtype ``vals`` (tiles and Python numbers) promote to: the tiles' promoted
        dtype, which loosely typed numbers adopt unless their category is higher (a float
        literal with integer tiles gives float32, an int literal with bool tiles int32)."""
        tiles = [v for v in vals if isinstance(v, Tile)]
        for v in vals:
            if not isinstance(v, (Tile, bool, int, float, np.number)):
                raise self.error(node, f"expected a tile or a number, got {self.describe(v)}")
        if tiles:
            dtype = tiles[0].dtype
            for t in tiles[1:]:
                dtype = self.promote_dtypes(dtype, t.dtype, node)
            if any(isinstance(v, float) for v in vals if not isinstance(v, Tile)) and not dtype.is_float:
                dtype = _api.float32
            elif any(isinstance(v, int) and not isinstance(v, bool) for v in vals
                     if not isinstance(v, Tile)) and dtype.is_bool:
                dtype = _api.int32
        else:
            dtype = _literal_dtype(vals[0])
            for v in vals[1:]:
                dtype = self.promote_dtypes(dtype, _literal_dtype(v), node)
        if min_kind == "f" and not dtype.is_float:
            dtype = _api.float32
        return dtype

    def operands(self, node, *vals, dtype: Optional[_api.DType] = None, min_kind: Optional[str] = None) -> Tuple[List[Tile], _api.DType]:
        """Promotes and broadcasts ``vals`` (tiles and Python numbers) to one type."""
        tiles = [v for v in vals if isinstance(v, Tile)]
        if dtype is None:
            dtype = self.common_dtype(node, vals, min_kind)
        shape = self.broadcast_shapes(node, *[t.shape for t in tiles]) if tiles else ()
        out = []
        for v in vals:
            if isinstance(v, Tile):
                t = self.convert(v, dtype, node)
                out.append(self.broadcast_tile(t, shape, node))
            else:
                out.append(self.constant(v.item() if isinstance(v, np.number) else v, dtype, shape, node))
        return out, dtype

    # ---------------------------------------------------------------------------------
    # arithmetic core
    # ---------------------------------------------------------------------------------
    def arith(self, kind: str, a, b, node, rounding_mode=None, flush_to_zero=False) -> Any:
        if not isinstance(a, Tile) and not isinstance(b, Tile):
            import operator as o
            fn = {"add": o.add, "sub": o.sub, "mul": o.mul, "truediv": o.truediv}[kind]
            return fn(a, b)
        (x, y), dt = self.operands(node, a, b, min_kind="f" if kind == "truediv" else None)
        if dt.is_float:
            if dt.restricted:
                raise self.error(node, f"arithmetic on {dt.name} is not supported; convert with astype() first")
            allowed = ("nearest_even", "zero", "negative_inf", "positive_inf") + (("approx", "full") if kind == "truediv" else ())
            attrs = {}
            rm = self.rounding(node, rounding_mode, allowed, dt)
            if rm:
                attrs["rounding_mode"] = rm
            if flush_to_zero:
                attrs["flush_to_zero"] = self.ftz(node, flush_to_zero, dt)
            name = {"add": "addf", "sub": "subf", "mul": "mulf", "truediv": "divf"}[kind]
            return self.op1(name, [x.handle, y.handle], x.shape, dt, attrs or None, node)
        if rounding_mode is not None or flush_to_zero:
            raise self.error(node, f"rounding_mode and flush_to_zero apply to floating-point {kind}, got {dt.name}")
        if dt.is_bool:
            x, y = self.convert(x, _api.int32, node), self.convert(y, _api.int32, node)
            dt = _api.int32
        name = {"add": "addi", "sub": "subi", "mul": "muli"}[kind]
        return self.op1(name, [x.handle, y.handle], x.shape, dt, None, node)

    def int_or_float(self, node, a, b, what):
        (x, y), dt = self.operands(node, a, b)
        if dt.is_bool:
            raise self.error(node, f"Binary arithmetic op `{what}` does not support bool, please cast bool to int",
                             TileTypeError)
        if dt.restricted:
            raise self.error(node, f"{what} on {dt.name} is not supported")
        return x, y, dt

    def sgn(self, dt):
        return "signed" if dt.is_signed else "unsigned"

    def fold_constants(self, node, a, b, fn):
        """cuTile computes an operation on two compile-time scalars (strictly typed 0-d
        constants or Python numbers, at least one strictly typed) at compile time with
        Python's semantics in the promoted dtype: ``ct.float32(1.0) // 0.1`` is 9.0 there,
        while the same division of run-time values is ``floor(1.0 / 0.1)`` = 10.0. Returns
        the folded result (a constant tile, or a tuple of them), or None."""
        va = a.value if isinstance(a, Tile) else a
        vb = b.value if isinstance(b, Tile) else b
        if not (_is_number(va) and _is_number(vb)):
            return None
        # A strictly typed constant holds its value rounded to its own dtype first.
        va = canonical_value(va, a.dtype) if isinstance(a, Tile) else va
        vb = canonical_value(vb, b.dtype) if isinstance(b, Tile) else vb
        dt = self.common_dtype(node, [a, b])
        try:
            out = fn(canonical_value(va, dt), canonical_value(vb, dt))
        except ZeroDivisionError as e:
            raise self.error(node, str(e), TileValueError) from None
        if isinstance(out, tuple):
            return tuple(self.constant(canonical_value(v, dt), dt, (), node) for v in out)
        return self.constant(canonical_value(out, dt), dt, (), node)

    def floordiv(self, a, b, node):
        """``a // b`` as cuTile lowers it: integers divide rounding toward negative infinity
        (``divi``), floats take ``floor(a / b)`` (so ``1.0 // 0.1`` is 10.0, not Python's 9.0,
        and ``-1.0 // inf`` is -0.0); compile-time scalars fold with Python's semantics."""
        folded = self.fold_constants(node, a, b, lambda x, y: x // y)
        if folded is not None:
            return folded
        x, y, dt = self.int_or_float(node, a, b, "floordiv")
        if dt.is_float:
            q = self.op1("divf", [x.handle, y.handle], x.shape, dt, None, node)
            return self.op1("floor", [q.handle], x.shape, dt, None, node)
        return self.op1("divi", [x.handle, y.handle], x.shape, dt,
                        {"signedness": self.sgn(dt), "rounding": "negative_inf" if dt.is_signed else "zero"}, node)

    def modulo(self, a, b, node):
        """``a % b`` as cuTile lowers it: the C remainder (``remi``/``remf``, sign of the
        dividend) plus ``b`` where it is non-zero and its sign differs from ``b``'s, so the
        result takes the divisor's sign like Python's; ``x % 0.0`` is NaN, ``-1.0 % inf`` is
        inf. Compile-time scalars fold with Python's semantics."""
        folded = self.fold_constants(node, a, b, lambda x, y: x % y)
        if folded is not None:
            return folded
        (x, y), dt = self.operands(node, a, b)
        if dt.is_bool:
            raise self.error(node, "Modulo operation does not support bool", TileTypeError)
        if dt.restricted:
            raise self.error(node, f"% on {dt.name} is not supported")
        if dt.is_float:
            r = self.op1("remf", [x.handle, y.handle], x.shape, dt, None, node)
        else:
            r = self.op1("remi", [x.handle, y.handle], x.shape, dt, {"signedness": self.sgn(dt)}, node)
            if not dt.is_signed:
                return r
        # Python's modulo takes the divisor's sign: add y where r != 0 and sign(r) != sign(y).
        zero = self.constant(0 if not dt.is_float else 0.0, dt, x.shape, node)
        rnz = self.compare("not_equal", r, zero, node)
        rneg = self.compare("less", r, zero, node)
        yneg = self.compare("less", y, zero, node)
        diff = self.op1("xori", [rneg.handle, yneg.handle], x.shape, _api.bool_, None, node)
        fix = self.op1("andi", [rnz.handle, diff.handle], x.shape, _api.bool_, None, node)
        adj = self.arith("add", r, y, node)
        return self.op1("select", [fix.handle, adj.handle, r.handle], x.shape, dt, None, node)

    def compare(self, kind: str, a, b, node) -> Any:
        if not isinstance(a, Tile) and not isinstance(b, Tile):
            import operator as o
            return {"less": o.lt, "less_equal": o.le, "greater": o.gt, "greater_equal": o.ge, "equal": o.eq,
                    "not_equal": o.ne}[kind](a, b)
        (x, y), dt = self.operands(node, a, b)
        shape = x.shape
        pred = _CMP[kind]
        if dt.is_float:
            if dt.restricted:
                raise self.error(node, f"comparison of {dt.name} is not supported; convert with astype() first")
            ordering = "unordered" if kind == "not_equal" else "ordered"
            return self.op1("cmpf", [x.handle, y.handle], shape, _api.bool_,
                            {"comparison_predicate": pred, "comparison_ordering": ordering}, node)
        return self.op1("cmpi", [x.handle, y.handle], shape, _api.bool_,
                        {"comparison_predicate": pred, "signedness": self.sgn(dt) if not dt.is_bool else "unsigned"}, node)

    def bitwise(self, kind: str, a, b, node):
        if not isinstance(a, Tile) and not isinstance(b, Tile):
            import operator as o
            return {"and": o.and_, "or": o.or_, "xor": o.xor, "lshift": o.lshift, "rshift": o.rshift}[kind](a, b)
        (x, y), dt = self.operands(node, a, b)
        if dt.is_float:
            raise self.error(node, f"bitwise operations need integer or bool tiles, got {dt.name}", TileTypeError)
        if kind in ("and", "or", "xor"):
            return self.op1({"and": "andi", "or": "ori", "xor": "xori"}[kind], [x.handle, y.handle], x.shape, dt, None,
                            node)
        if dt.is_bool:
            raise self.error(node, "shifts need integer tiles, got bool_", TileTypeError)
        if kind == "lshift":
            return self.op1("shli", [x.handle, y.handle], x.shape, dt, None, node)
        return self.op1("shri", [x.handle, y.handle], x.shape, dt, {"signedness": self.sgn(dt)}, node)

    def bitwise_not(self, x: Tile, node):
        if x.dtype.is_float:
            raise self.error(node, f"~ needs integer or bool tiles, got {x.dtype.name}", TileTypeError)
        ones = self.constant(True if x.dtype.is_bool else -1 if x.dtype.is_signed else (1 << x.dtype.bits) - 1,
                             x.dtype, x.shape, node)
        return self.op1("xori", [x.handle, ones.handle], x.shape, x.dtype, None, node)

    def negative(self, x: Tile, node):
        if x.dtype.is_float:
            return self.op1("negf", [x.handle], x.shape, x.dtype, None, node)
        if x.dtype.is_bool:
            x = self.convert(x, _api.int32, node)
        return self.op1("negi", [x.handle], x.shape, x.dtype, None, node)

    def where(self, cond, a, b, node):
        c = cond
        if not isinstance(c, Tile):
            return a if c else b
        if not c.dtype.is_bool:
            c = self.compare("not_equal", c, 0, node)
        (x, y), dt = self.operands(node, a, b)
        shape = self.broadcast_shapes(node, c.shape, x.shape)
        c = self.broadcast_tile(c, shape, node)
        x, y = self.broadcast_tile(x, shape, node), self.broadcast_tile(y, shape, node)
        return self.op1("select", [c.handle, x.handle, y.handle], shape, dt, None, node)

    def binary_op(self, node, op, a, b):
        if not isinstance(a, Tile) and not isinstance(b, Tile):
            import operator as o
            pyops = {ast.Add: o.add, ast.Sub: o.sub, ast.Mult: o.mul, ast.Div: o.truediv, ast.FloorDiv: o.floordiv,
                     ast.Mod: o.mod, ast.Pow: o.pow, ast.BitAnd: o.and_, ast.BitOr: o.or_, ast.BitXor: o.xor,
                     ast.LShift: o.lshift, ast.RShift: o.rshift, ast.MatMult: o.matmul}
            try:
                return pyops[op](a, b)
            except Exception as e:
                raise self.error(node, f"{type(e).__name__}: {e}", TileValueError) from None
        if op in (ast.Add, ast.Sub, ast.Mult, ast.Div):
            kind = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv"}[op]
            return self.arith(kind, a, b, node)
        if op is ast.FloorDiv:
            return self.floordiv(a, b, node)
        if op is ast.Mod:
            return self.modulo(a, b, node)
        if op is ast.Pow:
            return self.op_pow(node, a, b)
        if op is ast.MatMult:
            return self.op_matmul(node, a, b)
        kind = {ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift"}[op]
        return self.bitwise(kind, a, b, node)

    def unary_float(self, node, name, x, attrs=None, min_float=True):
        x = self.want_tile(node, x)
        if not x.dtype.is_float:
            x = self.convert(x, _api.float32, node)
        if x.dtype.restricted:
            raise self.error(node, f"{name} on {x.dtype.name} is not supported; convert with astype() first")
        return self.op1(name, [x.handle], x.shape, x.dtype, attrs, node)

    # ---------------------------------------------------------------------------------
    # arrays and views
    # ---------------------------------------------------------------------------------
    def make_array(self, node, name, spec, ptr, shapes, strides) -> Array:
        ptr_ty = f"tile<ptr<{spec.dtype.ir}>>"
        itype = _api.int64 if spec.index64 else _api.int32
        if spec.aligned16:
            ptr = self.op("assume", [ptr], [ptr_ty], {"predicate": "div_by<16>"}, node)[0]
        # Divisibility facts of the specialization, as cuTile states them: the backend keeps
        # them to vectorize accesses along rows whose stride is a multiple of the vector.
        int_ty = f"tile<{itype.ir}>"
        shapes = [self.op("assume", [h], [int_ty], {"predicate": "div_by<16>"}, node)[0]
                  if d < len(spec.shape_div16) and spec.shape_div16[d] else h for d, h in enumerate(shapes)]
        strides = [self.op("assume", [h], [int_ty], {"predicate": "div_by<16>"}, node)[0]
                   if d < len(spec.stride_div16) and spec.stride_div16[d]
                   and not (spec.unit_inner_stride and d == spec.ndim - 1) else h for d, h in enumerate(strides)]
        shape_tiles = tuple(Tile(h, (), itype) for h in shapes)
        stride_tiles = tuple(Tile(h, (), itype) for h in strides)
        static_strides = [None] * spec.ndim
        if spec.unit_inner_stride:
            static_strides[-1] = 1
        return self.new_array(node, name, spec.dtype, ptr, shape_tiles, stride_tiles, [None] * spec.ndim, static_strides)

    def new_array(self, node, name, dtype, ptr, shape, strides, static_shape, static_strides) -> Array:
        dyn_shape = [s.handle for s, c in zip(shape, static_shape) if c is None]
        dyn_strides = [s.handle for s, c in zip(strides, static_strides) if c is None]
        shape_text = "x".join("?" if c is None else str(c) for c in static_shape)
        stride_text = ",".join("?" if c is None else str(c) for c in static_strides)
        view_type = f"tensor_view<{shape_text}x{dtype.ir}, strides=[{stride_text}]>"
        view = self.op("make_tensor_view", [ptr] + dyn_shape + dyn_strides, [view_type],
                       {"operandSegmentSizes": [1, len(dyn_shape), len(dyn_strides)]}, node)[0]
        shape_vals = tuple(c if c is not None else s for s, c in zip(shape, static_shape))
        stride_vals = tuple(c if c is not None else s for s, c in zip(strides, static_strides))
        return Array(name, dtype, ptr, shape_vals, stride_vals, view, view_type)

    def make_array_list(self, node, name, spec, ptr, length) -> ArrayList:
        """A list-of-arrays parameter (``spec`` a ``ListSpec``) from its entry values: a
        ``tensor_view<?xWxi64>`` over the records (W words each) partitioned into one
        ``1 x pow2(W)`` tile per record, as cuTile lowers it. The padding value is left
        unset, like cuTile's: a record read past the end is undefined, not a zero-sized array."""
        words = spec.words
        tv_ty = f"tensor_view<?x{words}xi64, strides=[{words},1]>"
        tv = self.op("make_tensor_view", [ptr, length], [tv_ty], {"operandSegmentSizes": [1, 1, 0]}, node)[0]
        pv_ty = f"partition_view<tile=(1x{1 << (words - 1).bit_length()}), {tv_ty}>"
        pv = self.op("make_partition_view", [tv], [pv_ty], None, node)[0]
        return ArrayList(name, spec.element, Tile(length, (), _api.int32), pv, pv_ty)

    def list_item(self, node, lst: ArrayList, index, index_node) -> Array:
        """``lst[index]``: loads the index-th record and makes an array of its words (the
        base address through int_to_ptr; shapes and strides truncated to the index dtype
        unless it is int64)."""
        if isinstance(index, Tile):
            if index.shape != () or not index.dtype.is_int:
                raise self.error(index_node, f"a list index must be an integer scalar, got {index.type_text()}",
                                 TileTypeError)
            idx = self.convert(index, _api.int32, index_node)
        elif isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            if index < 0:
                raise self.error(index_node, f"list index {int(index)} is negative; lists of arrays are indexed "
                                 "from 0 (their length is only known at run time)", TileValueError)
            if index >= 1 << 31:
                raise self.error(index_node, f"list index {int(index)} does not fit in int32", TileValueError)
            idx = self.constant(int(index), _api.int32, (), index_node)
        else:
            raise self.error(index_node, f"a list index must be an integer scalar, got {self.describe(index)}",
                             TileTypeError)
        spec = lst.element
        words = 1 + 2 * spec.ndim
        width = 1 << (words - 1).bit_length()
        zero = self.constant(0, _api.int32, (), node)
        row = self._load_view(node, lst.view, lst.view_type, (1, width), _api.int64, [idx.handle, zero.handle],
                              {"memory_ordering_semantics": "weak"})
        vals = []
        for w in range(words):
            col = self.constant(w, _api.int32, (), node)
            one = self.op1("extract", [row.handle, zero.handle, col.handle], (1, 1), _api.int64, None, node)
            vals.append(self.reshape_tile(one, (), node))
        itype = _api.int64 if spec.index64 else _api.int32
        ptr = self.op("int_to_ptr", [vals[0].handle], [f"tile<ptr<{spec.dtype.ir}>>"], None, node)[0]
        dims = [self.convert(v, itype, node).handle for v in vals[1:]]
        return self.make_array(node, f"{lst.name}[…]", spec, ptr, dims[:spec.ndim], dims[spec.ndim:])

    def order_of(self, node, order, ndim) -> Tuple[int, ...]:
        if order == "C":
            return tuple(range(ndim))
        if order == "F":
            return tuple(reversed(range(ndim)))
        if isinstance(order, tuple) and sorted(order) == list(range(ndim)):
            return tuple(int(o) for o in order)
        raise self.error(node, f"order must be 'C', 'F' or a permutation of {ndim} axes, got {order!r}", TileValueError)

    def padding_of(self, node, pm, dtype) -> Optional[str]:
        if pm is None:
            return None
        if not isinstance(pm, _api.PaddingMode):
            raise self.error(node, f"padding_mode must be a tileir.PaddingMode, got {pm!r}", TileTypeError)
        if pm.value not in (None, "zero") and not dtype.is_float:
            raise self.error(node, f"padding {pm.name} needs a floating-point array, got {dtype.name}", TileTypeError)
        return pm.value

    def partition(self, node, arr: Array, shape, order, padding, steps=None) -> Tuple[int, str]:
        # Views are cached per block (like constants): one made inside a loop body is not
        # visible after the loop.
        key = ("view", arr.view, shape, order, padding, steps)
        for cache in reversed(self.const_cache):
            hit = cache.get(key)
            if hit is not None:
                return hit
        pad = f"padding_value = {padding}, " if padding else ""
        tile = "x".join(str(d) for d in shape)
        dim_map = "" if order == tuple(range(len(order))) else f", dim_map=[{', '.join(str(o) for o in order)}]"
        if steps is None:
            ty = f"partition_view<tile=({tile}), {pad}{arr.view_type}{dim_map}>"
            h = self.op("make_partition_view", [arr.view], [ty], None, node)[0]
        else:
            st = ",".join(str(s) for s in steps)
            ty = f"strided_view<tile=({tile}), traversal_strides=[{st}], {pad}{arr.view_type}{dim_map}>"
            h = self.op("make_strided_view", [arr.view], [ty], None, node)[0]
        self.const_cache[-1][key] = (h, ty)
        return h, ty

    def tile_index(self, node, index, ndim: int, what: str) -> List[int]:
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) != ndim:
            raise self.error(node, f"index has {len(index)} entries but {what} has {ndim} dimension(s)", TileValueError)
        vals = []
        for i in index:
            if isinstance(i, Tile):
                if i.shape != () or not (i.dtype.is_int or i.dtype.is_bool):
                    raise self.error(node, f"index entries must be integer scalars, got {i.type_text()}", TileTypeError)
                vals.append(i)
            elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
                if i < 0:
                    raise self.error(node, f"tile index {i} is negative", TileValueError)
                vals.append(int(i))
            else:
                raise self.error(node, f"index entries must be integer scalars, got {self.describe(i)}", TileTypeError)
        itype = _api.int64 if any(isinstance(v, Tile) and v.dtype.bits == 64 for v in vals) else _api.int32
        return [self.convert(self.to_tile(v, itype, node), itype, node).handle for v in vals]

    def memory_attrs(self, node, order, scope, allowed, latency, allow_tma, view=True):
        if not isinstance(order, _api.MemoryOrder) or order.value not in allowed:
            raise self.error(node, f"memory_order must be one of {', '.join('MemoryOrder.' + a.upper() for a in allowed)}, "
                             f"got {order!r}", TileValueError)
        if not isinstance(scope, _api.MemoryScope):
            raise self.error(node, f"memory_scope must be a tileir.MemoryScope, got {scope!r}", TileTypeError)
        attrs = {"memory_ordering_semantics": order.value}
        if order is _api.MemoryOrder.WEAK:
            if scope is not _api.MemoryScope.NONE:
                raise self.error(node, "a WEAK access takes no memory_scope", TileValueError)
        else:
            if scope in (_api.MemoryScope.NONE, _api.MemoryScope.CLUSTER):
                raise self.error(node, f"memory_order {order.name} needs memory_scope BLOCK, DEVICE or SYS", TileValueError)
            attrs["memory_scope"] = scope.value
        hints = {}
        if latency is not None:
            lat = self.const_int(node, latency, "latency")
            if not 1 <= lat <= 10:
                raise self.error(node, f"latency must be in [1, 10], got {lat}", TileValueError)
            hints["latency"] = lat
        if allow_tma is not None:
            if not view:
                raise self.error(node, "allow_tma applies to tiled loads and stores only")
            hints["allow_tma"] = bool(allow_tma)
        if hints:
            attrs["optimization_hints"] = {"default": hints}
        return attrs

    def want_array(self, node, arr, what="array") -> Array:
        if not isinstance(arr, Array):
            raise self.error(node, f"{what} must be an array, got {self.describe(arr)}", TileTypeError)
        return arr

    def _load_view(self, node, view, view_ty, shape, dtype, index_handles, attrs) -> Tile:
        t = Tile(0, shape, dtype)
        a = dict(attrs)
        a["operandSegmentSizes"] = [1, len(index_handles), 1]
        res = self.op("load_view_tko", [view] + index_handles + [self.token], [t.type_text(), "token"], a, node)
        t.handle = res[0]
        return t

    def _store_view(self, node, view, tile: Tile, index_handles, attrs):
        a = dict(attrs)
        a["operandSegmentSizes"] = [1, 1, len(index_handles), 1]
        self.op("store_view_tko", [tile.handle, view] + index_handles + [self.token], ["token"], a, node)

    # ---------------------------------------------------------------------------------
    # Load/store and indexing (9)
    # ---------------------------------------------------------------------------------
    def grid_query(self, node, axis, is_bid):
        axis = self.const_int(self.anode(node, "axis"), axis, "axis")
        if axis not in (0, 1, 2):
            raise self.error(self.anode(node, "axis"), f"axis must be the constant 0, 1 or 2, got {axis!r}", TileValueError)
        if is_bid:
            if self.block_ids is None:
                self.block_ids = self.op("get_tile_block_id", [], ["tile<i32>"] * 3, None, self.entry_node())
            return Tile(self.block_ids[axis], (), _api.int32)
        if self.num_blocks_ids is None:
            self.num_blocks_ids = self.op("get_num_tile_blocks", [], ["tile<i32>"] * 3, None, self.entry_node())
        return Tile(self.num_blocks_ids[axis], (), _api.int32)

    def entry_node(self):
        return self.cur_node

    def op_bid(self, node, axis):
        # Grid queries are hoisted to the entry block only when first used there; inside
        # regions they are emitted locally (a value defined in a region is not visible outside).
        if self.b_depth() > 1:
            axis = self.const_int(self.anode(node, "axis"), axis, "axis")
            if axis not in (0, 1, 2):
                raise self.error(self.anode(node, "axis"), f"axis must be the constant 0, 1 or 2, got {axis!r}",
                                 TileValueError)
            if self.block_ids is not None:
                return Tile(self.block_ids[axis], (), _api.int32)
            return Tile(self.op("get_tile_block_id", [], ["tile<i32>"] * 3, None, node)[axis], (), _api.int32)
        return self.grid_query(node, axis, True)

    def op_num_blocks(self, node, axis):
        if self.b_depth() > 1:
            axis = self.const_int(self.anode(node, "axis"), axis, "axis")
            if axis not in (0, 1, 2):
                raise self.error(self.anode(node, "axis"), f"axis must be the constant 0, 1 or 2, got {axis!r}",
                                 TileValueError)
            if self.num_blocks_ids is not None:
                return Tile(self.num_blocks_ids[axis], (), _api.int32)
            return Tile(self.op("get_num_tile_blocks", [], ["tile<i32>"] * 3, None, node)[axis], (), _api.int32)
        return self.grid_query(node, axis, False)

    def op_num_tiles(self, node, array, axis, shape, order):
        arr = self.want_array(self.anode(node, "array"), array)
        shape = self.const_shape(self.anode(node, "shape"), shape)
        if len(shape) != arr.ndim:
            raise self.error(self.anode(node, "shape"), f"shape has {len(shape)} dimension(s) but the array has "
                             f"{arr.ndim}", TileValueError)
        order = self.order_of(self.anode(node, "order"), order, arr.ndim)
        ax = self.axis_of(self.anode(node, "axis"), axis, arr.ndim)
        view, ty = self.partition(node, arr, shape, order, None)
        return self.index_space(node, view, ty, arr.ndim)[ax]

    def index_space(self, node, view, ty, ndim):
        res = self.op("get_index_space_shape", [view], ["tile<i32>"] * ndim, None, node)
        return [Tile(h, (), _api.int32) for h in res]

    def op_load(self, node, array, index, shape, padding_mode, order, check_bounds, latency, allow_tma, memory_order,
                memory_scope):
        arr = self.want_array(self.anode(node, "array"), array, "the first argument of load")
        shape = self.const_shape(self.anode(node, "shape"), shape)
        if len(shape) != arr.ndim:
            raise self.error(self.anode(node, "shape"), f"shape has {len(shape)} dimension(s) but array '{arr.name}' has "
                             f"{arr.ndim}", TileValueError)
        order = self.order_of(self.anode(node, "order"), order, arr.ndim)
        pad = self.padding_of(self.anode(node, "padding_mode"), padding_mode, arr.dtype)
        idx = self.tile_index(self.anode(node, "index"), index, arr.ndim, f"array '{arr.name}'")
        attrs = self.memory_attrs(node, memory_order, memory_scope, ("weak", "relaxed", "acquire"), latency, allow_tma)
        view, ty = self.partition(node, arr, shape, order, pad)
        return self._load_view(node, view, ty, shape, arr.dtype, idx, attrs)

    def op_store(self, node, array, index, tile, order, check_bounds, latency, allow_tma, memory_order, memory_scope):
        arr = self.want_array(self.anode(node, "array"), array, "the first argument of store")
        tnode = self.anode(node, "tile")
        if isinstance(tile, (bool, int, float)):
            tile = self.constant(tile, arr.dtype, (1,) * arr.ndim, tnode)
        if not isinstance(tile, Tile):
            raise self.error(tnode, f"tile must be a tile value, got {self.describe(tile)}", TileTypeError)
        if tile.dtype != arr.dtype:
            raise self.error(tnode, f"storing a {tile.dtype.name} tile into {arr.dtype.name} array '{arr.name}'; convert "
                             f"it with astype()", TileTypeError)
        if tile.ndim < arr.ndim:
            tile = self.reshape_tile(tile, (1,) * (arr.ndim - tile.ndim) + tile.shape, tnode)
        if tile.ndim != arr.ndim:
            raise self.error(tnode, f"tile has rank {tile.ndim} but array '{arr.name}' has {arr.ndim} dimension(s)",
                             TileValueError)
        order = self.order_of(self.anode(node, "order"), order, arr.ndim)
        idx = self.tile_index(self.anode(node, "index"), index, arr.ndim, f"array '{arr.name}'")
        attrs = self.memory_attrs(node, memory_order, memory_scope, ("weak", "relaxed", "release"), latency, allow_tma)
        view, _ = self.partition(node, arr, tile.shape, order, None)
        self._store_view(node, view, tile, idx, attrs)
        return None

    def pointers(self, node, arr: Array, indices, check_bounds, mask) -> Tuple[Tile, Optional[Tile]]:
        """Pointer tile for gather-style ``indices`` (one broadcastable integer tile per
        dimension) and the in-bounds mask (combined with ``mask``)."""
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) != arr.ndim:
            raise self.error(node, f"indices has {len(indices)} entries but the array has {arr.ndim} dimension(s)",
                             TileValueError)
        tiles = []
        for i in indices:
            t = self.to_tile(i, _api.int32, node) if not isinstance(i, Tile) else i
            if not (t.dtype.is_int or t.dtype.is_bool):
                raise self.error(node, f"indices must be integer tiles, got {t.type_text()}", TileTypeError)
            tiles.append(t)
        extra = [mask.shape] if isinstance(mask, Tile) else []
        shape = self.broadcast_shapes(node, *[t.shape for t in tiles], *extra)
        i64 = _api.int64
        offset = None
        inb = None
        for d, t in enumerate(tiles):
            t64 = self.broadcast_tile(self.convert(t, i64, node), shape, node)
            stride = arr.strides[d]
            if isinstance(stride, int):
                term = t64 if stride == 1 else self.arith("mul", t64, self.constant(stride, i64, shape, node), node)
            else:
                s64 = self.broadcast_tile(self.convert(stride, i64, node), shape, node)
                term = self.arith("mul", t64, s64, node)
            offset = term if offset is None else self.arith("add", offset, term, node)
            if check_bounds:
                dim = arr.shape[d]
                dim64 = self.constant(dim, i64, shape, node) if isinstance(dim, int) else \
                    self.broadcast_tile(self.convert(dim, i64, node), shape, node)
                ok = self.op1("cmpi", [t64.handle, dim64.handle], shape, _api.bool_,
                              {"comparison_predicate": "less_than", "signedness": "unsigned"}, node)
                inb = ok if inb is None else self.bitwise("and", inb, ok, node)
        if isinstance(mask, Tile):
            m = mask if mask.dtype.is_bool else self.compare("not_equal", mask, 0, node)
            m = self.broadcast_tile(m, shape, node)
            inb = m if inb is None else self.bitwise("and", inb, m, node)
        elif mask is not None and mask is not True:
            if mask is False:
                inb = self.constant(False, _api.bool_, shape, node)
            else:
                raise self.error(node, f"mask must be a boolean tile, got {self.describe(mask)}", TileTypeError)
        return self.ptr_tile(node, arr, offset, shape), inb

    def ptr_tile(self, node, arr: Array, offset: Tile, shape) -> Tile:
        """The tile of pointers ``arr``'s base + ``offset`` (elements, an i64 tile of ``shape``)."""
        ptr_ty = f"ptr<{arr.dtype.ir}>"
        if shape:
            bshape = (1,) * len(shape)
            b = self.op("reshape", [arr.ptr], ["tile<" + "".join(f"{d}x" for d in bshape) + ptr_ty + ">"], None, node)[0]
            b = self.op("broadcast", [b], ["tile<" + "".join(f"{d}x" for d in shape) + ptr_ty + ">"], None, node)[0]
        else:
            b = arr.ptr
        ptr_tile_ty = "tile<" + "".join(f"{d}x" for d in shape) + ptr_ty + ">"
        p = self.op("offset", [b, offset.handle], [ptr_tile_ty], None, node)[0]
        return Tile(p, shape, arr.dtype)

    def ptr_load(self, node, ptrs: Tile, mask, padding_value, dtype, latency):
        ops = [ptrs.handle]
        seg = [1, 0, 0, 1]
        if mask is not None:
            ops.append(mask.handle)
            seg[1] = 1
            pad = self.to_tile(padding_value, dtype, node) if not isinstance(padding_value, Tile) else \
                self.convert(padding_value, dtype, node)
            pad = self.broadcast_tile(pad, ptrs.shape, node)
            ops.append(pad.handle)
            seg[2] = 1
        ops.append(self.token)
        attrs = self.memory_attrs(node, _api.MemoryOrder.WEAK, _api.MemoryScope.NONE, ("weak",), latency, None, view=False)
        attrs["operandSegmentSizes"] = seg
        t = Tile(0, ptrs.shape, dtype)
        t.handle = self.op("load_ptr_tko", ops, [t.type_text(), "token"], attrs, node)[0]
        return t

    def ptr_store(self, node, ptrs: Tile, value: Tile, mask, latency):
        ops = [ptrs.handle, value.handle]
        seg = [1, 1, 0, 1]
        if mask is not None:
            ops.append(mask.handle)
            seg[2] = 1
        ops.append(self.token)
        attrs = self.memory_attrs(node, _api.MemoryOrder.WEAK, _api.MemoryScope.NONE, ("weak",), latency, None, view=False)
        attrs["operandSegmentSizes"] = seg
        self.op("store_ptr_tko", ops, ["token"], attrs, node)

    def op_gather(self, node, array, indices, mask, padding_value, check_bounds, latency):
        arr = self.want_array(self.anode(node, "array"), array)
        ptrs, m = self.pointers(node, arr, indices, check_bounds, mask)
        return self.ptr_load(node, ptrs, m, padding_value, arr.dtype, latency)

    def op_scatter(self, node, array, indices, value, mask, check_bounds, latency):
        arr = self.want_array(self.anode(node, "array"), array)
        ptrs, m = self.pointers(node, arr, indices, check_bounds, mask)
        v = value if isinstance(value, Tile) else self.to_tile(value, arr.dtype, node)
        if v.dtype != arr.dtype:
            v = self.convert(v, arr.dtype, node) if not isinstance(value, Tile) else v
        if v.dtype != arr.dtype:
            raise self.error(self.anode(node, "value"), f"scattering {v.dtype.name} values into a {arr.dtype.name} array",
                             TileTypeError)
        shape = self.broadcast_shapes(node, ptrs.shape, v.shape)
        if shape != ptrs.shape:
            raise self.error(node, f"value shape {v.shape} does not broadcast to the index shape {ptrs.shape}",
                             TileValueError)
        v = self.broadcast_tile(v, shape, node)
        self.ptr_store(node, ptrs, v, m, latency)
        return None

    def advanced_indices(self, node, arr, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) != arr.ndim:
            raise self.error(node, f"indices has {len(indices)} entries but the array has {arr.ndim}", TileValueError)
        sparse = [i for i, x in enumerate(indices) if isinstance(x, Tile)]
        if len(sparse) != 1 or indices[sparse[0]].ndim != 1:
            raise self.error(node, "advanced indexing needs exactly one 1-D integer tile; the other entries are "
                             "ct.Slice(start, length)", TileTypeError)
        sd = sparse[0]
        ndim = arr.ndim
        shape = []
        grids = []
        for d, x in enumerate(indices):
            if d == sd:
                shape.append(x.shape[0])
            elif isinstance(x, _api.Slice):
                shape.append(self.const_shape(node, x.length, "Slice length")[0])
            else:
                raise self.error(node, f"index entry {d} must be a ct.Slice, got {self.describe(x)}", TileTypeError)
        for d, x in enumerate(indices):
            lifted = [1] * ndim
            lifted[d] = shape[d]
            if d == sd:
                g = self.reshape_tile(self.convert(x, _api.int32, node) if x.dtype.bits < 32 else x, tuple(lifted), node)
            else:
                io = self.op1("iota", [], (shape[d],), _api.int32, None, node)
                start = x.start
                if not (isinstance(start, int) and start == 0):
                    st = self.broadcast_tile(self.convert(self.to_tile(start, _api.int32, node), _api.int32, node),
                                             (shape[d],), node)
                    io = self.arith("add", io, st, node)
                g = self.reshape_tile(io, tuple(lifted), node)
            grids.append(g)
        return tuple(grids), tuple(shape)

    def op_load_advanced_indexing(self, node, array, indices, padding_mode, latency, allow_tma):
        arr = self.want_array(self.anode(node, "array"), array)
        grids, shape = self.advanced_indices(node, arr, indices)
        pad = self.padding_of(node, padding_mode, arr.dtype)
        padv = {None: 0, "zero": 0, "neg_zero": -0.0, "nan": float("nan"), "pos_inf": float("inf"),
                "neg_inf": float("-inf")}[pad]
        ptrs, m = self.pointers(node, arr, grids, True, None)
        return self.ptr_load(node, ptrs, m, padv, arr.dtype, latency)

    def op_store_advanced_indexing(self, node, array, indices, tile, latency, allow_tma):
        arr = self.want_array(self.anode(node, "array"), array)
        grids, shape = self.advanced_indices(node, arr, indices)
        ptrs, m = self.pointers(node, arr, grids, True, None)
        v = self.want_tile(node, tile)
        if v.dtype != arr.dtype:
            raise self.error(node, f"storing a {v.dtype.name} tile into a {arr.dtype.name} array", TileTypeError)
        self.ptr_store(node, ptrs, self.broadcast_tile(v, ptrs.shape, node), m, latency)
        return None

    # Array members
    def array_slice(self, node, arr: Array, axis, start, stop):
        ax = self.axis_of(node, axis, arr.ndim)
        itype = next((s.dtype for s in arr.shape if isinstance(s, Tile)), _api.int32)
        stride = arr.strides[ax]
        st = self.to_tile(stride, itype, node) if not isinstance(stride, Tile) else stride
        s0 = self.convert(self.to_tile(start, itype, node), itype, node)
        off = self.arith("mul", s0, self.convert(st, itype, node), node)
        ptr_ty = f"tile<ptr<{arr.dtype.ir}>>"
        ptr = self.op("offset", [arr.ptr, off.handle], [ptr_ty], None, node)[0]
        shape = list(arr.shape)
        static_shape = [s if isinstance(s, int) else None for s in arr.shape]
        if isinstance(start, int) and isinstance(stop, int):
            shape[ax] = self.constant(stop - start, itype, (), node)
            static_shape[ax] = stop - start
        else:
            shape[ax] = self.arith("sub", self.to_tile(stop, itype, node), s0, node)
            static_shape[ax] = None
        shape_t = tuple(s if isinstance(s, Tile) else self.constant(s, itype, (), node) for s in shape)
        stride_t = tuple(s if isinstance(s, Tile) else self.constant(s, itype, (), node) for s in arr.strides)
        static_strides = [s if isinstance(s, int) else None for s in arr.strides]
        return self.new_array(node, arr.name, arr.dtype, ptr, shape_t, stride_t, static_shape, static_strides)

    def array_tiled_view(self, node, arr: Array, tile_shape, padding_mode=_api.PaddingMode.UNDETERMINED,
                         traversal_steps=None):
        shape = self.const_shape(node, tile_shape, "tile_shape")
        if len(shape) != arr.ndim:
            raise self.error(node, f"tile_shape has {len(shape)} dimension(s) but the array has {arr.ndim}",
                             TileValueError)
        pad = self.padding_of(node, padding_mode, arr.dtype)
        steps = None
        if traversal_steps is not None:
            steps = tuple(self.const_int(node, s, "traversal step") for s in traversal_steps)
            if len(steps) != arr.ndim or any(s <= 0 for s in steps):
                raise self.error(node, f"traversal_steps must be {arr.ndim} positive integers", TileValueError)
        view, ty = self.partition(node, arr, shape, tuple(range(arr.ndim)), pad, steps)
        return TiledView(arr, shape, padding_mode, steps, view, ty)

    # RawArrayMemory (array.get_raw_memory())
    def array_get_raw_memory(self, node, arr: Array):
        return RawMemory(arr)

    def raw_pointers(self, node, mem: RawMemory, offset, mask) -> Tuple[Tile, Optional[Tile]]:
        """Pointers base + ``offset`` (cuTile widens offsets to 64 bits) and the mask,
        broadcast to the offsets' shape."""
        onode = self.anode(node, "offset")
        if isinstance(offset, (int, np.integer)) and not isinstance(offset, bool):
            offset = self.constant(int(offset), _api.int64, (), onode)
        if not isinstance(offset, Tile) or not offset.dtype.is_int:
            raise self.error(onode, f"offset must be an integer scalar or tile, got {self.describe(offset)}",
                             TileTypeError)
        shape = offset.shape
        off = self.convert(offset, _api.int64, onode)
        m = None
        if mask is not None:
            mnode = self.anode(node, "mask")
            if isinstance(mask, bool):
                mask = self.constant(mask, _api.bool_, (), mnode)
            if not isinstance(mask, Tile) or not mask.dtype.is_bool:
                raise self.error(mnode, f"mask must be a boolean tile, got {self.describe(mask)}", TileTypeError)
            m = self.broadcast_tile(mask, shape, mnode)
        return self.ptr_tile(node, mem.array, off, shape), m

    def raw_load_offset(self, node, mem, offset, mask, padding_value, latency):
        ptrs, m = self.raw_pointers(node, mem, offset, mask)
        pnode = self.anode(node, "padding_value")
        if not isinstance(padding_value, (Tile, bool, int, float, np.number)):
            raise self.error(pnode, f"padding_value must be a scalar or a tile, got {self.describe(padding_value)}",
                             TileTypeError)
        if isinstance(padding_value, Tile):
            self.broadcast_tile(padding_value, ptrs.shape, pnode)  # shape check, with its caret
        return self.ptr_load(node, ptrs, m, padding_value, mem.dtype, latency)

    def raw_store_offset(self, node, mem, offset, value, mask, latency):
        ptrs, m = self.raw_pointers(node, mem, offset, mask)
        vnode = self.anode(node, "value")
        v = self.want_tile(vnode, value) if isinstance(value, Tile) else self.to_tile(value, mem.dtype, vnode)
        if v.dtype != mem.dtype:
            raise self.error(vnode, f"storing {v.dtype.name} values into the raw memory of a {mem.dtype.name} array; "
                             f"convert them with astype()", TileTypeError)
        self.ptr_store(node, ptrs, self.broadcast_tile(v, ptrs.shape, vnode), m, latency)
        return None

    def raw_atomic(self, node, kind, mem, offset, update, mask, memory_order, memory_scope):
        attrs = self.atomic_attrs(node, memory_order, memory_scope)
        ptrs, m = self.raw_pointers(node, mem, offset, mask)
        return self.atomic_rmw_at(node, kind, mem, ptrs, m, attrs, update)

    def raw_atomic_cas_offset(self, node, mem, offset, expected, desired, mask, memory_order, memory_scope):
        attrs = self.atomic_attrs(node, memory_order, memory_scope)
        ptrs, m = self.raw_pointers(node, mem, offset, mask)
        return self.atomic_cas_at(node, mem, ptrs, m, attrs, expected, desired)

    def raw_atomic_xchg_offset(self, node, mem, offset, update, mask, memory_order, memory_scope):
        return self.raw_atomic(node, "xchg", mem, offset, update, mask, memory_order, memory_scope)

    def raw_atomic_add_offset(self, node, mem, offset, update, mask, memory_order, memory_scope):
        return self.raw_atomic(node, "add", mem, offset, update, mask, memory_order, memory_scope)

    def raw_atomic_max_offset(self, node, mem, offset, update, mask, memory_order, memory_scope):
        return self.raw_atomic(node, "max", mem, offset, update, mask, memory_order, memory_scope)

    def raw_atomic_min_offset(self, node, mem, offset, update, mask, memory_order, memory_scope):
        return self.raw_atomic(node, "min", mem, offset, update, mask, memory_order, memory_scope)

    def raw_atomic_and_offset(self, node, mem, offset, update, mask, memory_order, memory_scope):
        return self.raw_atomic(node, "and", mem, offset, update, mask, memory_order, memory_scope)

    def raw_atomic_or_offset(self, node, mem, offset, update, mask, memory_order, memory_scope):
        return self.raw_atomic(node, "or", mem, offset, update, mask, memory_order, memory_scope)

    def raw_atomic_xor_offset(self, node, mem, offset, update, mask, memory_order, memory_scope):
        return self.raw_atomic(node, "xor", mem, offset, update, mask, memory_order, memory_scope)

    def view_num_tiles(self, node, v: TiledView, axis):
        ax = self.axis_of(node, axis, v.array.ndim)
        return self.index_space(node, v.view, v.view_type, v.array.ndim)[ax]

    def view_load(self, node, v: TiledView, index, *, check_bounds=True, latency=None, allow_tma=None):
        idx = self.tile_index(node, index, v.array.ndim, "the tiled view")
        attrs = self.memory_attrs(node, _api.MemoryOrder.WEAK, _api.MemoryScope.NONE, ("weak",), latency, allow_tma)
        return self._load_view(node, v.view, v.view_type, v.tile_shape, v.dtype, idx, attrs)

    def view_store(self, node, v: TiledView, index, tile, *, check_bounds=True, latency=None, allow_tma=None):
        t = self.want_tile(node, tile)
        if t.dtype != v.dtype:
            raise self.error(node, f"storing a {t.dtype.name} tile into a {v.dtype.name} view", TileTypeError)
        t = self.broadcast_tile(t, v.tile_shape, node)
        idx = self.tile_index(node, index, v.array.ndim, "the tiled view")
        attrs = self.memory_attrs(node, _api.MemoryOrder.WEAK, _api.MemoryScope.NONE, ("weak",), latency, allow_tma)
        self._store_view(node, v.view, t, idx, attrs)
        return None

    def view_atomic(self, node, v: TiledView, mode, index, update):
        if mode not in ("add", "max", "min", "and", "or", "xor"):
            raise self.error(node, f"unknown tiled-view atomic 'atomic_store_{mode}'")
        if v.padding_mode not in (None, _api.PaddingMode.UNDETERMINED):
            raise self.error(node, "atomic stores need a tiled view without padding", TileValueError)
        t = self.want_tile(node, update)
        if not isinstance(update, Tile):
            t = self.constant(update, v.dtype, v.tile_shape, node)
        t = self.broadcast_tile(t, v.tile_shape, node)
        if t.dtype != v.dtype:
            raise self.error(node, f"atomic update of {t.dtype.name} into a {v.dtype.name} view", TileTypeError)
        m = self.rmw_mode(node, mode, v.dtype)
        idx = self.tile_index(node, index, v.array.ndim, "the tiled view")
        self.op("atomic_red_view_tko", [v.view] + idx + [t.handle, self.token], ["token"],
                {"memory_ordering_semantics": "relaxed", "memory_scope": "device", "mode": m,
                 "operandSegmentSizes": [1, len(idx), 1, 1]}, node)
        return None

    # ---------------------------------------------------------------------------------
    # Factories (5)
    # ---------------------------------------------------------------------------------
    def op_arange(self, node, size, dtype, start, step):
        n = self.const_shape(self.anode(node, "size"), size, "size")
        dt = self.want_dtype(self.anode(node, "dtype"), dtype)
        it = _api.int32 if not (dt.is_int and dt.bits == 64) else _api.int64
        t = self.op1("iota", [], n, it, None, node)
        if not (isinstance(step, int) and step == 1):
            t = self.arith("mul", t, step if not isinstance(step, Tile) else self.convert(step, it, node), node)
        if not (isinstance(start, int) and start == 0):
            t = self.arith("add", t, start if not isinstance(start, Tile) else self.convert(start, it, node), node)
        return self.convert(t, dt, node)

    def op_full(self, node, shape, fill_value, dtype):
        shape = self.const_shape(self.anode(node, "shape"), shape)
        dt = self.want_dtype(self.anode(node, "dtype"), dtype)
        if isinstance(fill_value, Tile):
            if fill_value.size != 1:
                raise self.error(self.anode(node, "fill_value"), "fill_value must be a scalar", TileValueError)
            v = self.convert(self.reshape_tile(fill_value, (), node), dt, node)
            return self.broadcast_tile(v, shape, node)
        if not isinstance(fill_value, (bool, int, float, np.number)):
            raise self.error(self.anode(node, "fill_value"), f"fill_value must be a number, got {self.describe(fill_value)}")
        return self.constant(fill_value.item() if isinstance(fill_value, np.number) else fill_value, dt, shape, node)

    def op_zeros(self, node, shape, dtype):
        return self.op_full(node, shape, 0 if not self.want_dtype(node, dtype).is_float else 0.0, dtype)

    def op_ones(self, node, shape, dtype):
        return self.op_full(node, shape, 1 if not self.want_dtype(node, dtype).is_float else 1.0, dtype)

    def op_astile(self, node, value, dtype):
        if isinstance(value, Tile):
            return self.convert(value, self.want_dtype(node, dtype), node) if dtype is not None else value

        def shape_of(v):
            if isinstance(v, tuple):
                inner = {shape_of(x) for x in v}
                if len(inner) != 1:
                    raise self.error(node, "astile() needs a rectangular nested tuple", TileValueError)
                return (len(v),) + inner.pop()
            return ()

        shape = shape_of(value)
        flat = []

        def walk(v):
            if isinstance(v, tuple):
                for x in v:
                    walk(x)
            else:
                flat.append(v)
        walk(value)
        if shape:
            self.const_shape(node, shape)
        if all(isinstance(v, (bool, int, float)) for v in flat):
            dt = self.want_dtype(node, dtype) if dtype is not None else _default_dtype(flat)
            if not shape:
                return self.constant(flat[0], dt, (), node)
            bits = [value_bits(v, dt) for v in flat]
            return self.op1("constant", [], shape, dt, {"value": ("dense", dt.ir, list(shape), bits)}, node)
        # runtime scalars: build with cat (balanced, so every piece has a power-of-two size)
        tiles, dt = self.operands(node, *flat, dtype=self.want_dtype(node, dtype) if dtype is not None else None)
        pieces = [self.reshape_tile(t, (1,), node) for t in tiles]
        while len(pieces) > 1:
            pieces = [self.op1("cat", [a.handle, b.handle], (a.shape[0] * 2,), dt, {"dim": 0}, node)
                      for a, b in zip(pieces[::2], pieces[1::2])]
        return self.reshape_tile(pieces[0], shape, node)

    # ---------------------------------------------------------------------------------
    # Shape and dtype (10)
    # ---------------------------------------------------------------------------------
    def op_cat(self, node, tiles, axis):
        if not isinstance(tiles, tuple) or len(tiles) != 2:
            raise self.error(self.anode(node, "tiles"), "cat() takes a pair of tiles", TileValueError)
        a, b = (self.want_tile(node, t) for t in tiles)
        if a.dtype != b.dtype or a.ndim != b.ndim:
            raise self.error(node, f"cat() needs tiles of one dtype and rank, got {a.type_text()} and {b.type_text()}")
        ax = self.axis_of(self.anode(node, "axis"), axis, a.ndim)
        for d in range(a.ndim):
            if d != ax and a.shape[d] != b.shape[d]:
                raise self.error(node, f"cat() shapes {a.shape} and {b.shape} differ outside axis {ax}", TileValueError)
        shape = list(a.shape)
        shape[ax] += b.shape[ax]
        self.const_shape(node, tuple(shape))
        return self.op1("cat", [a.handle, b.handle], tuple(shape), a.dtype, {"dim": ax}, node)

    def op_broadcast_to(self, node, x, shape):
        x = self.want_tile(node, x)
        return self.broadcast_tile(x, self.const_shape(self.anode(node, "shape"), shape), node)

    def op_expand_dims(self, node, x, axis):
        x = self.want_tile(node, x)
        ax = self.const_int(node, axis, "axis")
        if not -x.ndim - 1 <= ax <= x.ndim:
            raise self.error(node, f"axis {ax} is out of range for expand_dims of rank {x.ndim}", TileValueError)
        ax %= x.ndim + 1
        return self.reshape_tile(x, x.shape[:ax] + (1,) + x.shape[ax:], node)

    def op_reshape(self, node, x, shape):
        x = self.want_tile(node, x)
        snode = self.anode(node, "shape")
        if isinstance(shape, int):
            shape = (shape,)
        if isinstance(shape, tuple) and shape.count(-1) == 1:
            known = 1
            for d in shape:
                if d != -1:
                    known *= d
            shape = tuple(x.size // known if d == -1 else d for d in shape)
        shape = self.const_shape(snode, shape)
        n = 1
        for d in shape:
            n *= d
        if n != x.size:
            raise self.error(snode, f"cannot reshape a tile of shape {x.shape} ({x.size} elements) into {shape}",
                             TileValueError)
        return self.reshape_tile(x, shape, node)

    def op_permute(self, node, x, axes):
        x = self.want_tile(node, x)
        axes = tuple(self.const_int(node, a, "axis") % max(x.ndim, 1) for a in (axes if isinstance(axes, tuple) else (axes,)))
        if sorted(axes) != list(range(x.ndim)):
            raise self.error(self.anode(node, "axes"), f"axes {axes} is not a permutation of {x.ndim} axes", TileValueError)
        if axes == tuple(range(x.ndim)):
            return x
        shape = tuple(x.shape[a] for a in axes)
        return self.op1("permute", [x.handle], shape, x.dtype, {"permutation": list(axes)}, node)

    def transpose_tile(self, x, axis0, axis1, node):
        if axis0 is None and axis1 is None:
            if x.ndim != 2:
                raise self.error(node, f"transpose() without axes needs a 2-D tile, got rank {x.ndim}", TileValueError)
            axis0, axis1 = 0, 1
        elif axis0 is None or axis1 is None:
            raise self.error(node, "transpose() needs both axes or neither", TileValueError)
        a0, a1 = self.axis_of(node, axis0, x.ndim), self.axis_of(node, axis1, x.ndim)
        perm = list(range(x.ndim))
        perm[a0], perm[a1] = perm[a1], perm[a0]
        return self.op_permute(node, x, tuple(perm))

    def op_transpose(self, node, x, axis0, axis1):
        return self.transpose_tile(self.want_tile(node, x), axis0, axis1, node)

    def op_astype(self, node, x, dtype, rounding_mode):
        dt = self.want_dtype(self.anode(node, "dtype"), dtype)
        if not isinstance(x, Tile):
            return self.typed_constant(x, dt, node)
        rm = None
        if rounding_mode is not None:
            if not (x.dtype.is_float and dt.is_float):
                raise self.error(node, "rounding_mode applies to float-to-float conversions", TileValueError)
            allowed = ("zero", "positive_inf") if dt is _api.float8_e8m0fnu else ("nearest_even",)
            rm = self.rounding(node, rounding_mode, allowed, dt)
        return self.convert(x, dt, node, rm)

    def op_bitcast(self, node, x, dtype):
        x = self.want_tile(node, x)
        dt = self.want_dtype(self.anode(node, "dtype"), dtype)
        if dt.bits != x.dtype.bits:
            raise self.error(node, f"bitcast needs dtypes of one width, got {x.dtype.name} ({x.dtype.bits} bits) and "
                             f"{dt.name} ({dt.bits} bits)", TileTypeError)
        if dt.ir == x.dtype.ir:
            return Tile(x.handle, x.shape, dt)
        return self.op1("bitcast", [x.handle], x.shape, dt, None, node)

    def op_pack_to_bytes(self, node, x):
        x = self.want_tile(node, x)
        flat = self.reshape_tile(x, (x.size,), node)
        if x.dtype.bits == 8:
            return self.op_bitcast(node, flat, _api.uint8) if x.dtype != _api.uint8 else flat
        nbytes = x.size * x.dtype.bits // 8
        if nbytes < 1:
            raise self.error(node, "pack_to_bytes needs at least one byte of data", TileValueError)
        return self.op1("pack", [flat.handle], (nbytes,), _api.uint8, None, node)

    def op_unpack_from_bytes(self, node, x, dtype):
        x = self.want_tile(node, x)
        dt = self.want_dtype(self.anode(node, "dtype"), dtype)
        if x.ndim != 1 or x.dtype.bits != 8 or x.dtype.is_float:
            raise self.error(node, f"unpack_from_bytes needs a 1-D uint8 tile, got {x.type_text()}", TileTypeError)
        if dt.bits == 8:
            return self.op_bitcast(node, x, dt)
        n = x.size * 8 // dt.bits
        self.const_shape(node, (n,))
        return self.op1("unpack", [x.handle], (n,), dt, None, node)

    # ---------------------------------------------------------------------------------
    # Reductions (7) and scans (3)
    # ---------------------------------------------------------------------------------
    def axes_of(self, node, axis, ndim) -> List[int]:
        if axis is None:
            return list(range(ndim))
        if isinstance(axis, tuple):
            return sorted({self.axis_of(node, a, ndim) for a in axis})
        return [self.axis_of(node, axis, ndim)]

    def region_reduce(self, node, opname, xs: List[Tile], axis: int, identities, combine, reverse=None):
        """Emits a ``reduce``/``scan`` over ``axis`` of ``xs`` with ``combine(elems, accs) ->
        results`` building the body from rank-0 tiles."""
        shape = xs[0].shape
        if opname == "reduce":
            out_shape = shape[:axis] + shape[axis + 1:]
        else:
            out_shape = shape
        attrs = {"dim": axis, "identities": ("scalars", [(x.dtype.ir, value_bits(v, x.dtype)) for x, v in zip(xs, identities)])}
        if reverse is not None:
            attrs["reverse"] = bool(reverse)
        res_types = [self.ty(tile_type_text(out_shape, x.dtype)) for x in xs]
        op, results = self.b.begin_op(opname, [x.handle for x in xs], res_types, attrs, self.loc(node))
        scalar_types = []
        for x in xs:
            scalar_types.append(self.ty(tile_type_text((), x.dtype)))
        arg_types = []
        for t in scalar_types:
            arg_types += [t, t]
        args = self.begin_block(op, 0, arg_types)
        elems = [Tile(args[2 * i], (), x.dtype) for i, x in enumerate(xs)]
        accs = [Tile(args[2 * i + 1], (), x.dtype) for i, x in enumerate(xs)]
        try:
            outs = combine(elems, accs)
            if isinstance(outs, Tile) or not isinstance(outs, tuple):
                outs = (outs,)
            if len(outs) != len(xs):
                raise self.error(node, f"the combiner returned {len(outs)} value(s) for {len(xs)} operand(s)", TileValueError)
            handles = []
            for o, x in zip(outs, xs):
                o = self.to_tile(o, x.dtype, node) if not isinstance(o, Tile) else o
                if o.shape != ():
                    raise self.error(node, f"the combiner must return scalars, got {o.type_text()}")
                if o.dtype != x.dtype:
                    o = self.convert(o, x.dtype, node)
                handles.append(o.handle)
            self.op("yield", handles, [], None, node)
        finally:
            self.end_block()
        return [Tile(h, out_shape, x.dtype) for h, x in zip(results, xs)]

    def identity_of(self, kind, dt):
        if kind == "sum":
            return 0.0 if dt.is_float else 0
        if kind == "prod":
            return 1.0 if dt.is_float else 1
        if dt.is_float:
            return float("-inf") if kind == "max" else float("inf")
        if dt.is_bool:
            return kind == "min"
        if dt.is_signed:
            return -(1 << (dt.bits - 1)) if kind == "max" else (1 << (dt.bits - 1)) - 1
        return 0 if kind == "max" else (1 << dt.bits) - 1

    def simple_reduce(self, node, kind, x, axis, keepdims, rounding_mode=None, flush_to_zero=False,
                      propagate_nan=False, scan=False, reverse=False):
        x = self.want_tile(node, x)
        if x.dtype.is_bool and kind in ("sum", "prod"):
            x = self.convert(x, _api.int32, node)
        dt = x.dtype
        if dt.restricted:
            raise self.error(node, f"{kind} of {dt.name} is not supported; convert with astype() first")
        attrs = {}
        if dt.is_float and kind in ("sum", "prod"):
            rm = self.rounding(node, rounding_mode, ("nearest_even", "zero", "negative_inf", "positive_inf"), dt)
            if rm:
                attrs["rounding_mode"] = rm
        if flush_to_zero:
            attrs["flush_to_zero"] = self.ftz(node, flush_to_zero, dt)
        if propagate_nan and dt.is_float:
            attrs["propagate_nan"] = _UNIT
        if kind in ("sum", "prod"):
            name = ("addf" if kind == "sum" else "mulf") if dt.is_float else ("addi" if kind == "sum" else "muli")
        elif dt.is_float:
            name = "maxf" if kind == "max" else "minf"
        else:
            name = "maxi" if kind == "max" else "mini"
            attrs["signedness"] = self.sgn(dt) if not dt.is_bool else "unsigned"
        if not dt.is_float:
            attrs.pop("rounding_mode", None)

        def combine(e, a):
            return self.op1(name, [e[0].handle, a[0].handle], (), dt, attrs or None, node)

        ident = self.identity_of(kind, dt)
        if scan:
            if x.ndim == 0:
                return x
            ax = self.axis_of(self.anode(node, "axis"), axis, x.ndim)
            return self.region_reduce(node, "scan", [x], ax, [ident], combine, reverse)[0]
        if x.ndim == 0:
            return x
        axes = self.axes_of(self.anode(node, "axis"), axis, x.ndim)
        cur = x
        for ax in sorted(axes, reverse=True):
            cur = self.region_reduce(node, "reduce", [cur], ax, [ident], combine)[0]
        if keepdims:
            cur = self.reshape_tile(cur, tuple(1 if i in axes else d for i, d in enumerate(x.shape)), node)
        return cur

    def op_sum(self, node, x, axis, keepdims, rounding_mode, flush_to_zero):
        return self.simple_reduce(node, "sum", x, axis, keepdims, rounding_mode, flush_to_zero)

    def op_prod(self, node, x, axis, keepdims, rounding_mode, flush_to_zero):
        return self.simple_reduce(node, "prod", x, axis, keepdims, rounding_mode, flush_to_zero)

    def op_max(self, node, x, axis, keepdims, flush_to_zero, propagate_nan):
        return self.simple_reduce(node, "max", x, axis, keepdims, None, flush_to_zero, propagate_nan)

    def op_min(self, node, x, axis, keepdims, flush_to_zero, propagate_nan):
        return self.simple_reduce(node, "min", x, axis, keepdims, None, flush_to_zero, propagate_nan)

    def arg_reduce(self, node, kind, x, axis, keepdims, propagate_nan):
        x = self.want_tile(node, x)
        if x.dtype.restricted:
            raise self.error(node, f"{kind} of {x.dtype.name} is not supported")
        if axis is None:
            flat = self.reshape_tile(x, (x.size,), node)
            r = self.arg_reduce(node, kind, flat, 0, False, propagate_nan)
            return self.reshape_tile(r, (1,) * x.ndim, node) if keepdims else r
        ax = self.axis_of(self.anode(node, "axis"), axis, x.ndim)
        io = self.op1("iota", [], (x.shape[ax],), _api.int32, None, node)
        lifted = tuple(x.shape[ax] if i == ax else 1 for i in range(x.ndim))
        idx = self.broadcast_tile(self.reshape_tile(io, lifted, node), x.shape, node)
        better = "greater" if kind == "argmax" else "less"
        dt = x.dtype

        def combine(e, a):
            v, i = e
            av, ai = a
            gt = self.compare(better, v, av, node)
            eq = self.compare("equal", v, av, node)
            lt_idx = self.compare("less", i, ai, node)
            take = self.bitwise("or", gt, self.bitwise("and", eq, lt_idx, node), node)
            if propagate_nan and dt.is_float:
                vnan = self.compare("not_equal", v, v, node)
                anan = self.compare("not_equal", av, av, node)
                # NaN wins; between NaNs the smaller index wins
                take = self.where(anan, self.bitwise("and", vnan, lt_idx, node), self.bitwise("or", take, vnan, node), node)
            return (self.where(take, v, av, node), self.where(take, i, ai, node))

        ident = self.identity_of("max" if kind == "argmax" else "min", dt)
        outs = self.region_reduce(node, "reduce", [x, idx], ax, [ident, (1 << 31) - 1], combine)
        r = outs[1]
        if keepdims:
            r = self.reshape_tile(r, tuple(1 if i == ax else d for i, d in enumerate(x.shape)), node)
        return r

    def op_argmax(self, node, x, axis, keepdims, propagate_nan):
        return self.arg_reduce(node, "argmax", x, axis, keepdims, propagate_nan)

    def op_argmin(self, node, x, axis, keepdims, propagate_nan):
        return self.arg_reduce(node, "argmin", x, axis, keepdims, propagate_nan)

    def custom_reduce(self, node, opname, x, axis, func, identity, keepdims=False, reverse=None):
        xs = list(x) if isinstance(x, tuple) else [x]
        xs = [self.want_tile(node, t) for t in xs]
        ids = list(identity) if isinstance(identity, tuple) else [identity]
        if len(ids) != len(xs):
            raise self.error(self.anode(node, "identity"), f"{len(ids)} identities for {len(xs)} operands", TileValueError)
        for t in xs[1:]:
            if t.shape != xs[0].shape:
                raise self.error(node, f"operands have different shapes {xs[0].shape} and {t.shape}", TileValueError)
        for v in ids:
            if not isinstance(v, (bool, int, float)):
                raise self.error(self.anode(node, "identity"), f"identity must be a compile-time number, got "
                                 f"{self.describe(v)}")
        ax = self.axis_of(self.anode(node, "axis"), axis, xs[0].ndim)
        multi = isinstance(x, tuple)

        def combine(e, a):
            if multi:
                return self.call_function(node, func, (tuple(e), tuple(a)))
            return self.call_function(node, func, (e[0], a[0]))

        outs = self.region_reduce(node, opname, xs, ax, ids, combine, reverse)
        if keepdims and opname == "reduce":
            outs = [self.reshape_tile(o, tuple(1 if i == ax else d for i, d in enumerate(xs[0].shape)), node) for o in outs]
        return tuple(outs) if multi else outs[0]

    def op_reduce(self, node, x, axis, func, identity, keepdims):
        return self.custom_reduce(node, "reduce", x, axis, func, identity, keepdims)

    def op_cumsum(self, node, x, axis, reverse, rounding_mode, flush_to_zero):
        return self.simple_reduce(node, "sum", x, axis, False, rounding_mode, flush_to_zero, scan=True, reverse=reverse)

    def op_cumprod(self, node, x, axis, reverse, rounding_mode, flush_to_zero):
        return self.simple_reduce(node, "prod", x, axis, False, rounding_mode, flush_to_zero, scan=True, reverse=reverse)

    def op_scan(self, node, x, axis, func, identity, reverse):
        return self.custom_reduce(node, "scan", x, axis, func, identity, reverse=reverse)

    # ---------------------------------------------------------------------------------
    # Matmul (3)
    # ---------------------------------------------------------------------------------
    _MMA_OK = {"f16": ("f16", "f32"), "bf16": ("f32",), "f32": ("f32",), "f64": ("f64",), "tf32": ("f32",),
               "f8E4M3FN": ("f16", "f32"), "f8E5M2": ("f16", "f32"), "i8": ("i32",)}

    def mma_core(self, node, x: Tile, y: Tile, acc: Tile, fast_acc=False) -> Tile:
        if x.ndim not in (2, 3) or y.ndim != x.ndim or acc.ndim != x.ndim:
            raise self.error(node, f"mma needs 2-D or 3-D tiles of one rank, got {x.shape}, {y.shape} and {acc.shape}",
                             TileValueError)
        if x.dtype.ir != y.dtype.ir:
            raise self.error(node, f"mma operands must have one dtype, got {x.dtype.name} and {y.dtype.name}")
        m, k = x.shape[-2:]
        k2, n = y.shape[-2:]
        if k != k2 or acc.shape[-2:] != (m, n) or (x.ndim == 3 and not (x.shape[0] == y.shape[0] == acc.shape[0])):
            raise self.error(node, f"mma shapes do not match: {x.shape} @ {y.shape} + {acc.shape}", TileValueError)
        ok = self._MMA_OK.get(x.dtype.ir, ())
        if acc.dtype.ir not in ok:
            raise self.error(node, f"mma of {x.dtype.name} inputs cannot accumulate in {acc.dtype.name}; expected "
                             f"{' or '.join(ok) if ok else 'a supported input dtype'}", TileTypeError)
        if x.dtype.is_int:
            return self.op1("mmai", [x.handle, y.handle, acc.handle], acc.shape, acc.dtype,
                            {"signedness_lhs": self.sgn(x.dtype), "signedness_rhs": self.sgn(y.dtype)}, node)
        attrs = {"fast_acc": _UNIT} if fast_acc else None
        return self.op1("mmaf", [x.handle, y.handle, acc.handle], acc.shape, acc.dtype, attrs, node)

    def op_mma(self, node, x, y, acc, use_fast_acc):
        x, y, acc = (self.want_tile(node, t) for t in (x, y, acc))
        return self.mma_core(node, x, y, acc, use_fast_acc)

    def op_mma_scaled(self, node, x, x_scale, y, y_scale, acc):
        x, xs, y, ys, acc = (self.want_tile(node, t) for t in (x, x_scale, y, y_scale, acc))
        if acc.dtype != _api.float32:
            raise self.error(node, f"mma_scaled accumulates in float32, got {acc.dtype.name}", TileTypeError)
        return self.op1("mmaf_scaled", [x.handle, y.handle, acc.handle, xs.handle, ys.handle], acc.shape, acc.dtype,
                        None, node)

    def op_matmul(self, node, x, y):
        x, y = self.want_tile(node, x), self.want_tile(node, y)
        dt = self.promote_dtypes(x.dtype, y.dtype, node) if not (x.dtype.restricted and x.dtype == y.dtype) else x.dtype
        x, y = self.convert(x, dt, node), self.convert(y, dt, node)
        squeeze = []
        if x.ndim == 1:
            x = self.reshape_tile(x, (1, x.shape[0]), node)
            squeeze.append(-2)
        if y.ndim == 1:
            y = self.reshape_tile(y, (y.shape[0], 1), node)
            squeeze.append(-1)
        if x.ndim == 3 or y.ndim == 3:
            b = x.shape[0] if x.ndim == 3 else y.shape[0]
            if x.ndim == 2:
                x = self.broadcast_tile(self.reshape_tile(x, (1,) + x.shape, node), (b,) + x.shape, node)
            if y.ndim == 2:
                y = self.broadcast_tile(self.reshape_tile(y, (1,) + y.shape, node), (b,) + y.shape, node)
        acc_dt = {"f64": _api.float64, "i8": _api.int32}.get(dt.ir, _api.float32)
        if dt.is_int and dt.bits != 8:
            raise self.error(node, f"matmul of {dt.name} tiles is not supported (int8/uint8 only)", TileTypeError)
        if dt.is_bool:
            raise self.error(node, "matmul of bool tiles is not supported", TileTypeError)
        shape = x.shape[:-1] + (y.shape[-1],)
        acc = self.constant(0 if acc_dt.is_int else 0.0, acc_dt, shape, node)
        r = self.mma_core(node, x, y, acc)
        out_dt = dt if not dt.restricted else _api.float32
        if dt.is_int:
            out_dt = _api.int32
        r = self.convert(r, out_dt, node)
        if squeeze:
            shp = list(r.shape)
            for s in sorted(squeeze):
                shp.pop(s if s == -1 else len(shp) - 2)
            r = self.reshape_tile(r, tuple(shp), node)
        return r

    # ---------------------------------------------------------------------------------
    # Selection (3)
    # ---------------------------------------------------------------------------------
    def op_where(self, node, cond, x, y):
        if not isinstance(cond, Tile):
            cond = self.to_tile(bool(cond), _api.bool_, node)
        return self.where(cond, x, y, node)

    def op_extract(self, node, x, index, shape):
        x = self.want_tile(node, x)
        shape = self.const_shape(self.anode(node, "shape"), shape)
        if len(shape) != x.ndim or any(s % d for s, d in zip(x.shape, shape)):
            raise self.error(self.anode(node, "shape"), f"extract shape {shape} does not divide the tile shape {x.shape}",
                             TileValueError)
        idx = self.tile_index(self.anode(node, "index"), index, x.ndim, "the tile")
        idx = [self.convert(Tile(h, (), self.b_value_dtype(h)), _api.int32, node).handle for h in idx]
        return self.op1("extract", [x.handle] + idx, shape, x.dtype, None, node)

    def b_value_dtype(self, h):
        text = self.b.type_text(self.b.value_type(h))
        return _api.int64 if "i64" in text else _api.int32

    def op_insert(self, node, x, index, value):
        x = self.want_tile(node, x)
        v = self.want_tile(node, value)
        v = self.convert(v, x.dtype, node) if not isinstance(value, Tile) else v
        if v.dtype != x.dtype or v.ndim != x.ndim or any(s % d for s, d in zip(x.shape, v.shape)):
            raise self.error(node, f"insert value {v.type_text()} does not tile {x.type_text()}", TileValueError)
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) != x.ndim:
            raise self.error(node, f"index has {len(index)} entries for a tile of rank {x.ndim}", TileValueError)
        # value repeated over the tile grid, and a mask selecting sub-tile `index`
        nd = x.ndim
        grid = tuple(s // d for s, d in zip(x.shape, v.shape))
        inter = []
        for g, d in zip(grid, v.shape):
            inter += [g, d]
        lifted = []
        for d in v.shape:
            lifted += [1, d]
        rep = self.reshape_tile(self.broadcast_tile(self.reshape_tile(v, tuple(lifted), node), tuple(inter), node),
                                x.shape, node)
        mask = None
        for d in range(nd):
            io = self.op1("iota", [], (x.shape[d],), _api.int32, None, node)
            blk = self.floordiv(io, v.shape[d], node) if v.shape[d] != 1 else io
            i = index[d]
            it = self.convert(self.to_tile(i, _api.int32, node), _api.int32, node)
            eq = self.compare("equal", blk, it, node)
            shp = tuple(x.shape[d] if j == d else 1 for j in range(nd))
            eq = self.broadcast_tile(self.reshape_tile(eq, shp, node), x.shape, node)
            mask = eq if mask is None else self.bitwise("and", mask, eq, node)
        return self.op1("select", [mask.handle, rep.handle, x.handle], x.shape, x.dtype, None, node)

    # ---------------------------------------------------------------------------------
    # Math (29)
    # ---------------------------------------------------------------------------------
    def op_add(self, node, x, y, rounding_mode, flush_to_zero):
        return self.arith("add", x, y, node, rounding_mode, flush_to_zero)

    def op_sub(self, node, x, y, rounding_mode, flush_to_zero):
        return self.arith("sub", x, y, node, rounding_mode, flush_to_zero)

    def op_mul(self, node, x, y, rounding_mode, flush_to_zero):
        return self.arith("mul", x, y, node, rounding_mode, flush_to_zero)

    def op_truediv(self, node, x, y, rounding_mode, flush_to_zero):
        if not isinstance(x, Tile) and not isinstance(y, Tile):
            return x / y
        return self.arith("truediv", x, y, node, rounding_mode, flush_to_zero)

    def op_floordiv(self, node, x, y):
        if not isinstance(x, Tile) and not isinstance(y, Tile):
            return self.binary_op(node, ast.FloorDiv, x, y)
        return self.floordiv(x, y, node)

    def op_cdiv(self, node, x, y):
        if not isinstance(x, Tile) and not isinstance(y, Tile):
            return _api.cdiv(x, y)
        a, b, dt = self.int_or_float(node, x, y, "cdiv")
        if dt.is_float:
            raise self.error(node, "cdiv needs integers", TileTypeError)
        return self.op1("divi", [a.handle, b.handle], a.shape, dt,
                        {"signedness": self.sgn(dt), "rounding": "positive_inf"}, node)

    def op_pow(self, node, x, y):
        if not isinstance(x, Tile) and not isinstance(y, Tile):
            return x ** y
        (a, b), dt = self.operands(node, x, y, min_kind="f")
        return self.op1("pow", [a.handle, b.handle], a.shape, dt, None, node)

    def op_atan2(self, node, x1, x2):
        (a, b), dt = self.operands(node, x1, x2, min_kind="f")
        return self.op1("atan2", [a.handle, b.handle], a.shape, dt, None, node)

    def op_mod(self, node, x, y):
        if not isinstance(x, Tile) and not isinstance(y, Tile):
            return self.binary_op(node, ast.Mod, x, y)
        return self.modulo(x, y, node)

    def op_divmod(self, node, x, y):
        if not isinstance(x, Tile) and not isinstance(y, Tile):
            try:
                return divmod(x, y)
            except (ZeroDivisionError, TypeError) as e:
                raise self.error(node, str(e), TileValueError) from None
        folded = self.fold_constants(node, x, y, divmod)
        if folded is not None:
            return folded
        (a, b), dt = self.operands(node, x, y)
        if dt.is_bool:
            raise self.error(node, "divmod() operation does not support bool", TileTypeError)
        if not dt.is_int:
            raise self.error(node, f"divmod() is not implemented for floating point values (got {dt.name})",
                             TileTypeError)
        return (self.floordiv(a, b, node), self.modulo(a, b, node))

    def minmax(self, node, kind, x, y, flush_to_zero, propagate_nan):
        if not isinstance(x, Tile) and not isinstance(y, Tile):
            return min(x, y) if kind == "min" else max(x, y)
        (a, b), dt = self.operands(node, x, y)
        if dt.is_float:
            attrs = {}
            if propagate_nan:
                attrs["propagate_nan"] = _UNIT
            if flush_to_zero:
                attrs["flush_to_zero"] = self.ftz(node, flush_to_zero, dt)
            return self.op1("minf" if kind == "min" else "maxf", [a.handle, b.handle], a.shape, dt, attrs or None, node)
        return self.op1("mini" if kind == "min" else "maxi", [a.handle, b.handle], a.shape, dt,
                        {"signedness": self.sgn(dt) if not dt.is_bool else "unsigned"}, node)

    def op_minimum(self, node, x, y, flush_to_zero, propagate_nan):
        return self.minmax(node, "min", x, y, flush_to_zero, propagate_nan)

    def op_maximum(self, node, x, y, flush_to_zero, propagate_nan):
        return self.minmax(node, "max", x, y, flush_to_zero, propagate_nan)

    def op_negative(self, node, x):
        if not isinstance(x, Tile):
            return -x
        return self.negative(x, node)

    def op_abs(self, node, x):
        if not isinstance(x, Tile):
            return abs(x)
        if x.dtype.is_float:
            return self.op1("absf", [x.handle], x.shape, x.dtype, None, node)
        if not x.dtype.is_signed:
            return x
        return self.op1("absi", [x.handle], x.shape, x.dtype, None, node)

    def op_isnan(self, node, x):
        x = self.want_tile(node, x)
        if not x.dtype.is_float:
            return self.constant(False, _api.bool_, x.shape, node)
        return self.op1("cmpf", [x.handle, x.handle], x.shape, _api.bool_,
                        {"comparison_predicate": "not_equal", "comparison_ordering": "unordered"}, node)

    def op_exp(self, node, x, rounding_mode):
        x = self.want_tile(node, x)
        dt = x.dtype if x.dtype.is_float else _api.float32
        rm = self.rounding(node, rounding_mode, ("full", "approx"), dt)
        return self.unary_float(node, "exp", x, {"rounding_mode": rm} if rm else None)

    def op_exp2(self, node, x, flush_to_zero):
        x = self.want_tile(node, x)
        dt = x.dtype if x.dtype.is_float else _api.float32
        return self.unary_float(node, "exp2", x, {"flush_to_zero": self.ftz(node, flush_to_zero, dt)} if flush_to_zero else None)

    def op_log(self, node, x):
        return self.unary_float(node, "log", x)

    def op_log2(self, node, x):
        return self.unary_float(node, "log2", x)

    def op_sqrt(self, node, x, rounding_mode, flush_to_zero):
        x = self.want_tile(node, x)
        dt = x.dtype if x.dtype.is_float else _api.float32
        attrs = {}
        rm = self.rounding(node, rounding_mode, ("nearest_even", "zero", "negative_inf", "positive_inf", "approx"), dt)
        if rm:
            attrs["rounding_mode"] = rm
        if flush_to_zero:
            attrs["flush_to_zero"] = self.ftz(node, flush_to_zero, dt)
        return self.unary_float(node, "sqrt", x, attrs or None)

    def op_rsqrt(self, node, x, flush_to_zero):
        x = self.want_tile(node, x)
        dt = x.dtype if x.dtype.is_float else _api.float32
        return self.unary_float(node, "rsqrt", x, {"flush_to_zero": self.ftz(node, flush_to_zero, dt)} if flush_to_zero else None)

    def op_sin(self, node, x):
        return self.unary_float(node, "sin", x)

    def op_cos(self, node, x):
        return self.unary_float(node, "cos", x)

    def op_tan(self, node, x):
        return self.unary_float(node, "tan", x)

    def op_sinh(self, node, x):
        return self.unary_float(node, "sinh", x)

    def op_cosh(self, node, x):
        return self.unary_float(node, "cosh", x)

    def op_tanh(self, node, x, rounding_mode):
        x = self.want_tile(node, x)
        dt = x.dtype if x.dtype.is_float else _api.float32
        rm = self.rounding(node, rounding_mode, ("full", "approx"), dt)
        return self.unary_float(node, "tanh", x, {"rounding_mode": rm} if rm else None)

    def op_floor(self, node, x):
        x = self.want_tile(node, x)
        if not x.dtype.is_float:
            return x
        return self.unary_float(node, "floor", x)

    def op_ceil(self, node, x):
        x = self.want_tile(node, x)
        if not x.dtype.is_float:
            return x
        return self.unary_float(node, "ceil", x)

    # Bitwise (6)
    def op_bitwise_and(self, node, x, y):
        return self.bitwise("and", x, y, node)

    def op_bitwise_or(self, node, x, y):
        return self.bitwise("or", x, y, node)

    def op_bitwise_xor(self, node, x, y):
        return self.bitwise("xor", x, y, node)

    def op_bitwise_lshift(self, node, x, y):
        return self.bitwise("lshift", x, y, node)

    def op_bitwise_rshift(self, node, x, y):
        return self.bitwise("rshift", x, y, node)

    def op_bitwise_not(self, node, x):
        if not isinstance(x, Tile):
            return ~x
        return self.bitwise_not(x, node)

    # Comparison (6)
    def op_greater(self, node, x, y):
        return self.compare("greater", x, y, node)

    def op_greater_equal(self, node, x, y):
        return self.compare("greater_equal", x, y, node)

    def op_less(self, node, x, y):
        return self.compare("less", x, y, node)

    def op_less_equal(self, node, x, y):
        return self.compare("less_equal", x, y, node)

    def op_equal(self, node, x, y):
        return self.compare("equal", x, y, node)

    def op_not_equal(self, node, x, y):
        return self.compare("not_equal", x, y, node)

    # ---------------------------------------------------------------------------------
    # Atomics (8)
    # ---------------------------------------------------------------------------------
    def rmw_mode(self, node, kind, dt) -> str:
        if kind == "add":
            if dt.is_float:
                return "addf"
            mode = "add"
        elif kind in ("max", "min"):
            if dt.is_float:
                raise self.error(node, f"atomic_{kind} on {dt.name} is not supported by cuda_tile (integers only)",
                                 TileTypeError)
            mode = kind if dt.is_signed else "u" + kind
        elif kind == "xchg":
            return "xchg"
        else:
            mode = kind
        if not dt.is_int or dt.bits not in (32, 64):
            raise self.error(node, f"atomic_{kind} needs 32- or 64-bit integers, got {dt.name}", TileTypeError)
        return mode

    def atomic_attrs(self, node, memory_order, memory_scope):
        if not isinstance(memory_order, _api.MemoryOrder) or memory_order.value not in ("relaxed", "acquire", "release",
                                                                                         "acq_rel"):
            raise self.error(node, f"atomics take memory_order RELAXED, ACQUIRE, RELEASE or ACQ_REL, got {memory_order!r}",
                             TileValueError)
        if not isinstance(memory_scope, _api.MemoryScope) or memory_scope.value not in ("tl_blk", "device", "sys"):
            raise self.error(node, f"atomics take memory_scope BLOCK, DEVICE or SYS, got {memory_scope!r}", TileValueError)
        return {"memory_ordering_semantics": memory_order.value, "memory_scope": memory_scope.value}

    def atomic_common(self, node, array, indices, check_bounds, memory_order, memory_scope):
        arr = self.want_array(self.anode(node, "array"), array)
        attrs = self.atomic_attrs(node, memory_order, memory_scope)
        ptrs, mask = self.pointers(node, arr, indices, check_bounds, None)
        return arr, ptrs, mask, attrs

    def atomic_value(self, node, v, arr, shape):
        t = v if isinstance(v, Tile) else self.constant(v, arr.dtype, (), node)
        if t.dtype != arr.dtype:
            raise self.error(node, f"atomic value of {t.dtype.name} for a {arr.dtype.name} array", TileTypeError)
        return self.broadcast_tile(t, shape, node)

    def atomic_rmw(self, node, kind, array, indices, update, check_bounds, memory_order, memory_scope):
        arr, ptrs, mask, attrs = self.atomic_common(node, array, indices, check_bounds, memory_order, memory_scope)
        return self.atomic_rmw_at(node, kind, arr, ptrs, mask, attrs, update)

    def atomic_rmw_at(self, node, kind, arr, ptrs: Tile, mask, attrs, update) -> Tile:
        """``atomic_rmw_tko`` at ``ptrs`` of ``arr`` (an array or its raw memory)."""
        dt = arr.dtype
        if kind == "xchg" and (dt.bits not in (32, 64) or dt.is_bool):
            raise self.error(node, f"atomic_xchg needs 32- or 64-bit values, got {dt.name}", TileTypeError)
        if kind == "add" and dt.is_float and dt.ir not in ("f16", "bf16", "f32", "f64"):
            raise self.error(node, f"atomic_add on {dt.name} is not supported", TileTypeError)
        attrs["mode"] = self.rmw_mode(node, kind, dt)
        v = self.atomic_value(self.anode(node, "update"), update, arr, ptrs.shape)
        ops = [ptrs.handle, v.handle] + ([mask.handle] if mask is not None else []) + [self.token]
        attrs["operandSegmentSizes"] = [1, 1, 1 if mask is not None else 0, 1]
        res = self.op("atomic_rmw_tko", ops, [v.type_text(), "token"], attrs, node)
        return Tile(res[0], v.shape, dt)

    def op_atomic_cas(self, node, array, indices, expected, desired, check_bounds, memory_order, memory_scope):
        arr, ptrs, mask, attrs = self.atomic_common(node, array, indices, check_bounds, memory_order, memory_scope)
        return self.atomic_cas_at(node, arr, ptrs, mask, attrs, expected, desired)

    def atomic_cas_at(self, node, arr, ptrs: Tile, mask, attrs, expected, desired) -> Tile:
        """``atomic_cas_tko`` at ``ptrs`` of ``arr`` (an array or its raw memory)."""
        if arr.dtype.bits not in (32, 64) or arr.dtype.is_bool:
            raise self.error(node, f"atomic_cas needs 32- or 64-bit values, got {arr.dtype.name}", TileTypeError)
        c = self.atomic_value(self.anode(node, "expected"), expected, arr, ptrs.shape)
        d = self.atomic_value(self.anode(node, "desired"), desired, arr, ptrs.shape)
        ops = [ptrs.handle, c.handle, d.handle] + ([mask.handle] if mask is not None else []) + [self.token]
        attrs["operandSegmentSizes"] = [1, 1, 1, 1 if mask is not None else 0, 1]
        res = self.op("atomic_cas_tko", ops, [d.type_text(), "token"], attrs, node)
        return Tile(res[0], d.shape, arr.dtype)

    def op_atomic_xchg(self, node, array, indices, update, check_bounds, memory_order, memory_scope):
        return self.atomic_rmw(node, "xchg", array, indices, update, check_bounds, memory_order, memory_scope)

    def op_atomic_add(self, node, array, indices, update, check_bounds, memory_order, memory_scope):
        return self.atomic_rmw(node, "add", array, indices, update, check_bounds, memory_order, memory_scope)

    def op_atomic_max(self, node, array, indices, update, check_bounds, memory_order, memory_scope):
        return self.atomic_rmw(node, "max", array, indices, update, check_bounds, memory_order, memory_scope)

    def op_atomic_min(self, node, array, indices, update, check_bounds, memory_order, memory_scope):
        return self.atomic_rmw(node, "min", array, indices, update, check_bounds, memory_order, memory_scope)

    def op_atomic_and(self, node, array, indices, update, check_bounds, memory_order, memory_scope):
        return self.atomic_rmw(node, "and", array, indices, update, check_bounds, memory_order, memory_scope)

    def op_atomic_or(self, node, array, indices, update, check_bounds, memory_order, memory_scope):
        return self.atomic_rmw(node, "or", array, indices, update, check_bounds, memory_order, memory_scope)

    def op_atomic_xor(self, node, array, indices, update, check_bounds, memory_order, memory_scope):
        return self.atomic_rmw(node, "xor", array, indices, update, check_bounds, memory_order, memory_scope)

    # ---------------------------------------------------------------------------------
    # Utility (6)
    # ---------------------------------------------------------------------------------
    def emit_print(self, node, fmt: str, tiles: List[Tile]):
        self.op("print_tko", [t.handle for t in tiles] + [self.token], ["token"],
                {"str": fmt, "operandSegmentSizes": [len(tiles), 1]}, node)

    def op_printf(self, node, format, args):
        if not isinstance(format, str):
            raise self.error(self.anode(node, "format"), "printf() needs a constant format string", TileTypeError)
        tiles = [self.want_tile(node, a) for a in args]
        self.emit_print(node, format, tiles)
        return None

    def conv_of(self, dt: _api.DType, spec: str = "") -> str:
        if dt.is_float:
            return "%" + (spec if spec and spec[-1] in "eEfFgGaA" else (spec + "f" if spec else "f"))
        if dt.bits == 64:
            return "%" + (spec.rstrip("d") if spec else "") + ("ld" if dt.is_signed else "lu")
        return "%" + (spec.rstrip("dxXo") if spec else "") + (spec[-1] if spec and spec[-1] in "xXo" else
                                                              ("d" if dt.is_signed or dt.is_bool else "u"))

    def op_print(self, node, args, sep, end):
        pieces: List[str] = []
        tiles: List[Tile] = []
        arg_nodes = node.args if isinstance(node, ast.Call) else []

        def add_value(v, spec=""):
            if isinstance(v, Tile):
                t = v
                if t.dtype.restricted or t.dtype.ir in ("f16", "bf16"):
                    t = self.convert(t, _api.float32, node)
                if t.dtype.is_bool:
                    t = self.convert(t, _api.int32, node)
                pieces.append(self.conv_of(t.dtype, spec))
                tiles.append(t)
            else:
                pieces.append((format(v, spec) if spec else str(v)).replace("%", "%%"))

        for i, a in enumerate(args):
            if i:
                pieces.append(str(sep).replace("%", "%%"))
            if isinstance(a, FString):
                for part in a.node.values:
                    if isinstance(part, ast.Constant):
                        pieces.append(str(part.value).replace("%", "%%"))
                    else:
                        v = self.expr(part.value)
                        spec = self.expr(part.format_spec) if part.format_spec is not None else ""
                        add_value(v, spec)
            else:
                add_value(a)
        pieces.append(str(end).replace("%", "%%"))
        self.emit_print(node, "".join(pieces), tiles)
        return None

    def op_assert_(self, node, cond, message):
        if not isinstance(cond, Tile):
            if not cond:
                raise self.error(node, f"assertion is always false: {message or ''}", TileValueError)
            return None
        c = cond if cond.dtype.is_bool else self.compare("not_equal", cond, 0, node)
        self.op("assert", [c.handle], [], {"message": str(message) if message is not None else "assertion failed"}, node)
        return None

    def op_assume_divisible_by(self, node, x, divisor):
        d = self.const_int(self.anode(node, "divisor"), divisor, "divisor")
        if d <= 0 or d & (d - 1):
            raise self.error(self.anode(node, "divisor"), f"divisor must be a power of two, got {d}", TileValueError)
        if isinstance(x, int):
            return x
        x = self.want_tile(node, x)
        if not x.dtype.is_int:
            raise self.error(node, f"assume_divisible_by needs an integer, got {x.dtype.name}", TileTypeError)
        return self.op1("assume", [x.handle], x.shape, x.dtype, {"predicate": f"div_by<{d}>"}, node)

    def op_grid_dependency_control_wait(self, node):
        # cuda_tile 13.4 `gdc_wait_tko`: memory operations that follow take its result token,
        # so they are ordered after the wait (cuTile treats it as an acquire). A wait inside
        # a run-time region orders what follows in that region only.
        self.token = self.op("gdc_wait_tko", [self.token], ["token"], None, node)[0]
        return None

    def op_grid_dependency_control_launch_dependents(self, node):
        # cuda_tile 13.4 `gdc_launch_dependents_tko`: lets the next grid of a programmatic
        # dependent launch start; it publishes nothing the kernel's own accesses wait on.
        self.op("gdc_launch_dependents_tko", [self.token], ["token"], None, node)
        return None

    # Metaprogramming (handled in the translator for static_eval/static_assert)
    def op_static_iter(self, node, iterable):
        raise self.error(node, "static_iter() is only valid as the iterable of a for loop", TileValueError)

    def op_ensure_constant(self, node, v):
        if isinstance(v, (Tile, Array, TiledView)):
            raise self.error(self.anode(node, "v"), f"expected a compile-time constant, got {self.describe(v)}",
                             TileValueError)
        return v

    def op_static_eval(self, node, expr):  # reached only when called indirectly
        return expr

    def op_static_assert(self, node, cond, msg):
        if isinstance(cond, Tile):
            raise self.error(node, "static_assert needs a compile-time condition", _api.TileStaticAssertionError)
        if not cond:
            raise self.error(node, f"static assertion failed: {msg}", _api.TileStaticAssertionError)
        return None

    # ---------------------------------------------------------------------------------
    # tile subscripts
    # ---------------------------------------------------------------------------------
    def tile_subscript(self, node, t: Tile, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        shape = []
        src = list(t.shape)
        n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
        pos = 0
        for i in idx:
            if i is None:
                shape.append(1)
            elif i is Ellipsis:
                k = len(src) - pos - (n_real - sum(1 for j in idx[:idx.index(Ellipsis)] if j is not None))
                shape.extend(src[pos:pos + k])
                pos += k
            elif isinstance(i, slice) and i == slice(None, None, None):
                if pos >= len(src):
                    raise self.error(node, "too many indices for the tile", TileValueError)
                shape.append(src[pos])
                pos += 1
            else:
                raise self.error(node, "tiles are indexed only with ':' , '...' and None (to add an axis); use "
                                 "ct.extract for sub-tiles", TileUnsupportedFeatureError)
        shape.extend(src[pos:])
        return self.reshape_tile(t, tuple(shape), node)


def _default_dtype(vals):
    if any(isinstance(v, float) for v in vals):
        return _api.float32
    if all(isinstance(v, bool) for v in vals):
        return _api.bool_
    return _api.int32


def _is_number(v) -> bool:
    return isinstance(v, (bool, int, float)) and not isinstance(v, np.number)


def _literal_dtype(v) -> _api.DType:
    """The dtype a loosely typed Python number has on its own (cuTile's rules)."""
    if isinstance(v, np.number):
        v = v.item()
    if isinstance(v, bool):
        return _api.bool_
    if isinstance(v, float):
        return _api.float32
    return _api.int32 if -(1 << 31) <= v < (1 << 31) else _api.int64 if -(1 << 63) <= v < (1 << 63) else _api.uint64
