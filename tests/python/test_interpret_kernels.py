"""Front-end kernels run on the reference interpreter (ct.interpret) and match NumPy."""

import numpy as np
import pytest

import tileir as ct

from frontend_samples import layer_norm_fwd, matmul, softmax, transpose, vec_add_gather
from kernels import vector_add

RNG = np.random.default_rng(1234)


def test_vector_add_partial_last_tile_in_place():
    n = 1000
    a, b = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    ct.interpret((ct.cdiv(n, 256),), vector_add, (a, b, c, 256))
    np.testing.assert_array_equal(c, a + b)


def test_gather_scatter_vector_add_masks_out_of_bounds_lanes():
    n = 1000
    a, b = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    c = np.full(n + 24, 7.0, np.float32)
    view = c[:n]  # the tail past n must stay untouched
    ct.interpret((4,), vec_add_gather, (a, b, view, 256), shuffle=3, detect_races=True)
    np.testing.assert_array_equal(c[:n], a + b)
    np.testing.assert_array_equal(c[n:], 7.0)


def test_transpose_with_strided_input():
    x = RNG.standard_normal((128, 256)).astype(np.float32)
    y = np.zeros((256, 128), np.float32)
    ct.interpret((128 // 32, 256 // 64), transpose, (x, y, 32, 64))
    np.testing.assert_array_equal(y, x.T)


def test_softmax_rows_match_numpy():
    x = RNG.standard_normal((16, 1000)).astype(np.float32)
    y = np.zeros_like(x)
    ct.interpret((16,), softmax, (x, y, 1024))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_layer_norm_forward_matches_numpy():
    x = RNG.standard_normal((8, 300)).astype(np.float32)
    w, b = RNG.standard_normal(300).astype(np.float32), RNG.standard_normal(300).astype(np.float32)
    y, mean, rstd = np.zeros_like(x), np.zeros(8, np.float32), np.zeros(8, np.float32)
    ct.interpret((8,), layer_norm_fwd, (x, w, b, y, mean, rstd, 1e-5, 128))
    ref_mean = x.mean(axis=1)
    ref_rstd = 1 / np.sqrt(((x - ref_mean[:, None]) ** 2).mean(axis=1) + 1e-5)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, ref_rstd, rtol=1e-5)
    np.testing.assert_allclose(y, (x - ref_mean[:, None]) * ref_rstd[:, None] * w + b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_matmul_with_partial_tiles(dtype):
    m, k, n = 96, 80, 72
    a = RNG.standard_normal((m, k)).astype(dtype)
    b = RNG.standard_normal((k, n)).astype(dtype)
    c = np.zeros((m, n), dtype)
    tm, tn, tk = 32, 32, 16
    grid = (ct.cdiv(m, tm) * ct.cdiv(n, tn),)
    ct.interpret(grid, matmul, (a, b, c, tm, tn, tk))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    # f32 inputs go through tf32 (10-bit mantissa) in the kernel, f16 inputs are exact
    # products accumulated in f32; the result is then rounded to the output type.
    tol = 3e-3 if dtype == np.float32 else 2e-2
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=tol, atol=tol * np.abs(ref).max())


def test_interpreter_faults_point_at_the_kernel_source():
    @ct.kernel
    def checks(a, TILE: ct.Constant[int]):
        t = ct.load(a, index=(ct.bid(0),), shape=(TILE,))
        ct.assert_(t > 0, "values must be positive")

    ct.interpret((1,), checks, (np.ones(16, np.float32), 16))
    with pytest.raises(ct.errors.InterpreterError) as e:
        ct.interpret((1,), checks, (-np.ones(16, np.float32), 16))
    file, line, _col = e.value.location
    assert file.endswith("test_interpret_kernels.py")
    assert "values must be positive" in str(e.value)
    with pytest.raises(TypeError, match="expects a @tileir.kernel"):
        ct.interpret((1,), lambda: None, ())


@ct.kernel
def shift_tiles(a, TILE: ct.Constant[int]):
    # Block i copies tile i + 1 into tile i: block i reads what block i + 1 writes.
    i = ct.bid(0)
    t = ct.load(a, index=(i + 1,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(a, index=(i,), tile=t)


def test_read_write_races_name_both_blocks_the_array_and_the_element():
    a = np.arange(256, dtype=np.float32)
    # In the default order the kernel runs (x fastest) and is not checked.
    ct.interpret((3,), shift_tiles, (a, 64))
    np.testing.assert_array_equal(a[:192], np.arange(64, 256, dtype=np.float32))
    for kw in ({"detect_races": True}, {"shuffle": 11}):
        a = np.arange(256, dtype=np.float32)
        with pytest.raises(ct.errors.InterpreterError) as e:
            ct.interpret((3,), shift_tiles, (a, 64), **kw)
        assert e.value.kind == "Race"
        msg = str(e.value)
        assert "tile block (1, 0, 0) writes element 64 of argument #0 (a: tile<ptr<f32>>)" in msg, msg
        assert "which tile block (0, 0, 0) reads" in msg, msg
