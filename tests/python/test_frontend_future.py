"""Kernels in a module with ``from __future__ import annotations``: every annotation is a
string, and ``Constant`` parameters must still be recognized (directly, through an alias,
and as ``Annotated`` metadata), as cuTile resolves them with ``typing.get_type_hints``."""

from __future__ import annotations

from typing import Annotated

import numpy as np
import pytest

import tileir as ct

Tile = ct.Constant[int]


@ct.kernel
def postponed(X, Y, TILE: ct.Constant[int], SCALE: Tile, BIAS: Annotated[float, ct.ConstantAnnotation()], n: int):
    i = ct.bid(0)
    ct.store(Y, (i,), ct.load(X, (i,), (TILE,)) * SCALE + BIAS + n)


def test_postponed_constant_annotations():
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    m = ct.compile_to_ir(postponed, (x, y, 16, 2, 0.5, 3))
    text = str(m)
    assert "tile<16xf32>" in text
    assert "%TILE" not in text and "%SCALE" not in text and "%BIAS" not in text and "%n: tile<i32>" in text
    ct.interpret((4,), postponed, (x, y, 16, 2, 0.5, 3))
    np.testing.assert_array_equal(y, x * 2 + 0.5 + 3)


def test_unresolvable_string_annotation_is_a_runtime_parameter():
    # A name that exists nowhere stays a string: not a Constant, so the tile shape is not constant.
    @ct.kernel
    def k(X, T: NoSuchAlias):  # noqa: F821
        ct.load(X, (0,), (T,))
    with pytest.raises(ct.TileTypeError, match="shape must be a tuple of compile-time integers"):
        ct.compile_to_ir(k, (np.zeros(16, np.float32), 16))
