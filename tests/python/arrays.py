"""Array helpers shared by the tests."""

import numpy as np


def copy_keeping_strides(x):
    """A copy of ``x`` with the same strides, not a contiguous one: a view of a wider array
    (rows padded to a 16-element multiple, say) stays such a view, so a kernel compiled for
    the copy is specialized like one compiled for ``x`` (cuTile's divisibility facts, which
    decide whether tiles move by TMA, come from the strides)."""
    if not isinstance(x, np.ndarray):
        return x
    if x.flags.c_contiguous or x.ndim == 0:
        return x.copy()
    item = x.itemsize
    # Rebuild the smallest buffer the strides address, then view it the same way.
    if any(s < 0 or s % item for s in x.strides):
        raise ValueError(f"cannot copy an array with strides {x.strides} keeping them")
    span = 1 + sum((n - 1) * s // item for n, s in zip(x.shape, x.strides))
    buf = np.zeros(span, x.dtype)
    out = np.lib.stride_tricks.as_strided(buf, shape=x.shape, strides=x.strides)
    out[...] = x
    return out


def emulate_and_interpret(grid, kernel, compiled, args, race_check=False):
    """Runs ``compiled`` (``kernel`` compiled for ``args``' specialization) on the PTX
    emulator and ``kernel`` on ``ct.interpret``, each on its own copies of ``args`` (strides
    kept, so the copies fit the specialization); returns (interpreted, emulated)."""
    import tileir as ct

    a1 = [copy_keeping_strides(a) for a in args]
    a2 = [copy_keeping_strides(a) for a in args]
    ct.interpret(grid, kernel, a1)
    ct.emulate(grid, compiled, a2, race_check=race_check)
    return a1, a2


def assert_same_bits(got, want):
    """Bit-for-bit equality (NaNs and signed zeros included)."""
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    same = (got.view(np.uint8) == want.view(np.uint8)).reshape(got.shape + (-1,)).all(axis=-1)
    assert same.all(), f"{(~same).sum()} elements differ; first {got[~same][:4]} vs {want[~same][:4]}"
