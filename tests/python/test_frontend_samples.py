"""Our versions of cuTile's sample kernels compile to cuda_tile IR that verifies, and the
kernels compiled here run on the PTX emulator like ``ct.interpret``."""

import numpy as np
import pytest

import tileir as ct
from tileir._frontend import specialize

import sample_runs
from arrays import assert_same_bits, emulate_and_interpret
from frontend_samples import SAMPLES, matmul
from kernels import vector_add


def _assert_outputs_match(interpreted, emulated, outputs, rtol, atol):
    for i in outputs:
        if rtol == 0 and atol == 0:
            assert_same_bits(emulated[i], interpreted[i])
        else:
            np.testing.assert_allclose(emulated[i].astype(np.float64), interpreted[i].astype(np.float64), rtol=rtol,
                                       atol=atol, err_msg=f"output #{i}")


def emulate_sample_kernel(name, compiled, seed=0):
    """Runs ``compiled`` -- ``SAMPLES[name]``'s kernel compiled for ``SAMPLES[name]``'s
    arguments -- on the PTX emulator over sample_runs.SPEC_RUNS[name]'s smaller arguments
    and compares its outputs with ``ct.interpret`` on the same inputs."""
    kern, _ = SAMPLES[name]
    grid, args, outputs, (rtol, atol) = sample_runs.SPEC_RUNS[name](np.random.default_rng(seed))
    # The smaller arguments specialize the kernel exactly as the sample's do, so the kernel
    # compiled for those is the one that runs (ct.emulate checks the arguments fit it, too).
    assert specialize(kern.fn, tuple(args)) == compiled.spec
    assert ct.compile(kern, args, target=compiled.target) is compiled
    interpreted, emulated = emulate_and_interpret(grid, kern, compiled, args, race_check=True)
    assert any(not np.array_equal(interpreted[i], args[i]) for i in outputs), "the run writes no output"
    _assert_outputs_match(interpreted, emulated, outputs, rtol, atol)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_compiles_to_verified_ir(name):
    kern, args = SAMPLES[name]
    m = ct.compile_to_ir(kern, args())
    m.verify()
    assert f"entry @{kern.name}" in str(m)


def test_vector_add_still_reaches_ptx():
    z = np.zeros(1000, np.float32)
    k = ct.compile(vector_add, (z, z, z, 256))
    assert k.cubin[:4] == b"\x7fELF"
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32), z.copy(), 256]
    interpreted, emulated = emulate_and_interpret((4,), vector_add, k, args)
    assert np.any(interpreted[2] != 0)
    _assert_outputs_match(interpreted, emulated, [2], 0, 0)


@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_reaches_a_cubin(name, target):
    # ... and the cubin's PTX, at the sample's own tile sizes, computes what the interpreter does.
    kern, args = SAMPLES[name]
    k = ct.compile(kern, args(), target=target)
    assert k.cubin[:4] == b"\x7fELF"
    assert f".target {target}" in k.asm["ptx"]
    emulate_sample_kernel(name, k)


def test_stage_cuda_tile_returns_the_module():
    kern, args = SAMPLES["softmax"]
    m = ct.compile(kern, args(), stage="cuda_tile")
    assert "reduce" in str(m)


def test_entry_hints_from_kernel_options():
    kern, args = SAMPLES["matmul_f16"]
    text = str(ct.compile_to_ir(kern, args()))
    assert "num_cta_in_cga = 2" in text and "sm_100" in text and "occupancy = 1" in text
    k2 = kern.replace_hints(num_ctas=4, num_worker_warps=8)
    text = str(ct.compile_to_ir(k2, args()))
    assert "num_cta_in_cga = 4" in text and "num_worker_warps_per_cta = 8" in text
    assert k2 is not kern and k2._cache is not kern._cache


@pytest.mark.parametrize("hint,value", [("num_ctas", 3), ("occupancy", 0), ("opt_level", 4), ("num_worker_warps", 6)])
def test_bad_hints_are_rejected(hint, value):
    with pytest.raises(ValueError, match=hint):
        ct.kernel(**{hint: value})(lambda a: None)


def test_specialization_keys():
    from tileir._frontend import specialize
    a = np.zeros((64, 64), np.float16)
    s1 = specialize(matmul.fn, (a, a, a, 64, 64, 32))
    s2 = specialize(matmul.fn, (a[:, :40], a, a, 64, 64, 32))
    assert s1 != s2  # shape divisibility differs
    s3 = specialize(matmul.fn, (a, a, a, 64, 64, 16))
    assert s1 != s3  # constants
    b = np.zeros((64, 64), np.float32)
    assert specialize(matmul.fn, (b, b, b, 64, 64, 32)) != s1  # dtype
    assert s1.params[0].shape_div16 == (True, True) and s2.params[0].shape_div16 == (True, False)
    assert s1.params[0].aligned16 and s1.params[0].unit_inner_stride
