"""Tensor-core variants of ``ct.mma`` (issue #11): tf32, int8 (each signedness) and fp8.

Each kernel is compiled to PTX, the PTX says which instruction the dispatch picked (the
mma.sync form, or none: the FMA loop), and the compiled kernel runs on the PTX emulator
(``ct.emulate``) against ``ct.interpret``, bit for bit. The data is exact: every product
and partial sum is representable, so the interpreter's one-rounding-per-k order and the
tensor core's blocked sums agree; tf32 inputs carry noise below tf32 precision, which the
f32 -> tf32 conversion must drop.
"""

import numpy as np
import pytest

import tileir as ct
from arrays import assert_same_bits as assert_bits, copy_keeping_strides, emulate_and_interpret

import sample_runs

C = ct.Constant

TF32 = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"


@ct.kernel
def mm_tf32(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(ct.tfloat32)
    b = ct.load(B, (0, 0), (K, N)).astype(ct.tfloat32)
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@ct.kernel
def mm_int(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K))
    b = ct.load(B, (0, 0), (K, N))
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@ct.kernel
def mm_e4m3(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(ct.float8_e4m3fn)
    b = ct.load(B, (0, 0), (K, N)).astype(ct.float8_e4m3fn)
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@ct.kernel
def mm_e5m2(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(ct.float8_e5m2)
    b = ct.load(B, (0, 0), (K, N)).astype(ct.float8_e5m2)
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@ct.kernel
def mm_tiled_f32(A, B, Z, tm: C[int], tn: C[int], tk: C[int]):
    # The front end's f32 matmul (tf32 products), over ragged arrays with zero padding.
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO).astype(ct.tfloat32)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.tfloat32)
        acc = ct.mma(a, b, acc)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


def run_both(kern, grid, args, target="sm_90a"):
    """(interpreted, emulated) copies of ``args`` after running ``kern`` both ways."""
    compiled = ct.compile(kern, [copy_keeping_strides(a) for a in args], target=target)
    return emulate_and_interpret(grid, kern, compiled, args)


def ptx(kern, args, target="sm_90a"):
    return ct.compile(kern, args, target=target).asm["ptx"]


def tf32_data(rng, shape):
    """Multiples of 1/16 in [-1/2, 1/2] times (1 + noise), the noise below tf32's half ulp."""
    exact = rng.integers(-8, 9, shape) / 16.0
    noisy = (exact * (1 + 1e-4 * rng.uniform(-1, 1, shape))).astype(np.float32)
    return noisy, exact


# (M, N, K) and whether m16n8k8 applies (the tile must be a multiple of 16x8x8, with a 16x8
# fragment for each warp); the others run the FMA loop.
TF32_SHAPES = [((32, 32, 16), True), ((64, 32, 64), True), ((16, 32, 8), True),
               ((8, 32, 16), False), ((32, 4, 16), False), ((32, 32, 4), False), ((16, 16, 16), True)]


@pytest.mark.parametrize("mnk,tensor_core", TF32_SHAPES, ids=[f"{m}x{n}x{k}" for (m, n, k), _ in TF32_SHAPES])
@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
def test_tf32_matmul(mnk, tensor_core, target):
    m, n, k = mnk
    rng = np.random.default_rng(m * 131 + n * 7 + k)
    a, ea = tf32_data(rng, (m, k))
    b, eb = tf32_data(rng, (k, n))
    c = (rng.integers(-64, 64, (m, n)) / 4.0).astype(np.float32)
    args = [a, b, c, np.zeros((m, n), np.float32), m, n, k]
    text = ptx(mm_tf32, args, target)
    if target == "sm_90a" and m % 64 == 0:
        # A warpgroup's 64 rows: Hopper's wgmma (tests/python/test_wgmma.py) takes it.
        assert "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32" in text and "mma.sync" not in text
    else:
        assert (TF32 in text) == tensor_core, f"{mnk} on {target}: tensor core expected: {tensor_core}"
        assert "mma.sync" in text or not tensor_core
    r1, r2 = run_both(mm_tf32, (1,), args, target)
    assert_bits(r2[3], r1[3])
    np.testing.assert_array_equal(r2[3], (ea @ eb + c).astype(np.float32))


def test_tf32_ragged_arrays_with_padding():
    m, n, k = 70, 40, 40
    rng = np.random.default_rng(3)
    a, ea = tf32_data(rng, (m, k))
    b, eb = tf32_data(rng, (k, n))
    args = [a, b, np.zeros((m, n), np.float32), 32, 32, 16]
    assert TF32 in ptx(mm_tiled_f32, args)
    grid = (ct.cdiv(m, 32), ct.cdiv(n, 32))
    r1, r2 = run_both(mm_tiled_f32, grid, args)
    assert_bits(r2[2], r1[2])
    np.testing.assert_array_equal(r2[2], (ea @ eb).astype(np.float32))


def test_matmul_f32_sample_uses_tf32_tensor_cores():
    kern, grid, inputs, expected, (rtol, atol) = sample_runs.reference("matmul_f32")
    compiled = ct.compile(kern, inputs, target="sm_90a")
    assert TF32 in compiled.asm["ptx"]
    # It runs like the interpreter within the sample's tolerance (tf32 products, another
    # order of the sums: not bit for bit).
    ct.emulate(grid, compiled, inputs, race_check=True)
    for i, want in expected.items():
        np.testing.assert_allclose(inputs[i], want, rtol=rtol, atol=atol, err_msg=f"output #{i}")


INT_PAIRS = [(np.int8, np.int8), (np.int8, np.uint8), (np.uint8, np.int8), (np.uint8, np.uint8)]
INT_SHAPES = [((32, 32, 64), True), ((16, 64, 32), True), ((32, 32, 16), False), ((8, 32, 32), False)]


def int_data(rng, dt, shape):
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max + 1, shape).astype(dt)


@pytest.mark.parametrize("mnk,tensor_core", INT_SHAPES, ids=[f"{m}x{n}x{k}" for (m, n, k), _ in INT_SHAPES])
@pytest.mark.parametrize("da,db", INT_PAIRS, ids=[f"{np.dtype(x).name}x{np.dtype(y).name}" for x, y in INT_PAIRS])
def test_int8_matmul_wraps_like_the_interpreter(da, db, mnk, tensor_core):
    m, n, k = mnk
    rng = np.random.default_rng(k * 3 + m)
    a, b = int_data(rng, da, (m, k)), int_data(rng, db, (k, n))
    # Accumulators near both ends of the int32 range: the sums wrap.
    c = np.where(rng.integers(0, 2, (m, n)) == 1, 2**31 - 1 - rng.integers(0, 1000, (m, n)),
                 -2**31 + rng.integers(0, 1000, (m, n))).astype(np.int32)
    args = [a, b, c, np.zeros((m, n), np.int32), m, n, k]
    sa = "s8" if da == np.int8 else "u8"
    sb = "s8" if db == np.int8 else "u8"
    text = ptx(mm_int, args)
    assert (f"mma.sync.aligned.m16n8k32.row.col.s32.{sa}.{sb}.s32" in text) == tensor_core
    assert ".satfinite" not in text
    r1, r2 = run_both(mm_int, (1,), args)
    assert_bits(r2[3], r1[3])
    exact = a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64)
    want = ((exact + 2**31) % 2**32 - 2**31).astype(np.int32)
    assert (exact != want).any(), "the data should overflow int32"
    np.testing.assert_array_equal(r2[3], want)


FP8 = [(mm_e4m3, "e4m3", 4), (mm_e5m2, "e5m2", 3)]
FP8_SHAPES = [((32, 32, 32), True), ((32, 32, 64), True), ((32, 32, 16), False)]


@pytest.mark.parametrize("mnk,tensor_core", FP8_SHAPES, ids=[f"{m}x{n}x{k}" for (m, n, k), _ in FP8_SHAPES])
@pytest.mark.parametrize("kern,name,span", FP8, ids=[f[1] for f in FP8])
def test_fp8_matmul_on_sm_90a(kern, name, span, mnk, tensor_core):
    m, n, k = mnk
    rng = np.random.default_rng(k + len(name))
    # Halves in [-span, span]: exact in both fp8 formats (e5m2 keeps 3 significant bits).
    a = (rng.integers(-2 * span, 2 * span + 1, (m, k)) / 2.0).astype(np.float32)
    b = (rng.integers(-2 * span, 2 * span + 1, (k, n)) / 2.0).astype(np.float32)
    if name == "e5m2":
        a, b = np.round(a), np.round(b)  # small integers <= 3 are exact in e5m2
    c = rng.integers(-100, 100, (m, n)).astype(np.float32)
    args = [a, b, c, np.zeros((m, n), np.float32), m, n, k]
    assert (f"mma.sync.aligned.m16n8k32.row.col.f32.{name}.{name}.f32" in ptx(kern, args)) == tensor_core
    r1, r2 = run_both(kern, (1,), args)
    assert_bits(r2[3], r1[3])
    np.testing.assert_array_equal(r2[3], a @ b + c)


@ct.kernel
def mm_e4m3_bits(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    # fp8 operands without a conversion (sm_80 converts no fp8): bit casts of int8 tiles.
    a = ct.bitcast(ct.load(A, (0, 0), (M, K)), ct.float8_e4m3fn)
    b = ct.bitcast(ct.load(B, (0, 0), (K, N)), ct.float8_e4m3fn)
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


def test_fp8_on_sm_80_takes_the_fma_loop_with_software_conversions():
    rng = np.random.default_rng(8)
    # fp8 bit patterns of finite e4m3 values (0x7F / 0xFF are NaN), accumulating in f32.
    bits = [rng.integers(0, 0x7E, (32, 32)).astype(np.int8) for _ in range(2)]
    args = bits + [rng.standard_normal((32, 32)).astype(np.float32), np.zeros((32, 32), np.float32), 32, 32, 32]
    k = ct.compile(mm_e4m3_bits, args, target="sm_80")
    assert "mma.sync" not in k.asm["ptx"] and "e4m3x2" not in k.asm["ptx"]
    want, got = emulate_and_interpret((1,), mm_e4m3_bits, k, args)
    assert_bits(got[3], want[3])
    # Forcing the tensor-core variant there names why it cannot apply.
    with pytest.raises(Exception) as err:
        ct.compile(mm_e4m3_bits, args, target="sm_80", pipeline="convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=mmaf:mma_sync_fp8}")
    assert "mma_sync_fp8: needs sm_89+ (target sm_80)" in str(err.value), str(err.value)
    # sm_89 has the instruction.
    assert "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32" in ptx(mm_e4m3_bits, args, "sm_89")
