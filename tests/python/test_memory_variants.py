"""The lowering variants of nv_tileas's tiled loads and stores (tile-primitive dispatch).

``tiled_load`` has ``vector`` (vector accesses for tiles inside the array, one predicate per
element at its edges: the default), ``cp_async`` (sm_80+: 16-byte cp.async chunks into
shared memory, zero-filled past the edges, read back in the tile's layout) and
``predicated`` (one predicate per element everywhere); ``tiled_store`` has ``vector`` and
``predicated``. Each is forced through ``convert-tileaa-to-tileas{force-variant=...}`` and
run on the PTX emulator against ``ct.interpret``, with ragged edges in every dimension.
"""

import numpy as np
import pytest

import tileir as ct
from tileir import emulator

from arrays import copy_keeping_strides
from tileir.errors import CompilationError

TARGETS = ("sm_80", "sm_90a")


def _pipeline(*forced):
    return "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=" + ";".join(forced) + "}"


@ct.kernel
def scale_2d(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    bi, bj = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(bi, bj), shape=(TM, TN))
    ct.store(y, index=(bi, bj), tile=t * 3 + 1)


@ct.kernel
def column_sums(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    # The loaded tile feeds a reduction over its rows: its layout is the reduction's, and a
    # cp.async image is read back in it.
    bj = ct.bid(0)
    acc = ct.zeros((TN,), ct.float32)
    for i in range(ct.cdiv(x.shape[0], TM)):
        t = ct.load(x, index=(i, bj), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        acc += ct.sum(t.astype(ct.float32), axis=0)
    ct.store(y, index=(bj,), tile=acc)


@ct.kernel
def row_sums(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    bi = ct.bid(0)
    acc = ct.zeros((TM,), ct.float32)
    for j in range(ct.cdiv(x.shape[1], TN)):
        t = ct.load(x, index=(bi, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        acc += ct.sum(t, axis=1)
    ct.store(y, index=(bi,), tile=acc)


@ct.kernel
def transpose_tile(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    bi, bj = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(bi, bj), shape=(TM, TN))
    ct.store(y, index=(bj, bi), tile=ct.permute(t, (1, 0)))


@ct.kernel
def scale_3d(x, y):
    b = ct.bid(0)
    t = ct.load(x, index=(b, 0, 0), shape=(2, 8, 16))
    ct.store(y, index=(b, 0, 0), tile=t + t)


def _rand(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-100, 100, shape).astype(dtype)


CASES = [
    # (dtype, array shape, columns used, tile shape): row strides of 16 elements (cuTile's
    # divisibility fact), ragged edges in both dimensions; a view of fewer columns than the
    # row holds ends inside a 16-byte chunk, which cp.async fills with zeros past the end.
    (np.float32, (37, 80), 80, (16, 32)),
    (np.float32, (37, 80), 70, (16, 32)),
    (np.float16, (40, 80), 75, (16, 64)),
    (np.int8, (33, 48), 48, (8, 32)),
    (np.float64, (9, 16), 13, (4, 4)),
]


def _copy(a):
    return copy_keeping_strides(a) if isinstance(a, np.ndarray) else a


def _run(kernel, grid, args, target, pipeline):
    want = [_copy(a) for a in args]
    ct.interpret(grid, kernel, want)
    got = [_copy(a) for a in args]
    compiled = ct.compile(kernel, got, target=target, pipeline=pipeline)
    emulator.emulate(grid, compiled, got, race_check=True)
    return compiled, got, want


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,shape,cols,tile", CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("load,store", [("vector", "vector"), ("cp_async", "predicated"), ("predicated", "vector")])
def test_every_load_and_store_variant_computes_what_the_interpreter_does(target, dtype, shape, cols, tile, load, store):
    rng = np.random.default_rng(7)
    x = _rand(rng, shape, dtype)[:, :cols]
    y = np.zeros(shape, dtype)[:, :cols]
    grid = (ct.cdiv(shape[0], tile[0]), ct.cdiv(cols, tile[1]))
    k, got, want = _run(scale_2d, grid, [x, y, *tile], target, _pipeline(f"tiled_load:{load}", f"tiled_store:{store}"))
    np.testing.assert_array_equal(got[1], want[1])
    ptx = k.asm["ptx"]
    assert ("cp.async.cg.shared.global" in ptx) == (load == "cp_async"), ptx
    # The vector variants branch to vector accesses for whole tiles; predicated ones never do.
    vector_ops = [line for line in ptx.splitlines() if ".global.v" in line and ("ld." in line or "st." in line)]
    if load == "predicated" and store == "predicated":
        assert not vector_ops
    if load == "vector" and np.dtype(dtype).itemsize in (2, 4):
        assert any("ld.global.v" in line for line in vector_ops), ptx


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("load", ["vector", "cp_async", "predicated"])
def test_a_reduced_tile_and_a_transposed_tile_read_back_in_their_layouts(target, load):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((50, 96)) * 4).astype(np.float16)
    y = np.zeros(96, np.float32)
    k, got, want = _run(column_sums, (96 // 32,), [x, y, 16, 32], target, _pipeline(f"tiled_load:{load}"))
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-4)
    assert ("cp.async.cg" in k.asm["ptx"]) == (load == "cp_async")

    # A view whose rows end inside a 16-byte chunk: what lies past its end in the buffer
    # must read as the zero padding, not as the buffer's next elements.
    x = (rng.standard_normal((24, 80)).astype(np.float32) + 100)[:, :70]
    y = np.zeros(24, np.float32)
    k, got, want = _run(row_sums, (24 // 8,), [x, y, 8, 32], target, _pipeline(f"tiled_load:{load}"))
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5)

    x = rng.standard_normal((40, 32)).astype(np.float32)
    y = np.zeros((32, 40), np.float32)
    k, got, want = _run(transpose_tile, (ct.cdiv(40, 16), 32 // 8), [x, y, 16, 8], target, _pipeline(f"tiled_load:{load}"))
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("load", ["cp_async", "predicated"])
def test_three_dimensional_tiles(load):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 8, 16)).astype(np.float32)
    y = np.zeros_like(x)
    k, got, want = _run(scale_3d, (2,), [x, y], "sm_90a", _pipeline(f"tiled_load:{load}"))
    np.testing.assert_array_equal(got[1], want[1])
    assert ("cp.async.cg" in k.asm["ptx"]) == (load == "cp_async")


@ct.kernel
def nan_padded(x, y):
    t = ct.load(x, index=(0, 0), shape=(16, 32), padding_mode=ct.PaddingMode.NAN)
    ct.store(y, index=(0, 0), tile=t)


@ct.kernel
def odd_rows(x, y):
    t = ct.load(x, index=(0, 0), shape=(4, 2))
    ct.store(y, index=(0, 0), tile=t)


def test_a_forced_variant_that_cannot_apply_is_a_located_error_naming_each_variant():
    x = np.zeros((16, 32), np.float32)
    with pytest.raises(CompilationError) as e:
        ct.compile(nan_padded, [x, x.copy()], target="sm_90a", pipeline=_pipeline("tiled_load:cp_async"))
    text = str(e.value)
    assert "no lowering of 'tiled_load' applies on sm_90a" in text, text
    assert "vector: not the forced variant" in text and "predicated: not the forced variant" in text, text
    assert "cp_async: the padding is not zero" in text, text
    assert "test_memory_variants.py" in text, text

    # Rows of 8 bytes are no 16-byte chunks.
    x = np.zeros((4, 16), np.float32)
    with pytest.raises(CompilationError, match=r"cp_async: a tile row is 8 bytes \(cp.async copies 16-byte chunks\)"):
        ct.compile(odd_rows, [x, x.copy()], target="sm_90a", pipeline=_pipeline("tiled_load:cp_async"))

    with pytest.raises(CompilationError, match=r"tileir.variant = \"async\" names no variant of 'tiled_load' \(variants: vector, cp_async, predicated\)"):
        ct.compile(odd_rows, [x, x.copy()], target="sm_90a", pipeline=_pipeline("tiled_load:async"))
    with pytest.raises(CompilationError, match=r"names no variant of 'tiled_store' \(variants: vector, predicated\)"):
        ct.compile(odd_rows, [x, x.copy()], target="sm_90a", pipeline=_pipeline("tiled_store:cp_async"))


def test_the_forced_variant_is_printed_on_the_nv_tileas_op():
    x = np.zeros((16, 32), np.float32)
    k = ct.compile(scale_2d, [x, x.copy(), 16, 32], target="sm_90a", pipeline=_pipeline("tiled_load:cp_async"))
    tileas = k.asm["nv_tileas"]
    assert tileas.count('variant = "cp_async"') == 1, tileas
    assert 'nv_tileas.tiled_store' in tileas and tileas.count("variant =") == 1, tileas
