"""The code the backend generates computes what the reference interpreter computes.

Each sample kernel (tests/python/frontend_samples.py) is compiled for sm_80 and sm_90a and the very
PTX handed to ptxas runs on the PTX emulator (``ct.emulate``); its outputs must match
``ct.interpret`` on the same random inputs, bit-exactly or within the run's tolerance
(sample_runs.py says which and why). The same runs launch on a GPU in
benches/gpu_samples.py.
"""

import numpy as np
import pytest

import tileir as ct

import sample_runs


def _same(got, want, rtol, atol):
    if rtol == 0 and atol == 0:
        return np.array_equal(got.view(np.uint8), want.view(np.uint8))
    return np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(sample_runs.RUNS))
def test_sample_emulates_like_the_interpreter(name, target):
    kern, grid, inputs, expected, (rtol, atol) = sample_runs.reference(name)
    ct.emulate(grid, kern, inputs, target=target, race_check=True)
    for i, want in expected.items():
        got = inputs[i]
        err = np.nanmax(np.abs(got.astype(np.float64) - want.astype(np.float64))) if got.size else 0.0
        assert _same(got, want, rtol, atol), f"output #{i}: max |error| {err:.3g} (rtol {rtol}, atol {atol})"


@pytest.mark.parametrize("variant", ["tree", "serial"])
def test_both_reduce_variants_agree_with_the_interpreter(variant):
    kern, grid, inputs, expected, (rtol, atol) = sample_runs.reference("layer_norm_fwd")
    pipeline = f"convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{{force-variant=reduce:{variant}}}"
    k = ct.compile(kern, inputs, target="sm_90a", pipeline=pipeline)
    # The tree's butterflies (relayouts may shuffle too, by lane index).
    assert ("shfl.sync.bfly" in k.asm["ptx"]) == (variant == "tree")
    ct.emulate(grid, k, inputs, race_check=True)
    for i, want in expected.items():
        assert _same(inputs[i], want, rtol, atol), f"output #{i}"
