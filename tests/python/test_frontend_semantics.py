"""cuTile semantics the front end must match: `//` and `%`, the dtype promotion table,
early returns, RawArrayMemory, grid dependency control and the errors for what is not
supported. Each kernel compiles to verified IR and, where it computes, runs in the
interpreter against a NumPy reference; each error test checks file:line:col and the caret.
"""

import numpy as np
import pytest

import tileir as ct
from tileir import bytecode, errors
from source_errors import caret_col, check_location  # noqa: F401

C = ct.Constant[int]  # a Constant annotation through an alias


# ------------------------------------------------------------------------------------------
# 1. Constant through an alias
# ------------------------------------------------------------------------------------------

@ct.kernel
def scaled_copy(X, Y, T: C, S: "ct.Constant[int]"):
    ct.store(Y, (ct.bid(0),), ct.load(X, (ct.bid(0),), (T,)) * S)


def test_constant_through_an_alias_and_a_quoted_annotation():
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    text = str(ct.compile_to_ir(scaled_copy, (x, y, 16, 3)))
    assert "tile<16xf32>" in text and "%T" not in text and "%S" not in text  # both left out of the ABI
    ct.interpret((4,), scaled_copy, (x, y, 16, 3))
    np.testing.assert_array_equal(y, x * 3)


# ------------------------------------------------------------------------------------------
# 2. // and %
# ------------------------------------------------------------------------------------------

@ct.kernel
def divmod_kernel(A, B, Q, R):
    a = ct.load(A, (0,), (16,))
    b = ct.load(B, (0,), (16,))
    ct.store(Q, (0,), a // b)
    ct.store(R, (0,), a % b)


def cutile_float_floordiv(a, b):
    # floor(a / b) with the division rounded in the dtype, not Python's exact floor division.
    with np.errstate(all="ignore"):
        return np.floor((a / b).astype(a.dtype))


def cutile_float_mod(a, b):
    # C remainder (sign of the dividend), plus b where it is non-zero and of the other sign.
    with np.errstate(all="ignore"):
        r = np.fmod(a, b)
        fix = (r != 0) & ((r < 0) != (b < 0))
        return np.where(fix, r + b, r).astype(a.dtype)


FLOAT_A = [1.0, -1.0, 7.5, -7.5, 7.5, -7.5, np.inf, -np.inf, np.nan, 3.0, 5.0, -5.0, -5.0, 0.0, -0.0, 6e4]
FLOAT_B = [0.1, 0.1, 2.0, 2.0, -2.0, -2.0, 2.0, 3.0, 2.0, np.nan, np.inf, np.inf, -np.inf, 0.0, 5.0, 7.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_float_floordiv_and_mod_follow_cutile(dtype):
    a, b = np.array(FLOAT_A, dtype), np.array(FLOAT_B, dtype)
    q, r = np.zeros(16, dtype), np.zeros(16, dtype)
    text = str(ct.compile_to_ir(divmod_kernel, (a, b, q, r)))
    assert "floor" in text and "remf" in text
    ct.interpret((1,), divmod_kernel, (a, b, q, r))
    np.testing.assert_array_equal(q, cutile_float_floordiv(a, b))
    np.testing.assert_array_equal(r, cutile_float_mod(a, b))
    if dtype is np.float32:
        assert q[0] == 10.0          # 1.0 // 0.1: floor(1.0f / 0.1f) = floor(10.0f); Python says 9.0
        assert q[11] == 0.0 and np.signbit(q[11])  # -5.0 // inf = floor(-0.0) = -0.0; Python says -1.0
        assert r[11] == np.inf       # -5.0 % inf takes the divisor's sign, as in Python
        assert np.isnan(r[13]) and np.isnan(r[6])  # 0.0 % 0.0 and inf % 2.0 are NaN
    assert np.isposinf(q[6])  # inf // 2.0 = floor(inf); Python says nan


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.int64, np.uint32])
def test_integer_floordiv_and_mod_follow_python(dtype):
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    a = rng.integers(max(info.min, -1000), min(info.max, 1000), 16).astype(dtype)
    b = rng.integers(max(info.min, -9), 10, 16).astype(dtype)
    b[b == 0] = 3
    a[:4] = np.array([7, -7, 7, -7] if info.min < 0 else [7, 8, 9, 10], dtype)
    b[:4] = np.array([2, 2, -2, -2] if info.min < 0 else [2, 3, 4, 5], dtype)
    q, r = np.zeros(16, dtype), np.zeros(16, dtype)
    ct.interpret((1,), divmod_kernel, (a, b, q, r))
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)


@ct.kernel
def folded_kernel(X, Q, I):
    x = ct.load(X, (0,), (4,))
    strict = ct.float32(1.0) // 0.1        # compile-time scalars fold with Python's semantics
    runtime = x // 0.1                     # run-time values: floor(x / 0.1)
    ct.store(Q, (0,), ct.where(ct.arange(4, dtype=ct.int32) == 0, strict, runtime))
    qi, ri = divmod(ct.int32(-7), 2)
    ct.store(I, (0,), ct.full((4,), qi * 10, ct.int32) + ri + ct.int8(7) % ct.int8(-3))


def test_strictly_typed_constants_fold_like_cutile():
    x = np.ones(4, np.float32)
    q, i = np.zeros(4, np.float32), np.zeros(4, np.int32)
    ct.interpret((1,), folded_kernel, (x, q, i))
    assert q.tolist() == [9.0, 10.0, 10.0, 10.0]
    assert i.tolist() == [-40 + 1 - 2] * 4


def test_constant_division_by_zero_is_a_located_error():
    @ct.kernel
    def k(X):
        ct.store(X, (0,), ct.full((4,), ct.int32(7) // 0, ct.int32))
    with pytest.raises(ct.TileValueError, match="integer division or modulo by zero") as e:
        ct.compile_to_ir(k, (np.zeros(4, np.int32),))
    check_location(e.value, "ct.int32(7) // 0")


def test_bool_floordiv_and_mod_are_type_errors():
    @ct.kernel
    def k(X):
        b = ct.load(X, (0,), (4,)) > 0
        r = b // b
    with pytest.raises(ct.TileTypeError, match="`floordiv` does not support bool, please cast bool to int") as e:
        ct.compile_to_ir(k, (np.zeros(4, np.float32),))
    check_location(e.value, "b // b")

    @ct.kernel
    def k2(X):
        b = ct.load(X, (0,), (4,)) > 0
        r = ct.mod(b, True)
    with pytest.raises(ct.TileTypeError, match="Modulo operation does not support bool") as e:
        ct.compile_to_ir(k2, (np.zeros(4, np.float32),))
    check_location(e.value, "ct.mod(b, True)")


# ------------------------------------------------------------------------------------------
# 3. Mixed dtypes: cuTile's promotion table
# ------------------------------------------------------------------------------------------

@ct.kernel
def mixed_float(H, F, D, O16, O32, O64):
    h = ct.load(H, (0,), (16,))           # float16
    f = ct.load(F, (0,), (16,))           # float32
    d = ct.load(D, (0,), (16,))           # float64
    bf = f.astype(ct.bfloat16)
    ct.store(O32, (0,), h + f)            # f16 + f32 -> f32
    ct.store(O32, (1,), bf * f)           # bf16 * f32 -> f32
    ct.store(O64, (0,), h - d)            # f16 - f64 -> f64
    ct.store(O64, (1,), bf / d)           # bf16 / f64 -> f64
    ct.store(O16, (0,), h * 2.0 + ct.int8(3))  # literals and integers adopt the float dtype
    ct.store(O32, (2,), ct.where(h > 1.0, f, h))  # where promotes too


def test_mixed_float_dtypes_promote_like_cutile():
    h = (np.arange(16) - 4).astype(np.float16)
    f = (np.arange(16) * 0.5).astype(np.float32)  # exactly representable in bfloat16
    d = np.linspace(-3, 3, 16)
    o16, o32, o64 = np.zeros(16, np.float16), np.zeros(48, np.float32), np.zeros(32)
    text = str(ct.compile_to_ir(mixed_float, (h, f, d, o16, o32, o64)))
    assert "ftof" in text
    ct.interpret((1,), mixed_float, (h, f, d, o16, o32, o64))
    np.testing.assert_array_equal(o32[:16], h.astype(np.float32) + f)
    np.testing.assert_array_equal(o32[16:32], f * f)
    np.testing.assert_array_equal(o64[:16], h.astype(np.float64) - d)
    np.testing.assert_array_equal(o64[16:], f.astype(np.float64) / d)
    np.testing.assert_array_equal(o16, h * np.float16(2) + np.float16(3))
    np.testing.assert_array_equal(o32[32:], np.where(h > 1, f, h.astype(np.float32)))


@pytest.mark.parametrize("expr,message", [
    ("a.astype(ct.float16) + a.astype(ct.bfloat16)",
     "Implicit promotion of float16 and bfloat16 is not supported. Please perform an explicit cast instead."),
    ("a.astype(ct.int32) * a.astype(ct.uint32)", "Implicit promotion of int32 and uint32 is not supported"),
    ("a.astype(ct.uint8) - a.astype(ct.int16)", "Implicit promotion of uint8 and int16 is not supported"),
    ("a.astype(ct.float8_e4m3fn) + a", "Implicit promotion of float8_e4m3fn and float32 is not supported as it "
                                        "involves restricted float dtypes"),
])
def test_promotions_cutile_refuses_are_located_type_errors(tmp_path, expr, message):
    src = tmp_path / "promo_kernel.py"
    src.write_text("import tileir as ct\n\n@ct.kernel\ndef k(X):\n    a = ct.load(X, (0,), (16,))\n"
                   f"    r = {expr}\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("promo_kernel", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(ct.TileTypeError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        ct.compile_to_ir(mod.k, (np.zeros(16, np.float32),))
    err = e.value
    assert err.location == (str(src), 6, 9)
    assert err.source_line.strip() == f"r = {expr}"
    assert caret_col(err) == 9


# ------------------------------------------------------------------------------------------
# 4. Early return
# ------------------------------------------------------------------------------------------

def clamp_or_scale(t, n):
    if n > 4:
        if n > 8:
            return t * 0.0
        t = t + 1.0
    elif n < 0:
        return t - 1.0
    t = t * 2.0
    return t


def pick(a, b):
    if ct.sum(a) > 100.0:
        return a, 1
    return b, 2


def maybe_store(Y, t, n):
    if n == 3:
        return  # a helper returning nothing under a run-time condition
    ct.store(Y, (1,), t)


@ct.kernel
def early_return_helpers(X, Y, n: int):
    x = ct.load(X, (0,), (16,))
    y = clamp_or_scale(x, n)
    z, w = pick(x, y)
    ct.store(Y, (0,), y + z * w)
    maybe_store(Y, x, n)


def reference_helpers(x, n):
    def clamp(t):
        if n > 4:
            if n > 8:
                return t * 0
            t = t + 1
        elif n < 0:
            return t - 1
        return t * 2
    y = clamp(x)
    z, w = (x, 1) if x.sum() > 100 else (y, 2)
    return y + z * w


@pytest.mark.parametrize("n", [-3, 2, 3, 6, 10])
def test_helper_returns_early_under_a_runtime_condition(n):
    x = np.arange(16, dtype=np.float32) * (1 if n != 2 else -1)
    y = np.full(32, 5.0, np.float32)
    ct.interpret((1,), early_return_helpers, (x, y, n))
    np.testing.assert_array_equal(y[:16], reference_helpers(x, n))
    np.testing.assert_array_equal(y[16:], 5.0 if n == 3 else x)
    assert "loop" not in str(ct.compile_to_ir(early_return_helpers, (x, y, n)))


@ct.kernel
def early_return_kernel(X, Y, n: int):
    acc = ct.zeros((16,), ct.float32)
    for i in range(n):
        x = ct.load(X, (i,), (16,))
        j = 0
        while j < 2:
            if ct.sum(x) > 600.0:
                return          # from inside two run-time loops
            j += 1
        acc = acc + x
        ct.store(Y, (0,), acc)
    if n > 3:
        return
    ct.store(Y, (1,), acc)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_kernel_returns_from_inside_runtime_loops(n):
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(32, np.float32)
    ct.interpret((1,), early_return_kernel, (x, y, n))
    acc, first, returned = np.zeros(16, np.float32), np.zeros(16, np.float32), False
    for i in range(n):
        xi = x[16 * i:16 * i + 16]
        if xi.sum() > 600:
            returned = True
            break
        acc = acc + xi
        first = acc.copy()
    second = acc if not returned and n <= 3 else np.zeros(16, np.float32)
    np.testing.assert_array_equal(y[:16], first)
    np.testing.assert_array_equal(y[16:], second)


def returns_in_loop(t, n):
    for i in range(n):
        if i == 2:
            return t
    return t + 1.0


@pytest.mark.parametrize("n", [0, 2, 4])
def test_helper_return_inside_a_runtime_loop_leaves_the_loop(n):
    # cuTile accepts it: the loop carries a flag and the value out, and the helper returns
    # after it (tests/python/test_frontend_lists.py has more).
    @ct.kernel
    def k(X, n: int):
        ct.store(X, (1,), returns_in_loop(ct.load(X, (0,), (16,)), n))
    x = np.zeros(32, np.float32)
    x[:16] = np.arange(16)
    ct.interpret((1,), k, (x, n))
    np.testing.assert_array_equal(x[16:], x[:16] if n > 2 else x[:16] + 1.0)


def mismatched_returns(t, n):
    if n > 0:
        return t
    return t.astype(ct.float16)


def test_helper_returning_different_types_is_a_located_error():
    @ct.kernel
    def k(X, n: int):
        r = mismatched_returns(ct.load(X, (0,), (16,)), n)
    with pytest.raises(ct.TileTypeError, match="the helper returns tile<16xf32> on one path of this run-time 'if' "
                                               "and tile<16xf16> on the other") as e:
        ct.compile_to_ir(k, (np.zeros(16, np.float32), 4))
    check_location(e.value, "if n > 0:", "if")


# ------------------------------------------------------------------------------------------
# 5. RawArrayMemory
# ------------------------------------------------------------------------------------------

@ct.kernel
def raw_memory(X, Y, C, n: int):
    mem = X.get_raw_memory()
    off = ct.arange(16, dtype=ct.int32) * 2
    v = mem.load_offset(off, mask=off < n, padding_value=-1.0, latency=3)
    s = mem.load_offset(5)
    lanes = ct.arange(16, dtype=ct.int32)
    Y.get_raw_memory().store_offset(lanes, v + s, mask=lanes != 3)
    cm = C.get_raw_memory()
    old = cm.atomic_add_offset(ct.arange(4, dtype=ct.int32) % 2, 1)
    cm.atomic_cas_offset(2, 0, 42, memory_order=ct.MemoryOrder.RELAXED)
    cm.atomic_max_offset(ct.full((4,), 3, ct.int32), old + 5, mask=old >= 1)
    cm.atomic_xchg_offset(ct.full((2, 2), 4, ct.int64) + ct.arange(2, dtype=ct.int64)[None, :], 7)
    cm.atomic_or_offset(6, 12, memory_scope=ct.MemoryScope.BLOCK)
    cm.atomic_xor_offset(6, 5)
    cm.atomic_and_offset(7, 0)
    cm.atomic_min_offset(8, -2 + cm.dtype(0))


def test_raw_array_memory_loads_stores_and_atomics():
    x = np.arange(64, dtype=np.float32)
    y = np.full(16, 9.0, np.float32)
    c = np.array([0, 0, 0, 0, 0, 0, 0, 5, 3], np.int32)
    text = str(ct.compile_to_ir(raw_memory, (x, y, c, 20)))
    for needle in ("offset", "load_ptr_tko", "store_ptr_tko", "atomic_rmw_tko", "atomic_cas_tko", "latency = 3"):
        assert needle in text, needle
    ct.interpret((1,), raw_memory, (x, y, c, 20))
    ref = np.where(np.arange(16) * 2 < 20, x[(np.arange(16) * 2)], -1.0) + x[5]
    ref[3] = 9.0
    np.testing.assert_array_equal(y, ref)
    # adds: 0,1,0,1 -> old = [0, 0, 1, 1]; cas 0 -> 42; max(old+5 where old >= 1) = 6;
    # xchg [4, 5] -> 7; (0 | 12) ^ 5 = 9; 5 & 0 = 0; min(3, -2) = -2
    assert c.tolist() == [2, 2, 42, 6, 7, 7, 9, 0, -2]


def test_raw_memory_offset_must_be_integer():
    @ct.kernel
    def k(X):
        v = X.get_raw_memory().load_offset(ct.load(X, (0,), (4,)))
    with pytest.raises(ct.TileTypeError, match=r"offset must be an integer scalar or tile, got tile<4xf32>") as e:
        ct.compile_to_ir(k, (np.zeros(4, np.float32),))
    check_location(e.value, "ct.load(X, (0,), (4,))")


def test_raw_memory_unknown_keyword():
    @ct.kernel
    def k(X):
        X.get_raw_memory().store_offset(0, 1.0, padding_value=2.0)
    with pytest.raises(ct.TileTypeError, match="store_offset\\(\\) got an unexpected keyword argument "
                                               "'padding_value'") as e:
        ct.compile_to_ir(k, (np.zeros(4, np.float32),))
    check_location(e.value, "2.0)", "2.0")


# ------------------------------------------------------------------------------------------
# 6. Grid dependency control (13.4)
# ------------------------------------------------------------------------------------------

@ct.kernel
def pdl(X, Y):
    ct.grid_dependency_control_wait()
    t = ct.load(X, (ct.bid(0),), (16,))
    ct.store(Y, (ct.bid(0),), t + 1.0)
    ct.grid_dependency_control_launch_dependents()


def test_grid_dependency_control_ops():
    x = np.arange(32, dtype=np.float32)
    y = np.zeros(32, np.float32)
    m = ct.compile_to_ir(pdl, (x, y))
    text = str(m)
    wait = text.index("gdc_wait_tko token=")
    assert text.index("load_view_tko") > wait and "gdc_launch_dependents_tko token=" in text
    # The loads after the wait take its token.
    wait_name = text[:wait].rsplit("\n", 1)[1].split("=")[0].strip()
    assert f"token = {wait_name} :" in text
    data = m.to_bytecode(version="13.4")
    assert data[8:10] == bytes([13, 4])
    assert "gdc_wait_tko" in str(bytecode.read(data))
    with pytest.raises(errors.BytecodeError, match="operation 'cuda_tile.gdc_wait_tko' is not available in "
                                                   "bytecode version 13.3"):
        m.to_bytecode(version="13.3")
    ct.interpret((2,), pdl, (x, y))  # no-ops in the interpreter
    np.testing.assert_array_equal(y, x + 1)


# ------------------------------------------------------------------------------------------
# 7. Lists of arrays
# ------------------------------------------------------------------------------------------

@ct.kernel
def all_gather_like(inp_list, out, peer: int):
    ct.store(out, (0,), ct.load(inp_list[peer], (0,), (16,)))


def test_list_of_arrays_parameter_indexed_at_run_time():
    # More in tests/python/test_frontend_lists.py.
    arrays = [np.full(16, k, np.float32) for k in range(3)]
    out = np.zeros(16, np.float32)
    ct.interpret((1,), all_gather_like, (arrays, out, 2))
    np.testing.assert_array_equal(out, arrays[2])
