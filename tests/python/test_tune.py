"""``ct.tune.exhaustive_search`` (issue #14's autotuner) without a GPU: every configuration
is really compiled (for sm_90a); the launch is recorded instead of run and the timer is a
stand-in with known means, so the search's statistics, failures, progress and cache are
checked exactly. ``test_gpu_search`` times for real when a GPU is present."""

import math
import re
import time

import numpy as np
import pytest

import tileir as ct
from tileir import tune

from kernels import vector_add

N = 4096


def args_for(cfg):
    x = np.arange(N, dtype=np.float32)
    return (x, x, np.zeros(N, np.float32), cfg["tile"])


def grid_for(cfg):
    return (ct.cdiv(N, cfg["tile"]),)


class FakeTimer:
    """Times a run at the mean its tile maps to, with a fixed relative wobble that gives
    each configuration a small spread (so margins shrink as samples grow). It runs each
    run (recorded by the ``launches`` fixture), which tells the tile."""

    def __init__(self, means, spread=0.002):
        self.means, self.spread = means, spread
        self.calls = {}

    def __call__(self, run, n):
        for _ in range(n):
            run()
        tile = LAUNCHED[-1][2]
        self.calls[tile] = self.calls.get(tile, 0) + n
        k = self.calls[tile]
        return [self.means[tile] * (1 + self.spread * math.sin(k + i)) for i in range(n)]


#: (grid, compiled kernel, tile) of every launch, while the ``launches`` fixture is active.
LAUNCHED = []


@pytest.fixture
def launches(monkeypatch):
    LAUNCHED.clear()
    monkeypatch.setattr(tune, "_launch", lambda stream, grid, kernel, args: LAUNCHED.append((grid, kernel, args[-1])))
    return LAUNCHED


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEIR_CACHE", "1")
    return tmp_path


def search(space, timer, **kw):
    kw.setdefault("target", "sm_90a")
    kw.setdefault("quiet", True)
    return tune.exhaustive_search(space, None, grid_for, vector_add, args_for, timer=timer, **kw)


def test_the_fastest_configuration_wins_and_slow_ones_stop_early(launches, cache_dir):
    means = {64: 9.0, 128: 5.0, 256: 4.0, 512: 6.0, 1024: 7.0, 2048: 500.0, 32: 8.0}
    space = [{"tile": t} for t in means]
    timer = FakeTimer(means)
    result = search(space, timer, cache=False)
    assert result.best.config == {"tile": 256}
    assert [m.config["tile"] for m in result.successes] == sorted(means, key=means.get)
    assert not result.failures and not result.cached
    for m in result.successes:
        assert abs(m.mean_us - means[m.config["tile"]]) < 0.01 * means[m.config["tile"]]
        assert m.num_samples >= tune.MIN_SAMPLES
    # The top five converged (margin under 1% of the mean); the slowest, hopeless after
    # its first batch, was never timed again: 3 warm-ups + 5.
    top = result.successes[:tune.TOP_CANDIDATES]
    assert all(m.error_margin_us < 0.01 * m.mean_us for m in top)
    assert timer.calls[2048] == tune.WARMUP_RUNS + tune.BATCH_RUNS
    # Every run launched the configuration's own grid and arguments.
    assert {(g, t) for g, _, t in launches} == {((N // t,), t) for t in means}


def test_hints_and_kernel_factories_apply_per_configuration(launches, cache_dir):
    # occupancy caps registers at 65536 / (occupancy x threads), at most 255 (vector_add runs
    # 64 threads here): the compiled kernel that runs is the configuration's own.
    space = [{"tile": 128, "occupancy": 4}, {"tile": 256, "occupancy": 8}]
    result = tune.exhaustive_search(space, None, grid_for, lambda cfg: vector_add, args_for,
                                    lambda cfg: {"occupancy": cfg["occupancy"]}, target="sm_90a", quiet=True,
                                    cache=False, timer=FakeTimer({128: 3.0, 256: 4.0}))
    assert result.best.config["tile"] == 128
    caps = {(re.search(r"\.maxnreg (\d+)", k.asm["ptx"]).group(1), t) for _, k, t in launches}
    assert caps == {("255", 128), ("128", 256)}
    assert all(k.target == "sm_90a" for _, k, _ in launches)


def test_failures_are_collected_not_raised(launches, cache_dir, capsys):
    # 100 is no power of two (the front end rejects the tile); args_fn failing is a result
    # too.
    space = [{"tile": 128}, {"tile": 100}, {"tile": "bad"}]

    def args(cfg):
        if cfg["tile"] == "bad":
            raise ValueError("no arguments for this one")
        return args_for(cfg)

    result = tune.exhaustive_search(space, None, lambda cfg: (1,), vector_add, args, target="sm_90a",
                                    timer=FakeTimer({128: 2.0, 100: 1.0}))
    assert result.best.config == {"tile": 128}
    failed = dict((c["tile"], why) for c, why in result.failures)
    assert set(failed) == {100, "bad"}
    assert "power of two" in failed[100] or "power of 2" in failed[100], failed[100]
    assert failed["bad"] == "ValueError: no arguments for this one"
    err = capsys.readouterr().err
    # Progress: a line per configuration and the winner.
    assert "tileir.tune: [1/3] {'tile': 128}: 2.00 µs" in err
    assert "tileir.tune: [2/3] {'tile': 100}: failed" in err
    assert "tileir.tune: best {'tile': 128}" in err
    assert "failed" in result.summary() and "{'tile': 100}" in result.summary()


def test_every_configuration_failing_leaves_no_best(launches, cache_dir):
    def broken(run, n):
        raise RuntimeError("launch failed")

    result = search([{"tile": 128}, {"tile": 256}], broken)
    assert result.best is None and not result.successes and len(result.failures) == 2
    assert all(why == "RuntimeError: launch failed" for _, why in result.failures)


def test_results_are_cached_per_search_space(launches, cache_dir):
    means = {128: 3.0, 256: 2.0}
    space = [{"tile": t} for t in means]
    first = search(space, FakeTimer(means))
    assert not first.cached
    timer = FakeTimer(means)
    again = search([{"tile": 128}, {"tile": 256}], timer)
    assert again.cached and timer.calls == {}
    assert again.best.config == {"tile": 256} and again.best.mean_us == first.best.mean_us
    assert [m.num_samples for m in again.successes] == [m.num_samples for m in first.successes]
    assert "(from the tuning cache)" in again.summary()
    # Another problem size (the same specialization: shapes are not in the compile key).
    def bigger(cfg):
        x = np.arange(2 * N, dtype=np.float32)
        return (x, x, np.zeros(2 * N, np.float32), cfg["tile"])

    again = tune.exhaustive_search(space, None, grid_for, vector_add, bigger, target="sm_90a", quiet=True,
                                   timer=FakeTimer(means))
    assert not again.cached
    # Another space, another hint, cache=False or TILEIR_CACHE=0: timed again.
    assert not search([{"tile": 128}, {"tile": 512}], FakeTimer({128: 3.0, 512: 1.0})).cached
    assert not search(space, FakeTimer(means), cache=False).cached
    hinted = tune.exhaustive_search(space, None, grid_for, vector_add, args_for, lambda cfg: {"num_stages": 3},
                                    target="sm_90a", quiet=True, timer=FakeTimer(means))
    assert not hinted.cached


def test_a_search_with_a_transient_failure_is_not_cached(launches, cache_dir):
    calls = []

    def flaky(run, n):
        calls.append(n)
        if len(calls) == 2:
            raise RuntimeError("unspecified launch failure")
        return [5.0] * n

    space = [{"tile": 128}, {"tile": 256}]
    assert len(search(space, flaky).failures) == 1
    assert not search(space, FakeTimer({128: 1.0, 256: 2.0})).cached


def test_single_run_timeout(launches, cache_dir):
    def slow(run, n):
        time.sleep(0.3)
        return [1.0] * n

    result = search([{"tile": 128}], slow, single_run_timeout_sec=0.1, cache=False)
    assert result.best is None
    assert "exceeded single_run_timeout_sec=0.1" in result.failures[0][1]
    # A compile over the limit is abandoned before anything runs.
    before = len(launches)
    result = search([{"tile": 16}], FakeTimer({16: 1.0}), single_run_timeout_sec=1e-6, cache=False)
    assert "compiling exceeded single_run_timeout_sec" in result.failures[0][1]
    assert len(launches) == before
    with pytest.raises(ValueError, match="single_run_timeout_sec"):
        search([{"tile": 128}], slow, single_run_timeout_sec=0)


def test_an_integer_grid_is_a_one_dimensional_grid(launches, cache_dir):
    result = tune.exhaustive_search([{"tile": 256}], None, lambda cfg: N // cfg["tile"], vector_add, args_for,
                                    target="sm_90a", quiet=True, cache=False, timer=FakeTimer({256: 1.0}))
    assert result.best is not None and {g for g, _, _ in launches} == {(N // 256,)}


def test_an_empty_search_space_is_an_error():
    with pytest.raises(ValueError, match="search space is empty"):
        search([], FakeTimer({}))


def test_statistics_converge_like_cutile():
    # A candidate converges at 5+ samples with a margin under 1% of the mean or 0.5 µs.
    c = tune._Candidate(0, "c", None)
    c.samples = [10.0, 10.01, 9.99, 10.0]
    assert not c.converged()
    c.samples.append(10.0)
    assert c.converged()
    wide = tune._Candidate(1, "w", None)
    wide.samples = [10.0, 20.0, 5.0, 15.0, 12.0]
    assert not wide.converged()
    tiny = tune._Candidate(2, "t", None)
    tiny.samples = [1.0, 1.2, 0.9, 1.1, 1.0]  # 10% spread but under 0.5 µs
    assert tiny.converged()


@pytest.mark.gpu
def test_gpu_search():
    from tileir import cuda

    if not cuda.is_available():
        pytest.skip("no GPU: the CUDA driver is not available")
    x = cuda.to_device(np.arange(N, dtype=np.float32))
    out = cuda.empty((N,), np.float32)
    result = tune.exhaustive_search([{"tile": t} for t in (128, 256, 1024)], None, grid_for, vector_add,
                                    lambda cfg: (x, x, out, cfg["tile"]), quiet=True, cache=False)
    assert result.best is not None and not result.failures
    assert all(m.mean_us > 0 for m in result.successes)
