"""The lowering variants of relayouts (broadcast, reshape, permute, extract, cat):
``registers`` (every thread already holds what it needs), ``shuffle`` (within warps) and
``shared_memory`` (any op, any layouts), tried in that order.

For each kernel, every variant is forced in turn: one that applies runs on the PTX emulator
and matches ``ct.interpret``; one that does not is a located error that names its reason;
``shared_memory`` always applies; and the default is the first variant that applies (the
same PTX as forcing it).
"""

import numpy as np
import pytest

import tileir as ct
from tileir import emulator
from tileir.errors import CompilationError

VARIANTS = ("registers", "shuffle", "shared_memory")


@ct.kernel
def permute_2d(x, y):
    t = ct.load(x, index=(0, 0), shape=(16, 32))
    ct.store(y, index=(0, 0), tile=ct.permute(t, (1, 0)))


@ct.kernel
def reshape_rows(x, y):
    t = ct.load(x, index=(0, 0), shape=(8, 16))
    ct.store(y, index=(0, 0), tile=ct.reshape(t, (4, 32)))


@ct.kernel
def broadcast_row(x, y):
    row = ct.load(x, index=(0, 0), shape=(1, 32))
    ct.store(y, index=(0, 0), tile=ct.broadcast_to(row, (16, 32)) * 2)


@ct.kernel
def cat_halves(x, y):
    a = ct.load(x, index=(0, 0), shape=(8, 32))
    b = ct.load(x, index=(1, 0), shape=(8, 32))
    ct.store(y, index=(0, 0), tile=ct.cat((b, a), axis=0))


@ct.kernel
def extract_quarter(x, y):
    t = ct.load(x, index=(0, 0), shape=(16, 32))
    ct.store(y, index=(0, 0), tile=ct.extract(t, index=(1, 1), shape=(8, 16)))


KERNELS = {
    "permute": (permute_2d, "permute", (16, 32), (32, 16)),
    "reshape": (reshape_rows, "reshape", (8, 16), (4, 32)),
    "broadcast": (broadcast_row, "broadcast", (1, 32), (16, 32)),
    "cat": (cat_halves, "cat", (16, 32), (16, 32)),
    "extract": (extract_quarter, "extract", (16, 32), (8, 16)),
}


def _pipeline(op, variant):
    return f"convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{{force-variant={op}:{variant}}}"


@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_each_relayout_variant_applies_or_says_why(name, target):
    kernel, op, xs, ys = KERNELS[name]
    x = np.arange(np.prod(xs), dtype=np.float32).reshape(xs)
    want = [x, np.zeros(ys, np.float32)]
    ct.interpret((1,), kernel, want)
    applied = []
    for variant in VARIANTS:
        args = [x.copy(), np.zeros(ys, np.float32)]
        try:
            k = ct.compile(kernel, args, target=target, pipeline=_pipeline(op, variant))
        except CompilationError as e:
            text = str(e)
            assert variant != "shared_memory", text
            assert f"no lowering of '{op}' applies on {target}" in text, text
            assert f"{variant}: " in text and "test_relayout_variants.py" in text, text
            continue
        applied.append((variant, k))
        emulator.emulate((1,), k, args, race_check=True)
        np.testing.assert_array_equal(args[1], want[1], err_msg=f"variant {variant}")
        ptx = k.asm["ptx"]
        if variant == "registers":
            assert "shfl.sync" not in ptx and "st.shared" not in ptx, ptx
        if variant == "shuffle":
            assert "shfl.sync" in ptx, ptx
    default = ct.compile(kernel, [x.copy(), np.zeros(ys, np.float32)], target=target)
    assert default.asm["ptx"] == applied[0][1].asm["ptx"], f"the default is not {applied[0][0]}"


def test_the_variants_that_apply_differ_by_kernel():
    # Guards the test above against variants that never reject: the rows of a reshape stay
    # in their threads, a transpose of a whole tile moves elements across warps.
    x = np.zeros((16, 32), np.float32)
    k = ct.compile(reshape_rows, [np.zeros((8, 16), np.float32), np.zeros((4, 32), np.float32)], target="sm_90a")
    assert "shfl.sync" not in k.asm["ptx"] and "st.shared" not in k.asm["ptx"]
    with pytest.raises(CompilationError, match="registers: some thread needs elements another thread holds"):
        ct.compile(permute_2d, [x, np.zeros((32, 16), np.float32)], target="sm_90a", pipeline=_pipeline("permute", "registers"))
    with pytest.raises(CompilationError, match="shuffle: extract and cat move elements between threads"):
        ct.compile(cat_halves, [x, x.copy()], target="sm_90a", pipeline=_pipeline("cat", "shuffle"))
    with pytest.raises(CompilationError, match=r"names no variant of 'permute' \(variants: registers, shuffle, shared_memory\)"):
        ct.compile(permute_2d, [x, np.zeros((32, 16), np.float32)], target="sm_90a", pipeline=_pipeline("permute", "smem"))
