"""NumPy / exact-integer references and comparison helpers for test_ops_numerics.py.

Everything here is plain NumPy: exact integer semantics are computed on Python ints and
wrapped to the element width, and the narrow float formats NumPy lacks (bfloat16, tf32,
fp8) are emulated by rounding float64 values to a given number of significand bits,
round-to-nearest-even, with the format's subnormal range and overflow behaviour.
"""

from __future__ import annotations

import numpy as np

INT_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
NATIVE_FLOATS = (np.float16, np.float32, np.float64)


# ------------------------------------------------------------------------------------------
# integers
# ------------------------------------------------------------------------------------------

def int_range(dtype):
    """(min, max) of an integer dtype as Python ints."""
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def wrap(value: int, dtype) -> int:
    """``value`` reduced modulo 2**bits into ``dtype``'s range (two's complement wrap)."""
    bits = np.dtype(dtype).itemsize * 8
    v = value & ((1 << bits) - 1)
    if np.issubdtype(dtype, np.signedinteger) and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def int_map(fn, dtype, *arrays) -> np.ndarray:
    """Applies the exact integer function ``fn`` element-wise on Python ints and wraps
    the results into ``dtype`` (or keeps bools when ``fn`` returns bools)."""
    flat = [np.asarray(a).ravel().tolist() for a in arrays]
    out = [fn(*vals) for vals in zip(*flat)]
    shape = np.asarray(arrays[0]).shape
    if out and isinstance(out[0], bool):
        return np.array(out, dtype=np.bool_).reshape(shape)
    return np.array([wrap(int(v), dtype) for v in out], dtype=dtype).reshape(shape)


def floordiv(a: int, b: int) -> int:
    """Python floor division (what cuTile's ``//`` means for signed integers)."""
    return a // b


def ceildiv(a: int, b: int) -> int:
    """Ceiling division."""
    return -(-a // b)


# ------------------------------------------------------------------------------------------
# floats
# ------------------------------------------------------------------------------------------

# (significand bits incl. the implicit one, minimum normal exponent, largest finite, has_inf)
FORMATS = {
    "float16": (11, -14, 65504.0, True),
    "bfloat16": (8, -126, float.fromhex("0x1.fep127"), True),
    "float32": (24, -126, float(np.finfo(np.float32).max), True),
    "tfloat32": (11, -126, float.fromhex("0x1.ffcp127"), True),
    "float8_e4m3fn": (4, -6, 448.0, False),
    "float8_e5m2": (3, -14, 57344.0, True),
}


def round_to_format(x, fmt: str) -> np.ndarray:
    """Rounds float64 values once (nearest even) to the format ``fmt``; results are float64.

    Values beyond the largest finite number become ±inf (formats with infinities). NaN and
    infinities pass through. Exact because every step is a power-of-two scaling or ``rint``
    on float64.
    """
    sig, emin, fmax, _has_inf = FORMATS[fmt]
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    fin = np.isfinite(x) & (x != 0)
    v = x[fin]
    _, e = np.frexp(v)  # v = m * 2**e, 0.5 <= |m| < 1: the leading bit has weight 2**(e-1)
    lead = np.maximum(e - 1, emin)  # below the normal range the quantum stays 2**(emin-sig+1)
    q = lead - (sig - 1)
    r = np.ldexp(np.rint(np.ldexp(v, -q)), q)
    r = np.where(np.abs(r) > fmax, np.copysign(np.inf, v), r)
    out[fin] = r
    return out


def to_bf16(x) -> np.ndarray:
    """float64/float32 values rounded to bfloat16, returned as float32 (exactly)."""
    with np.errstate(all="ignore"):
        return round_to_format(x, "bfloat16").astype(np.float32)


def is_bf16_exact(x) -> bool:
    x = np.asarray(x, np.float32)
    return bool(np.all((x.view(np.uint32) & 0xFFFF) == 0))


def storage_dtype(name: str):
    """NumPy dtype used to hold values of the cuTile float dtype ``name`` on the host."""
    return {"float16": np.float16, "bfloat16": np.float32, "float32": np.float32, "float64": np.float64}[name]


def round_result(x64, name: str) -> np.ndarray:
    """The float64 value(s) ``x64`` rounded once to cuTile dtype ``name`` (host storage dtype)."""
    with np.errstate(all="ignore"):  # overflow to infinity is the expected rounding
        if name == "bfloat16":
            return to_bf16(x64)
        return np.asarray(x64, np.float64).astype(storage_dtype(name))


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Maps IEEE bit patterns to integers whose order is the float order (so that the
    difference of two is the ulp distance); ±0 both map to 0."""
    b = bits.astype(object)
    sign = 1 << (width - 1)
    return np.array([-(v - sign) if v & sign else v for v in b.ravel()], dtype=object).reshape(bits.shape)


def ulp_distance(got, ref, name: str) -> np.ndarray:
    """Number of representable values of dtype ``name`` between ``got`` and ``ref`` (both in
    host storage form). NaNs are compared separately by the caller."""
    got = np.asarray(got)
    ref = np.asarray(ref)
    if name == "bfloat16":
        g = got.astype(np.float32).view(np.uint32) >> 16
        r = ref.astype(np.float32).view(np.uint32) >> 16
        width = 16
    else:
        dt = storage_dtype(name)
        ut = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[dt]
        g, r = got.astype(dt).view(ut), ref.astype(dt).view(ut)
        width = np.dtype(dt).itemsize * 8
    return np.abs(_ordered(g, width) - _ordered(r, width))


def assert_same_bits(got, ref, *, zero_sign=True, msg=""):
    """Bit-exact equality, except that any NaN matches any NaN (the interpreter produces the
    canonical quiet NaN; NumPy keeps payloads). ``zero_sign=False`` lets +0 match -0."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape, f"{msg}: shape {got.shape} != {ref.shape}"
    assert got.dtype == ref.dtype, f"{msg}: dtype {got.dtype} != {ref.dtype}"
    if got.dtype.kind != "f":
        bad = got != ref
    else:
        gn, rn = np.isnan(got), np.isnan(ref)
        if zero_sign:
            same = got.view(f"u{got.dtype.itemsize}") == ref.view(f"u{ref.dtype.itemsize}")
        else:
            same = got == ref
        bad = (gn != rn) | (~gn & ~rn & ~same)
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        raise AssertionError(f"{msg}: {int(bad.sum())} of {bad.size} differ; first at {idx}: got {got[idx]!r}, "
                             f"expected {ref[idx]!r}\ngot={got!r}\nref={ref!r}")


def assert_within_ulp(got, ref, name: str, ulps: int, msg=""):
    """``got`` within ``ulps`` units in the last place of ``ref`` (NaN positions equal)."""
    got, ref = np.asarray(got), np.asarray(ref)
    gn, rn = np.isnan(got), np.isnan(ref)
    assert (gn == rn).all(), f"{msg}: NaN mismatch got={got!r} ref={ref!r}"
    ok = ~gn
    if not ok.any():
        return
    d = ulp_distance(got[ok], ref[ok], name)
    worst = int(d.max())
    if worst > ulps:
        i = int(np.argmax(d))
        raise AssertionError(f"{msg}: {worst} ulp > {ulps}: got {got[ok][i]!r}, expected {ref[ok][i]!r}")
