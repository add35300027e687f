"""Kernel hints reach the cubin's launch attributes (spec/003's kernel-spec table): the
occupancy hint caps registers (65536 / (occupancy x threads), ptxas's `.maxnreg`), unless
the cap would make ptxas spill, in which case the kernel compiles without it."""

import re

import numpy as np

import tileir as ct
from arrays import assert_same_bits, emulate_and_interpret


@ct.kernel(occupancy=4)
def scale(x, y, T: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(T,)) * 2.0)


def test_occupancy_caps_registers_in_the_ptx():
    x = np.arange(4096, dtype=np.float32)
    k = ct.compile(scale, (x, x, 1024), target="sm_90a")
    threads = k.num_threads
    want = min(255, 65536 // (4 * threads) // 8 * 8)
    assert f".maxnreg {want}" in k.asm["ptx"], re.findall(r"\.maxnreg \d+", k.asm["ptx"])
    assert f'"nvvm.maxnreg"="{want}"' in k.asm["llvm"]
    y = np.zeros_like(x)
    ct.emulate((4,), k, (x, y, 1024))
    assert np.array_equal(y, x * 2)
    # The capped kernel computes what the interpreter does.
    interpreted, emulated = emulate_and_interpret((4,), scale, k, (x, np.zeros_like(x), 1024))
    assert_same_bits(emulated[1], interpreted[1])


def _attention(d):
    """The attention sample (occupancy 2, 256 threads) at head dim ``d``, compiled for sm_90a
    at the sample's sizes, and a small run of the same specialization."""
    from test_frontend_samples import SAMPLES

    kern, _ = SAMPLES["attention"]
    big = [np.zeros((8, 1024, d), np.float16) for _ in range(4)]
    k = ct.compile(kern, (*big, 0.125, d, 128, 64, 1), target="sm_90a")
    rng = np.random.default_rng(0)
    small = [(rng.standard_normal((1, 256, d)) * 0.5).astype(np.float16) for _ in range(3)]
    args = [*small, np.zeros((1, 256, d), np.float16), 0.125, d, 128, 64, 1]
    return kern, k, args


def test_a_cap_that_would_spill_is_dropped():
    # At head dim 128, capped at 2 CTAs per SM (65536 / (2 x 256) = 128 registers) the
    # attention kernel's registers would spill, so it compiles uncapped (and spills nothing).
    kern, k, args = _attention(128)
    assert k.num_threads == 256
    assert k.registers > 128
    assert k.ptxas_info.spill_stores_bytes == 0 and k.ptxas_info.spill_loads_bytes == 0
    assert "nvvm.maxnreg" not in k.asm["llvm"] and ".maxnreg" not in k.asm["ptx"]
    # The uncapped kernel runs (emulated, at a smaller size of the same specialization)
    # like the interpreter.
    interpreted, emulated = emulate_and_interpret((2, 1), kern, k, args, race_check=True)
    np.testing.assert_allclose(emulated[3].astype(np.float64), interpreted[3].astype(np.float64), rtol=2e-2, atol=2e-2)


def test_a_cap_that_fits_is_kept():
    # At head dim 64 the softmax runs in the wgmma fragments and the kernel fits the cap.
    kern, k, args = _attention(64)
    assert ".maxnreg 128" in k.asm["ptx"] and k.registers <= 128
    assert k.ptxas_info.spill_stores_bytes == 0 and k.ptxas_info.spill_loads_bytes == 0
    interpreted, emulated = emulate_and_interpret((2, 1), kern, k, args, race_check=True)
    np.testing.assert_allclose(emulated[3].astype(np.float64), interpreted[3].astype(np.float64), rtol=2e-2, atol=2e-2)