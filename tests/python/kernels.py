"""Kernels shared by the tests."""

import tileir as ct


@ct.kernel
def vector_add(a, b, c, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ta = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(i,), tile=ta + tb)
