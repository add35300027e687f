"""Numerics of the generated code, op family by op family: each kernel runs on the PTX
emulator (``ct.emulate``, the exact PTX handed to ptxas) and on the reference interpreter
(``ct.interpret``) with the same random inputs.

Bounds (the backend's, documented in crates/tileir-llvm/src/lower_ct.rs):

* integer ops, comparisons, selects, conversions, shape ops, gathers/scatters, atomics on
  integers, float ``+ - * /``, ``sqrt``, ``fma``, ``min``/``max``, ``floor``/``ceil``: **bit-exact**;
* reductions and scans: any grouping is allowed (cuda_tile leaves the order open), so float
  sums are compared within ``n·u·Σ|x|``; integer ones exactly;
* f32 math through the MUFU approximations (``exp exp2 tanh sinh cosh pow rsqrt``) and the
  polynomial ``atan2``: within the relative/absolute tolerances below;
* f32 ``log log2 sin cos tan`` and all f64 math call libdevice: within its documented 1–4
  ulp of float64 NumPy.
"""

import re

import numpy as np
import pytest

import tileir as ct

from arrays import emulate_and_interpret
from test_ops_numerics import k_mma_scaled  # the interpreter's own scaled-mma kernel

C = ct.Constant


def run_both(kern, grid, args, target=None):
    a1 = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    a2 = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    ct.interpret(grid, kern, a1)
    if target is None:
        ct.emulate(grid, kern, a2, race_check=True)
    else:
        ct.emulate(grid, kern, a2, target=target, race_check=True)
    return a1, a2


def assert_bits(got, want):
    if got.dtype.kind == "f":
        same = (got.view(np.uint8) == want.view(np.uint8)).reshape(got.shape + (-1,)).all(axis=-1)
        same |= np.isnan(got) & np.isnan(want)
        assert same.all(), f"{(~same).sum()} elements differ; first {got[~same][:4]} vs {want[~same][:4]}"
    else:
        np.testing.assert_array_equal(got, want)


@ct.kernel
def int_ops(A, B, O, T: C[int]):
    a = ct.load(A, (0,), (T,))
    b = ct.load(B, (0,), (T,))
    ct.store(O, (0, 0), a + b)
    ct.store(O, (1, 0), a - b)
    ct.store(O, (2, 0), a * b)
    ct.store(O, (3, 0), a // b)
    ct.store(O, (4, 0), a % b)
    ct.store(O, (5, 0), a & b)
    ct.store(O, (6, 0), a | b)
    ct.store(O, (7, 0), a ^ b)
    ct.store(O, (8, 0), a << (b & 15))
    ct.store(O, (9, 0), a >> (b & 15))
    ct.store(O, (10, 0), ct.maximum(a, b))
    ct.store(O, (11, 0), ct.minimum(a, b))
    ct.store(O, (12, 0), -a)
    ct.store(O, (13, 0), ct.abs(a))
    ct.store(O, (14, 0), ct.where(a < b, a, b * 3))
    ct.store(O, (15, 0), ct.astype(a == b, ct.int32) + ct.astype(a >= b, ct.int32) * 2)


def test_integer_arithmetic_is_bit_exact():
    rng = np.random.default_rng(1)
    t = 128
    a = rng.integers(-1000, 1000, t, dtype=np.int32)
    b = rng.integers(1, 50, t, dtype=np.int32) * rng.choice([-1, 1], t).astype(np.int32)
    r1, r2 = run_both(int_ops, (1,), [a, b, np.zeros((16, t), np.int32), t])
    assert_bits(r2[2], r1[2])


@ct.kernel
def float_ops(A, B, O, T: C[int]):
    a = ct.load(A, (0,), (T,))
    b = ct.load(B, (0,), (T,))
    ct.store(O, (0, 0), a + b)
    ct.store(O, (1, 0), a - b)
    ct.store(O, (2, 0), a * b)
    ct.store(O, (3, 0), a / b)
    ct.store(O, (4, 0), ct.sqrt(ct.abs(a)))
    ct.store(O, (5, 0), ct.maximum(a, b))
    ct.store(O, (6, 0), ct.minimum(a, b))
    ct.store(O, (7, 0), ct.floor(a))
    ct.store(O, (8, 0), ct.ceil(b))
    ct.store(O, (9, 0), -a)
    ct.store(O, (10, 0), ct.where(a > b, a, b))
    ct.store(O, (11, 0), ct.astype(ct.astype(a, ct.float16), ct.float32))
    ct.store(O, (12, 0), ct.astype(ct.astype(a * 1000.0, ct.int32), ct.float32))
    ct.store(O, (13, 0), ct.astype(ct.astype(b, ct.bfloat16), ct.float32))


def test_float_arithmetic_and_conversions_are_bit_exact():
    rng = np.random.default_rng(2)
    t = 256
    a = (rng.standard_normal(t) * 10).astype(np.float32)
    b = (rng.standard_normal(t) * 10).astype(np.float32)
    a[:4] = [np.inf, -np.inf, np.nan, -0.0]
    b[:4] = [1.0, np.nan, 2.0, 0.0]
    r1, r2 = run_both(float_ops, (1,), [a, b, np.zeros((14, t), np.float32), t])
    # Row 12 converts a*1000 to int32: NaN and infinities saturate in both.
    assert_bits(r2[2], r1[2])


@ct.kernel
def ftz_min_max(A, B, O, T: C[int]):
    a = ct.load(A, (0,), (T,))
    b = ct.load(B, (0,), (T,))
    ct.store(O, (0, 0), ct.maximum(a, b, flush_to_zero=True))
    ct.store(O, (1, 0), ct.minimum(a, b, flush_to_zero=True))
    ct.store(O, (2, 0), ct.maximum(a, b, flush_to_zero=True, propagate_nan=True))
    ct.store(O, (3, 0), ct.minimum(a, b, flush_to_zero=True, propagate_nan=True))


def test_min_max_flush_subnormal_operands_to_zero():
    # Subnormals of both signs against zeros, each other, normals and NaN: with
    # flush_to_zero they compare (and come out) as zeros of their sign.
    tiny = np.float32(1e-40)
    a = np.resize(np.array([tiny, -tiny, tiny, -tiny, 0.0, -0.0, tiny, 1.0, np.nan, tiny, -tiny, 3e-39], np.float32), 128)
    b = np.resize(np.array([0.0, 0.0, -tiny, tiny, tiny, -tiny, -1.0, tiny, tiny, np.nan, -0.0, -2e-39], np.float32), 128)
    r1, r2 = run_both(ftz_min_max, (1,), [a, b, np.zeros((4, 128), np.float32), 128])
    assert_bits(r2[2], r1[2])
    out = r1[2][np.isfinite(r1[2]) & (r1[2] != 0)]
    assert (np.abs(out) >= np.finfo(np.float32).tiny).all(), "a subnormal came out"


@ct.kernel
def math_ops(A, B, O, T: C[int]):
    a = ct.load(A, (0,), (T,))
    b = ct.load(B, (0,), (T,))
    ct.store(O, (0, 0), ct.exp(a))
    ct.store(O, (1, 0), ct.exp2(a))
    ct.store(O, (2, 0), ct.log(ct.abs(a) + 0.5))
    ct.store(O, (3, 0), ct.log2(ct.abs(a) + 0.5))
    ct.store(O, (4, 0), ct.sin(a))
    ct.store(O, (5, 0), ct.cos(a))
    ct.store(O, (6, 0), ct.tanh(a))
    ct.store(O, (7, 0), ct.sinh(a))
    ct.store(O, (8, 0), ct.cosh(a))
    ct.store(O, (9, 0), ct.rsqrt(ct.abs(a) + 0.5))
    ct.store(O, (10, 0), ct.atan2(a, b))
    ct.store(O, (11, 0), a ** 3)
    ct.store(O, (12, 0), ct.pow(ct.abs(a) + 0.5, b))
    ct.store(O, (13, 0), ct.tan(a * 0.5))


#: (rtol, atol) per row of math_ops.
MATH_TOL = [(2e-6, 0), (2e-6, 0), (2e-6, 2e-7), (2e-6, 2e-7), (0, 1e-6), (0, 1e-6), (1e-6, 1e-7), (1e-6, 1e-7),
            (5e-6, 0), (2e-6, 0), (4e-7, 1e-7), (2e-6, 0), (3e-7, 1e-30), (2e-5, 2e-6)]


def test_math_is_within_the_documented_bounds():
    rng = np.random.default_rng(3)
    t = 512
    a = rng.uniform(-3.0, 3.0, t).astype(np.float32)
    b = rng.uniform(-3.0, 3.0, t).astype(np.float32)
    b[:6] = [0.0, -0.0, 1.0, -1.0, 0.0, -0.0]
    a[:6] = [0.0, 0.0, 0.0, 0.0, -0.0, -0.0]
    r1, r2 = run_both(math_ops, (1,), [a, b, np.zeros((14, t), np.float32), t])
    for row, (rtol, atol) in enumerate(MATH_TOL):
        np.testing.assert_allclose(r2[2][row], r1[2][row], rtol=rtol, atol=atol, err_msg=f"row {row}")
    # atan2's signed-zero cases are exact.
    assert_bits(r2[2][10][:6], np.arctan2(a[:6], b[:6]).astype(np.float32))


def ulps(got, ref64, dtype):
    """|got - ref64| in units in the last place of ref64 rounded to ``dtype`` (finite
    references only)."""
    ref = ref64.astype(dtype)
    ulp = np.spacing(np.abs(ref)).astype(np.float64)
    ulp[ulp == 0] = np.finfo(dtype).smallest_subnormal
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf; huge errors are inf
        err = np.abs(got.astype(np.float64) - ref64) / ulp
    ok = np.isfinite(ref64) & np.isfinite(ref)
    assert (np.isnan(got[~np.isfinite(ref64)]) == np.isnan(ref64[~np.isfinite(ref64)])).all()
    return err[ok]


@ct.kernel
def libdevice_f32(A, O, T: C[int]):
    a = ct.load(A, (0,), (T,))
    ct.store(O, (0, 0), ct.log(ct.abs(a)))
    ct.store(O, (1, 0), ct.log2(ct.abs(a)))
    ct.store(O, (2, 0), ct.sin(a))
    ct.store(O, (3, 0), ct.cos(a))
    ct.store(O, (4, 0), ct.tan(a))


def test_f32_log_sin_cos_tan_go_through_libdevice():
    # libdevice (CUDA C++ Programming Guide: logf, log2f ≤ 1 ulp; sinf, cosf ≤ 2; tanf ≤ 4;
    # this sample measures 0.79, 0.79, 1.34, 1.20, 2.46), against float64 NumPy, including near 0 and near 1 where the hardware
    # approximations only bound the absolute error, and large arguments (range reduction).
    rng = np.random.default_rng(5)
    t = 1024
    a = np.concatenate([rng.uniform(-4, 4, t // 4), np.exp(rng.uniform(-30, 30, t // 4)) * rng.choice([-1, 1], t // 4),
                        1 + rng.uniform(-1e-3, 1e-3, t // 4), rng.uniform(-1e-4, 1e-4, t // 4)]).astype(np.float32)
    a[:8] = [0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 1e-40, 3e4]
    r1, r2 = run_both(libdevice_f32, (1,), [a, np.zeros((5, t), np.float32), t])
    a64 = a.astype(np.float64)
    with np.errstate(all="ignore"):
        refs = [np.log(np.abs(a64)), np.log2(np.abs(a64)), np.sin(a64), np.cos(a64), np.tan(a64)]
    for row, (ref, bound) in enumerate(zip(refs, [1, 1, 1.5, 1.5, 3])):
        e = ulps(r2[1][row], ref, np.float32)
        assert e.max() <= bound, f"row {row}: {e.max():.2f} ulp"
        e = ulps(r1[1][row], ref, np.float32)  # the interpreter: libm, as tight
        assert e.max() <= bound, f"interpreter row {row}: {e.max():.2f} ulp"
    assert np.signbit(r2[1][2][1]) and r2[1][0][0] == -np.inf  # sin(-0) = -0, log(0) = -inf


@ct.kernel
def libdevice_f64(A, B, O, T: C[int]):
    a = ct.load(A, (ct.bid(0),), (T,))
    b = ct.load(B, (ct.bid(0),), (T,))
    p = ct.abs(a) + 0.25
    ct.store(O, (0, ct.bid(0)), ct.exp(a))
    ct.store(O, (1, ct.bid(0)), ct.exp2(a))
    ct.store(O, (2, ct.bid(0)), ct.log(p))
    ct.store(O, (3, ct.bid(0)), ct.log2(p))
    ct.store(O, (4, ct.bid(0)), ct.sin(a))
    ct.store(O, (5, ct.bid(0)), ct.cos(a))
    ct.store(O, (6, ct.bid(0)), ct.tan(a))
    ct.store(O, (7, ct.bid(0)), ct.tanh(a))
    ct.store(O, (8, ct.bid(0)), ct.sinh(a))
    ct.store(O, (9, ct.bid(0)), ct.cosh(a))
    ct.store(O, (10, ct.bid(0)), ct.pow(p, b))
    ct.store(O, (11, ct.bid(0)), ct.atan2(a, b))
    ct.store(O, (12, ct.bid(0)), ct.rsqrt(p))


def test_f64_math_goes_through_libdevice():
    # libdevice's double functions are within 1 or 2 ulp (CUDA C++ Programming Guide);
    # measured here against NumPy's float64 (glibc): 2 ulp for tan and sinh, 1 elsewhere
    # (0 for rsqrt); the interpreter (Rust's libm) agrees within 2. One f64 element per
    # thread (128 per block): more makes the kernel spill.
    rng = np.random.default_rng(6)
    n, t = 512, 128
    a = rng.uniform(-20.0, 20.0, n)
    a[: n // 4] = rng.uniform(-1e-3, 1e-3, n // 4)
    b = rng.uniform(-6.0, 6.0, n)
    a[:4] = [0.0, -0.0, 700.0, -745.0]
    b[:4] = [-0.0, 0.0, 1.0, -1.0]
    r1, r2 = run_both(libdevice_f64, (n // t,), [a, b, np.zeros((13, n)), t])
    p = np.abs(a) + 0.25
    with np.errstate(all="ignore"):
        refs = [np.exp(a), np.exp2(a), np.log(p), np.log2(p), np.sin(a), np.cos(a), np.tan(a), np.tanh(a),
                np.sinh(a), np.cosh(a), np.power(p, b), np.arctan2(a, b), 1 / np.sqrt(p)]
    for row, ref in enumerate(refs):
        e = ulps(r2[2][row], ref, np.float64)
        assert e.max() <= 2, f"row {row}: {e.max():.2f} ulp"
        assert ulps(r2[2][row], r1[2][row], np.float64).max() <= 2, f"row {row} vs the interpreter"
    assert_bits(r2[2][11][:2], np.arctan2(a[:2], b[:2]))  # atan2(±0, ∓0) signs


def test_libdevice_is_linked_and_resolved():
    # The PTX holds the libdevice code the kernel calls and nothing else: no __nvvm_reflect
    # left (NVVMReflect ran), no call to an undefined __nv_ function, and no unused libdevice
    # function (the rest was internalized and dropped).
    compiled = ct.compile(libdevice_f64, [np.zeros(128), np.zeros(128), np.zeros((13, 128)), 128])
    ptx = compiled.asm["ptx"]
    assert "__nvvm_reflect" not in ptx
    declared = set(re.findall(r"\.func\s+(?:\([^)]*\)\s*)?(\w+)", ptx))
    called = set(re.findall(r"call(?:\.uni)?\s+(?:\([^)]*\),\s*)?(\w+)", ptx))
    assert called <= declared, called - declared
    assert not any(n.startswith("__nv_") and n not in called for n in declared)
    assert ".extern" not in ptx
    # A kernel without accurate math is not linked with libdevice.
    fast = ct.compile(math_ops, [np.zeros(8, np.float32)] * 2 + [np.zeros((14, 8), np.float32), 8])
    assert "__internal" not in fast.asm["ptx"]
    # Both run like the interpreter, within the bounds test_math_is_within_the_documented_bounds
    # and test_f64_math_goes_through_libdevice allow (approximate instructions and libdevice
    # against the interpreter's libm: not bit for bit).
    rng = np.random.default_rng(7)
    x, y = rng.uniform(-3.0, 3.0, 128), rng.uniform(-3.0, 3.0, 128)
    want, got = emulate_and_interpret((1,), libdevice_f64, compiled, [x, y, np.zeros((13, 128)), 128])
    for row in range(13):
        assert ulps(got[2][row], want[2][row], np.float64).max() <= 2, f"row {row}"
    x, y = x[:8].astype(np.float32), y[:8].astype(np.float32)
    want, got = emulate_and_interpret((1,), math_ops, fast, [x, y, np.zeros((14, 8), np.float32), 8])
    for row, (rtol, atol) in enumerate(MATH_TOL):
        np.testing.assert_allclose(got[2][row], want[2][row], rtol=rtol, atol=atol, err_msg=f"row {row}")


LIBDEVICE_IR = """
define void @k(ptr addrspace(1) %p) {
  %x = load double, ptr addrspace(1) %p
  %y = call double @__nv_sin(double %x)
  store double %y, ptr addrspace(1) %p
  ret void
}
declare double @__nv_sin(double)
!llvm.module.flags = !{!0}
!0 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
"""


@pytest.mark.parametrize("opt", [dict(opt_level=0), dict(passes=[]), dict(opt_level=2)])
def test_libdevice_is_resolved_by_every_pipeline(opt):
    from tileir._toolchain import llvm_worker

    ptx, times = llvm_worker.compile_to_ptx(LIBDEVICE_IR, cpu="sm_90a", **opt)
    assert "__nvvm_reflect" not in ptx and ".extern" not in ptx and "libdevice" in times
    # Only what __nv_sin needs is left.
    assert "__nv_cos" not in ptx and "__nv_exp" not in ptx


def test_missing_libdevice_is_a_clear_error(monkeypatch):
    from tileir._toolchain import llvm_worker

    monkeypatch.setattr(llvm_worker, "find_libdevice", lambda: None)
    with pytest.raises(ct.errors.LLVMError, match="libdevice.10.bc.*nvidia-cuda-nvcc") as err:
        llvm_worker.compile_to_ptx(LIBDEVICE_IR, cpu="sm_90a")
    assert err.value.stage == "libdevice"
    monkeypatch.undo()
    # An unknown __nv_ name is reported, not an LLVM abort.
    with pytest.raises(ct.errors.LLVMError, match="has no function __nv_nosuch"):
        llvm_worker.compile_to_ptx(LIBDEVICE_IR.replace("__nv_sin", "__nv_nosuch"), cpu="sm_90a")


@ct.kernel
def reductions(X, S, M, P, Q, CS):
    x = ct.load(X, (0, 0), (16, 64))
    ct.store(S, (0,), ct.sum(x, axis=1))
    ct.store(M, (0,), ct.max(x, axis=0))
    ct.store(P, (0,), ct.astype(ct.argmax(x, axis=1), ct.int32))
    ct.store(Q, (0,), ct.min(ct.astype(x * 100.0, ct.int32), axis=1))
    ct.store(CS, (0, 0), ct.cumsum(x, axis=1))


def test_reductions_and_scans():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    args = [x, np.zeros(16, np.float32), np.zeros(64, np.float32), np.zeros(16, np.int32), np.zeros(16, np.int32),
            np.zeros((16, 64), np.float32)]
    r1, r2 = run_both(reductions, (1,), args)
    bound = 64 * np.finfo(np.float32).eps * np.abs(x).sum(axis=1)
    assert (np.abs(r2[1] - r1[1]) <= bound).all()
    assert_bits(r2[2], r1[2])
    assert_bits(r2[3], r1[3])
    assert_bits(r2[4], r1[4])
    assert (np.abs(r2[5] - r1[5]) <= bound[:, None]).all()


@ct.kernel
def shapes(X, O1, O2, O3, O4):
    x = ct.load(X, (0, 0), (8, 32))
    ct.store(O1, (0, 0), ct.transpose(x))
    ct.store(O2, (0, 0), ct.cat((ct.extract(x, (0, 1), (8, 16)), ct.extract(x, (0, 0), (8, 16))), axis=0))
    ct.store(O3, (0, 0, 0), ct.permute(ct.reshape(x, (8, 4, 8)), (2, 0, 1)))
    ct.store(O4, (0, 0), ct.broadcast_to(ct.sum(x, axis=0, keepdims=True), (4, 32)) + ct.expand_dims(ct.arange(4, dtype=ct.float32), 1))


def test_shape_ops_are_bit_exact():
    x = np.random.default_rng(5).standard_normal((8, 32)).astype(np.float32)
    args = [x, np.zeros((32, 8), np.float32), np.zeros((16, 16), np.float32), np.zeros((8, 8, 4), np.float32),
            np.zeros((4, 32), np.float32)]
    r1, r2 = run_both(shapes, (1,), args)
    for i in (1, 2, 3):
        assert_bits(r2[i], r1[i])
    np.testing.assert_allclose(r2[4], r1[4], rtol=1e-6, atol=1e-6)


@ct.kernel
def renamed_shapes(X, Y, Z, W):
    x = ct.load(X, (0,), (512,))
    # A unit dimension added, then broadcast along it: each thread already holds its
    # elements at the same registers, so neither op moves data.
    y = ct.reshape(x, (1, 512))
    ct.store(Y, (0, 0), y * 2.0)
    ct.store(Z, (0, 0), ct.broadcast_to(y, (1, 512)) + 1.0)
    # A row-to-column reshape of the same tile does move data.
    ct.store(W, (0, 0), ct.reshape(x, (512, 1)))


def test_relayouts_that_move_no_data_rename_registers():
    x = np.random.default_rng(6).standard_normal(512).astype(np.float32)
    args = [x, np.zeros((1, 512), np.float32), np.zeros((1, 512), np.float32), np.zeros((512, 1), np.float32)]
    r1, r2 = run_both(renamed_shapes, (1,), args)
    for i in (1, 2, 3):
        assert_bits(r2[i], r1[i])
    # Only the column reshape goes through shared memory: one store of the tile, between
    # its two barriers.
    ptx = ct.compile(renamed_shapes, args, target="sm_90a").asm["ptx"]
    assert len(re.findall(r"\bst\.shared", ptx)) == 1 and len(re.findall(r"\bbar(rier)?\.(cta\.)?sync", ptx)) == 2, ptx


@ct.kernel
def warp_transposes(X, Y, Z):
    x = ct.load(X, (0, 0), (32, 1))
    # A column (one element per lane) becomes a row (four per lane on eight lanes): the
    # elements move within the warp.
    ct.store(Y, (0, 0), ct.permute(x, (1, 0)))
    ct.store(Z, (0,), ct.reshape(ct.astype(x, ct.float16), (32,)))


def test_relayouts_within_a_warp_are_shuffles():
    x = np.random.default_rng(7).standard_normal((32, 1)).astype(np.float32)
    args = [x, np.zeros((1, 32), np.float32), np.zeros(32, np.float16)]
    r1, r2 = run_both(warp_transposes, (1,), args)
    assert_bits(r2[1], r1[1])
    assert_bits(r2[2], r1[2])
    ptx = ct.compile(warp_transposes, args, target="sm_90a").asm["ptx"]
    assert "shfl.sync.idx" in ptx and not re.search(r"\bst\.shared", ptx), ptx


@ct.kernel
def row_softmax(X, Y, N: C[int]):
    x = ct.load(X, (0, 0), (1, N))
    # Each reduction leaves its one element in every thread (replicas too), so the two
    # broadcasts back over the row move no data.
    x = x - ct.max(x, axis=1, keepdims=True)
    e = ct.exp(x)
    ct.store(Y, (0, 0), e / ct.sum(e, axis=1, keepdims=True))


@pytest.mark.parametrize("n", [16, 1024])
def test_broadcasts_of_a_reduced_element_move_no_data(n):
    x = np.random.default_rng(n).standard_normal((1, n)).astype(np.float32)
    args = [x, np.zeros((1, n), np.float32), n]
    r1, r2 = run_both(row_softmax, (1,), args)
    np.testing.assert_allclose(r2[1], r1[1], rtol=1e-5, atol=1e-7)
    ptx = ct.compile(row_softmax, args, target="sm_90a").asm["ptx"]
    # Two barriers around each reduction's cross-warp step, nothing else.
    assert len(re.findall(r"\bbar(rier)?\.(cta\.)?sync", ptx)) == 4, ptx


@ct.kernel
def atomics(H, X, CNT, OLD, T: C[int]):
    x = ct.load(X, (ct.bid(0),), (T,))
    ct.atomic_add(H, (x,), 1)
    old = ct.atomic_add(CNT, (0,), 1)
    ct.store(OLD, (ct.bid(0),), old)


def test_atomics_count_every_element_once():
    rng = np.random.default_rng(6)
    x = rng.integers(0, 16, 4 * 64, dtype=np.int32)
    args = [np.zeros(16, np.int32), x, np.zeros(1, np.int32), np.zeros(4, np.int32), 64]
    r1, r2 = run_both(atomics, (4,), args)
    assert_bits(r2[0], np.bincount(x, minlength=16).astype(np.int32))
    assert r2[2][0] == 4
    assert sorted(r2[3].tolist()) == [0, 1, 2, 3]


@ct.kernel
def loops(X, O, N: C[int]):
    acc = ct.zeros((32,), ct.float32)
    for i in range(N):
        x = ct.load(X, (i,), (32,))
        if i % 2 == 0:
            acc = acc + x
        else:
            acc = acc - x
    k = 0
    while k < 100:
        k = k * 2 + 1
    ct.store(O, (0,), acc * k)


def test_control_flow():
    x = np.random.default_rng(7).standard_normal(5 * 32).astype(np.float32)
    r1, r2 = run_both(loops, (1,), [x, np.zeros(32, np.float32), 5])
    assert_bits(r2[1], r1[1])


@ct.kernel
def printing(X, n: int):
    x = ct.load(X, (0,), (4,))
    ct.printf("n=%d x=%.3f\n", n, x)


def test_print_matches_the_interpreter():
    x = np.array([1.5, -2.25, 0.0, 3.0], np.float32)
    r = ct.emulate((2,), printing, [x, 7])
    assert r.output == "n=7 x=[1.500, -2.250, 0.000, 3.000]\n" * 2, r.output


@ct.kernel
def asserting(X):
    x = ct.load(X, (0,), (4,))
    ct.assert_(x >= 0, "negative input")


def test_assert_traps_with_the_message():
    ct.emulate((1,), asserting, [np.ones(4, np.float32)])
    with pytest.raises(Exception, match="negative input|assert|trap"):
        ct.emulate((1,), asserting, [np.array([1, -1, 2, 3], np.float32)])


def test_block_scaled_mma_is_exact_on_exact_data():
    rng = np.random.default_rng(8)
    a = rng.integers(-8, 9, (16, 32)).astype(np.float32)
    b = rng.integers(-8, 9, (32, 16)).astype(np.float32)
    sa = np.exp2(rng.integers(-3, 4, (16, 1))).astype(np.float32) * 1.5  # RZ drops the 1.5
    sb = np.exp2(rng.integers(-3, 4, (1, 16))).astype(np.float32)
    r1, r2 = run_both(k_mma_scaled, (1,), [a, sa, b, sb, np.zeros((16, 16), np.float32)])
    assert_bits(r2[4], r1[4])
    np.testing.assert_array_equal(r2[4], (a * (sa / 1.5)) @ (b * sb))


@ct.kernel
def tensor_core_mma(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K))
    b = ct.load(B, (0, 0), (K, N))
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@ct.kernel
def tensor_core_mma_bf16(A, B, Cin, Z, M: C[int], N: C[int], K: C[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(ct.bfloat16)
    b = ct.load(B, (0, 0), (K, N)).astype(ct.bfloat16)
    c = ct.load(Cin, (0, 0), (M, N))
    ct.store(Z, (0, 0), ct.mma(a, b, c))


@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mnk", [(64, 32, 32), (32, 64, 64), (16, 32, 16), (128, 64, 64)])
def test_tensor_core_mma_is_exact_on_integer_data(dtype, mnk, target):
    # sm_90a takes wgmma wherever M is a multiple of 64 (one warpgroup's rows), mma.sync
    # elsewhere; sm_80 always mma.sync.
    m, n, k = mnk
    rng = np.random.default_rng(9)
    a = rng.integers(-4, 5, (m, k)).astype(np.float32)
    b = rng.integers(-4, 5, (k, n)).astype(np.float32)
    c = rng.integers(-50, 50, (m, n)).astype(np.float32)
    if dtype == "float16":
        kern, args = tensor_core_mma, [a.astype(np.float16), b.astype(np.float16), c, np.zeros((m, n), np.float32), m, n, k]
    else:
        kern, args = tensor_core_mma_bf16, [a, b, c, np.zeros((m, n), np.float32), m, n, k]
    compiled = ct.compile(kern, args, target=target)
    ptx = compiled.asm["ptx"]
    if target == "sm_90a" and m % 64 == 0:
        elem = "f16" if dtype == "float16" else "bf16"
        assert f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{elem}.{elem}" in ptx
        assert "mma.sync" not in ptx
    else:
        assert "mma.sync.aligned.m16n8k16" in ptx and "wgmma" not in ptx
    r1, r2 = run_both(kern, (1,), args, target=target)
    assert_bits(r2[3], r1[3])
    np.testing.assert_array_equal(r2[3], a @ b + c)


@ct.kernel
def negate_if(X, Y, flip, T: C[int]):
    x = ct.load(X, (0,), (T,))
    if flip:
        ct.store(Y, (0,), -x)
    else:
        ct.store(Y, (0,), x * 2.0)


@pytest.mark.parametrize("flip", [True, False])
def test_a_runtime_bool_argument_reaches_the_kernel(flip):
    x = np.arange(64, dtype=np.float32) - 10
    r1, r2 = run_both(negate_if, (1,), [x, np.zeros(64, np.float32), flip, 64])
    assert_bits(r2[1], r1[1])
    np.testing.assert_array_equal(r1[1], -x if flip else x * 2)


@ct.kernel
def guarded_add(X, Y, n: int, T: C[int]):
    i = ct.bid(0)
    if i * T >= n:
        return
    x = ct.load(X, (i,), (T,))
    ct.store(Y, (i,), x + 1.0)


def test_an_early_return_inside_if_ends_the_tile_block():
    # Tile blocks past n return before touching memory: Y's last tile keeps its -1s.
    x = np.arange(256, dtype=np.float32)
    r1, r2 = run_both(guarded_add, (4,), [x, np.full(256, -1.0, np.float32), 150, 64])
    assert_bits(r2[1], r1[1])
    np.testing.assert_array_equal(r1[1][:192], x[:192] + 1)
    assert (r1[1][192:] == -1).all()


@ct.kernel
def directed_small_float(A, B, O, T: C[int], MODE: C[int]):
    mode = (ct.RoundingMode.RZ, ct.RoundingMode.RM, ct.RoundingMode.RP)[MODE]
    a = ct.load(A, (0,), (T,))
    b = ct.load(B, (0,), (T,))
    ct.store(O, (0, 0), ct.add(a, b, rounding_mode=mode))
    ct.store(O, (1, 0), ct.sub(a, b, rounding_mode=mode))
    ct.store(O, (2, 0), ct.mul(a, b, rounding_mode=mode))
    ct.store(O, (3, 0), ct.truediv(a, b, rounding_mode=mode))
    ct.store(O, (4, 0), ct.sqrt(ct.abs(a), rounding_mode=mode))


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_f16_arithmetic_with_directed_rounding_is_bit_exact(mode):
    # f16 results are rounded once in the op's direction (computed in f32 with it, then
    # narrowed with it): exactly the interpreter's correctly rounded results, overflow to
    # infinity or the largest finite value and subnormal results included.
    rng = np.random.default_rng(20 + mode)
    t = 256
    a = (rng.standard_normal(t) * 300).astype(np.float16)
    b = (rng.standard_normal(t) * 3).astype(np.float16)
    a[:6] = [60000, -60000, 6e-5, -6e-5, 1.0, np.inf]
    b[:6] = [30000, 30000, 1e-3, 7e-4, 3.0, 2.0]
    r1, r2 = run_both(directed_small_float, (1,), [a, b, np.zeros((5, t), np.float16), t, mode])
    assert_bits(r2[2], r1[2])


@ct.kernel
def transpose_3d(X, R, A: C[int], B: C[int], Cc: C[int]):
    ct.store(R, (0, 0, 0), ct.transpose(ct.load(X, (0, 0, 0), (A, B, Cc)), 0, 2))


@pytest.mark.parametrize("shape", [(4, 1, 4), (4, 2, 4), (8, 1, 8), (2, 1, 4)])
def test_a_transpose_that_keeps_the_shape_still_moves_the_elements(shape):
    # (4, 1, 4) transposed is (4, 1, 4) again, in the same layout: the elements must move.
    x = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    r1, r2 = run_both(transpose_3d, (1,), [x, np.zeros(shape[::-1], np.int32), *shape])
    np.testing.assert_array_equal(r1[1], x.transpose(2, 1, 0))
    assert_bits(r2[1], r1[1])


@ct.kernel
def masked_gather(X, I, M, Z, N: C[int]):
    idx = ct.load(I, (0,), (N,))
    m = ct.load(M, (0,), (N,))
    ct.store(Z, (0,), ct.gather(X, (idx,), mask=m, padding_value=-1))


def test_boolean_tiles_load_one_byte_per_element():
    # A vector load of i1 elements must read bytes (LLVM's <4 x i1> in memory is bit-packed).
    x = np.arange(10, 26).astype(np.int64)
    idx = np.arange(16, dtype=np.int32)
    mask = np.array([1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1], bool)
    r1, r2 = run_both(masked_gather, (1,), [x, idx, mask, np.zeros(16, np.int64), 16])
    np.testing.assert_array_equal(r1[3], np.where(mask, x, -1))
    assert_bits(r2[3], r1[3])


@ct.kernel
def small_divmod(X, Y, Q, R, M: C[int], N: C[int]):
    q, r = divmod(ct.load(X, (0, 0), (M, N)), ct.load(Y, (0, 0), (M, N)))
    ct.store(Q, (0, 0), q)
    ct.store(R, (0, 0), r)


@pytest.mark.parametrize("shape", [(1, 1), (4, 16)])
def test_threads_replicating_a_small_tile_divide_what_their_owners_divide(shape):
    # 128 threads over a tile of 1 or 64 elements: the replicas load their owners' values,
    # so they never divide by a register that was not loaded (the emulator reports that).
    x = np.full(shape, 7, np.int8)
    y = np.full(shape, -2, np.int8)
    r1, r2 = run_both(small_divmod, (1,), [x, y, np.zeros(shape, np.int8), np.zeros(shape, np.int8), *shape])
    assert (r1[2] == -4).all() and (r1[3] == -1).all()
    assert_bits(r2[2], r1[2])
    assert_bits(r2[3], r1[3])


@ct.kernel
def exp_family(X, E, S, Ch, Th):
    x = ct.load(X, (0,), (16,))
    ct.store(E, (0,), ct.exp(x))
    ct.store(S, (0,), ct.sinh(x))
    ct.store(Ch, (0,), ct.cosh(x))
    ct.store(Th, (0,), ct.tanh(x))


def test_exp_sinh_cosh_tanh_at_large_magnitudes():
    # exp overflows past 88.72 while sinh and cosh stay finite up to 89.41; huge inputs must
    # give infinities and zeros, not NaN (an infinite 2^t times a zero correction).
    x = np.array([80, 88, 88.7, 88.8, 89, 89.4, 89.5, 90, 100, 1e10, np.inf, -89, -90, -1e10, -np.inf, np.nan],
                 np.float32)
    outs = [np.zeros(16, np.float32) for _ in range(4)]
    r1, r2 = run_both(exp_family, (1,), [x] + outs)
    with np.errstate(over="ignore"):
        for got, want, fn in zip(r2[1:], r1[1:], (np.exp, np.sinh, np.cosh, np.tanh)):
            exact = fn(x.astype(np.float64)).astype(np.float32)
            assert (np.isnan(got) == np.isnan(exact)).all(), (fn.__name__, got)
            assert (np.isinf(got) == np.isinf(exact)).all(), (fn.__name__, got)
            finite = np.isfinite(exact)
            np.testing.assert_allclose(got[finite], exact[finite], rtol=4e-7, err_msg=fn.__name__)
            np.testing.assert_allclose(got[finite], want[finite], rtol=4e-7, err_msg=fn.__name__)


@ct.kernel
def float_mod(X, Y, Z, W, H):
    x = ct.load(X, (0,), (8,))
    y = ct.load(Y, (0,), (8,))
    ct.store(Z, (0,), x % y)
    ct.store(W, (0,), ct.astype(ct.astype(x, ct.float32) % ct.astype(y, ct.float32), ct.float64))
    ct.store(H, (0,), ct.astype(ct.astype(x, ct.float16) % ct.astype(y, ct.float16), ct.float64))


def test_float_mod_is_exact_for_huge_quotients():
    # fmod is exact; x - trunc(x / y) * y (LLVM's frem on NVPTX) is not once x / y passes
    # 2^53 (f64) or 2^24 (f32).
    x = np.array([5.99e16, -7.7e50, 1e300, 3.0, -3.0, 1e20, 7.5, 6e4], np.float64)
    y = np.array([-4.49e-98, 3.3, 1e-300, 2.0, 2.0, 1.1, -2.0, 0.3], np.float64)
    outs = [np.zeros(8) for _ in range(3)]
    r1, r2 = run_both(float_mod, (1,), [x, y] + outs)
    for got, want in zip(r2[2:], r1[2:]):
        assert_bits(got, want)
    np.testing.assert_array_equal(r1[2], np.mod(x, y))
