"""Our versions of cuTile's sample kernels compile to cuda_tile IR that verifies."""

import numpy as np
import pytest

import tileir as ct

from frontend_samples import SAMPLES, matmul
from kernels import vector_add


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


@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_reaches_a_cubin(name, target):
    kern, args = SAMPLES[name]
    k = ct.compile(kern, args(), target=target)
    assert k.cubin[:4] == b"\x7fELF"
    assert f".target {target}" in k.asm["ptx"]


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
