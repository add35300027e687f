"""Numerics of cuTile's kernel-side operations: property tests (hypothesis) that run small
kernels on the reference interpreter (``ct.interpret``) and compare with NumPy or with exact
integer references on random shapes, dtypes, tile sizes and values.

Comparison rules (the "documented bounds"):

* Integers, bools, shape/selection ops, loads/stores, gathers/scatters, atomics and
  conversions: **bit-exact**. Integer arithmetic wraps; ``//`` and ``%`` follow Python
  (floor division, remainder with the divisor's sign) for signed integers; division by zero
  and ``MIN // -1`` (undefined in cuda_tile) and shift amounts ≥ the width are not drawn.
* Float ``+ - * /``, ``sqrt``, ``abs``, ``negative``, ``floor``, ``ceil``, ``minimum``,
  ``maximum``, comparisons, ``//`` (``floor(x / y)``, as cuTile lowers it) and ``%``
  (``fmod`` plus the divisor fix-up): **bit-exact** against the operation done in float64
  and rounded once to the dtype (f16/bf16/f32: float64 has ≥ 2p+2 bits, so this double
  rounding equals the single correctly rounded result). Any NaN matches any NaN (the
  interpreter returns the canonical quiet NaN); ``%`` lets +0 match -0. Note that these float
  ``//`` and ``%`` are not Python's in edge cases: ``1.0 // 0.1`` is ``floor(10.0) = 10``
  (Python: 9.0), ``-1.0 // inf`` is -0.0 (Python: -1.0), and a zero remainder keeps the
  dividend's sign (Python: the divisor's).
* Math functions (``exp exp2 log log2 rsqrt sin cos tan sinh cosh tanh pow atan2``):
  within **1 ulp** (f16, bf16, f32) or **2 ulp** (f64) of NumPy's float64 result rounded
  to the dtype (both sides are within ~0.5 ulp of the exact value for narrow types, and
  libm/NumPy f64 functions are each within 1 ulp).
* Float reductions and scans: bit-exact on integer-valued data (every order is exact);
  on general data within ``(n-1)·u·Σ|x|`` of the float64 result.
* ``mma``/``matmul``: f16 (and i8) products are exact; compared with a float64 reference
  within ``(K+2)·u_acc·(Σ|a||b| + |c|)``; integer-valued and int8 inputs are exact.

bfloat16 has no NumPy dtype here (no ml_dtypes): bf16 values travel as float32 that are
exactly representable in bf16, kernels convert them with ``astype`` (exact), and the
reference rounds float64 results to bf16 with :func:`numerics_ref.round_to_format`.
The same emulation covers tf32 and fp8 in conversions.

Coverage of the 99 kernel-side operations (``ct.OP_NAMES``): every op appears in
``COVERAGE`` below with the test that checks its numerics, except these (``NOT_COVERED``):

* ``grid_dependency_control_wait``, ``grid_dependency_control_launch_dependents``: no
  cuda_tile 13.3 op; they are compile errors (tested in test_frontend_ops.py), so there is
  nothing to run.

Partly covered (documented here rather than left out): ``mma_scaled`` has one fixed-seed
example (fp8 e4m3 data with e8m0 power-of-two scales, exact), not a property test;
``static_eval``, ``static_assert``, ``static_iter`` and ``ensure_constant`` are compile-time
metaprogramming with no run-time numerics: one kernel checks the values they produce;
``assume_divisible_by`` is a hint: the test checks that it passes the value through.

Blocks run x-fastest unless a test passes ``shuffle=seed``; reductions, scans and ``mma``
orders beyond what cuda_tile specifies (the interpreter's documented sequential order) are
only relied on by ``test_custom_reduce_and_scan_...``, whose combiner is order-sensitive on
purpose.
"""


import io
import itertools
import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tileir as ct
from numerics_ref import (INT_DTYPES, assert_same_bits, assert_within_ulp, ceildiv, int_map, int_range,
                          round_result, round_to_format, storage_dtype, to_bf16, wrap)

# No ``from __future__ import annotations`` here: the front end recognizes string annotations
# only when they spell ``Constant`` literally, so the alias below must stay a real object.
C = ct.Constant
# hypothesis' pytest plugin touches the deprecated mypy_extensions.TypedDict while it reports
# a failing example; with the project's filterwarnings=error that would turn the report into
# an INTERNALERROR that hides the failure.
pytestmark = pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning")
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(SETTINGS, max_examples=20)
PER_OP = settings(SETTINGS, max_examples=30)  # per parametrized op: the dtypes and shapes vary

SHAPES = st.tuples(st.sampled_from([1, 2, 4]), st.sampled_from([1, 4, 8, 16]))
FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")
CT_DT = {"bool": ct.bool_, "int8": ct.int8, "int16": ct.int16, "int32": ct.int32, "int64": ct.int64,
         "uint8": ct.uint8, "uint16": ct.uint16, "uint32": ct.uint32, "uint64": ct.uint64,
         "float16": ct.float16, "bfloat16": ct.bfloat16, "float32": ct.float32, "float64": ct.float64,
         "tfloat32": ct.tfloat32, "float8_e4m3fn": ct.float8_e4m3fn, "float8_e5m2": ct.float8_e5m2}


def run(kernel, *args, grid=(1,), **kw):
    ct.interpret(grid, kernel, args, **kw)


def int_arrays(dtype, shape, lo=None, hi=None):
    mn, mx = int_range(dtype)
    return hnp.arrays(dtype, shape, elements=st.integers(mn if lo is None else lo, mx if hi is None else hi))


def float_arrays(name, shape, *, nan=True, inf=True, lo=None, hi=None):
    """Arrays of dtype ``name`` (host storage form) with hypothesis' adversarial floats."""
    width = {"float16": 16, "bfloat16": 32, "float32": 32, "float64": 64}[name]
    fdt = {16: np.float16, 32: np.float32, 64: np.float64}[width]
    if lo is not None:  # bounds rounded inward to the format
        lo = fdt(lo) if float(fdt(lo)) >= lo else np.nextafter(fdt(lo), fdt(np.inf))
        lo = float(lo)
    if hi is not None:
        hi = fdt(hi) if float(fdt(hi)) <= hi else np.nextafter(fdt(hi), fdt(-np.inf))
        hi = float(hi)
    el = st.floats(min_value=lo, max_value=hi, allow_nan=nan and lo is None, allow_infinity=inf and lo is None,
                   width=width)
    arr = hnp.arrays(storage_dtype(name), shape, elements=el)
    if name == "bfloat16":
        arr = arr.map(to_bf16)
    return arr


def errstate():
    return np.errstate(all="ignore")


# ------------------------------------------------------------------------------------------
# generic kernels: the op is a Constant name looked up on ``ct`` at compile time
# ------------------------------------------------------------------------------------------

@ct.kernel
def k_unary(X, Z, OP: C[str], DT: C, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N)).astype(DT)
    fn = ct.static_eval(getattr(ct, OP))
    ct.store(Z, (0, 0), fn(x).astype(Z.dtype))


@ct.kernel
def k_binary(X, Y, Z, OP: C[str], DT: C, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N)).astype(DT)
    y = ct.load(Y, (0, 0), (M, N)).astype(DT)
    fn = ct.static_eval(getattr(ct, OP))
    ct.store(Z, (0, 0), fn(x, y).astype(Z.dtype))


@ct.kernel
def k_operators(X, Y, Z, OP: C[str], M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    y = ct.load(Y, (0, 0), (M, N))
    if OP == "+":
        z = x + y
    elif OP == "-":
        z = x - y
    elif OP == "*":
        z = x * y
    elif OP == "//":
        z = x // y
    elif OP == "%":
        z = x % y
    elif OP == "&":
        z = x & y
    elif OP == "|":
        z = x | y
    elif OP == "^":
        z = x ^ y
    elif OP == "<<":
        z = x << y
    elif OP == ">>":
        z = x >> y
    elif OP == "neg":
        z = -x
    elif OP == "~":
        z = ~x
    else:
        z = abs(x)
    ct.store(Z, (0, 0), z)


@ct.kernel
def k_scalar_rhs(X, Z, OP: C[str], V: C, M: C[int], N: C[int]):
    """A loosely typed Python constant adopts the tile's dtype."""
    x = ct.load(X, (0, 0), (M, N))
    fn = ct.static_eval(getattr(ct, OP))
    ct.store(Z, (0, 0), fn(x, V))


@ct.kernel
def k_divmod(X, Y, Q, R, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    y = ct.load(Y, (0, 0), (M, N))
    q, r = divmod(x, y)
    ct.store(Q, (0, 0), q)
    ct.store(R, (0, 0), r)


@ct.kernel
def k_minmax(X, Y, Z, OP: C[str], DT: C, PN: C[bool], M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N)).astype(DT)
    y = ct.load(Y, (0, 0), (M, N)).astype(DT)
    if OP == "maximum":
        z = ct.maximum(x, y, propagate_nan=PN)
    else:
        z = ct.minimum(x, y, propagate_nan=PN)
    ct.store(Z, (0, 0), z.astype(Z.dtype))


# ------------------------------------------------------------------------------------------
# integer element-wise ops
# ------------------------------------------------------------------------------------------

INT_BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "floordiv": operator.floordiv, "mod": operator.mod, "cdiv": ceildiv,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
    "bitwise_lshift": operator.lshift, "bitwise_rshift": operator.rshift,
    "minimum": min, "maximum": max,
    "greater": operator.gt, "greater_equal": operator.ge, "less": operator.lt, "less_equal": operator.le,
    "equal": operator.eq, "not_equal": operator.ne,
}


def _int_operands(data, dtype, shape, op):
    x = data.draw(int_arrays(dtype, shape), "x")
    bits = np.dtype(dtype).itemsize * 8
    if op in ("bitwise_lshift", "bitwise_rshift", "<<", ">>"):
        y = data.draw(int_arrays(dtype, shape, 0, bits - 1), "y")
    else:
        y = data.draw(int_arrays(dtype, shape), "y")
        # small divisors and equal operands are the interesting cases
        y = np.where(data.draw(hnp.arrays(np.bool_, shape), "small"), (y % 7).astype(dtype), y).astype(dtype)
        y = np.where(data.draw(hnp.arrays(np.bool_, shape), "same"), x, y).astype(dtype)
    if op in ("floordiv", "mod", "cdiv", "//", "%", "divmod"):
        mn, _ = int_range(dtype)
        y = np.where(y == 0, dtype(1), y).astype(dtype)
        if mn < 0:  # MIN / -1 overflows: undefined in cuda_tile
            y = np.where((x == mn) & (y == dtype(-1)), dtype(1), y).astype(dtype)
    return x, y


@pytest.mark.parametrize("op", sorted(INT_BINARY))
@PER_OP
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES), shape=SHAPES)
def test_integer_binary_ops_are_exact(data, dtype, shape, op):
    x, y = _int_operands(data, dtype, shape, op)
    fn = INT_BINARY[op]
    ref = int_map(fn, dtype, x, y)
    z = np.zeros(shape, ref.dtype)
    run(k_binary, x, y, z, op, ct.dtype_of(dtype), *shape)
    assert_same_bits(z, ref, msg=f"{op} {np.dtype(dtype)}")


PY_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
          "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
          "neg": lambda a, b: -a, "~": lambda a, b: ~a, "abs": lambda a, b: abs(a)}


@pytest.mark.parametrize("op", sorted(PY_OPS))
@PER_OP
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES), shape=SHAPES)
def test_integer_python_operators_wrap(data, dtype, shape, op):
    x, y = _int_operands(data, dtype, shape, op)
    ref = int_map(PY_OPS[op], dtype, x, y)
    z = np.zeros(shape, dtype)
    run(k_operators, x, y, z, op, *shape)
    assert_same_bits(z, ref, msg=f"{op} {np.dtype(dtype)}")


@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES), shape=SHAPES)
def test_integer_divmod_is_python_floor_semantics(data, dtype, shape):
    x, y = _int_operands(data, dtype, shape, "divmod")
    q, r = np.zeros(shape, dtype), np.zeros(shape, dtype)
    run(k_divmod, x, y, q, r, *shape)
    assert_same_bits(q, int_map(operator.floordiv, dtype, x, y), msg="quotient")
    assert_same_bits(r, int_map(operator.mod, dtype, x, y), msg="remainder")


@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES), shape=SHAPES,
       op=st.sampled_from(["add", "sub", "mul", "floordiv", "mod", "bitwise_and", "maximum", "less"]))
def test_integer_op_with_python_scalar(data, dtype, shape, op):
    x = data.draw(int_arrays(dtype, shape), "x")
    mn, mx = int_range(dtype)
    v = data.draw(st.integers(1, min(mx, 1000)), "v")
    ref = int_map(lambda a: INT_BINARY[op](a, v), dtype, x)
    z = np.zeros(shape, ref.dtype)
    run(k_scalar_rhs, x, z, op, v, *shape)
    assert_same_bits(z, ref, msg=f"{op} {np.dtype(dtype)} {v}")


@pytest.mark.parametrize("op", ["negative", "abs", "bitwise_not", "isnan"])
@PER_OP
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES), shape=SHAPES)
def test_integer_unary_ops_are_exact(data, dtype, shape, op):
    x = data.draw(int_arrays(dtype, shape), "x")
    fn = {"negative": operator.neg, "abs": abs, "bitwise_not": operator.invert, "isnan": lambda a: False}[op]
    ref = int_map(fn, dtype, x)
    z = np.zeros(shape, ref.dtype)
    run(k_unary, x, z, op, ct.dtype_of(dtype), *shape)
    assert_same_bits(z, ref, msg=f"{op} {np.dtype(dtype)}")


@FEW
@given(data=st.data(), shape=SHAPES, op=st.sampled_from(["bitwise_and", "bitwise_or", "bitwise_xor", "equal",
                                                        "not_equal", "less", "maximum", "minimum"]))
def test_bool_logic(data, shape, op):
    x = data.draw(hnp.arrays(np.bool_, shape), "x")
    y = data.draw(hnp.arrays(np.bool_, shape), "y")
    ref = np.array([bool(INT_BINARY[op](int(a), int(b))) for a, b in zip(x.ravel(), y.ravel())]).reshape(shape)
    z = np.zeros(shape, np.bool_)
    run(k_binary, x, y, z, op, ct.bool_, *shape)
    assert_same_bits(z, ref, msg=op)


# ------------------------------------------------------------------------------------------
# float element-wise ops
# ------------------------------------------------------------------------------------------

def _fmod_python(x, y):
    r = np.fmod(x, y)
    fix = (r != 0) & ((r < 0) != (y < 0))
    return r, fix


FLOAT_EXACT_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.divide,
}
FLOAT_CMP = {"greater": np.greater, "greater_equal": np.greater_equal, "less": np.less,
             "less_equal": np.less_equal, "equal": np.equal, "not_equal": np.not_equal}


@pytest.mark.parametrize("op", sorted(FLOAT_EXACT_BINARY) + sorted(FLOAT_CMP) + ["floordiv", "mod"])
@PER_OP
@given(data=st.data(), name=st.sampled_from(FLOAT_NAMES), shape=SHAPES)
def test_float_binary_ops_are_correctly_rounded(data, name, shape, op):
    x = data.draw(float_arrays(name, shape), "x")
    y = data.draw(float_arrays(name, shape), "y")
    y = np.where(data.draw(hnp.arrays(np.bool_, shape), "same"), x, y).astype(x.dtype)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with errstate():
        if op in FLOAT_CMP:
            ref = FLOAT_CMP[op](x64, y64)
        elif op == "floordiv":
            ref = np.floor(round_result(x64 / y64, name))
        elif op == "mod":
            r, fix = _fmod_python(x64, y64)  # fmod is exact
            ref = np.where(fix, round_result(r + y64, name), round_result(r, name))
        else:
            ref = round_result(FLOAT_EXACT_BINARY[op](x64, y64), name)
    ref = np.asarray(ref).astype(np.bool_ if op in FLOAT_CMP else x.dtype)
    z = np.zeros(shape, ref.dtype)
    run(k_binary, x, y, z, op, CT_DT[name], *shape)
    assert_same_bits(z, ref, zero_sign=op != "mod", msg=f"{op} {name}")


def _ieee_minmax(x, y, kind, propagate_nan):
    with errstate():
        pick_x = (x > y) if kind == "maximum" else (x < y)
        r = np.where(pick_x, x, y)
        both_zero = (x == 0) & (y == 0)
        signed = np.signbit(x) & np.signbit(y) if kind == "maximum" else np.signbit(x) | np.signbit(y)
        r = np.where(both_zero, np.where(signed, -0.0, 0.0).astype(x.dtype), r)
        xn, yn = np.isnan(x), np.isnan(y)
        if propagate_nan:
            r = np.where(xn | yn, np.nan, r)
        else:
            r = np.where(xn, y, np.where(yn, x, r))
    return r.astype(x.dtype)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@SETTINGS
@given(data=st.data(), name=st.sampled_from(FLOAT_NAMES), shape=SHAPES, pn=st.booleans())
def test_float_minimum_maximum_ieee_2019(data, name, shape, op, pn):
    x = data.draw(float_arrays(name, shape), "x")
    y = data.draw(float_arrays(name, shape), "y")
    ref = _ieee_minmax(x, y, op, pn)
    z = np.zeros(shape, x.dtype)
    run(k_minmax, x, y, z, op, CT_DT[name], pn, *shape)
    assert_same_bits(z, ref, msg=f"{op} propagate_nan={pn} {name}")


FLOAT_EXACT_UNARY = {"sqrt": np.sqrt, "abs": np.abs, "negative": np.negative, "floor": np.floor,
                     "ceil": np.ceil, "isnan": np.isnan}
MATH_UNARY = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2,
              "rsqrt": lambda v: 1.0 / np.sqrt(v), "sin": np.sin, "cos": np.cos, "tan": np.tan,
              "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh}
MATH_ULPS = {"float16": 1, "bfloat16": 1, "float32": 1, "float64": 2}


@pytest.mark.parametrize("op", sorted(FLOAT_EXACT_UNARY))
@PER_OP
@given(data=st.data(), name=st.sampled_from(FLOAT_NAMES), shape=SHAPES)
def test_float_exact_unary_ops(data, name, shape, op):
    x = data.draw(float_arrays(name, shape), "x")
    with errstate():
        ref = FLOAT_EXACT_UNARY[op](x.astype(np.float64))
    ref = ref.astype(np.bool_) if op == "isnan" else round_result(ref, name)
    z = np.zeros(shape, ref.dtype)
    run(k_unary, x, z, op, CT_DT[name], *shape)
    assert_same_bits(z, ref, msg=f"{op} {name}")


@pytest.mark.parametrize("op", sorted(MATH_UNARY))
@PER_OP
@given(data=st.data(), name=st.sampled_from(FLOAT_NAMES), shape=SHAPES)
def test_float_math_functions_within_ulp_bound(data, name, shape, op):
    # trigonometric arguments stay moderate: libm's argument reduction is exact, NumPy's
    # SIMD float64 paths are only 1-ulp accurate for moderate arguments
    lim = 1e4 if op in ("sin", "cos", "tan") else None
    x = data.draw(float_arrays(name, shape, lo=-lim if lim else None, hi=lim), "x")
    with errstate():
        ref = round_result(MATH_UNARY[op](x.astype(np.float64)), name)
    z = np.zeros(shape, x.dtype)
    run(k_unary, x, z, op, CT_DT[name], *shape)
    assert_within_ulp(z, ref, name, MATH_ULPS[name], msg=f"{op} {name}")


@pytest.mark.parametrize("op", ["pow", "atan2"])
@SETTINGS
@given(data=st.data(), name=st.sampled_from(FLOAT_NAMES), shape=SHAPES)
def test_float_binary_math_within_ulp_bound(data, name, shape, op):
    if op == "pow":  # positive bases and moderate exponents (no overflow-boundary ties)
        x = data.draw(float_arrays(name, shape, lo=2.0 ** -8, hi=2.0 ** 8), "x")
        y = data.draw(float_arrays(name, shape, lo=-8.0, hi=8.0), "y")
    else:
        x = data.draw(float_arrays(name, shape), "x")
        y = data.draw(float_arrays(name, shape), "y")
    fn = np.power if op == "pow" else np.arctan2
    with errstate():
        ref = round_result(fn(x.astype(np.float64), y.astype(np.float64)), name)
    z = np.zeros(shape, x.dtype)
    run(k_binary, x, y, z, op, CT_DT[name], *shape)
    assert_within_ulp(z, ref, name, MATH_ULPS[name], msg=f"{op} {name}")


@ct.kernel
def k_rounding_modes(X, Y, Z, OP: C[str], RM: C, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    y = ct.load(Y, (0, 0), (M, N))
    if OP == "add":
        z = ct.add(x, y, rounding_mode=RM)
    elif OP == "sub":
        z = ct.sub(x, y, rounding_mode=RM)
    elif OP == "mul":
        z = ct.mul(x, y, rounding_mode=RM)
    else:
        z = ct.truediv(x, y, rounding_mode=RM)
    ct.store(Z, (0, 0), z)


def _directed(x, y, op, mode):
    """f32 ``x op y`` rounded toward ``mode``, computed exactly with fractions."""
    from fractions import Fraction
    fn = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv}[op]
    out = []
    for a, b in zip(x.ravel().tolist(), y.ravel().tolist()):
        exact = fn(Fraction(a), Fraction(b))
        near = np.float32(float(exact))
        cands = [np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf))]
        cands = [c for c in cands if np.isfinite(c)]
        below = [c for c in cands if Fraction(float(c)) <= exact]
        above = [c for c in cands if Fraction(float(c)) >= exact]
        if mode == "positive_inf" or (mode == "zero" and exact < 0):
            out.append(min(above, key=float))
        else:
            out.append(max(below, key=float))
    return np.array(out, np.float32).reshape(x.shape)


@SETTINGS
@given(data=st.data(), shape=SHAPES, op=st.sampled_from(["add", "sub", "mul", "truediv"]),
       rm=st.sampled_from([ct.RoundingMode.RZ, ct.RoundingMode.RP, ct.RoundingMode.RM]))
def test_f32_directed_rounding_modes(data, shape, op, rm):
    # finite, non-overflowing operands so that the float64 result decides the direction
    x = data.draw(float_arrays("float32", shape, lo=-1e18, hi=1e18), "x")
    y = data.draw(float_arrays("float32", shape, lo=-1e18, hi=1e18), "y")
    if op == "truediv":
        y = np.where(np.abs(y) < 1e-18, np.float32(1), y).astype(np.float32)
    ref = _directed(x, y, op, rm.value)
    z = np.zeros(shape, np.float32)
    run(k_rounding_modes, x, y, z, op, rm, *shape)
    assert_same_bits(z, ref, zero_sign=False, msg=f"{op} {rm}")


@ct.kernel
def k_fast_modes(X, Y, Z, OP: C[str], RM: C, FTZ: C[bool], M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    y = ct.load(Y, (0, 0), (M, N))
    if OP == "truediv":
        z = ct.truediv(x, y, rounding_mode=RM, flush_to_zero=FTZ)
    elif OP == "sqrt":
        z = ct.sqrt(x, rounding_mode=RM, flush_to_zero=FTZ)
    elif OP == "exp":
        z = ct.exp(x, rounding_mode=RM)
    else:
        z = ct.tanh(x, rounding_mode=RM)
    ct.store(Z, (0, 0), z)


def _f32_ulps(got, exact):
    """|got - exact| in float32 ulps at the magnitude of the float64 ``exact`` (subnormal
    spacing below the normal range)."""
    a = np.abs(exact)
    tiny = np.float64(np.finfo(np.float32).tiny)
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.maximum(a, tiny)))
    ulp = np.where(a < tiny, 2.0 ** -149, 2.0 ** (e - 23))
    return np.abs(got.astype(np.float64) - exact) / ulp


F32_NORMAL_HALF = dict(lo=-2.0 ** 60, hi=2.0 ** 60)


@SETTINGS
@given(data=st.data(), shape=SHAPES, rm=st.sampled_from([ct.RoundingMode.APPROX, ct.RoundingMode.FULL]))
def test_f32_fast_division_within_documented_bound(data, shape, rm):
    # approx: <= 2 ulp (spec) for 2^-126 <= |y| <= 2^126 and a normal quotient; full: <= 2 ulp
    # everywhere. The emulation (x * rcp(y), two roundings) guarantees <= 1.5.
    x = data.draw(float_arrays("float32", shape, **F32_NORMAL_HALF), "x")
    y = data.draw(float_arrays("float32", shape, **F32_NORMAL_HALF), "y")
    y = np.where(np.abs(y) < 2.0 ** -60, np.float32(3), y).astype(np.float32)
    z = np.zeros(shape, np.float32)
    run(k_fast_modes, x, y, z, "truediv", rm, False, *shape)
    exact = x.astype(np.float64) / y.astype(np.float64)
    err = _f32_ulps(z, exact)
    assert err.max() <= 1.5 + 1e-9, f"{rm}: {err.max()} ulp at {x.ravel()[np.argmax(err)]} / {y.ravel()[np.argmax(err)]}"


def test_f32_fast_division_special_cases():
    inf, nan = np.float32(np.inf), np.float32(np.nan)
    big = np.float32(2.0 ** 127)
    sub = np.float32(2.0 ** -130)
    x = np.array([[1e30, -1e30, inf, 1.0, 0.0, inf, 3.0, nan, 1.0, sub, np.finfo(np.float32).tiny, 2.0, 1.0, -1.0, 6.0, 0.5]], np.float32)
    y = np.array([[big, big, big, 0.0, 0.0, inf, -inf, 1.0, 2.0 ** -127, 1.0, 4.0, 3.0, -0.0, 0.0, 3.0, 0.25]],
                 np.float32)
    ref = {}
    for rm in (ct.RoundingMode.APPROX, ct.RoundingMode.FULL):
        for ftz in (False, True):
            z = np.zeros_like(x)
            run(k_fast_modes, x, y, z, "truediv", rm, ftz, 1, 16)
            ref[rm.value, ftz] = z
    a, f = ref["approx", False], ref["full", False]
    # approx: 2^126 < |y| < 2^128 gives 0 (NaN for an infinite x); full divides accurately.
    assert a[0, 0] == 0.0 and np.signbit(a[0, 1]) and a[0, 1] == 0.0 and np.isnan(a[0, 2])
    assert f[0, 0] == np.float32(1e30 / 2.0 ** 127) and f[0, 2] == inf
    for z in ref.values():
        assert z[0, 3] == inf and np.isnan(z[0, 4]) and np.isnan(z[0, 5]) and np.isnan(z[0, 7])
        assert z[0, 6] == 0.0 and np.signbit(z[0, 6])
        assert z[0, 12] == -inf and z[0, 13] == -inf and z[0, 14] == 2.0 and z[0, 15] == 2.0
    # Subnormal divisors and quotients: kept without ftz, flushed with it.
    assert f[0, 8] == np.float32(2.0 ** 127) and ref["approx", False][0, 8] == np.float32(2.0 ** 127)
    assert f[0, 9] == sub
    assert f[0, 10] == np.float32(np.finfo(np.float32).tiny / 4)
    for rm in ("approx", "full"):
        z = ref[rm, True]
        assert z[0, 8] == inf and z[0, 9] == 0.0 and z[0, 10] == 0.0


@SETTINGS
@given(data=st.data(), shape=SHAPES)
def test_f32_fast_sqrt_exp_tanh_within_documented_bounds(data, shape):
    x = data.draw(float_arrays("float32", shape, nan=False, inf=False), "x")
    pos = np.abs(x)
    z = np.zeros(shape, np.float32)
    # sqrt approx: relative error <= 2^-23 (+2^-48), subnormal inputs included.
    run(k_fast_modes, pos, pos, z, "sqrt", ct.RoundingMode.APPROX, False, *shape)
    exact = np.sqrt(pos.astype(np.float64))
    nz = exact > 0
    assert (z[~nz] == 0).all()
    rel = np.abs(z[nz].astype(np.float64) - exact[nz]) / exact[nz]
    assert (rel <= 2.0 ** -23 + 2.0 ** -48).all(), rel.max()
    # exp approx (exp2-based): <= 1 + 1.22|x| ulp where the result is a normal float32.
    e = np.clip(x, np.float32(-87), np.float32(88)).astype(np.float32)
    run(k_fast_modes, e, e, z, "exp", ct.RoundingMode.APPROX, False, *shape)
    err = _f32_ulps(z, np.exp(e.astype(np.float64)))
    assert (err <= 1 + 1.22 * np.abs(e.astype(np.float64))).all(), err.max()
    # tanh approx: relative error <= 2^-11 (spec: 2^-10.987).
    run(k_fast_modes, x, x, z, "tanh", ct.RoundingMode.APPROX, False, *shape)
    exact = np.tanh(x.astype(np.float64))
    nz = exact != 0
    assert (z[~nz] == 0).all()
    assert (np.abs(z[nz] - exact[nz]) / np.abs(exact[nz]) <= 2.0 ** -11).all()


def test_f32_fast_math_special_cases():
    inf, nan = np.float32(np.inf), np.float32(np.nan)
    sub = np.float32(2.0 ** -140)
    x = np.array([[0.0, -0.0, inf, -inf, nan, -1.0, sub, 4.0]], np.float32)
    z = np.zeros_like(x)
    run(k_fast_modes, x, x, z, "sqrt", ct.RoundingMode.APPROX, False, 1, 8)
    assert z[0, 0] == 0 and np.signbit(z[0, 1]) and z[0, 2] == inf and np.isnan(z[0, 3:6]).all()
    assert z[0, 6] == np.float32(2.0 ** -70) and z[0, 7] == 2.0
    run(k_fast_modes, x, x, z, "sqrt", ct.RoundingMode.APPROX, True, 1, 8)
    assert z[0, 6] == 0.0
    run(k_fast_modes, x, x, z, "exp", ct.RoundingMode.APPROX, False, 1, 8)
    assert z[0, 0] == 1 and z[0, 1] == 1 and z[0, 2] == inf and z[0, 3] == 0 and np.isnan(z[0, 4])
    run(k_fast_modes, x, x, z, "tanh", ct.RoundingMode.APPROX, False, 1, 8)
    assert z[0, 0] == 0 and np.signbit(z[0, 1]) and z[0, 2] == 1 and z[0, 3] == -1 and np.isnan(z[0, 4])
    assert z[0, 6] == sub
    # The fast modes are not the correctly rounded functions.
    t = np.full((1, 8), 0.3, np.float32)
    run(k_fast_modes, t, t, z, "tanh", ct.RoundingMode.APPROX, False, 1, 8)
    assert z[0, 0] != np.float32(np.tanh(0.3))
    run(k_fast_modes, t, t, z, "tanh", ct.RoundingMode.FULL, False, 1, 8)
    assert z[0, 0] == np.float32(np.tanh(np.float64(np.float32(0.3))))


# ------------------------------------------------------------------------------------------
# conversions
# ------------------------------------------------------------------------------------------

CONV_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "bfloat16", "float32", "float64")


def _host(name):
    return np.bool_ if name == "bool" else storage_dtype(name) if name.startswith(("float", "bfloat")) else np.dtype(name)


def _int_to_float(v: int, name: str) -> float:
    """Exact nearest-even conversion of a Python int to float format ``name``."""
    sig = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[name]
    a = abs(v)
    n = a.bit_length()
    if n > sig:
        shift = n - sig
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    f = float(a) if a < 1 << 1024 else float("inf")
    f = -f if v < 0 else f
    return float(round_to_format(np.array([f]), name)[0]) if name in ("float16", "bfloat16") else f


def _conv_input(data, src, dst, shape):
    if src == "bool":
        return data.draw(hnp.arrays(np.bool_, shape), "x")
    if not src.startswith(("float", "bfloat")):
        return data.draw(int_arrays(np.dtype(src), shape), "x")
    if dst == "bool" or dst.startswith(("float", "bfloat")):
        return data.draw(float_arrays(src, shape), "x")
    lo, hi = int_range(np.dtype(dst))
    # ftoi out of range is undefined: draw values whose truncation fits
    x = data.draw(float_arrays(src, shape, lo=float(max(lo, -6e4)), hi=float(min(hi, 6e4))), "x")
    if np.dtype(dst).kind == "u":
        x = np.abs(x)
    return x.astype(_host(src))


def _conv_ref(x, src, dst):
    out_t = _host(dst)
    if dst == "bool":
        return (x != 0).astype(np.bool_)
    if src == "bool" or not src.startswith(("float", "bfloat")):
        vals = [int(v) for v in x.ravel()]
        if dst.startswith(("float", "bfloat")):
            return np.array([_int_to_float(v, dst) for v in vals], dtype=np.float64).astype(out_t).reshape(x.shape)
        return np.array([wrap(v, out_t) for v in vals], dtype=out_t).reshape(x.shape)
    x64 = x.astype(np.float64)
    if dst.startswith(("float", "bfloat")):
        return round_result(x64, dst)
    return np.trunc(x64).astype(out_t)


@pytest.mark.parametrize("src", CONV_NAMES)
@SETTINGS
@given(data=st.data(), dst=st.sampled_from(CONV_NAMES), shape=SHAPES)
def test_astype_between_all_dtypes(data, src, dst, shape):
    x = _conv_input(data, src, dst, shape)
    ref = _conv_ref(x, src, dst)
    z = np.zeros(shape, ref.dtype)

    run(k_astype, x, z, CT_DT[src], CT_DT[dst], *shape)
    assert_same_bits(z, ref, msg=f"{src} -> {dst}")


@ct.kernel
def k_astype(X, Z, SRC: C, DST: C, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N)).astype(SRC)
    ct.store(Z, (0, 0), x.astype(DST).astype(Z.dtype))


@SETTINGS
@given(data=st.data(), fmt=st.sampled_from(["tfloat32", "float8_e4m3fn", "float8_e5m2", "bfloat16", "float16"]),
       shape=SHAPES)
def test_astype_to_restricted_floats_rounds_nearest_even(data, fmt, shape):
    fmax = {"tfloat32": 3e38, "float8_e4m3fn": 448.0, "float8_e5m2": 57344.0, "bfloat16": 3e38,
            "float16": 65504.0}[fmt]
    x = data.draw(float_arrays("float32", shape, lo=-fmax, hi=fmax), "x")
    ref = round_to_format(x.astype(np.float64), fmt).astype(np.float32)
    z = np.zeros(shape, np.float32)
    run(k_astype, x, z, ct.float32, CT_DT[fmt], *shape)
    assert_same_bits(z, ref, msg=f"float32 -> {fmt} -> float32")


@ct.kernel
def k_bitcast(X, Z, DT: C, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.bitcast(x, DT))


BITCAST_GROUPS = [(np.int8, np.uint8), (np.int16, np.uint16, np.float16), (np.int32, np.uint32, np.float32),
                  (np.int64, np.uint64, np.float64)]


@SETTINGS
@given(data=st.data(), group=st.sampled_from(BITCAST_GROUPS), shape=SHAPES)
def test_bitcast_keeps_bits(data, group, shape):
    src = data.draw(st.sampled_from(group), "src")
    dst = data.draw(st.sampled_from(group), "dst")
    ut = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(src).itemsize]
    bits = data.draw(int_arrays(ut, shape), "bits")
    x = bits.view(src)
    z = np.zeros(shape, dst)
    run(k_bitcast, x, z, ct.dtype_of(dst), *shape)
    np.testing.assert_array_equal(z.view(ut), bits)


@ct.kernel
def k_bitcast_bf16(X, Z, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    b = ct.bitcast(x, ct.bfloat16)
    ct.store(Z, (0, 0), ct.bitcast(b.astype(ct.float32).astype(ct.bfloat16), ct.uint16).astype(ct.uint32) << 16)


@FEW
@given(data=st.data(), shape=SHAPES)
def test_bitcast_bfloat16(data, shape):
    bits = data.draw(int_arrays(np.uint16, shape), "bits")
    nan = (bits & 0x7F80) == 0x7F80
    bits = np.where(nan & ((bits & 0x7F) != 0), np.uint16(0x7FC0), bits).astype(np.uint16)  # canonical NaN
    z = np.zeros(shape, np.uint32)
    run(k_bitcast_bf16, bits, z, *shape)
    np.testing.assert_array_equal(z, bits.astype(np.uint32) << 16)


@ct.kernel
def k_pack(X, Z, B, DT: C, N: C[int], NB: C[int]):
    x = ct.load(X, (0,), (N,)).astype(DT)
    b = ct.pack_to_bytes(x)
    ct.store(B, (0,), b)
    ct.store(Z, (0,), ct.unpack_from_bytes(b, DT).astype(Z.dtype))


@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES + (np.float16, np.float32, np.float64)),
       n=st.sampled_from([4, 8, 16]))
def test_pack_unpack_bytes_little_endian(data, dtype, n):
    ut = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    bits = data.draw(int_arrays(ut, (n,)), "bits")
    if np.dtype(dtype).kind == "f":
        x = bits.view(dtype)
        x = np.where(np.isnan(x), dtype(1), x).astype(dtype)  # NaN payloads are not the point here
    else:
        x = bits.view(dtype)
    nb = n * np.dtype(dtype).itemsize
    z, b = np.zeros(n, dtype), np.zeros(nb, np.uint8)
    run(k_pack, x, z, b, ct.dtype_of(dtype), n, nb)
    np.testing.assert_array_equal(b, x.astype(x.dtype.newbyteorder("<")).view(np.uint8))
    np.testing.assert_array_equal(z.view(ut), x.view(ut))


# ------------------------------------------------------------------------------------------
# reductions and scans
# ------------------------------------------------------------------------------------------

@ct.kernel
def k_reduce(X, Z, OP: C[str], AXIS: C, KEEP: C[bool], OUT: C, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    fn = ct.static_eval(getattr(ct, OP))
    r = fn(x, axis=AXIS, keepdims=KEEP)
    ct.store(Z, ct.static_eval((0,) * len(OUT)), ct.reshape(r, OUT).astype(Z.dtype))


def _np_reduce(op, x, axis, keep):
    with errstate():
        if op in ("argmax", "argmin"):
            if axis is None:
                r = getattr(np, op)(x).reshape((1, 1) if keep else ())
            else:
                r = getattr(np, op)(x, axis=axis)
                r = np.expand_dims(r, axis) if keep else r
            return r.astype(np.int32)
        fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[op]
        r = fn(x, axis=axis, keepdims=keep)
        if op in ("max", "min"):
            # -0.0 orders below +0.0 (NumPy keeps whichever zero comes first): a zero result
            # is -0.0 for min when any -0.0 is reduced, +0.0 for max when any +0.0 is.
            want_negative = np.signbit(x) if op == "min" else ~np.signbit(x)
            zero_sign = np.any((x == 0) & want_negative, axis=axis, keepdims=keep)
            r = np.where(r == 0, np.where(zero_sign == (op == "min"), -0.0, 0.0), r)
        return r


AXES = st.sampled_from([None, 0, 1, (0, 1)])


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "argmax", "argmin"])
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES), shape=SHAPES, axis=AXES, keep=st.booleans())
def test_integer_reductions_are_exact(data, dtype, shape, axis, keep, op):
    if op.startswith("arg") and axis == (0, 1):
        axis = None
    lo, hi = (-3, 3) if op.startswith("arg") else (None, None)  # ties: the first index wins
    if np.dtype(dtype).kind == "u" and lo is not None:
        lo = 0
    x = data.draw(int_arrays(dtype, shape, lo, hi), "x")
    if op in ("sum", "prod"):  # wrap-around: compute on Python ints
        obj = x.astype(object)
        r = obj.sum(axis=axis, keepdims=keep) if op == "sum" else obj.prod(axis=axis, keepdims=keep)
        ref = np.array([wrap(int(v), dtype) for v in np.asarray(r).ravel()], dtype=dtype).reshape(np.shape(r))
    else:
        ref = _np_reduce(op, x, axis, keep)
    ref = np.asarray(ref)
    out = ref.shape if ref.ndim else (1,)
    z = np.zeros(out, ref.dtype)
    run(k_reduce, x, z, op, axis, keep, out, *shape)
    assert_same_bits(z, ref.reshape(out), msg=f"{op} axis={axis} keepdims={keep}")


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "argmax", "argmin"])
@SETTINGS
@given(data=st.data(), name=st.sampled_from(FLOAT_NAMES), shape=SHAPES, axis=AXES, keep=st.booleans(),
       integral=st.booleans())
def test_float_reductions(data, name, shape, axis, keep, op, integral):
    if op.startswith("arg") and axis == (0, 1):
        axis = None
    if integral or op.startswith("arg"):  # exact in any order (prod: powers of two)
        if op == "prod":
            e = data.draw(hnp.arrays(np.int8, shape, elements=st.integers(-3, 3)), "e")
            s = data.draw(hnp.arrays(np.bool_, shape), "s")
            x = np.where(s, -1.0, 1.0) * np.exp2(e.astype(np.float64))
        else:
            x = data.draw(hnp.arrays(np.int8, shape, elements=st.integers(-8, 8)), "x").astype(np.float64)
        x = x.astype(storage_dtype(name))
    else:
        x = data.draw(float_arrays(name, shape, lo=-100.0, hi=100.0), "x")
    x64 = x.astype(np.float64)
    ref = np.asarray(_np_reduce(op, x64, axis, keep))
    out = ref.shape if ref.ndim else (1,)
    z = np.zeros(out, np.int32 if op.startswith("arg") else x.dtype)
    run(k_reduce, x, z, op, axis, keep, out, *shape)
    ref = ref.reshape(out)
    if op.startswith("arg") or op in ("max", "min") or integral:
        assert_same_bits(z, ref.astype(z.dtype), msg=f"{op} axis={axis} keepdims={keep} {name}")
    else:
        n = x.size if axis is None or axis == (0, 1) else shape[axis]
        u = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24, "float64": 2.0 ** -53}[name]
        mag = np.asarray(_np_reduce(op, np.abs(x64), axis, keep)).reshape(out)
        bound = (n + 1) * u * mag * (1 + 1e-6) + 1e-300
        err = np.abs(z.astype(np.float64) - ref)
        assert (err <= bound).all(), f"{op} {name}: err {err.max()} > bound {bound.max()}\n{z}\n{ref}"


@ct.kernel
def k_reduce_nan(X, Z, OP: C[str], PN: C[bool], M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    fn = ct.static_eval(getattr(ct, OP))
    ct.store(Z, (0,), fn(x, axis=1, propagate_nan=PN).astype(Z.dtype))


@FEW
@given(data=st.data(), shape=SHAPES, op=st.sampled_from(["max", "min"]), pn=st.booleans())
def test_max_min_reduction_nan_handling(data, shape, op, pn):
    x = data.draw(float_arrays("float32", shape, inf=True), "x")
    ref = x[:, 0].copy()
    for j in range(1, shape[1]):
        ref = _ieee_minmax(x[:, j], ref, "maximum" if op == "max" else "minimum", pn)
    z = np.zeros(shape[0], np.float32)
    run(k_reduce_nan, x, z, op, pn, *shape)
    assert_same_bits(z, ref, msg=f"{op} propagate_nan={pn}")


@ct.kernel
def k_scan(X, Z, OP: C[str], AXIS: C[int], REV: C[bool], M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    fn = ct.static_eval(getattr(ct, OP))
    ct.store(Z, (0, 0), fn(x, axis=AXIS, reverse=REV))


def _scan_ref(x, op, axis, rev, dtype):
    with errstate():
        return _scan_ref_inner(x, op, axis, rev, dtype)


def _scan_ref_inner(x, op, axis, rev, dtype):
    obj = np.flip(x, axis) if rev else x
    obj = obj.astype(object)
    r = np.cumsum(obj, axis=axis) if op == "cumsum" else np.cumprod(obj, axis=axis)
    r = np.flip(r, axis) if rev else r
    if np.dtype(dtype).kind == "f":
        return np.array(r.tolist(), dtype=np.float64).astype(dtype)
    return np.array([wrap(int(v), dtype) for v in r.ravel()], dtype=dtype).reshape(x.shape)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES + (np.float16, np.float32, np.float64)), shape=SHAPES,
       axis=st.sampled_from([0, 1]), rev=st.booleans())
def test_scans_are_exact(data, dtype, shape, axis, rev, op):
    if np.dtype(dtype).kind == "f":  # integral values (cumsum) and powers of two (cumprod): exact in any order
        if op == "cumsum":
            x = data.draw(hnp.arrays(np.int8, shape, elements=st.integers(-8, 8)), "x").astype(dtype)
        else:
            e = data.draw(hnp.arrays(np.int8, shape, elements=st.integers(-2, 2)), "e")
            x = (np.where(e < 0, -1.0, 1.0) * np.exp2(np.abs(e))).astype(dtype)
    else:
        x = data.draw(int_arrays(dtype, shape), "x")
    ref = _scan_ref(x, op, axis, rev, dtype)
    z = np.zeros(shape, dtype)
    run(k_scan, x, z, op, axis, rev, *shape)
    assert_same_bits(z, ref, msg=f"{op} axis={axis} reverse={rev}")


@ct.kernel
def k_custom_reduce_scan(X, I, R, S, RMAX, RARG, M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    i = ct.load(I, (0, 0), (M, N))
    r = ct.reduce(x, 1, lambda a, b: a * 2 + b, 0)           # order-sensitive combiner
    ct.store(R, (0,), r)
    s = ct.scan(x, 1, lambda a, b: ct.maximum(a, b) + 1, -1000)
    ct.store(S, (0, 0), s)
    m, a = ct.reduce((x, i), 1, lambda p, q: (ct.where(p[0] > q[0], p[0], q[0]), ct.where(p[0] > q[0], p[1], q[1])),
                     (-1000, -1))
    ct.store(RMAX, (0,), m)
    ct.store(RARG, (0,), a)


@SETTINGS
@given(data=st.data(), shape=SHAPES)
def test_custom_reduce_and_scan_are_sequential_element_then_accumulator(data, shape):
    x = data.draw(int_arrays(np.int32, shape, -100, 100), "x")
    m, n = shape
    idx = np.tile(np.arange(n, dtype=np.int32), (m, 1))
    r, s = np.zeros(m, np.int32), np.zeros(shape, np.int32)
    rmax, rarg = np.zeros(m, np.int32), np.zeros(m, np.int32)
    run(k_custom_reduce_scan, x, idx, r, s, rmax, rarg, *shape)
    # the interpreter documents the order: accumulator = identity, then body(element, acc)
    # sequentially along the axis; cuda_tile itself leaves the order unspecified.
    ref_r = np.zeros(m, np.int64)
    ref_s = np.zeros(shape, np.int64)
    ref_m, ref_a = np.full(m, -1000), np.full(m, -1)
    for row in range(m):
        acc = 0
        sc = -1000
        for j in range(n):
            acc = x[row, j] * 2 + acc
            sc = max(int(x[row, j]), sc) + 1
            ref_s[row, j] = sc
            if x[row, j] > ref_m[row]:
                ref_m[row], ref_a[row] = x[row, j], j
        ref_r[row] = acc
    np.testing.assert_array_equal(r, ref_r)
    np.testing.assert_array_equal(s, ref_s)
    np.testing.assert_array_equal(rmax, ref_m)
    np.testing.assert_array_equal(rmax, x.max(axis=1))
    # the element replaces the accumulator only when strictly greater: the first maximum wins
    np.testing.assert_array_equal(rarg, ref_a)
    np.testing.assert_array_equal(rarg, x.argmax(axis=1))


# ------------------------------------------------------------------------------------------
# shape ops, factories, selection
# ------------------------------------------------------------------------------------------

@ct.kernel
def k_shape_ops(X, Y, R1, R2, R3, R4, R5, R6, R7, A: C[int], B: C[int], Cc: C[int]):
    x = ct.load(X, (0, 0, 0), (A, B, Cc))
    y = ct.load(Y, (0, 0, 0), (A, B, Cc))
    ct.store(R1, (0, 0), ct.reshape(x, (A * B, Cc)))
    ct.store(R2, (0, 0, 0), ct.permute(x, (2, 0, 1)))
    ct.store(R3, (0, 0, 0), ct.transpose(x, 0, 2))
    ct.store(R4, (0, 0, 0), ct.cat((x, y), axis=1))
    ct.store(R5, (0, 0, 0, 0), ct.expand_dims(x, 1))
    s = ct.sum(x, axis=0)                                   # (B, C)
    ct.store(R6, (0, 0, 0), ct.broadcast_to(s[None, :, :], (A, B, Cc)))
    ct.store(R7, (0, 0, 0), ct.where(x > y, x, y * 2))


@SETTINGS
@given(data=st.data(), a=st.sampled_from([1, 2, 4]), b=st.sampled_from([1, 2, 8]), c=st.sampled_from([1, 4, 8]))
def test_shape_ops_match_numpy(data, a, b, c):
    x = data.draw(int_arrays(np.int32, (a, b, c), -1000, 1000), "x")
    y = data.draw(int_arrays(np.int32, (a, b, c), -1000, 1000), "y")
    outs = [np.zeros((a * b, c), np.int32), np.zeros((c, a, b), np.int32), np.zeros((c, b, a), np.int32),
            np.zeros((a, 2 * b, c), np.int32), np.zeros((a, 1, b, c), np.int32), np.zeros((a, b, c), np.int32),
            np.zeros((a, b, c), np.int32)]
    run(k_shape_ops, x, y, *outs, a, b, c)
    refs = [x.reshape(a * b, c), x.transpose(2, 0, 1), x.transpose(2, 1, 0), np.concatenate([x, y], axis=1),
            x[:, None], np.broadcast_to(x.sum(axis=0)[None], (a, b, c)), np.where(x > y, x, y * 2)]
    for i, (o, r) in enumerate(zip(outs, refs)):
        np.testing.assert_array_equal(o, r, err_msg=f"result R{i + 1}")


@ct.kernel
def k_factories(Z1, Z2, Z3, Z4, Z5, Z6, n, DT: C, FILL: C, START: C[int], STEP: C[int], N: C[int]):
    ct.store(Z1, (0,), ct.full((N,), FILL, DT).astype(Z1.dtype))
    ct.store(Z2, (0,), ct.zeros((N,), DT).astype(Z2.dtype))
    ct.store(Z3, (0,), ct.ones((N,), DT).astype(Z3.dtype))
    ct.store(Z4, (0,), ct.arange(N, dtype=DT, start=START, step=STEP).astype(Z4.dtype))
    ct.store(Z5, (0,), ct.astile(((START, STEP), (n, n + 1)), dtype=DT).reshape((4,)).astype(Z5.dtype))
    ct.store(Z6, (0,), ct.full((N,), n, DT).astype(Z6.dtype))


@SETTINGS
@given(name=st.sampled_from(["int8", "int32", "int64", "uint16", "float16", "bfloat16", "float32", "float64"]),
       n=st.sampled_from([1, 4, 16]), fill=st.integers(-100, 100), start=st.integers(-50, 50),
       step=st.integers(-3, 3), rt=st.integers(0, 100))
def test_factories(name, n, fill, start, step, rt):
    host = _host(name)
    if np.dtype(host).kind == "u":
        fill, start, step = abs(fill), abs(start), abs(step)
    zs = [np.zeros(n, host) for _ in range(4)] + [np.zeros(4, host), np.zeros(n, host)]
    run(k_factories, *zs, rt, CT_DT[name], fill, start, step, n)
    np.testing.assert_array_equal(zs[0], np.full(n, fill, host))
    np.testing.assert_array_equal(zs[1], np.zeros(n, host))
    np.testing.assert_array_equal(zs[2], np.ones(n, host))
    np.testing.assert_array_equal(zs[3], np.array([wrap(start + k * step, np.int64) for k in range(n)]).astype(host))
    np.testing.assert_array_equal(zs[4], np.array([start, step, rt, rt + 1]).astype(host))
    np.testing.assert_array_equal(zs[5], np.full(n, rt).astype(host))


@ct.kernel
def k_extract_insert(X, E, I, J: C[int], K: C[int], TM: C[int], TN: C[int], M: C[int], N: C[int]):
    x = ct.load(X, (0, 0), (M, N))
    ct.store(E, (0, 0), ct.extract(x, (J, K), (TM, TN)))
    ct.store(I, (0, 0), ct.insert(x, (J, K), ct.full((TM, TN), -1, ct.int32)))


@SETTINGS
@given(data=st.data(), m=st.sampled_from([2, 4, 8]), n=st.sampled_from([4, 8, 16]))
def test_extract_insert_subtiles(data, m, n):
    tm = data.draw(st.sampled_from([d for d in (1, 2, 4) if m % d == 0]), "tm")
    tn = data.draw(st.sampled_from([d for d in (1, 2, 4) if n % d == 0]), "tn")
    j, k = data.draw(st.integers(0, m // tm - 1), "j"), data.draw(st.integers(0, n // tn - 1), "k")
    x = data.draw(int_arrays(np.int32, (m, n)), "x")
    e, ins = np.zeros((tm, tn), np.int32), np.zeros((m, n), np.int32)
    run(k_extract_insert, x, e, ins, j, k, tm, tn, m, n)
    np.testing.assert_array_equal(e, x[j * tm:(j + 1) * tm, k * tn:(k + 1) * tn])
    ref = x.copy()
    ref[j * tm:(j + 1) * tm, k * tn:(k + 1) * tn] = -1
    np.testing.assert_array_equal(ins, ref)


# ------------------------------------------------------------------------------------------
# loads, stores, indexing
# ------------------------------------------------------------------------------------------

@ct.kernel
def k_load_pad(X, Z, PM: C, T: C[int]):
    t = ct.load(X, (ct.bid(0),), (T,), padding_mode=PM)
    ct.store(Z, (ct.bid(0),), t)


PADS = {ct.PaddingMode.ZERO: 0.0, ct.PaddingMode.NEG_ZERO: -0.0, ct.PaddingMode.NAN: np.nan,
        ct.PaddingMode.POS_INF: np.inf, ct.PaddingMode.NEG_INF: -np.inf}


@SETTINGS
@given(data=st.data(), t=st.sampled_from([4, 8, 16]), n=st.integers(1, 40), pm=st.sampled_from(sorted(PADS, key=str)),
       name=st.sampled_from(["float16", "float32", "float64"]))
def test_load_padding_and_partial_store(data, t, n, pm, name):
    x = data.draw(float_arrays(name, (n,)), "x")
    blocks = -(-n // t)
    padded = np.zeros(blocks * t, x.dtype)
    run(k_load_pad, x, padded, pm, t, grid=(blocks,))
    ref = np.full(blocks * t, PADS[pm], x.dtype)
    ref[:n] = x
    assert_same_bits(padded, ref, msg=str(pm))
    # partial store: the tail past n stays untouched
    big = np.full(n + 8, 7, x.dtype)
    run(k_load_pad, x, big[:n], pm, t, grid=(blocks,))
    assert_same_bits(big[:n], x, msg="stored")
    assert (big[n:] == 7).all()


@ct.kernel
def k_load_2d(X, Z, ORDER: C, TM: C[int], TN: C[int]):
    t = ct.load(X, (ct.bid(0), ct.bid(1)), (TM, TN), order=ORDER, padding_mode=ct.PaddingMode.ZERO)
    ct.store(Z, (ct.bid(0), ct.bid(1)), t, order=ORDER)


@SETTINGS
@given(data=st.data(), m=st.integers(1, 20), n=st.integers(1, 20), tm=st.sampled_from([2, 4, 8]),
       tn=st.sampled_from([1, 4, 8]), order=st.sampled_from(["C", "F"]))
def test_tiled_2d_copy_with_order_and_strides(data, m, n, tm, tn, order):
    base = data.draw(int_arrays(np.int32, (m, 2 * n), -99, 99), "x")
    x = base[:, ::2]  # strided input
    z = np.zeros((m, n), np.int32)
    gm, gn = (m, n) if order == "C" else (n, m)
    run(k_load_2d, x, z, order, tm, tn, grid=(-(-gm // tm), -(-gn // tn)))
    np.testing.assert_array_equal(z, x)


@ct.kernel
def k_grid_queries(X, Z, T: C[int]):
    v = ct.bid(0) * 10000 + ct.bid(1) * 100 + ct.num_blocks(0) * 7 + ct.num_blocks(1) + ct.num_tiles(X, 0, (T,)) * 1000
    ct.store(Z, (ct.bid(1) * ct.num_blocks(0) + ct.bid(0),), ct.full((1,), v, ct.int32))


@FEW
@given(gx=st.integers(1, 5), gy=st.integers(1, 4), n=st.integers(1, 50), t=st.sampled_from([4, 16]))
def test_bid_num_blocks_num_tiles(gx, gy, n, t):
    x = np.zeros(n, np.float32)
    z = np.zeros(gx * gy, np.int32)
    run(k_grid_queries, x, z, t, grid=(gx, gy))
    ref = [bx * 10000 + by * 100 + gx * 7 + gy + -(-n // t) * 1000 for by in range(gy) for bx in range(gx)]
    np.testing.assert_array_equal(z, ref)


@ct.kernel
def k_gather_scatter(X, I, Mk, Z, Y, PAD: C, N: C[int]):
    idx = ct.load(I, (0,), (N,))
    m = ct.load(Mk, (0,), (N,))
    g = ct.gather(X, (idx,), mask=m, padding_value=PAD)
    ct.store(Z, (0,), g)
    ct.scatter(Y, (idx,), g + 1, mask=m)


@SETTINGS
@given(data=st.data(), n=st.sampled_from([4, 16]), size=st.integers(1, 30), pad=st.integers(-9, 9))
def test_gather_scatter_with_masks_and_bounds(data, n, size, pad):
    x = data.draw(int_arrays(np.int64, (size,), -1000, 1000), "x")
    # unique indices (scatter order within a tile is not the point here), some out of bounds
    idx = np.array(data.draw(st.lists(st.integers(-5, max(size + 5, n)), min_size=n, max_size=n, unique=True), "i"), np.int32)
    mask = data.draw(hnp.arrays(np.bool_, (n,)), "m")
    z = np.zeros(n, np.int64)
    y = np.full(size, 5, np.int64)
    run(k_gather_scatter, x, idx, mask, z, y, pad, n)
    ok = mask & (idx >= 0) & (idx < size)
    ref = np.where(ok, x[np.clip(idx, 0, size - 1)], pad)
    np.testing.assert_array_equal(z, ref)
    ref_y = np.full(size, 5, np.int64)
    ref_y[idx[ok]] = ref[ok] + 1
    np.testing.assert_array_equal(y, ref_y)


@ct.kernel
def k_gather_2d(X, Z, R: C[int], Cc: C[int]):
    rows = ct.arange(R, dtype=ct.int32)[:, None] - 1
    cols = ct.arange(Cc, dtype=ct.int32) * 2
    ct.store(Z, (0, 0), ct.gather(X, (rows, cols), padding_value=-1))


@FEW
@given(data=st.data(), r=st.sampled_from([2, 4, 8]), c=st.sampled_from([2, 4]), m=st.integers(1, 8),
       n=st.integers(1, 8))
def test_gather_broadcast_indices(data, r, c, m, n):
    x = data.draw(int_arrays(np.int32, (m, n), 0, 99), "x")
    z = np.zeros((r, c), np.int32)
    run(k_gather_2d, x, z, r, c)
    ref = np.full((r, c), -1, np.int32)
    for i in range(r):
        for j in range(c):
            if 0 <= i - 1 < m and 2 * j < n:
                ref[i, j] = x[i - 1, 2 * j]
    np.testing.assert_array_equal(z, ref)


@ct.kernel
def k_adv_index(X, I, Z, Y, S: C[int], L: C[int], N: C[int]):
    idx = ct.load(I, (0,), (N,))
    t = ct.load_advanced_indexing(X, (idx, ct.Slice(S, L)), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Z, (0, 0), t)
    ct.store_advanced_indexing(Y, (idx, ct.Slice(S, L)), t + 1)


@SETTINGS
@given(data=st.data(), m=st.integers(1, 12), n=st.integers(1, 12), k=st.sampled_from([2, 4, 8]),
       ln=st.sampled_from([1, 2, 4]))
def test_advanced_indexing_load_store(data, m, n, k, ln):
    s = data.draw(st.integers(0, n - 1), "s")
    x = data.draw(int_arrays(np.int32, (m, n), -99, 99), "x")
    idx = np.array(data.draw(st.lists(st.integers(-2, max(m + 2, k)), min_size=k, max_size=k, unique=True), "i"), np.int32)
    z = np.zeros((k, ln), np.int32)
    y = np.zeros((m, n), np.int32)
    run(k_adv_index, x, idx, z, y, s, ln, k)
    ref = np.zeros((k, ln), np.int32)
    ref_y = np.zeros((m, n), np.int32)
    for a, row in enumerate(idx):
        for b in range(ln):
            if 0 <= row < m and s + b < n:
                ref[a, b] = x[row, s + b]
                ref_y[row, s + b] = ref[a, b] + 1
    np.testing.assert_array_equal(z, ref)
    np.testing.assert_array_equal(y, ref_y)


# ------------------------------------------------------------------------------------------
# atomics
# ------------------------------------------------------------------------------------------

@ct.kernel
def k_atomic_rmw(A, I, U, OLD, OP: C[str], N: C[int]):
    b = ct.bid(0)
    idx = ct.load(I, (b, 0), (1, N)).reshape((N,))
    upd = ct.load(U, (b, 0), (1, N)).reshape((N,))
    fn = ct.static_eval(getattr(ct, OP))
    old = fn(A, (idx,), upd)
    ct.store(OLD, (b, 0), old.reshape((1, N)))


ATOMIC_INT = {"atomic_add": operator.add, "atomic_max": max, "atomic_min": min, "atomic_and": operator.and_,
              "atomic_or": operator.or_, "atomic_xor": operator.xor, "atomic_xchg": lambda old, new: new}


@pytest.mark.parametrize("op", sorted(ATOMIC_INT))
@SETTINGS
@given(data=st.data(),
       dtype=st.sampled_from([np.int32, np.int64, np.uint32, np.uint64]), blocks=st.integers(1, 6),
       n=st.sampled_from([1, 4, 8]), size=st.integers(1, 6), seed=st.sampled_from([None, 0, 1, 2]))
def test_atomics_are_sequentially_exact(data, op, dtype, blocks, n, size, seed):
    a0 = data.draw(int_arrays(dtype, (size,)), "a")
    idx = data.draw(int_arrays(np.int32, (blocks, n), 0, size - 1), "i")
    upd = data.draw(int_arrays(dtype, (blocks, n)), "u")
    a = a0.copy()
    old = np.zeros((blocks, n), dtype)
    run(k_atomic_rmw, a, idx, upd, old, op, n, grid=(blocks,), shuffle=seed)
    # Blocks run in some order (a seeded shuffle, or x-fastest without one), lanes in
    # row-major order within a block: some block order must reproduce every returned old
    # value and the final array exactly.
    fn = ATOMIC_INT[op]
    orders = [tuple(range(blocks))] if seed is None else itertools.permutations(range(blocks))
    for order in orders:
        cur = [int(v) for v in a0]
        ok = True
        for b in order:
            for l in range(n):
                e = int(idx[b, l])
                if int(old[b, l]) != cur[e]:
                    ok = False
                    break
                cur[e] = wrap(fn(cur[e], int(upd[b, l])), dtype)
            if not ok:
                break
        if ok and cur == [int(v) for v in a]:
            return
    raise AssertionError(f"{op}: no block order explains old={old.tolist()} final={a.tolist()}")


@ct.kernel
def k_atomic_fadd(A, I, U, OLD, N: C[int]):
    b = ct.bid(0)
    idx = ct.load(I, (b, 0), (1, N)).reshape((N,))
    upd = ct.load(U, (b, 0), (1, N)).reshape((N,))
    ct.store(OLD, (b, 0), ct.atomic_add(A, (idx,), upd).reshape((1, N)))


@SETTINGS
@given(data=st.data(), dtype=st.sampled_from([np.float32, np.float64, np.float16]), blocks=st.integers(1, 6),
       n=st.sampled_from([1, 4, 8]), size=st.integers(1, 6))
def test_float_atomic_add_integral_values_exact(data, dtype, blocks, n, size):
    a0 = data.draw(hnp.arrays(np.int8, (size,), elements=st.integers(-50, 50)), "a").astype(dtype)
    idx = data.draw(int_arrays(np.int32, (blocks, n), 0, size - 1), "i")
    upd = data.draw(hnp.arrays(np.int8, (blocks, n), elements=st.integers(-10, 10)), "u").astype(dtype)
    a = a0.copy()
    old = np.zeros((blocks, n), dtype)
    run(k_atomic_fadd, a, idx, upd, old, n, grid=(blocks,))
    ref = a0.astype(np.float64).copy()
    ref_old = np.zeros((blocks, n))
    for b in range(blocks):
        for l in range(n):
            ref_old[b, l] = ref[idx[b, l]]
            ref[idx[b, l]] += upd[b, l]
    np.testing.assert_array_equal(a, ref.astype(dtype))
    np.testing.assert_array_equal(old, ref_old.astype(dtype))


@ct.kernel
def k_atomic_cas(A, OLD):
    b = ct.bid(0)
    old = ct.atomic_cas(A, (ct.arange(4, dtype=ct.int32),), 0, b + 1)
    ct.store(OLD, (b, 0), old.reshape((1, 4)))


@FEW
@given(blocks=st.integers(1, 8), seed=st.integers(0, 5))
def test_atomic_cas_exactly_one_winner(blocks, seed):
    a = np.zeros(4, np.int32)
    old = np.full((blocks, 4), -7, np.int32)
    run(k_atomic_cas, a, old, grid=(blocks,), shuffle=seed)
    winners = np.argwhere(old[:, 0] == 0).ravel()
    assert len(winners) == 1
    w = winners[0]
    assert (a == w + 1).all()
    assert (np.delete(old, w, axis=0) == w + 1).all()


# ------------------------------------------------------------------------------------------
# mma / matmul
# ------------------------------------------------------------------------------------------

@ct.kernel
def k_mma2(A, B, Cin, Z, IN: C, ACC: C, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(IN)
    b = ct.load(B, (0, 0), (K, N)).astype(IN)
    c = ct.load(Cin, (0, 0), (M, N)).astype(ACC)
    ct.store(Z, (0, 0), ct.mma(a, b, c).astype(Z.dtype))


MMA_CASES = [("float16", "float32"), ("float16", "float16"), ("bfloat16", "float32"), ("float32", "float32"),
             ("float64", "float64"), ("tfloat32", "float32")]


@SETTINGS
@given(data=st.data(), case=st.sampled_from(MMA_CASES), m=st.sampled_from([1, 4, 16]), n=st.sampled_from([2, 8]),
       k=st.sampled_from([1, 8, 32]), integral=st.booleans())
def test_mma_float_against_float64(data, case, m, n, k, integral):
    inp, acc = case
    if integral:  # small integers: every product and partial sum is exact
        mk = lambda s, nm: data.draw(hnp.arrays(np.int8, s, elements=st.integers(-4, 4)), nm).astype(np.float32)
        a, b, c = mk((m, k), "a"), mk((k, n), "b"), mk((m, n), "c")
    else:
        a = data.draw(float_arrays("float32", (m, k), lo=-2.0, hi=2.0), "a")
        b = data.draw(float_arrays("float32", (k, n), lo=-2.0, hi=2.0), "b")
        c = data.draw(float_arrays("float32", (m, n), lo=-2.0, hi=2.0), "c")
    host = np.float64 if acc == "float64" else np.float32
    a, b, c = (v.astype(host) for v in (a, b, c))
    z = np.zeros((m, n), host)
    run(k_mma2, a, b, c, z, CT_DT[inp], CT_DT[acc], m, n, k)
    # inputs rounded to the input format, accumulator to the accumulator format
    a_r = round_to_format(a, inp) if inp != "float64" else a.astype(np.float64)
    b_r = round_to_format(b, inp) if inp != "float64" else b.astype(np.float64)
    c_r = round_to_format(c, acc) if acc != "float64" else c.astype(np.float64)
    ref = a_r @ b_r + c_r
    if integral:
        np.testing.assert_array_equal(z.astype(np.float64), ref)
        return
    u = {"float16": 2.0 ** -11, "float32": 2.0 ** -24, "float64": 2.0 ** -53}[acc]
    mag = np.abs(a_r) @ np.abs(b_r) + np.abs(c_r)
    # Relative error per rounding, plus half a subnormal ulp per rounding for results that
    # underflow (a relative bound alone cannot cover products below the normal range).
    tiny = {"float16": 2.0 ** -24, "float32": 2.0 ** -149, "float64": 2.0 ** -1074}[acc]
    bound = (k + 2) * u * mag + (k + 2) * tiny
    err = np.abs(z.astype(np.float64) - ref)
    assert (err <= bound).all(), f"{case}: err {err.max()} > {bound[err > bound].min()}"


@ct.kernel
def k_mma_int(A, B, Cin, Z, SA: C, SB: C, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(SA)
    b = ct.load(B, (0, 0), (K, N)).astype(SB)
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@SETTINGS
@given(data=st.data(), sa=st.sampled_from([ct.int8, ct.uint8]), sb=st.sampled_from([ct.int8, ct.uint8]),
       m=st.sampled_from([1, 4, 16]), n=st.sampled_from([2, 8]), k=st.sampled_from([4, 32]))
def test_mma_int8_is_exact(data, sa, sb, m, n, k):
    a = data.draw(int_arrays(np.int32, (m, k), 0 if sa is ct.uint8 else -128, 255 if sa is ct.uint8 else 127), "a")
    b = data.draw(int_arrays(np.int32, (k, n), 0 if sb is ct.uint8 else -128, 255 if sb is ct.uint8 else 127), "b")
    c = data.draw(int_arrays(np.int32, (m, n), -(1 << 20), 1 << 20), "c")
    z = np.zeros((m, n), np.int32)
    run(k_mma_int, a, b, c, z, sa, sb, m, n, k)
    np.testing.assert_array_equal(z, a.astype(np.int64) @ b.astype(np.int64) + c)


@ct.kernel
def k_matmul(A, B, Z, Z1, Z3, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K))
    b = ct.load(B, (0, 0), (K, N))
    ct.store(Z, (0, 0), a @ b)
    ct.store(Z1, (0,), ct.matmul(ct.sum(a, axis=0), b))              # 1-D @ 2-D
    ct.store(Z3, (0, 0, 0), ct.matmul(ct.reshape(a, (1, M, K)), b))  # batched @ 2-D


@SETTINGS
@given(data=st.data(), dtype=st.sampled_from([np.float16, np.float32, np.float64]),
       m=st.sampled_from([1, 2, 8]), n=st.sampled_from([2, 8]), k=st.sampled_from([1, 4, 16]))
def test_matmul_shapes_integral_exact(data, dtype, m, n, k):
    a = data.draw(hnp.arrays(np.int8, (m, k), elements=st.integers(-4, 4)), "a").astype(dtype)
    b = data.draw(hnp.arrays(np.int8, (k, n), elements=st.integers(-4, 4)), "b").astype(dtype)
    z, z1, z3 = np.zeros((m, n), dtype), np.zeros(n, dtype), np.zeros((1, m, n), dtype)
    run(k_matmul, a, b, z, z1, z3, m, n, k)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    np.testing.assert_array_equal(z, (a64 @ b64).astype(dtype))
    np.testing.assert_array_equal(z1, (a64.sum(axis=0) @ b64).astype(dtype))
    np.testing.assert_array_equal(z3, (a64 @ b64)[None].astype(dtype))


@ct.kernel
def k_mma_batched(A, B, Cin, Z, BS: C[int], M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0, 0), (BS, M, K)).astype(ct.float16)
    b = ct.load(B, (0, 0, 0), (BS, K, N)).astype(ct.float16)
    c = ct.load(Cin, (0, 0, 0), (BS, M, N))
    ct.store(Z, (0, 0, 0), ct.mma(a, b, c))


@FEW
@given(data=st.data(), bs=st.sampled_from([1, 2, 4]), m=st.sampled_from([2, 8]), n=st.sampled_from([2, 4]),
       k=st.sampled_from([4, 16]))
def test_batched_mma_f16_exact_integral(data, bs, m, n, k):
    mk = lambda s, nm: data.draw(hnp.arrays(np.int8, s, elements=st.integers(-8, 8)), nm).astype(np.float32)
    a, b, c = mk((bs, m, k), "a"), mk((bs, k, n), "b"), mk((bs, m, n), "c")
    z = np.zeros((bs, m, n), np.float32)
    run(k_mma_batched, a, b, c, z, bs, m, n, k)
    np.testing.assert_array_equal(z, a @ b + c)


@ct.kernel
def k_mma_scaled(A, SA, B, SB, Z):
    a = ct.load(A, (0, 0), (16, 32)).astype(ct.float8_e4m3fn)
    b = ct.load(B, (0, 0), (32, 16)).astype(ct.float8_e4m3fn)
    sa = ct.load(SA, (0, 0), (16, 1)).astype(ct.float8_e8m0fnu, rounding_mode=ct.RoundingMode.RZ)
    sb = ct.load(SB, (0, 0), (1, 16)).astype(ct.float8_e8m0fnu, rounding_mode=ct.RoundingMode.RZ)
    ct.store(Z, (0, 0), ct.mma_scaled(a, sa, b, sb, ct.zeros((16, 16), ct.float32)))


def test_mma_scaled_fp8():
    rng = np.random.default_rng(7)
    a = rng.integers(-8, 9, (16, 32)).astype(np.float32)
    b = rng.integers(-8, 9, (32, 16)).astype(np.float32)
    sa = np.exp2(rng.integers(-3, 4, (16, 1))).astype(np.float32)
    sb = np.exp2(rng.integers(-3, 4, (1, 16))).astype(np.float32)
    z = np.zeros((16, 16), np.float32)
    run(k_mma_scaled, a, sa, b, sb, z)
    np.testing.assert_array_equal(z, (a * sa) @ (b * sb))


# ------------------------------------------------------------------------------------------
# printing, assertions, hints, metaprogramming
# ------------------------------------------------------------------------------------------

@ct.kernel
def k_printf(X, I, N: C[int]):
    x = ct.load(X, (0,), (N,))
    i = ct.load(I, (0,), (N,))
    ct.printf("s=%d f=%.3f\n", ct.sum(i), ct.max(x))
    ct.print("i =", ct.sum(i), "x", ct.min(x), sep=" ", end=";\n")
    ct.print(f"{ct.sum(i)}|{ct.max(x):.2f}")


@SETTINGS
@given(data=st.data(), n=st.sampled_from([1, 4, 8]))
def test_printf_and_print_output(data, n):
    x = data.draw(hnp.arrays(np.float32, (n,), elements=st.floats(-1000, 1000, width=32)), "x")
    i = data.draw(int_arrays(np.int32, (n,), -1000, 1000), "i")
    buf = io.StringIO()
    out = ct.interpret((1,), k_printf, (x, i, n), file=buf)
    s, mx, mn = int(i.sum()), float(x.max()), float(x.min())
    # The kernel's max/min order -0 below +0 (IEEE 754-2019); NumPy may return either zero.
    zeros = x[x == 0]
    if mx == 0 and zeros.size:
        mx = 0.0 if (~np.signbit(zeros)).any() else -0.0
    if mn == 0 and zeros.size:
        mn = -0.0 if np.signbit(zeros).any() else 0.0
    expected = "s=%d f=%.3f\n" % (s, mx) + "i = %d x %f;\n" % (s, mn) + "%d|%.2f\n" % (s, mx)
    assert buf.getvalue() == out
    assert out == expected


@ct.kernel
def k_grid_dependency(X, Y, N: C[int]):
    ct.grid_dependency_control_wait()
    x = ct.load(X, (ct.bid(0),), (N,))
    ct.store(Y, (ct.bid(0),), x * 2.0)
    ct.grid_dependency_control_launch_dependents()


@FEW
@given(data=st.data(), n=st.sampled_from([1, 8]), blocks=st.integers(1, 4))
def test_grid_dependency_control_orders_nothing_within_a_launch(data, n, blocks):
    """Programmatic-dependent-launch ops only order this grid against the previous and next
    launch; inside one launch they change no value."""
    x = data.draw(hnp.arrays(np.float32, (n * blocks,), elements=st.floats(-1e3, 1e3, width=32)), "x")
    y = np.zeros_like(x)
    ct.interpret((blocks,), k_grid_dependency, (x, y, n))
    np.testing.assert_array_equal(y, x * np.float32(2.0))


@ct.kernel
def k_assert(X, T: C[int], N: C[int]):
    x = ct.load(X, (0,), (N,))
    ct.assert_(x >= T, "below threshold")


@FEW
@given(data=st.data(), n=st.sampled_from([1, 8]), t=st.integers(-5, 5))
def test_assert_fires_iff_some_element_fails(data, n, t):
    x = data.draw(int_arrays(np.int32, (n,), -10, 10), "x")
    if (x >= t).all():
        run(k_assert, x, t, n)
    else:
        with pytest.raises(ct.errors.InterpreterError, match="below threshold"):
            run(k_assert, x, t, n)


@ct.kernel
def k_hints(X, Z, n, N: C[int]):
    k = ct.assume_divisible_by(n, 4)
    x = ct.load(X, (0,), (N,))
    ct.store(Z, (0,), x + k)


@ct.kernel
def k_meta(Z, N: C[int]):
    acc = ct.full((N,), 1, ct.int32)
    for s in ct.static_iter((2, 3, 5)):
        acc = acc * s
    w = ct.static_eval(N * 10 + 1)
    ct.static_assert(w % 10 == 1, "static_eval value")
    ct.store(Z, (0,), acc + ct.ensure_constant(w))


@FEW
@given(n=st.sampled_from([1, 4, 16]), k=st.integers(0, 100))
def test_assume_divisible_by_and_metaprogramming(n, k):
    x = np.arange(n, dtype=np.int32)
    z = np.zeros(n, np.int32)
    run(k_hints, x, z, 4 * k, n)
    np.testing.assert_array_equal(z, x + 4 * k)
    run(k_meta, z, n)
    np.testing.assert_array_equal(z, np.full(n, 30 + n * 10 + 1))


# ------------------------------------------------------------------------------------------
# coverage bookkeeping
# ------------------------------------------------------------------------------------------

COVERAGE = {
    "bid": "test_bid_num_blocks_num_tiles", "num_blocks": "test_bid_num_blocks_num_tiles",
    "num_tiles": "test_bid_num_blocks_num_tiles", "load": "test_load_padding_and_partial_store",
    "store": "test_load_padding_and_partial_store", "load_advanced_indexing": "test_advanced_indexing_load_store",
    "store_advanced_indexing": "test_advanced_indexing_load_store", "gather": "test_gather_scatter_with_masks_and_bounds",
    "scatter": "test_gather_scatter_with_masks_and_bounds", "arange": "test_factories", "full": "test_factories",
    "zeros": "test_factories", "ones": "test_factories", "astile": "test_factories", "cat": "test_shape_ops_match_numpy",
    "broadcast_to": "test_shape_ops_match_numpy", "expand_dims": "test_shape_ops_match_numpy",
    "reshape": "test_shape_ops_match_numpy", "permute": "test_shape_ops_match_numpy",
    "transpose": "test_shape_ops_match_numpy", "astype": "test_astype_between_all_dtypes",
    "bitcast": "test_bitcast_keeps_bits", "pack_to_bytes": "test_pack_unpack_bytes_little_endian",
    "unpack_from_bytes": "test_pack_unpack_bytes_little_endian", "sum": "test_integer_reductions_are_exact",
    "prod": "test_integer_reductions_are_exact", "max": "test_float_reductions", "min": "test_float_reductions",
    "argmax": "test_float_reductions", "argmin": "test_float_reductions",
    "reduce": "test_custom_reduce_and_scan_are_sequential_element_then_accumulator",
    "cumsum": "test_scans_are_exact", "cumprod": "test_scans_are_exact",
    "scan": "test_custom_reduce_and_scan_are_sequential_element_then_accumulator",
    "mma": "test_mma_float_against_float64", "matmul": "test_matmul_shapes_integral_exact",
    "where": "test_shape_ops_match_numpy", "extract": "test_extract_insert_subtiles",
    "insert": "test_extract_insert_subtiles", "add": "test_float_binary_ops_are_correctly_rounded",
    "sub": "test_float_binary_ops_are_correctly_rounded", "mul": "test_float_binary_ops_are_correctly_rounded",
    "truediv": "test_float_binary_ops_are_correctly_rounded", "floordiv": "test_integer_binary_ops_are_exact",
    "cdiv": "test_integer_binary_ops_are_exact", "pow": "test_float_binary_math_within_ulp_bound",
    "atan2": "test_float_binary_math_within_ulp_bound", "mod": "test_integer_binary_ops_are_exact",
    "divmod": "test_integer_divmod_is_python_floor_semantics", "minimum": "test_float_minimum_maximum_ieee_2019",
    "maximum": "test_float_minimum_maximum_ieee_2019", "negative": "test_integer_unary_ops_are_exact",
    "abs": "test_float_exact_unary_ops", "isnan": "test_float_exact_unary_ops",
    "exp": "test_float_math_functions_within_ulp_bound", "exp2": "test_float_math_functions_within_ulp_bound",
    "log": "test_float_math_functions_within_ulp_bound", "log2": "test_float_math_functions_within_ulp_bound",
    "sqrt": "test_float_exact_unary_ops", "rsqrt": "test_float_math_functions_within_ulp_bound",
    "sin": "test_float_math_functions_within_ulp_bound", "cos": "test_float_math_functions_within_ulp_bound",
    "tan": "test_float_math_functions_within_ulp_bound", "sinh": "test_float_math_functions_within_ulp_bound",
    "cosh": "test_float_math_functions_within_ulp_bound", "tanh": "test_float_math_functions_within_ulp_bound",
    "floor": "test_float_exact_unary_ops", "ceil": "test_float_exact_unary_ops",
    "bitwise_and": "test_integer_binary_ops_are_exact", "bitwise_or": "test_integer_binary_ops_are_exact",
    "bitwise_xor": "test_integer_binary_ops_are_exact", "bitwise_lshift": "test_integer_binary_ops_are_exact",
    "bitwise_rshift": "test_integer_binary_ops_are_exact", "bitwise_not": "test_integer_unary_ops_are_exact",
    "greater": "test_float_binary_ops_are_correctly_rounded", "greater_equal": "test_float_binary_ops_are_correctly_rounded",
    "less": "test_float_binary_ops_are_correctly_rounded", "less_equal": "test_float_binary_ops_are_correctly_rounded",
    "equal": "test_float_binary_ops_are_correctly_rounded", "not_equal": "test_float_binary_ops_are_correctly_rounded",
    "atomic_cas": "test_atomic_cas_exactly_one_winner", "atomic_xchg": "test_atomics_are_sequentially_exact",
    "atomic_add": "test_atomics_are_sequentially_exact", "atomic_max": "test_atomics_are_sequentially_exact",
    "atomic_min": "test_atomics_are_sequentially_exact", "atomic_and": "test_atomics_are_sequentially_exact",
    "atomic_or": "test_atomics_are_sequentially_exact", "atomic_xor": "test_atomics_are_sequentially_exact",
    "printf": "test_printf_and_print_output", "print": "test_printf_and_print_output",
    "assert_": "test_assert_fires_iff_some_element_fails",
    "assume_divisible_by": "test_assume_divisible_by_and_metaprogramming",
    "mma_scaled": "test_mma_scaled_fp8",
    "static_eval": "test_assume_divisible_by_and_metaprogramming",
    "static_assert": "test_assume_divisible_by_and_metaprogramming",
    "static_iter": "test_assume_divisible_by_and_metaprogramming",
    "ensure_constant": "test_assume_divisible_by_and_metaprogramming",
    "grid_dependency_control_wait": "test_grid_dependency_control_orders_nothing_within_a_launch",
    "grid_dependency_control_launch_dependents": "test_grid_dependency_control_orders_nothing_within_a_launch",
}
NOT_COVERED: dict = {}


def test_every_operation_has_a_numerics_test_or_a_reason():
    assert set(COVERAGE) | set(NOT_COVERED) == set(ct.OP_NAMES)
    assert not set(COVERAGE) & set(NOT_COVERED)
    names = set(globals())
    for op, test in COVERAGE.items():
        assert test in names, f"{op}: {test} does not exist"
