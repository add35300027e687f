"""Software pipelining in the default compile: loop loads become a producer region over an
async pipeline (``k.asm["nv_tileas"]`` shows the pipeline, its stage count and each
region's stage), the loop is peeled into prologue / kernel / epilogue, and the general
backend keeps the in-flight tiles in registers (``k.asm["nv_tileas-registers"]``). The
``num_stages`` kernel hint sets the depth; every depth must compute what the interpreter
computes, on the PTX emulator.
"""

import re

import numpy as np
import pytest

import tileir as ct
from tileir import _native

import sample_runs


def _close(got, want, rtol, atol):
    return np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


def _runs_exactly(kern, compiled, mnk, grid, race_check=True):
    """``compiled`` (a matmul sample's kernel) on the emulator against ct.interpret, bit for
    bit, on small-integer f16 operands of shape ``mnk``."""
    from arrays import assert_same_bits, emulate_and_interpret

    m, n, k = mnk
    rng = np.random.default_rng(5)
    a, b = rng.integers(-2, 3, (m, k)).astype(np.float16), rng.integers(-2, 3, (k, n)).astype(np.float16)
    tiles = list(compiled.spec.params[3:])
    args = [a, b, np.zeros((m, n), np.float16), *(t.value for t in tiles)]
    want, got = emulate_and_interpret(grid, kern, compiled, args, race_check=race_check)
    assert_same_bits(got[2], want[2])


@pytest.mark.parametrize("stages", [1, 2, 3])
def test_matmul_pipelined_at_each_depth_emulates_like_the_interpreter(stages):
    # sm_80: the general backend, which pipelines the loads in registers (on sm_90a the
    # backend double-buffers TMA copies itself: the next test).
    kern, grid, inputs, expected, (rtol, atol) = sample_runs.reference("matmul_f16")
    k = ct.compile(kern.replace_hints(num_stages=stages), inputs, target="sm_80")
    ts = k.asm["nv_tileas"]
    found = re.findall(r"create_pipeline\"\(\) : \(\) -> !nv_tileas\.pipeline<stages=(\d+)", ts)
    # One pipeline for the K loop's two loads; one stage when pipelining is off.
    assert found == [str(stages)], found
    assert f"pipeline_stage = {max(stages - 1, 1)} : i64" in ts
    assert ts.count("produce_one_async") == max(stages, 1), "a prologue of stages-1 producers plus the kernel's"
    assert "async.pipeline" not in k.asm["nv_tileas-registers"]
    assert ("tileas-unspecialized-pipeline{num-stages=%d " % stages) in k.pipeline
    ct.emulate(grid, k, inputs, race_check=True)
    for i, want in expected.items():
        assert _close(inputs[i], want, rtol, atol), f"output #{i}"


@pytest.mark.parametrize("sample", ["matmul_f16", "persistent_matmul"])
def test_sm_90a_leaves_mma_operand_loads_to_the_tma_ring(sample):
    # tileas-materialize-async{keep-mma-operands=true}: the loads stay in the loop body,
    # and the backend copies them by TMA (16-byte aligned rows, as in the samples' own
    # arguments) through a ring of stages, later iterations' while iteration i computes.
    from test_frontend_samples import SAMPLES

    kern, args = SAMPLES[sample]
    k = ct.compile(kern, args(), target="sm_90a")
    assert "tileas-materialize-async{keep-mma-operands=true mma-operand-stages=0 mma-warp-specialize=true}" in k.pipeline
    assert "create_pipeline" not in k.asm["nv_tileas"]
    ptx = k.asm["ptx"]
    assert "cp.async.bulk.tensor.2d" in ptx and "mbarrier.try_wait.parity" in ptx
    # This kernel runs too, on smaller arrays of its specialization (16-element multiples),
    # race-checked: one CTA (the persistent one walks all four 64x64 tiles), bit for bit
    # (small integers: exact sums).
    _runs_exactly(kern, k, (128, 128, 128), (1,))
    # Emulated on aligned arrays with 64-row tiles (the TMA ring, race-checked, across
    # the persistent loop's tiles too), then the interpreter's reference runs.
    rng = np.random.default_rng(3)
    m, n, kk = 128, 192, 96
    a, b = (rng.integers(-2, 3, (m, kk)).astype(np.float16), rng.integers(-2, 3, (kk, n)).astype(np.float16))
    args = [a, b, np.zeros((m, n), np.float16), 64, 64, 32]
    grid = (3,) if sample == "persistent_matmul" else (ct.cdiv(m, 64) * ct.cdiv(n, 64),)
    k = ct.compile(kern, args, target="sm_90a")
    assert "mbarrier.try_wait.parity" in k.asm["ptx"]
    ct.emulate(grid, k, args, race_check=True)
    np.testing.assert_array_equal(args[2], (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))
    # The reference runs (rows of the ragged arrays are not all 16-byte aligned, so the
    # operands go through registers) still match on the emulator.
    kern, grid, inputs, expected, (rtol, atol) = sample_runs.reference(sample)
    k = ct.compile(kern, inputs, target="sm_90a")
    assert "create_pipeline" not in k.asm["nv_tileas"]
    ct.emulate(grid, k, inputs, race_check=True)
    for i, want in expected.items():
        assert _close(inputs[i], want, rtol, atol), f"output #{i}"


def test_num_stages_hint_is_checked():
    from frontend_samples import matmul
    with pytest.raises(ValueError, match="num_stages"):
        matmul.replace_hints(num_stages=0)
    with pytest.raises(TypeError, match="num_stages"):
        matmul.replace_hints(num_stages="2")


@ct.kernel
def copy_rows(X, Y, T: ct.Constant[int]):
    # Each iteration stores what it loaded: a loop that writes memory keeps its loads in
    # place (a later load may read what an earlier iteration stored).
    for i in range(ct.num_tiles(X, axis=0, shape=(T,))):
        ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(T,)))


@ct.kernel
def sum_rows(X, Y, T: ct.Constant[int]):
    acc = ct.zeros((T,), ct.float32)
    for i in range(ct.num_tiles(X, axis=0, shape=(T,))):
        acc = acc + ct.load(X, index=(i,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Y, index=(0,), tile=acc)


def test_loops_that_write_memory_are_not_pipelined():
    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    k = ct.compile(copy_rows, (x, y, 16), target="sm_90a")
    assert "create_pipeline" not in k.asm["nv_tileas"]
    ct.emulate((1,), k, (x, y, 16), race_check=True)
    assert np.array_equal(x, y)


@pytest.mark.parametrize("n", [0, 5, 16, 33, 200])
def test_every_trip_count_emulates_like_the_interpreter(n):
    # Trip counts 0, 1, 1, 3 and 13 of 16-element tiles, the last ragged, at depth 3.
    x = (np.arange(n, dtype=np.float32) * 0.25).astype(np.float32)
    kern = sum_rows.replace_hints(num_stages=3)
    k = ct.compile(kern, (x, np.zeros(16, np.float32), 16), target="sm_90a")
    assert "stages=3" in k.asm["nv_tileas"]
    want = np.zeros(16, np.float32)
    ct.interpret((1,), kern, (x, want, 16))
    got = np.zeros(16, np.float32)
    ct.emulate((1,), k, (x, got, 16), race_check=True)
    assert np.array_equal(got, want), (got, want)


@pytest.mark.parametrize("name", sorted(sample_runs.RUNS))
def test_every_lowering_of_every_sample_interprets_like_the_source(name):
    """Differential interpretation of the default pipeline's stages on the front end's
    kernels: nv_tileaa, the pipelined nv_tileas and its register form must write exactly
    the bytes the cuda_tile kernel writes."""
    kern, grid, inputs, expected, _tol = sample_runs.reference(name)
    outputs = list(expected)
    for stage in ("nv_tileaa", "nv_tileas", "nv_tileas-registers"):
        _k, _g, args, _outs, _t = sample_runs.RUNS[name](np.random.default_rng(0))
        ct.interpret(grid, kern, args, stage=stage)
        for i in outputs:
            got, want = np.asarray(args[i]), expected[i]
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8), equal_nan=False), f"{stage}: output #{i} differs"


_SCHEDULED = {
    # Warp-specialized: a producer agent and a consumer agent (the interpreter runs them
    # concurrently; the LLVM writer cannot emit agents yet, so this is checked by execution).
    "aws": "tileas-materialize-schedule{use-AUS=false}",
    # Unspecialized, with the schedule's stage count stamped for the pipeliner.
    "aus": "tileas-materialize-schedule{use-AUS=true}",
}


@pytest.mark.parametrize("driver", sorted(_SCHEDULED))
@pytest.mark.parametrize("name", ["matmul_f16", "matmul_f32", "persistent_matmul", "batch_matmul", "attention"])
def test_schedule_materialization_interprets_like_the_source(name, driver):
    kern, grid, inputs, expected, _tol = sample_runs.reference(name)
    pipeline = _native.default_pipeline().replace(
        "tileas-unspecialized-pipeline", f"{_SCHEDULED[driver]},tileas-unspecialized-pipeline")
    _k, _g, args, _outs, _t = sample_runs.RUNS[name](np.random.default_rng(0))
    ct.interpret(grid, kern, args, stage="nv_tileas", pipeline=pipeline)
    for i, want in expected.items():
        assert np.array_equal(np.asarray(args[i]).view(np.uint8), want.view(np.uint8)), f"output #{i} differs"


def test_large_tiles_stay_unpipelined_by_default_to_avoid_spills():
    # 128x128x64 f16 tiles: one more stage of A and B in flight is 128 bytes per thread,
    # over the default budget (64); an explicit num_stages asks for it anyway.
    import warnings

    from test_frontend_samples import SAMPLES

    # (sm_80: on sm_90a these loads are left to the backend's TMA double buffer.)
    kern, args = SAMPLES["matmul_f16"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = ct.compile(kern, args(), target="sm_80")
    assert "pipeline<stages=1," in k.asm["nv_tileas"]
    assert k.ptxas_info.spill_stores_bytes == 0
    # Asked for explicitly, it is honoured (a spill would be reported as a
    # TileIRPerformanceWarning).
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        k2 = ct.compile(kern.replace_hints(num_stages=2), args(), target="sm_80")
    assert "pipeline<stages=2," in k2.asm["nv_tileas"]
    # Both run (one 128x128 tile, two K steps) like the interpreter.
    _runs_exactly(kern, k, (128, 128, 128), (1,))
    _runs_exactly(kern, k2, (128, 128, 128), (1,))
