"""The accepted Python subset, and errors located at the user's source with a caret."""

import enum
from dataclasses import dataclass

import numpy as np
import pytest

import tileir as ct
from tileir import errors

F = np.zeros(1024, np.float32)
I = np.zeros(1024, np.int32)


class Mode(enum.Enum):
    SCALE = 1
    SHIFT = 2


@dataclass(frozen=True)
class Params:
    scale: float
    tile: int

    def apply(self, t):
        return t * self.scale


def helper(t, k=2.0):
    if k > 1.0:  # compile-time condition: early return is fine
        return t * k
    return t


@ct.kernel
def control(X, Y, n: int, TILE: ct.Constant[int], MODE: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(X, (i,), (TILE,))
    if n > 3:
        y = x + 1.0
    elif n > 1:
        y = x * 2.0
    else:
        y = x
    acc = 0.0
    for k in range(i, n, 2):
        if k == 7:
            continue
        acc = acc + ct.sum(x) * k
    j = 0
    while j < n:
        j += 1
        if j * 2 > n:
            break
    for k in range(n):
        if k > 4:
            break
        y = y + 1.0
    a, (b, c) = 1, (2.0, y)
    p = Params(0.5, TILE)
    y = p.apply(c) + helper(y) + helper(y, k=0.5)
    y = ct.where(y > 0, y, lambda_apply(y))
    if MODE == Mode.SCALE.value:
        y = y * b
    for s in ct.static_iter((1, 2)):
        y = y + s
    ct.static_assert(ct.static_eval(TILE * 2) == 2 * TILE)
    t = ct.ensure_constant(TILE) // 2
    ct.print(f"acc={acc} j={j} t={t}")
    if i == 0:
        return
    ct.store(Y, (i,), y + acc + j)


def lambda_apply(t):
    f = lambda v: v * 3.0  # noqa: E731
    return f(t)


def test_control_flow_and_subset_compile():
    m = ct.compile_to_ir(control, (F, F, 5, 128, 1))
    text = str(m)
    for needle in ("if ", "for ", "loop ", "break", "continue", "yield", "print_tko", "return"):
        assert needle in text, needle


def test_loosely_typed_loop_init_takes_the_body_type():
    @ct.kernel
    def k(X, n: int):
        acc = 0
        for i in range(n):
            acc = acc + ct.load(X, (i,), (16,))
        ct.store(X, (0,), acc)
    m = ct.compile_to_ir(k, (F, 3))
    assert "iter_values" in str(m) and "tile<16xf32>" in str(m)


def test_if_with_different_types_is_a_located_error():
    @ct.kernel
    def k(X, n: int):
        x = ct.load(X, (0,), (16,))
        if n > 0:
            y = x
        else:
            y = ct.load(X, (0,), (32,))
        ct.store(X, (0,), y)
    with pytest.raises(errors.FrontendError, match="variable 'y' has type tile<16xf32> in one branch and tile<32xf32>"):
        ct.compile_to_ir(k, (F, 1))


def caret_col(err):
    return str(err).splitlines()[-1].index("^") + 1


def check_location(err, snippet):
    file, line, col = err.location
    assert file.endswith("test_frontend_lang.py")
    assert snippet in err.source_line
    assert caret_col(err) == col
    assert f"{file}:{line}:{col}: error:" in str(err)
    return col


def test_non_power_of_two_shape():
    @ct.kernel
    def k(X):
        t = ct.load(X, (0,), shape=(24,))
    with pytest.raises(ct.TileValueError, match="tile dimension 24 is not a power of two") as e:
        ct.compile_to_ir(k, (F,))
    col = check_location(e.value, "shape=(24,)")
    assert col == e.value.source_line.index("(24,)") + 1


def test_non_constant_shape():
    @ct.kernel
    def k(X, n: int):
        t = ct.zeros((n, 4), ct.float32)
    with pytest.raises(ct.TileTypeError, match="shape must be a tuple of compile-time integers") as e:
        ct.compile_to_ir(k, (F, 3))
    assert check_location(e.value, "ct.zeros((n, 4)") == e.value.source_line.index("(n, 4)") + 1


def test_wrong_argument_count_in_a_call():
    @ct.kernel
    def k(X):
        t = ct.exp(ct.load(X, (0,), (16,)), 2, 3)
    with pytest.raises(ct.TileTypeError, match=r"exp\(\): too many positional arguments") as e:
        ct.compile_to_ir(k, (F,))
    assert check_location(e.value, "ct.exp(") == e.value.source_line.index("ct.exp") + 1


def test_unknown_keyword():
    @ct.kernel
    def k(X):
        t = ct.sum(ct.load(X, (0,), (16,)), axes=0)
    with pytest.raises(ct.TileTypeError, match="sum\\(\\) got an unexpected keyword argument 'axes'; expected one of: "
                                               "x, axis, keepdims") as e:
        ct.compile_to_ir(k, (F,))
    assert check_location(e.value, "axes=0") == e.value.source_line.index("0)") + 1


def test_type_mismatch_in_mma():
    @ct.kernel
    def k(X):
        a = ct.load(X, (0,), (16,)).reshape((4, 4))
        r = ct.mma(a.astype(ct.float16), a.astype(ct.float16), ct.zeros((4, 4), ct.bfloat16))
    with pytest.raises(ct.TileTypeError, match="cannot accumulate in bfloat16") as e:
        ct.compile_to_ir(k, (F,))
    check_location(e.value, "ct.mma(")


def test_unsupported_syntax():
    @ct.kernel
    def k(X):
        with open("x"):
            pass
    with pytest.raises(ct.TileSyntaxError, match="unsupported Python statement 'With'") as e:
        ct.compile_to_ir(k, (F,))
    assert check_location(e.value, "with open") == e.value.source_line.index("with") + 1


def test_static_assert_failure_points_at_the_call():
    @ct.kernel
    def k(X, T: ct.Constant[int]):
        ct.static_assert(T % 32 == 0, "T must be a multiple of 32")
    with pytest.raises(ct.TileStaticAssertionError, match="T must be a multiple of 32") as e:
        ct.compile_to_ir(k, (F, 48))
    check_location(e.value, "ct.static_assert(")


def test_undefined_after_branch():
    @ct.kernel
    def k(X, n: int):
        if n > 0:
            z = ct.load(X, (0,), (16,))
        ct.store(X, (0,), z)
    with pytest.raises(ct.TileValueError, match="'z' is assigned in only one branch") as e:
        ct.compile_to_ir(k, (F, 1))
    check_location(e.value, "ct.store(X, (0,), z)")


def test_loop_carried_type_change_is_an_error():
    @ct.kernel
    def k(X, n: int):
        x = ct.load(X, (0,), (16,))
        for i in range(n):
            x = x.astype(ct.float16)
    with pytest.raises(ct.TileTypeError, match="loop-carried variable 'x' has type tile<16xf32> before the loop and "
                                               "tile<16xf16>"):
        ct.compile_to_ir(k, (F, 1))


def test_kernel_argument_count():
    @ct.kernel
    def k(X, n: int):
        pass
    with pytest.raises(errors.FrontendError, match=r"takes 2 argument\(s\) \(X, n\), got 1"):
        ct.compile_to_ir(k, (F,))


def test_dtype_objects_from_numpy_and_names():
    assert ct.dtype_of(np.float16) is ct.float16
    assert ct.dtype_of(np.dtype("int8")) is ct.int8
    assert ct.dtype_of("bfloat16") is ct.bfloat16
    assert len({d.name for d in ct.ALL_DTYPES}) == 19

    @ct.kernel
    def k(X):
        t = ct.load(X, (0,), (16,)).astype(np.float16)
        u = ct.arange(16, dtype=np.int32)
    ct.compile_to_ir(k, (F,))


def test_promotion_rules():
    @ct.kernel
    def k(X, Y):
        x = ct.load(X, (0,), (16,))
        i = ct.load(Y, (0,), (16,))
        a = x + i          # int + float -> float32
        b = i + 1          # loose int adopts int32
        c = i * 1.5        # float literal with ints -> float32
        d = ct.astype(x, ct.float16) + 1.0   # loose float adopts float16
        ct.store(X, (0,), a + c + ct.astype(b, ct.float32) + d.astype(ct.float32))
    text = str(ct.compile_to_ir(k, (F, I)))
    assert "itof" in text and "tile<16xf16>" in text
