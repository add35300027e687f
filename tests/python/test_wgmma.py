"""Hopper warpgroup MMA (issue #14): ``ct.mma`` on sm_90a lowers to ``wgmma.mma_async``.

Each kernel is compiled for sm_90a; the PTX must name the expected wgmma form (and no
``mma.sync``), ptxas must report no advisory (C7509/C7517 would mean serialized wgmma), and
the compiled kernel runs on the PTX emulator against ``ct.interpret`` bit for bit. The data
is exact (small integers, halves, tf32 values with noise below tf32 precision), so the
tensor core's blocked sums and the interpreter's order agree.
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tileir as ct
from arrays import assert_same_bits as assert_bits, copy_keeping_strides, emulate_and_interpret

C = ct.Constant


@ct.kernel
def mm_f16(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K))
    b = ct.load(B, (0, 0), (K, N))
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@ct.kernel
def mm_bf16(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(ct.bfloat16)
    b = ct.load(B, (0, 0), (K, N)).astype(ct.bfloat16)
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@ct.kernel
def mm_tf32(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(ct.tfloat32)
    b = ct.load(B, (0, 0), (K, N)).astype(ct.tfloat32)
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
def mm_int(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K))
    b = ct.load(B, (0, 0), (K, N))
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@ct.kernel
def mm_zero_acc(A, B, Z, M: C[int], N: C[int], K: C[int]):
    # A splat accumulator: the fragments start from the literal, not from shared memory.
    a = ct.load(A, (0, 0), (M, K))
    b = ct.load(B, (0, 0), (K, N))
    ct.store(Z, (0, 0), ct.mma(a, b, ct.full((M, N), 2.5, dtype=ct.float32)))


@ct.kernel
def mm_tiled(A, B, Z, tm: C[int], tn: C[int], tk: C[int]):
    # The K loop carries the accumulator; ragged arrays are zero padded.
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


def run_both(kern, grid, args, target="sm_90a", pipeline=None, race_check=False):
    """(interpreted, emulated) copies of ``args`` after running ``kern`` both ways."""
    compiled = ct.compile(kern, [copy_keeping_strides(a) for a in args], target=target, pipeline=pipeline)
    return emulate_and_interpret(grid, kern, compiled, args, race_check=race_check)


def compile_checked(kern, args, target="sm_90a", pipeline=None):
    compiled = ct.compile(kern, args, target=target, pipeline=pipeline)
    assert not compiled.advisories, compiled.advisories
    return compiled, compiled.asm["ptx"]


def instruction_n(m, n, num_threads, integer=False):
    """The N of one instruction: warpgroups split M first (in 64-row blocks), then N; each
    takes the widest instruction that divides its columns."""
    groups = num_threads // 128
    wm = 1
    while wm * 2 <= groups and (m // 64) % (wm * 2) == 0:
        wm *= 2
    cols = n // (groups // wm)
    valid = [c for c in range(8, 257, 8) if not integer or c <= 24 or c % 16 == 0]
    return max(c for c in valid if cols % c == 0)


def small_ints(rng, shape, lo=-3, hi=3):
    return rng.integers(lo, hi + 1, shape).astype(np.float32)


def tf32_data(rng, shape):
    """Multiples of 1/16 times (1 + noise), the noise below tf32's half ulp."""
    exact = rng.integers(-8, 9, shape) / 16.0
    return (exact * (1 + 1e-4 * rng.uniform(-1, 1, shape))).astype(np.float32), exact


# (name, kernel, K per instruction, the PTX type suffix)
FLOAT_FORMS = [
    ("f16", mm_f16, 16, ".f32.f16.f16"),
    ("bf16", mm_bf16, 16, ".f32.bf16.bf16"),
    ("tf32", mm_tf32, 8, ".f32.tf32.tf32"),
    ("e4m3", mm_e4m3, 32, ".f32.e4m3.e4m3"),
    ("e5m2", mm_e5m2, 32, ".f32.e5m2.e5m2"),
]
SHAPES = [(64, 64, 64), (128, 32, 32), (64, 128, 32), (64, 8, 32)]


@pytest.mark.parametrize("shape", SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in SHAPES])
@pytest.mark.parametrize("name,kern,kinst,types", FLOAT_FORMS, ids=[f[0] for f in FLOAT_FORMS])
def test_float_forms_match_the_interpreter(name, kern, kinst, types, shape):
    m, n, k = shape
    rng = np.random.default_rng(m + 3 * n + 7 * k + len(name))
    if name == "tf32":
        a, ea = tf32_data(rng, (m, k))
        b, eb = tf32_data(rng, (k, n))
    else:
        a, b = small_ints(rng, (m, k)), small_ints(rng, (k, n), -2, 2)
        ea, eb = a, b
        if name == "f16":
            a, b = a.astype(np.float16), b.astype(np.float16)
    c = (rng.integers(-64, 64, (m, n)) / 4.0).astype(np.float32)
    args = [a, b, c, np.zeros((m, n), np.float32), m, n, k]
    compiled, ptx = compile_checked(kern, args)
    inst_n = instruction_n(m, n, compiled.num_threads)
    assert f"wgmma.mma_async.sync.aligned.m64n{inst_n}k{kinst}{types}" in ptx
    assert "mma.sync" not in ptx
    assert ptx.count("wgmma.wait_group.sync.aligned") == 1
    r1, r2 = run_both(kern, (1,), args)
    assert_bits(r2[3], r1[3])
    np.testing.assert_array_equal(r2[3], (ea @ eb + c).astype(np.float32))


INT_PAIRS = [(np.int8, np.int8), (np.int8, np.uint8), (np.uint8, np.int8), (np.uint8, np.uint8)]


@pytest.mark.parametrize("shape", [(64, 32, 64), (128, 16, 32), (64, 256, 32)], ids=["64x32x64", "128x16x32", "64x256x32"])
@pytest.mark.parametrize("da,db", INT_PAIRS, ids=[f"{np.dtype(x).name}x{np.dtype(y).name}" for x, y in INT_PAIRS])
def test_int8_forms_wrap_like_the_interpreter(da, db, shape):
    m, n, k = shape
    rng = np.random.default_rng(m + n + k)
    a = rng.integers(np.iinfo(da).min, np.iinfo(da).max + 1, (m, k)).astype(da)
    b = rng.integers(np.iinfo(db).min, np.iinfo(db).max + 1, (k, n)).astype(db)
    # Accumulators near both ends of the int32 range: the sums wrap.
    c = np.where(rng.integers(0, 2, (m, n)) == 1, 2**31 - 1 - rng.integers(0, 1000, (m, n)),
                 -2**31 + rng.integers(0, 1000, (m, n))).astype(np.int32)
    args = [a, b, c, np.zeros((m, n), np.int32), m, n, k]
    sa, sb = ("s8" if d == np.int8 else "u8" for d in (da, db))
    compiled, ptx = compile_checked(mm_int, args)
    inst_n = instruction_n(m, n, compiled.num_threads, integer=True)
    assert f"wgmma.mma_async.sync.aligned.m64n{inst_n}k32.s32.{sa}.{sb}" in ptx
    assert "mma.sync" not in ptx and ".satfinite" not in ptx
    r1, r2 = run_both(mm_int, (1,), args)
    assert_bits(r2[3], r1[3])
    exact = a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64)
    want = ((exact + 2**31) % 2**32 - 2**31).astype(np.int32)
    assert (exact != want).any(), "the data should overflow int32"
    np.testing.assert_array_equal(r2[3], want)


def pipeline_with_warps(kern, args, warps):
    default = ct.compile(kern, args, target="sm_90a").pipeline
    assert "num-warps=0" in default
    return default.replace("num-warps=0", f"num-warps={warps}")


@pytest.mark.parametrize("shape,inst_n", [((128, 64, 32), 64), ((64, 128, 32), 64), ((256, 64, 16), 64)],
                         ids=["rows-split", "columns-split", "two-blocks-each"])
def test_two_warpgroups_split_the_tile(shape, inst_n):
    # Eight warps are two warpgroups: they split M when it has two 64-row blocks, else N.
    m, n, k = shape
    rng = np.random.default_rng(5)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    c = small_ints(rng, (m, n), -50, 50)
    args = [a, b, c, np.zeros((m, n), np.float32), m, n, k]
    pipeline = pipeline_with_warps(mm_f16, args, 8)
    compiled, ptx = compile_checked(mm_f16, args, pipeline=pipeline)
    assert compiled.num_threads == 256
    assert f"wgmma.mma_async.sync.aligned.m64n{inst_n}k16.f32.f16.f16" in ptx
    r1, r2 = run_both(mm_f16, (1,), args, pipeline=pipeline)
    assert_bits(r2[3], r1[3])
    np.testing.assert_array_equal(r2[3], a.astype(np.float32) @ b.astype(np.float32) + c)


def test_splat_accumulator_skips_shared_memory():
    m, n, k = 64, 64, 32
    rng = np.random.default_rng(11)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    args = [a, b, np.zeros((m, n), np.float32), m, n, k]
    compiled, ptx = compile_checked(mm_zero_acc, args)
    # The accumulator registers start from the literal 2.5 (0x40200000), moved in before
    # the fence; no shared memory is read before the first wgmma.
    first = ptx.index("wgmma.mma_async")
    assert "1075838976" in ptx[:first] and "ld.shared" not in ptx[:first]
    r1, r2 = run_both(mm_zero_acc, (1,), args)
    assert_bits(r2[2], r1[2])
    np.testing.assert_array_equal(r2[2], a.astype(np.float32) @ b.astype(np.float32) + 2.5)


def test_large_tiles_take_dynamic_shared_memory():
    # A 128x128 f32 accumulator staged through shared memory needs 64 KiB: more than a
    # kernel may declare statically, so the scratch buffer becomes dynamic shared memory.
    m, n, k = 128, 128, 64
    rng = np.random.default_rng(2)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    c = small_ints(rng, (m, n), -50, 50)
    args = [a, b, c, np.zeros((m, n), np.float32), m, n, k]
    compiled, ptx = compile_checked(mm_f16, args)
    assert compiled.dynamic_smem == m * n * 4
    assert re.search(r"\.extern \.shared \.align \d+ \.b8 __tileir_dsmem_mm_f16\[\]", ptx)
    assert f"wgmma.mma_async.sync.aligned.m64n{instruction_n(m, n, compiled.num_threads)}k16.f32.f16.f16" in ptx
    r1, r2 = run_both(mm_f16, (1,), args)
    assert_bits(r2[3], r1[3])
    np.testing.assert_array_equal(r2[3], a.astype(np.float32) @ b.astype(np.float32) + c)


def test_loop_carried_accumulator_over_ragged_arrays():
    m, n, k = 150, 70, 90
    rng = np.random.default_rng(4)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    args = [a, b, np.zeros((m, n), np.float32), 64, 64, 32]
    compiled, ptx = compile_checked(mm_tiled, args)
    assert f"wgmma.mma_async.sync.aligned.m64n{instruction_n(64, 64, compiled.num_threads)}k16.f32.f16.f16" in ptx
    grid = (ct.cdiv(m, 64), ct.cdiv(n, 64))
    r1, r2 = run_both(mm_tiled, grid, args)
    assert_bits(r2[2], r1[2])
    np.testing.assert_array_equal(r2[2], a.astype(np.float32) @ b.astype(np.float32))


def test_only_sm_90a_has_wgmma():
    m, n, k = 64, 64, 32
    args = [np.ones((m, k), np.float16), np.ones((k, n), np.float16), np.ones((m, n), np.float32),
            np.zeros((m, n), np.float32), m, n, k]
    rng = np.random.default_rng(23)
    data = [small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16),
            small_ints(rng, (m, n), -50, 50), np.zeros((m, n), np.float32), m, n, k]
    for target in ("sm_80", "sm_90"):
        compiled = ct.compile(mm_f16, args, target=target)
        ptx = compiled.asm["ptx"]
        assert "wgmma" not in ptx and "mma.sync.aligned.m16n8k16" in ptx, target
        # The mma.sync kernel runs (on other data of the same specialization).
        r1, r2 = emulate_and_interpret((1,), mm_f16, compiled, data, race_check=True)
        assert_bits(r2[3], r1[3])


def forced(kern, args, variant, target="sm_90a"):
    pipeline = ct.compile(kern, args, target="sm_90a").pipeline.replace("force-variant=\"\"", f"force-variant=mmaf:{variant}")
    return ct.compile(kern, args, target=target, pipeline=pipeline)


def test_forced_wgmma_names_why_it_cannot_apply():
    args = [np.ones((32, 32), np.float16), np.ones((32, 32), np.float16), np.ones((32, 32), np.float32),
            np.zeros((32, 32), np.float32), 32, 32, 32]
    with pytest.raises(ct.errors.TileIRError) as err:
        forced(mm_f16, args, "wgmma")
    assert "wgmma: M = 32 is not a multiple of 64" in str(err.value), str(err.value)
    big = [np.ones((64, 32), np.float16), np.ones((32, 64), np.float16), np.ones((64, 64), np.float32),
           np.zeros((64, 64), np.float32), 64, 64, 32]
    with pytest.raises(ct.errors.TileIRError) as err:
        forced(mm_f16, big, "wgmma", target="sm_80")
    assert "wgmma: needs sm_90a (target sm_80)" in str(err.value), str(err.value)
    # Forcing mma.sync on sm_90a still works (the forced wgmma compiles above fail: nothing
    # to run).
    compiled = forced(mm_f16, big, "mma_sync")
    assert "mma.sync.aligned.m16n8k16" in compiled.asm["ptx"]
    rng = np.random.default_rng(24)
    data = [small_ints(rng, (64, 32)).astype(np.float16), small_ints(rng, (32, 64)).astype(np.float16),
            small_ints(rng, (64, 64), -50, 50), np.zeros((64, 64), np.float32), 64, 64, 32]
    r1, r2 = emulate_and_interpret((1,), mm_f16, compiled, data, race_check=True)
    assert_bits(r2[3], r1[3])


@ct.kernel
def mm_tiled_acc_read_in_loop(A, B, Z, S, tm: C[int], tn: C[int], tk: C[int]):
    # The loop also reads the accumulator: it stays in its layout every iteration.
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    s = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
        s = s + acc
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)
    ct.store(S, index=(ct.bid(0), ct.bid(1)), tile=s)


def accumulator_loads_before_first_wgmma_in_loop(llvm):
    """f32 loads from shared memory between the K loop's body label and its first wgmma
    (f16 operands: only the accumulator is read back as f32)."""
    body = llvm.index("\nforb.")
    first = llvm.index("wgmma.mma_async", body)
    return llvm[body:first].count("load float, ptr addrspace(3)")


@pytest.mark.parametrize("tiles", [(64, 64, 32), (128, 128, 64), (128, 64, 16)], ids=["64x64x32", "128x128x64", "128x64x16"])
def test_the_k_loop_carries_the_accumulator_in_fragments(tiles):
    m, n, k = 200, 136, 100
    rng = np.random.default_rng(8)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    args = [a, b, np.zeros((m, n), np.float32), *tiles]
    compiled, _ = compile_checked(mm_tiled, args)
    assert accumulator_loads_before_first_wgmma_in_loop(compiled.asm["llvm"]) == 0
    grid = (ct.cdiv(m, tiles[0]), ct.cdiv(n, tiles[1]))
    r1, r2 = run_both(mm_tiled, grid, args)
    assert_bits(r2[2], r1[2])
    np.testing.assert_array_equal(r2[2], a.astype(np.float32) @ b.astype(np.float32))


def test_an_accumulator_the_loop_also_reads_stays_in_its_layout():
    m, n, k = 64, 64, 96
    rng = np.random.default_rng(9)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    args = [a, b, np.zeros((m, n), np.float32), np.zeros((m, n), np.float32), 64, 64, 32]
    compiled, _ = compile_checked(mm_tiled_acc_read_in_loop, args)
    assert accumulator_loads_before_first_wgmma_in_loop(compiled.asm["llvm"]) > 0
    r1, r2 = run_both(mm_tiled_acc_read_in_loop, (1, 1), args)
    assert_bits(r2[2], r1[2])
    assert_bits(r2[3], r1[3])


@ct.kernel
def mm_row_scaled(A, B, S, Z, tm: C[int], tn: C[int], tk: C[int]):
    # Flash attention's rescale: the carried accumulator times a per-row factor each step.
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        s = ct.load(S, index=(ct.bid(0), k), shape=(tm, 1), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc * s)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def mm_row_scaled_factor_first(A, B, S, Z, tm: C[int], tn: C[int], tk: C[int]):
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        s = ct.load(S, index=(ct.bid(0), k), shape=(tm, 1), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, s * acc)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def mm_tile_scaled(A, B, S, Z, tm: C[int], tn: C[int], tk: C[int]):
    # A full-tile factor is not a row scale: the accumulator leaves its fragments each step.
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        s = ct.load(S, index=(ct.bid(0), k), shape=(tm, 1), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc * ct.broadcast_to(s, (tm, tn)) + 0.0)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


@pytest.mark.parametrize("kern", [mm_row_scaled, mm_row_scaled_factor_first], ids=["acc_first", "factor_first"])
@pytest.mark.parametrize("tiles", [(64, 64, 32), (128, 64, 16), (128, 128, 32)], ids=["64x64x32", "128x64x16", "128x128x32"])
def test_a_row_scaled_accumulator_stays_in_fragments(kern, tiles):
    m, n, k = 200, 136, 100
    tm, tn, tk = tiles
    steps = ct.cdiv(k, tk)
    rng = np.random.default_rng(10)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    factors = rng.choice(np.array([0.5, 1.0, 2.0, -1.0], np.float32), (m, steps))
    args = [a, b, factors, np.zeros((m, n), np.float32), *tiles]
    compiled, _ = compile_checked(kern, args)
    # Only the factors of the thread's fragment rows come from shared memory before the
    # first wgmma (two rows per 64-row block), never the accumulator.
    loads = accumulator_loads_before_first_wgmma_in_loop(compiled.asm["llvm"])
    assert 0 < loads <= 2 * tm // 64, loads
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn))
    r1, r2 = run_both(kern, grid, args, race_check=True)
    assert_bits(r2[3], r1[3])
    want = np.zeros((m, n), np.float32)
    for step in range(steps):
        ks = slice(step * tk, (step + 1) * tk)
        want = want * factors[:, step:step + 1] + a[:, ks].astype(np.float32) @ b[ks].astype(np.float32)
    np.testing.assert_array_equal(r1[3], want)


@ct.kernel
def mm_halved_each_step(A, B, Z, tm: C[int], tn: C[int], tk: C[int]):
    # A factor that reads no memory: A and B still come by TMA.
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc * ct.full((tm, 1), 0.5, dtype=ct.float32))
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


@pytest.mark.parametrize("tiles", [(64, 64, 32), (128, 128, 32)], ids=["64x64x32", "128x128x32"])
def test_a_row_scaled_accumulator_with_tma_operands(tiles):
    m, n, k = 200, 136, 160
    rng = np.random.default_rng(12)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    args = [a, b, np.zeros((m, n), np.float32), *tiles]
    compiled, ptx = compile_checked(mm_halved_each_step, args)
    assert "cp.async.bulk.tensor" in ptx
    assert 0 < accumulator_loads_before_first_wgmma_in_loop(compiled.asm["llvm"]) <= 2 * tiles[0] // 64
    r1, r2 = run_both(mm_halved_each_step, (ct.cdiv(m, tiles[0]), ct.cdiv(n, tiles[1])), args, race_check=True)
    assert_bits(r2[2], r1[2])


def test_a_tile_scaled_accumulator_leaves_its_fragments():
    m, n, k = 64, 64, 96
    rng = np.random.default_rng(11)
    a, b = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    args = [a, b, np.ones((m, 3), np.float32), np.zeros((m, n), np.float32), 64, 64, 32]
    compiled, _ = compile_checked(mm_tile_scaled, args)
    assert accumulator_loads_before_first_wgmma_in_loop(compiled.asm["llvm"]) > 2
    r1, r2 = run_both(mm_tile_scaled, (1, 1), args)
    assert_bits(r2[3], r1[3])


# (tiles, TMA copies per CTA per K step, cp.async for B): A is copied by TMA in slabs of
# the widest swizzle its K bytes allow; B by TMA in slabs of each instruction's N bytes,
# unless an instruction's 8 columns (16 bytes) allow no swizzle: then cp.async.
DIRECT = [((64, 64, 32), 2, False), ((128, 128, 64), 3, False), ((64, 128, 16), 3, False), ((64, 8, 32), 1, True)]


@pytest.mark.parametrize("tiles,tma_boxes,cp_async", DIRECT, ids=[f"{m}x{n}x{k}" for (m, n, k), _, _ in DIRECT])
def test_aligned_operands_are_copied_straight_into_shared_memory(tiles, tma_boxes, cp_async):
    # Rows 16-byte aligned (strides of 128 and 144 halves) but ragged extents: the views end
    # inside a 16-byte chunk (100 columns of A) and inside a tile (200 rows, 136 columns),
    # so the copies zero-fill partial boxes / chunks and whole ones past the end.
    rng = np.random.default_rng(12)
    a_full = small_ints(rng, (200, 128)).astype(np.float16)
    b_full = small_ints(rng, (100, 144)).astype(np.float16)
    a, b = a_full[:, :100], b_full[:, :136]
    args = [a, b, np.zeros((200, 136), np.float32), *tiles]
    compiled, ptx = compile_checked(mm_tiled, args)
    # With both operands by TMA the K loop runs on a ring of four stages (all fit), fed by
    # a producer warpgroup (its one loop issues every stage's copies), waited for by phase
    # parity.
    pipelined = not cp_async
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster") == tma_boxes
    assert warp_specialized(compiled) == pipelined
    assert ("mbarrier.try_wait.parity" in ptx) == pipelined
    assert ("cp.async.cg.shared.global" in ptx) == cp_async
    assert len(compiled.tensor_maps) == (1 if cp_async else 2)
    assert ".param .align 64 .b8 mm_tiled_param_" in ptx and "mbarrier.try_wait" in ptx
    grid = (ct.cdiv(200, tiles[0]), ct.cdiv(136, tiles[1]))
    r1, r2 = run_both(mm_tiled, grid, args)
    assert_bits(r2[2], r1[2])
    np.testing.assert_array_equal(r2[2], a.astype(np.float32) @ b.astype(np.float32))


def test_unaligned_rows_go_through_registers():
    # Row strides of 100 and 68 halves (200 and 136 bytes) are no multiples of 16 bytes.
    rng = np.random.default_rng(13)
    a, b = small_ints(rng, (64, 100)).astype(np.float16), small_ints(rng, (100, 68)).astype(np.float16)
    args = [a, b, np.zeros((64, 68), np.float32), 64, 64, 32]
    compiled, ptx = compile_checked(mm_tiled, args)
    assert "wgmma.mma_async" in ptx and "cp.async" not in ptx
    r1, r2 = emulate_and_interpret((1, 2), mm_tiled, compiled, args, race_check=True)
    assert_bits(r2[2], r1[2])
    np.testing.assert_array_equal(r2[2], a.astype(np.float32) @ b.astype(np.float32))


@ct.kernel
def two_accumulators(A, B, A2, B2, Z, Z2, tm: C[int], tn: C[int], tk: C[int]):
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    acc2 = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
        a2 = ct.load(A2, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b2 = ct.load(B2, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc2 = ct.mma(a2, b2, acc2)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)
    ct.store(Z2, index=(ct.bid(0), ct.bid(1)), tile=acc2)


@ct.kernel
def accumulator_and_transposes(A, B, X, Z, S, tm: C[int], tn: C[int], tk: C[int], WITH_SUM: C[int]):
    # Beside the mma, the body moves a tile through shared memory (two transposes) and, with
    # WITH_SUM, reduces it across warps too.
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    s = ct.full((tm, tk), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
        x = ct.load(X, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        if WITH_SUM:
            s = s + ct.transpose(ct.transpose(x)) + ct.sum(x, axis=0, keepdims=True)
        else:
            s = s + ct.transpose(ct.transpose(x))
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)
    ct.store(S, index=(ct.bid(0), 0), tile=s)


def test_double_buffer_stages_live_apart_from_the_loop_bodys_other_shared_memory():
    # The next stage's copies fly while the rest of the body runs: a reduction's shared
    # partials (found on an H100: 2048 of 8192 accumulator elements wrong when the stages
    # shared the scratch buffer) and a second mma's staging must not land on them.
    rng = np.random.default_rng(21)
    m, n, k = 128, 128, 256
    a, b, x = (small_ints(rng, s).astype(np.float16) for s in [(m, k), (k, n), (m, k)])
    # Transposes and a reduction through shared memory, double-buffered, stages apart.
    for with_sum in [0, 1]:
        kern = accumulator_and_transposes
        args = [a, b, x, np.zeros((m, n), np.float32), np.zeros((m, 64), np.float32), 64, 64, 64, with_sum]
        compiled, ptx = compile_checked(kern, args)
        assert "mbarrier.try_wait.parity" in ptx
        r1, r2 = run_both(kern, (2, 2), args)
        assert_bits(r2[3], r1[3])
        assert_bits(r2[4], r1[4])
    a2, b2 = small_ints(rng, (m, k)).astype(np.float16), small_ints(rng, (k, n)).astype(np.float16)
    args = [a, b, a2, b2, np.zeros((m, n), np.float32), np.zeros((m, n), np.float32), 128, 128, 64]
    compile_checked(two_accumulators, args)
    r1, r2 = run_both(two_accumulators, (1, 1), args)
    assert_bits(r2[4], r1[4])
    assert_bits(r2[5], r1[5])


@pytest.mark.parametrize("tiles", [(64, 128, 64), (128, 64, 64), (64, 64, 128)], ids=["64x128x64", "128x64x64", "64x64x128"])
def test_two_stages_of_48_kib_leave_room_for_the_mbarriers(tiles):
    # Two 24 KiB stages are exactly 48 KiB: with the mbarriers and the 1024-byte alignment the
    # buffer must become dynamic (ptxas rejected 0xc400 bytes of static shared memory).
    rng = np.random.default_rng(22)
    a, b = small_ints(rng, (256, 512)).astype(np.float16), small_ints(rng, (512, 256)).astype(np.float16)
    compiled, ptx = compile_checked(mm_tiled, [a, b, np.zeros((256, 256), np.float32), *tiles])
    assert "mbarrier.try_wait.parity" in ptx
    # Run on one tile of the same specialization (16-element multiples throughout), three K
    # steps through the two stages so that the ring wraps.
    tm, tn, tk = tiles
    small = [a[:tm, :3 * tk].copy(), b[:3 * tk, :tn].copy(), np.zeros((tm, tn), np.float32), *tiles]
    r1, r2 = emulate_and_interpret((1, 1), mm_tiled, compiled, small, race_check=True)
    assert_bits(r2[2], r1[2])


def ring_operands(rng, k):
    """A (100 x k) and B (k x 136) f16 views of arrays whose row strides are multiples of
    16 elements (cuTile's divisibility fact, which TMA's 16-byte stride rule needs)."""
    a_full = small_ints(rng, (100, 176)).astype(np.float16)
    b_full = small_ints(rng, (176, 144)).astype(np.float16)
    return a_full[:, :k], b_full[:k, :136]


# (num_stages hint, the ring's stages for 64x64x32 tiles): by default as many as fit, up
# to four; 1 turns the ring off (each iteration waits for its own copies).
RING_DEPTHS = [(None, 4), (1, 1), (2, 2), (3, 3), (5, 5)]


@pytest.mark.parametrize("specialized", [True, False], ids=["AWS", "AUS"])
@pytest.mark.parametrize("hint,stages", RING_DEPTHS, ids=[f"hint{h}" for h, _ in RING_DEPTHS])
def test_the_tma_ring_is_num_stages_deep_and_race_free(hint, stages, specialized):
    kern = mm_tiled.replace_hints(warp_specialize=specialized)
    if hint is not None:
        kern = kern.replace_hints(num_stages=hint)
    rng = np.random.default_rng(30)
    # K ragged (the last tile zero-filled); trip counts below, at and past the ring's depth.
    for trips in [1, 2, 3, 6]:
        a, b = ring_operands(rng, 32 * trips - 8)
        args = [a, b, np.zeros((100, 136), np.float32), 64, 64, 32]
        compiled, ptx = compile_checked(kern, args)
        # Two boxes per stage (A, B). AWS: the producer warpgroup's loop issues every stage;
        # AUS: the loop's refill issues one stage, the prologue the first S - 1.
        ring_aws = specialized and stages > 1
        assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster") == (2 if ring_aws else 2 * stages)
        assert compiled.num_threads == (256 if ring_aws else 128)
        assert warp_specialized(compiled) == ring_aws
        assert "setmaxnreg" not in ptx, "one consumer warpgroup: no register reallocation"
        if stages > 1:
            # The mma of iteration i stays in flight while iteration i + 1 waits for its
            # stage: wait_group 1 in the loop, 0 after it.
            assert re.search(r"wgmma\.wait_group\.sync\.aligned\s+1;", ptx)
            assert f"_stages[{8 * max(stages, 4 if hint is None else hint)}]" in ptx
            # Warps release stages on empty mbarriers: no CTA barrier in the K loop's body.
            llvm = compiled.asm["llvm"]
            body = llvm[llvm.index("\nforb."):llvm.index("\nforl.")]
            assert "barrier.cta.sync" not in body and "mbarrier.arrive.shared.b64" in body
        else:
            assert "mbarrier.try_wait.parity" not in ptx
            assert not re.search(r"wgmma\.wait_group\.sync\.aligned\s+1;", ptx)
        # The emulator's race check holds the wgmma's shared-memory reads in flight until
        # their wait_group: a refill of a stage an mma may still read is an error.
        r1, r2 = run_both(kern, (2, 3), args, race_check=True)
        assert_bits(r2[2], r1[2])
        np.testing.assert_array_equal(r2[2], a.astype(np.float32) @ b.astype(np.float32))


def test_the_tma_ring_settles_on_the_stages_that_fit():
    # 128x128x64 f16: 32 KiB stages. Eight asked, seven fit in sm_90a's 227 KiB (with the
    # 2 KiB kept for mbarriers and alignment); the accumulator's 64 KiB trip through shared
    # memory after the loop reuses the stages' bytes.
    rng = np.random.default_rng(31)
    a = small_ints(rng, (128, 64 * 7)).astype(np.float16)
    b = small_ints(rng, (64 * 7, 128)).astype(np.float16)
    args = [a, b, np.zeros((128, 128), np.float32), 128, 128, 64]
    compiled, ptx = compile_checked(mm_tiled.replace_hints(num_stages=8, warp_specialize=False), args)
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster") == 3 * 7
    assert "_stages[64]" in ptx
    assert compiled.dynamic_smem == 7 * 32 * 1024
    # This unspecialized ring runs too (below: the default, warp-specialized one).
    r1, r2 = emulate_and_interpret((1, 1), mm_tiled, compiled, args, race_check=True)
    assert_bits(r2[2], r1[2])
    r1, r2 = run_both(mm_tiled.replace_hints(num_stages=8), (1, 1), args, race_check=True)
    assert_bits(r2[2], r1[2])


@ct.kernel
def mm_tiled_loaded_acc(A, B, Cin, Z, tm: C[int], tn: C[int], tk: C[int]):
    # The accumulator starts from memory: a load before the K loop.
    acc = ct.load(Cin, index=(ct.bid(0), ct.bid(1)), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


def warp_specialized(compiled):
    """Whether the kernel split off a producer warpgroup (its consumers' code starts at a
    `consumer` label of the LLVM function)."""
    return re.search(r"\nconsumer\.\d+:", compiled.asm["llvm"]) is not None


def setmaxnreg_counts(ptx):
    """(producer's decrease, consumers' increase) of a reallocating split, or None."""
    dec = re.findall(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+(\d+);", ptx)
    inc = re.findall(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+(\d+);", ptx)
    assert len(dec) == len(inc) <= 1, (dec, inc)
    return (int(dec[0]), int(inc[0])) if dec else None


def assert_no_cta_barrier_after_the_split(compiled):
    """The consumers' code (emitted after the producer's, from the `consumer` label on)
    uses no CTA-wide barrier: the producer warpgroup has returned."""
    llvm = compiled.asm["llvm"]
    split = re.search(r"\nconsumer\.\d+:", llvm)
    assert split, "no producer split"
    end = llvm.index("\n}\n", split.start())
    assert "barrier.cta.sync.aligned.all" not in llvm[split.start():end]


@ct.kernel
def persistent_loaded_acc(A, B, Cin, Z, tm: C[int], tn: C[int], tk: C[int]):
    # A persistent tile loop whose accumulator starts from memory in every tile.
    tiles_n = ct.cdiv(Z.shape[1], tn)
    for t in range(ct.bid(0), ct.cdiv(Z.shape[0], tm) * tiles_n, ct.num_blocks(0)):
        bm = t // tiles_n
        bn = t % tiles_n
        acc = ct.load(Cin, (bm, bn), (tm, tn), padding_mode=ct.PaddingMode.ZERO)
        for k in range(ct.num_tiles(A, 1, (tm, tk))):
            a = ct.load(A, (bm, k), (tm, tk), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(B, (k, bn), (tk, tn), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b, acc)
        ct.store(Z, (bm, bn), acc)


@ct.kernel
def persistent_in_place(A, B, tm: C[int], tn: C[int], tk: C[int]):
    # Each tile's result overwrites part of A, which later tiles of the loop read.
    tiles_n = ct.cdiv(B.shape[1], tn)
    for t in range(ct.bid(0), ct.cdiv(A.shape[0], tm) * tiles_n, ct.num_blocks(0)):
        bm = t // tiles_n
        bn = t % tiles_n
        acc = ct.zeros((tm, tn), ct.float32)
        for k in range(ct.num_tiles(A, 1, (tm, tk))):
            a = ct.load(A, (bm, k), (tm, tk), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(B, (k, bn), (tk, tn), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b, acc)
        ct.store(A, (bm, bn), acc.astype(A.dtype))


def test_persistent_loops_that_read_memory_first_or_write_their_operands_keep_one_agent():
    # A load before the K loop in the tile loop would run on the producer too; a store to
    # A while the producer copies later tiles' A would be read stale. Both stay AUS (the
    # ring drained, fenced and re-initialized per tile) and match the interpreter.
    rng = np.random.default_rng(40)
    a = small_ints(rng, (128, 128)).astype(np.float16)
    b = small_ints(rng, (128, 128)).astype(np.float16)
    cin = small_ints(rng, (128, 128)).astype(np.float32)
    # (In place, CTAs would race each other: one CTA runs all the tiles, in order.)
    cases = [(persistent_loaded_acc, [a, b, cin, np.zeros((128, 128), np.float32), 64, 64, 32], 3, [(1,), (3,)]),
             (persistent_in_place, [a.copy(), b, 64, 64, 64], 0, [(1,)])]
    for kern, args, out, grids in cases:
        compiled, ptx = compile_checked(kern, args)
        assert not warp_specialized(compiled) and compiled.num_threads == 128
        assert "mbarrier.try_wait.parity" in ptx, "still a ring"
        for grid in grids:
            r1, r2 = run_both(kern, grid, args, race_check=True)
            assert_bits(r2[out], r1[out])


# (tiles, consumer warps, the setmaxnreg counts (producer's, consumers') or None). One
# consumer warpgroup (32 accumulator registers) would let several CTAs share an SM: no
# reallocation, which would pin the kernel at the whole register file's share. Two with
# 64 accumulator registers each hold the SM to one CTA anyway: the producer keeps 40 and
# they share the rest (232 each, over the 168 a 384-thread launch starts at).
SPECIALIZED = [((64, 64, 32), 4, None), ((128, 128, 64), 8, (40, 232))]


@pytest.mark.parametrize("tiles,warps,counts", SPECIALIZED, ids=["64x64x32", "128x128x64"])
def test_a_producer_warpgroup_feeds_the_ring(tiles, warps, counts):
    # AWS: a warpgroup past the kernel's warps (giving back registers where that pays)
    # runs one loop of copies (waiting on the empty mbarriers for stages to come back); the kernel's warps
    # only wait for stages, compute and release them, and after the split their barriers
    # are named barrier 1 over their own threads. Ragged M, N, K; trip counts below, at
    # and past the ring's depth; race-checked.
    rng = np.random.default_rng(36)
    tm, tn, tk = tiles
    for trips in [1, 4, 7]:
        k = tk * trips - 8
        a = small_ints(rng, (200, 256)).astype(np.float16)[:, :k]
        b = small_ints(rng, (256, 144)).astype(np.float16)[:k, :136]
        args = [a, b, np.zeros((200, 144), np.float32)[:, :136], *tiles]
        compiled, ptx = compile_checked(mm_tiled, args)
        assert compiled.num_threads == 32 * warps + 128 and warp_specialized(compiled)
        assert setmaxnreg_counts(ptx) == counts
        assert re.search(rf"bar\.sync\s+1, {32 * warps};", ptx), "consumer-only barriers after the split"
        assert_no_cta_barrier_after_the_split(compiled)
        # The producer's loop is the only place that issues operand copies.
        assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster") == (3 if tn == 128 else 2)
        grid = (ct.cdiv(200, tm), ct.cdiv(136, tn))
        r1, r2 = run_both(mm_tiled, grid, args, race_check=True)
        assert_bits(r2[2], r1[2])
        np.testing.assert_array_equal(r2[2], a.astype(np.float32) @ b.astype(np.float32))


def test_an_occupancy_cap_leaves_the_consumers_enough_registers_or_no_split():
    # 64x64x32 tiles at occupancy=3: with the producer the CTA has 256 threads, capped at
    # 85 -> 80 registers each (.maxnreg), enough for one consumer warpgroup's 32
    # accumulator registers: split, no reallocation. 128x128x64 tiles at occupancy=2 would
    # cap two consumer warpgroups at 80, too few for their 64 accumulator registers (ptxas
    # asks for 90): that ring stays unspecialized (AUS, 256 threads at 128).
    rng = np.random.default_rng(39)
    a = small_ints(rng, (128, 128)).astype(np.float16)
    b = small_ints(rng, (128, 128)).astype(np.float16)
    for tiles, occupancy, threads, maxnreg, split in [((64, 64, 32), 3, 256, 80, True), ((128, 128, 64), 2, 256, 128, False)]:
        args = [a, b, np.zeros((128, 128), np.float32), *tiles]
        kern = mm_tiled.replace_hints(occupancy=occupancy)
        compiled, ptx = compile_checked(kern, args)
        assert compiled.num_threads == threads and f".maxnreg {maxnreg}" in ptx
        assert warp_specialized(compiled) == split and "setmaxnreg" not in ptx
        r1, r2 = run_both(kern, (128 // tiles[0], 128 // tiles[1]), args, race_check=True)
        assert_bits(r2[2], r1[2])


def test_a_persistent_ring_runs_on_across_tiles():
    # The persistent_matmul sample: the producer warpgroup splits off before the tile loop
    # and runs its own copy of it (tile index arithmetic, then the K loop's copies); the
    # ring's stages and phases count K iterations over all of a CTA's tiles, so it is never
    # drained or re-initialized between tiles, and the consumers release each tile's last
    # stage after its loop. Ragged M, N, K; trip counts below, at and past the depth; CTAs
    # with several tiles, one, and none.
    from test_frontend_samples import SAMPLES

    kern, _ = SAMPLES["persistent_matmul"]
    rng = np.random.default_rng(38)
    m, n = 200, 136
    for tiles, trips in [((64, 64, 32), 1), ((64, 64, 32), 4), ((64, 64, 32), 7), ((128, 128, 64), 3)]:
        k = tiles[2] * trips - 8
        a = small_ints(rng, (m, 256)).astype(np.float16)[:, :k]
        b = small_ints(rng, (256, 144)).astype(np.float16)[:k, :n]
        args = [a, b, np.zeros((m, 144), np.float16)[:, :n], *tiles]
        compiled, ptx = compile_checked(kern, args)
        assert warp_specialized(compiled)
        # Reallocation where two consumer warpgroups hold 64 accumulator registers each.
        assert setmaxnreg_counts(ptx) == ((40, 232) if tiles[0] == 128 else None)
        assert "mbarrier.inval" not in ptx, "the ring is initialized once, in the entry block"
        assert_no_cta_barrier_after_the_split(compiled)
        ntiles = ct.cdiv(m, tiles[0]) * ct.cdiv(n, tiles[1])
        for grid in [(1,), (3,), (ntiles + 2,)]:
            r1, r2 = run_both(kern, grid, args, race_check=True)
            assert_bits(r2[2], r1[2])
            np.testing.assert_array_equal(r2[2], (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))


@ct.kernel
def mm_index_in_loop(A, B, Z, tm: C[int], tn: C[int], tk: C[int]):
    # The tile's row index computed inside the K loop (the same in every iteration).
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        row = (ct.bid(0) * 3) // 3
        a = ct.load(A, index=(row, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def persistent_index_in_loop(A, B, Z, tm: C[int], tn: C[int], tk: C[int]):
    # A persistent tile loop whose K loop computes the tile's coordinates itself.
    tiles_n = ct.cdiv(Z.shape[1], tn)
    for t in range(ct.bid(0), ct.cdiv(Z.shape[0], tm) * tiles_n, ct.num_blocks(0)):
        acc = ct.zeros((tm, tn), ct.float32)
        for k in range(ct.num_tiles(A, 1, (tm, tk))):
            a = ct.load(A, (t // tiles_n, k), (tm, tk), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(B, (k, t % tiles_n), (tk, tn), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b, acc)
        ct.store(Z, (t // tiles_n, t % tiles_n), acc)


@pytest.mark.parametrize("specialized", [True, False], ids=["AWS", "AUS"])
def test_tile_coordinates_computed_inside_the_k_loop_still_feed_the_ring(specialized):
    # Scalar work inside the K loop that only depends on values from outside it is
    # computed again where the copies are issued (before the loop, or in the producer).
    rng = np.random.default_rng(41)
    a = small_ints(rng, (200, 256)).astype(np.float16)[:, :150]
    b = small_ints(rng, (256, 144)).astype(np.float16)[:150, :136]
    want = a.astype(np.float32) @ b.astype(np.float32)
    for kern, grids in [(mm_index_in_loop, [(4, 3)]), (persistent_index_in_loop, [(1,), (5,)])]:
        kern = kern.replace_hints(warp_specialize=specialized)
        args = [a, b, np.zeros((200, 144), np.float32)[:, :136], 64, 64, 32]
        compiled, ptx = compile_checked(kern, args)
        assert "mbarrier.try_wait.parity" in ptx and "ld.global" not in ptx, "operands by the TMA ring"
        assert warp_specialized(compiled) == specialized
        for grid in grids:
            r1, r2 = run_both(kern, grid, args, race_check=True)
            assert_bits(r2[2], r1[2])
            np.testing.assert_array_equal(r2[2], want)


def test_memory_work_before_the_loop_keeps_one_agent():
    # The producer warpgroup would run the code before the loop too: a load there (the
    # accumulator's initial tile) keeps the ring unspecialized (AUS), thread 0 issuing.
    rng = np.random.default_rng(37)
    a, b = ring_operands(rng, 96)
    cin = small_ints(rng, (100, 144)).astype(np.float32)[:, :136]
    args = [a, b, cin, np.zeros((100, 144), np.float32)[:, :136], 64, 64, 32]
    compiled, ptx = compile_checked(mm_tiled_loaded_acc, args)
    assert compiled.num_threads == 128 and not warp_specialized(compiled)
    assert "mbarrier.try_wait.parity" in ptx
    r1, r2 = run_both(mm_tiled_loaded_acc, (2, 3), args, race_check=True)
    assert_bits(r2[3], r1[3])


def test_warp_specialize_hint_is_a_bool():
    with pytest.raises(TypeError, match="must be a bool"):
        mm_tiled.replace_hints(warp_specialize=1)


def test_batched_matmul_copies_3d_boxes_through_the_tma_ring():
    # The batch_matmul sample: ct.load of a (1, tm, tk) tile, reshaped to (tm, tk) for the
    # mma. The reshape only drops the unit batch dimension, so the loads stay in the loop
    # (materialize-async looks through it) and the backend copies (1, rows, cols) boxes of
    # a rank-3 tensor map. Ragged M, N, K (views of wider arrays, rows 16-element aligned).
    from frontend_samples import batch_matmul

    rng = np.random.default_rng(32)
    nb, m, n, k = 3, 100, 136, 150
    a = small_ints(rng, (nb, m, 160)).astype(np.float16)[:, :, :k]
    b = small_ints(rng, (nb, k, 144)).astype(np.float16)[:, :, :n]
    for tiles in [(64, 64, 32), (128, 64, 64)]:
        args = [a, b, np.zeros((nb, m, 144), np.float16)[:, :, :n], *tiles]
        compiled, ptx = compile_checked(batch_matmul, args)
        assert "cp.async.bulk.tensor.3d" in ptx and "cp.async.bulk.tensor.2d" not in ptx
        assert "mbarrier.try_wait.parity" in ptx and "wgmma.mma_async" in ptx
        # The f16 result (136 of 144 columns: 16-element aligned rows) leaves by TMA too, in
        # (1, rows, 64) boxes through the reshape that adds the batch dimension.
        assert ptx.count("cp.async.bulk.tensor.3d.global.shared::cta") == tiles[1] * 2 // 128
        assert "st.global" not in ptx
        # A in K slabs of the widest swizzle (64 or 128 bytes), B in 64-column (128-byte) slabs.
        assert [t["box"] for t in compiled.tensor_maps] == [[1, tiles[0], tiles[2]], [1, tiles[2], 64], [1, tiles[0], 64]]
        grid = (ct.cdiv(m, tiles[0]), ct.cdiv(n, tiles[1]), nb)
        r1, r2 = run_both(batch_matmul, grid, args, race_check=True)
        assert_bits(r2[2], r1[2])
        want = np.einsum("bmk,bkn->bmn", a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
        np.testing.assert_array_equal(r2[2], want)


@pytest.mark.parametrize("tiles", [(64, 64, 32), (128, 128, 64), (64, 128, 16)], ids=["64x64x32", "128x128x64", "64x128x16"])
def test_the_accumulator_is_stored_by_tma_from_its_fragments(tiles):
    # The K loop's result goes straight to its store: each thread writes its fragments into
    # a row-major image (128-byte column slabs) and one thread stores the slabs by TMA,
    # which clips the ragged edges (200 rows, 136 of 144 columns). No trip of the
    # accumulator through shared memory into its layout, no global stores from registers.
    rng = np.random.default_rng(33)
    a = small_ints(rng, (200, 176)).astype(np.float16)[:, :150]
    b = small_ints(rng, (150, 144)).astype(np.float16)[:, :136]
    args = [a, b, np.zeros((200, 144), np.float32)[:, :136], *tiles]
    compiled, ptx = compile_checked(mm_tiled, args)
    slabs = tiles[1] * 4 // 128
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == slabs
    assert "cp.async.bulk.wait_group.read 0" in ptx
    assert "st.global" not in ptx
    assert compiled.tensor_maps[-1]["box"] == [tiles[0], 32] and compiled.tensor_maps[-1]["swizzle"] == 0
    grid = (ct.cdiv(200, tiles[0]), ct.cdiv(136, tiles[1]))
    r1, r2 = run_both(mm_tiled, grid, args, race_check=True)
    assert_bits(r2[2], r1[2])
    np.testing.assert_array_equal(r2[2], a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.parametrize("sample", ["matmul_f16", "persistent_matmul"])
def test_the_samples_convert_fragments_and_store_them_by_tma(sample):
    # astype(f16) runs on the fragments; the persistent loop stores every tile it visits.
    from test_frontend_samples import SAMPLES

    kern, _ = SAMPLES[sample]
    rng = np.random.default_rng(34)
    m, n, kk = 192, 256, 96
    a, b = rng.integers(-2, 3, (m, kk)).astype(np.float16), rng.integers(-2, 3, (kk, n)).astype(np.float16)
    for tiles in [(64, 64, 32), (128, 128, 32)]:
        args = [a, b, np.zeros((m, n), np.float16), *tiles]
        compiled, ptx = compile_checked(kern, args)
        assert ptx.count("global.shared::cta.tile.bulk_group") == tiles[1] * 2 // 128
        # Inside the persistent loop the next tile's loads follow: the copies must complete
        # (wait_group 0); at the kernel's end they need only have read the image (.read).
        persistent = sample == "persistent_matmul"
        # Both rings get a producer warpgroup; the persistent one runs its own copy of the
        # tile loop, so the ring (never drained between tiles) is one loop of copies in it.
        assert warp_specialized(compiled)
        assert ("cp.async.bulk.wait_group 0;" in ptx) == persistent
        assert ("cp.async.bulk.wait_group.read 0;" in ptx) == (not persistent)
        grid = (3,) if persistent else (ct.cdiv(m, tiles[0]) * ct.cdiv(n, tiles[1]),)
        ct.emulate(grid, compiled, args, race_check=True)
        np.testing.assert_array_equal(args[2], (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))


@ct.kernel
def mm_views(A, BT, Z, tm: C[int], tn: C[int], tk: C[int], DT: C[ct.DType], B_KMAJOR: C[int]):
    # Operands read through bit-identical views (DT: the logical type) and, with B_KMAJOR,
    # B from its transpose (N x K row-major) through order=(1, 0).
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.bitcast(ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO), DT)
        if B_KMAJOR:
            b = ct.load(BT, index=(k, ct.bid(1)), shape=(tk, tn), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
        else:
            b = ct.load(BT, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, ct.bitcast(b, DT), acc)
    ct.store(Z, index=(ct.bid(0), ct.bid(1)), tile=acc)


# e4m3 bit patterns of the integers -3..3 (bias 7, three mantissa bits).
E4M3 = {0: 0x00, 1: 0x38, 2: 0x40, 3: 0x44}


def e4m3_bits(x):
    return np.vectorize(lambda v: E4M3[abs(int(v))] | (0x80 if v < 0 else 0))(x).astype(np.uint8)


# fp8 wgmma reads B K-major only: a row-major fp8 B is staged through registers instead.
VIEW_CASES = [("f16", 0), ("f16", 1), ("e4m3", 1)]


@pytest.mark.parametrize("dtype,b_kmajor", VIEW_CASES, ids=["f16-b_row_major", "f16-b_transposed", "e4m3-b_transposed"])
def test_views_and_transposed_b_go_straight_to_shared_memory_by_tma(dtype, b_kmajor):
    # fp8 through uint8 views (NumPy has no fp8 here; torch's fp8 went this way on an H100):
    # the same-width bitcast is no copy, so the loads stay direct. A transposed B (a view of
    # an N x K row-major array) becomes a K-major image, copied by TMA in K slabs like A:
    # the only B image fp8 can read, and for f16 one wgmma reads without its transpose bit.
    # Ragged M, N, K, race-checked on the ring.
    rng = np.random.default_rng(35)
    m, n, k = 200, 136, 150
    av, bv = small_ints(rng, (m, k)), small_ints(rng, (k, n))
    if dtype == "f16":
        bits, dt, ek = (lambda x: x.astype(np.float16).view(np.int16)), ct.float16, 64
    else:
        bits, dt, ek = e4m3_bits, ct.float8_e4m3fn, 128
    a = np.zeros((m, 176), bits(av).dtype)
    a[:, :k] = bits(av)
    if b_kmajor:
        b = np.zeros((n, 176), a.dtype)
        b[:, :k] = bits(bv.T)
        b = b[:, :k]
    else:
        b = np.zeros((k, 144), a.dtype)
        b[:, :n] = bits(bv)
        b = b[:, :n]
    for tiles in [(64, 64, ek), (128, 128, ek)]:
        args = [a[:, :k], b, np.zeros((m, 144), np.float32)[:, :n], *tiles, dt, b_kmajor]
        compiled, ptx = compile_checked(mm_views, args)
        assert "mbarrier.try_wait.parity" in ptx, "both operands by TMA: the ring"
        assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster") >= 2 and "ld.global" not in ptx
        form = re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.f32\.(\w+)\.\w+ [^;]*;", ptx).group(0)
        if dtype == "f16":
            # The transpose-B immediate: 0 for the K-major image, 1 for the MN-major one.
            assert form.rstrip(";").endswith(f"0, {1 - b_kmajor}"), form
        grid = (ct.cdiv(m, tiles[0]), ct.cdiv(n, tiles[1]))
        r1, r2 = run_both(mm_views, grid, args, race_check=True)
        assert_bits(r2[2], r1[2])
        np.testing.assert_array_equal(r2[2], av @ bv)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tiles=st.sampled_from([(64, 64, 32), (64, 128, 32), (128, 64, 64), (128, 128, 64)]),
    m=st.integers(1, 260),
    n=st.integers(1, 200),
    k=st.integers(1, 300),
    stages=st.sampled_from([None, 2, 3, 5]),
    specialized=st.booleans(),
    persistent=st.booleans(),
    ctas=st.integers(1, 7),
    seed=st.integers(0, 2**16),
)
def test_rings_match_the_interpreter_on_random_shapes(tiles, m, n, k, stages, specialized, persistent, ctas, seed):
    # Property: every ring configuration (depth, AUS/AWS, persistent or not, ragged M, N,
    # K from one element up, CTAs with no tile to several) computes what the interpreter
    # does, bit for bit, with the race check on. Rows are padded to 16 elements so the
    # operands go by TMA.
    from test_frontend_samples import SAMPLES

    rng = np.random.default_rng(seed)
    pad = lambda x: -(-x // 16) * 16
    a = small_ints(rng, (m, pad(k))).astype(np.float16)[:, :k]
    b = small_ints(rng, (k, pad(n))).astype(np.float16)[:, :n]
    z = np.zeros((m, pad(n)), np.float32)[:, :n]
    hints = {"warp_specialize": specialized} | ({"num_stages": stages} if stages else {})
    if persistent:
        kern = SAMPLES["persistent_matmul"][0].replace_hints(**hints)
        z = np.zeros((m, pad(n)), np.float16)[:, :n]
        grid = (ctas,)
    else:
        kern = mm_tiled.replace_hints(**hints)
        grid = (ct.cdiv(m, tiles[0]), ct.cdiv(n, tiles[1]))
    args = [a, b, z, *tiles]
    compiled, ptx = compile_checked(kern, args)
    assert "mbarrier.try_wait.parity" in ptx
    r1, r2 = run_both(kern, grid, args, race_check=True)
    assert_bits(r2[2], r1[2])


@pytest.mark.gpu
def test_rings_on_the_gpu_match_the_interpreter():
    # The same kernels on the device (an sm_90a GPU): AWS with and without register
    # reallocation, AUS, and the persistent ring across tiles; ragged M, N, K (rows of
    # 16-element multiples, so the operands go by TMA); bit for bit.
    from tileir import cuda
    from tileir._toolchain.cuda import compute_capability

    if compute_capability(0) != (9, 0):
        pytest.skip("the TMA ring and wgmma need an sm_90a GPU")
    from test_frontend_samples import SAMPLES

    rng = np.random.default_rng(42)
    m, n, k = 200, 144, 160
    a = small_ints(rng, (m, k)).astype(np.float16)
    b = small_ints(rng, (k, n)).astype(np.float16)
    persistent = SAMPLES["persistent_matmul"][0]
    cases = [(mm_tiled, (64, 64, 32), {}, np.float32), (mm_tiled, (128, 128, 64), {}, np.float32),
             (mm_tiled, (128, 128, 64), {"warp_specialize": False}, np.float32),
             (persistent, (64, 64, 32), {}, np.float16), (persistent, (128, 128, 64), {}, np.float16)]
    for kern, tiles, hints, out_dtype in cases:
        kern = kern.replace_hints(**hints) if hints else kern
        grid = (5,) if kern.name == "persistent_matmul" else (ct.cdiv(m, tiles[0]), ct.cdiv(n, tiles[1]))
        want = [a, b, np.zeros((m, n), out_dtype), *tiles]
        ct.interpret(grid, kern, want)
        dz = cuda.to_device(np.zeros((m, n), out_dtype))
        ct.launch(None, grid, kern, (cuda.to_device(a), cuda.to_device(b), dz, *tiles))
        cuda.synchronize()
        assert_bits(dz.copy_to_host(), want[2])
