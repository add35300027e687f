"""Autotuning: time a kernel over a search space of configurations and keep the fastest
(cuTile's ``cuda.tile.tune``, with a persistent result cache).

    import tileir as ct

    result = ct.tune.exhaustive_search(
        [(128, 128, 64), (128, 256, 64), (64, 64, 64)],      # the search space
        stream,
        lambda cfg: (ct.cdiv(m, cfg[0]) * ct.cdiv(n, cfg[1]),),   # grid_fn
        matmul,                                               # or cfg -> kernel
        lambda cfg: (a, b, c, *cfg),                          # args_fn
        lambda cfg: {"num_stages": 4},                        # hints_fn (optional)
    )
    result.best.config, result.best.mean_us
    print(result.summary())

The statistics are cuTile's: each configuration is compiled and run three times untimed,
then timed in batches of five runs (CUDA events, the L2 cache flushed before each run).
The five fastest keep getting batches until each has converged: at least five samples and
an error margin (half the 95% confidence interval of the mean) under 1% of the mean or
0.5 µs, or 1000 samples, or 5 s of measured time. A candidate whose best case (mean minus
margin) cannot beat the fifth-best's worst case stops being timed. Failures (a compile
error, a launch error, a configuration over ``single_run_timeout_sec``) are collected in
the result, not raised.

tileir additions, keyword-only:

* ``cache`` (default True): the result is stored in the persistent compile cache
  (``TILEIR_CACHE_DIR``; off with ``TILEIR_CACHE=0``), keyed by every configuration's
  compile key (kernel source and the values it reads, hints, argument specialization,
  target, toolchain), its grid and its ``repr``, and the GPU's name: a second search over
  the same space returns the stored result without timing (``TuningResult.cached``).
* ``target``: the architecture to compile for (default: the current GPU's).
* ``timer``: ``timer(run, n) -> [µs, ...]`` times ``n`` calls of ``run`` (default: CUDA
  events on ``stream``, with the L2 flush).

``single_run_timeout_sec`` bounds each configuration's compile and first timed batch. A
compile over it is abandoned (it finishes in a background thread, which never launches);
runs over it are finished, then the configuration is dropped; a kernel that hangs on the
GPU cannot be stopped from this process (cuTile times in a subprocess for that). Each
configuration's kernel is compiled for ``target`` and that compiled kernel is what runs.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence, Tuple

__all__ = ["exhaustive_search", "TuningResult", "Measurement"]

WARMUP_RUNS = 3
BATCH_RUNS = 5
TOP_CANDIDATES = 5
MIN_SAMPLES = 5
MAX_SAMPLES = 1000
MAX_MEASURED_US = 5e6
RELATIVE_MARGIN = 0.01
ABSOLUTE_MARGIN_US = 0.5

# Student's t at 97.5% for 1..30 degrees of freedom (then the normal quantile).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


@dataclass(frozen=True)
class Measurement:
    """One configuration's timing: mean of ``num_samples`` runs in µs, and the error margin
    (half the 95% confidence interval of the mean)."""
    config: Any
    mean_us: float
    num_samples: int
    error_margin_us: float


@dataclass
class TuningResult:
    """``best``: the fastest Measurement (None when every configuration failed);
    ``successes`` fastest first; ``failures`` as (config, message); ``cached``: whether the
    result came from the persistent cache instead of timing."""
    best: Optional[Measurement]
    successes: List[Measurement] = field(default_factory=list)
    failures: List[Tuple[Any, str]] = field(default_factory=list)
    cached: bool = False

    def summary(self) -> str:
        """A table of the timed configurations (fastest first), then the failures."""
        lines = [f"{'rank':>4}  {'mean µs':>10}  {'± µs':>8}  {'samples':>7}  config"]
        for i, m in enumerate(self.successes):
            lines.append(f"{i + 1:>4}  {m.mean_us:>10.2f}  {m.error_margin_us:>8.2f}  {m.num_samples:>7}  {m.config!r}")
        for cfg, why in self.failures:
            lines.append(f"{'-':>4}  {'failed':>10}  {'':>8}  {'':>7}  {cfg!r}: {why}")
        if self.cached:
            lines.append("(from the tuning cache)")
        return "\n".join(lines)


class _Candidate:
    def __init__(self, index: int, config: Any, run: Callable[[], None]):
        self.index, self.config, self.run = index, config, run
        self.samples: List[float] = []
        self.dropped = False

    @property
    def mean(self) -> float:
        return sum(self.samples) / len(self.samples)

    @property
    def margin(self) -> float:
        n = len(self.samples)
        if n < 2:
            return math.inf
        mean = self.mean
        sd = math.sqrt(sum((x - mean) ** 2 for x in self.samples) / (n - 1))
        t = _T975[n - 2] if n - 2 < len(_T975) else 1.96
        return t * sd / math.sqrt(n)

    def converged(self) -> bool:
        n = len(self.samples)
        if n >= MAX_SAMPLES or sum(self.samples) >= MAX_MEASURED_US:
            return True
        margin = self.margin
        return n >= MIN_SAMPLES and (margin < RELATIVE_MARGIN * self.mean or margin < ABSOLUTE_MARGIN_US)

    def measurement(self) -> Measurement:
        return Measurement(self.config, self.mean, len(self.samples), self.margin)


def _search(candidates: List[_Candidate], timer: Callable[[Callable[[], None], int], List[float]],
            failures: List[Tuple[Any, str]], say: Callable[[str], None]) -> bool:
    """Times ``candidates`` (each already has its first batch) until the fastest
    TOP_CANDIDATES have converged; a candidate that fails is moved to ``failures``.
    Returns whether any did."""
    failed = False
    while True:
        live = [c for c in candidates if not c.dropped]
        live.sort(key=lambda c: (c.mean, c.index))
        top = live[:TOP_CANDIDATES]
        if top:
            # The slowest of the top, at its worst: nobody whose best case is slower can
            # enter the top any more.
            bar = max(c.mean + c.margin for c in top)
            for c in live[TOP_CANDIDATES:]:
                if c.mean - c.margin > bar:
                    c.dropped = True
        pending = [c for c in top if not c.converged()]
        if not pending:
            return failed
        for c in pending:
            try:
                c.samples.extend(_checked(timer(c.run, BATCH_RUNS), BATCH_RUNS))
            except Exception as e:  # noqa: BLE001 - a failing configuration is a result
                failures.append((c.config, _message(e)))
                candidates.remove(c)
                failed = True
                say(f"{c.config!r}: failed while timing: {_message(e)}")


def _checked(times: Sequence[float], n: int) -> List[float]:
    out = [float(t) for t in times]
    if len(out) != n or not all(math.isfinite(t) and t >= 0 for t in out):
        raise RuntimeError(f"the timer returned {out!r} for {n} runs")
    return out


def _message(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}".rstrip(": ")


def _event_timer(stream: Any) -> Callable[[Callable[[], None], int], List[float]]:
    """CUDA-event timing on ``stream``: before each run the L2 cache is flushed by writing
    a buffer twice its size."""
    from ._toolchain import cuda

    flush = cuda.empty((max(2 * cuda.l2_cache_bytes(), 64 << 20),), "uint8")

    def timer(run: Callable[[], None], n: int) -> List[float]:
        out = []
        for _ in range(n):
            cuda.memset_async(flush, 0, flush.nbytes, stream)
            start = cuda.Event().record(stream)
            run()
            end = cuda.Event().record(stream)
            out.append(start.elapsed_ms(end) * 1000.0)
        return out

    return timer


def _launch(stream: Any, grid: Any, kernel: Any, args: Any) -> None:
    from ._compile import launch

    launch(stream, grid, kernel, args)


def _device_identity(target: str) -> str:
    """The GPU's name and the target (the target alone without a GPU)."""
    from ._toolchain import cuda

    try:
        return f"{cuda.device_name()} {target}" if cuda.is_available() else target
    except Exception:  # noqa: BLE001 - identity without a usable GPU: the target alone
        return target


def _cache_key(prepared: List[Tuple[int, Any, Any, Any, Any]], target: str) -> Optional[str]:
    from . import cache as _disk
    from ._frontend.specialize import specialize

    parts = ["tileir.tune 2", _device_identity(target)]
    for index, cfg, kern, grid, args in prepared:
        text = repr(cfg)
        if " at 0x" in text:
            return None
        try:
            key = _disk.compile_key(kern, specialize(kern.fn, tuple(args)), target=target, pipeline="", opt_level=-1,
                                    ptxas=None)
            # The compile key holds the specialization only (dtypes, alignment facts): the
            # problem's size is in the arrays' shapes and strides and the scalars' values.
            problem = _problem_of(args)
        except Exception:  # noqa: BLE001 - an argument the key cannot describe: not cached
            return None
        if key is None or problem is None:
            return None
        parts.append(f"{index} {text} {grid!r} {key} {problem}")
    return _disk._sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _problem_of(args: Sequence[Any]) -> Optional[str]:
    """Each argument's dtype, shape and strides (arrays) or value (scalars, Constants), as
    text; None when one has no stable description."""
    import numpy as np

    from ._toolchain import cuda

    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(f"{a.dtype.str}{a.shape}{a.strides}")
        elif isinstance(a, list) or cuda.has_array_interface(a):
            items = a if isinstance(a, list) else [a]
            infos = [cuda.array_info(x) for x in items]
            out.append(repr([(i.dtype_name, tuple(i.shape), tuple(i.strides_elems)) for i in infos]))
        else:
            text = repr(a)
            if " at 0x" in text:
                return None
            out.append(f"{type(a).__name__}:{text}")
    return ";".join(out)


def _load_cached(key: str, configs: List[Any]) -> Optional[TuningResult]:
    from . import cache as _disk

    entry = _disk.load(key)
    if entry is None:
        return None
    meta = entry[0]
    try:
        successes = [Measurement(configs[i], float(mean), int(n), float(margin)) for i, mean, n, margin in meta["successes"]]
        failures = [(configs[i], str(why)) for i, why in meta["failures"]]
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return TuningResult(successes[0] if successes else None, successes, failures, cached=True)


def _store(key: str, result: TuningResult, index_of: Callable[[Any], int]) -> None:
    from . import cache as _disk

    meta = {
        "kind": "tuning",
        "successes": [[index_of(m.config), m.mean_us, m.num_samples, m.error_margin_us] for m in result.successes],
        "failures": [[index_of(c), why] for c, why in result.failures],
    }
    _disk.store(key, meta, {})


def _with_deadline(fn: Callable[[], Any], seconds: Optional[float], what: str) -> Any:
    """``fn()``, abandoned (TimeoutError) after ``seconds``; it then finishes in the
    background."""
    if seconds is None:
        return fn()
    box: dict = {}

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e

    t = threading.Thread(target=work, name="tileir-tune", daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        raise TimeoutError(f"{what} exceeded single_run_timeout_sec={seconds}")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def exhaustive_search(search_space: Any, stream: Any, grid_fn: Callable[[Any], Any], kernel: Any,
                      args_fn: Callable[[Any], Any], hints_fn: Optional[Callable[[Any], dict]] = None, *,
                      quiet: bool = False, single_run_timeout_sec: Optional[float] = None, cache: bool = True,
                      target: Optional[str] = None,
                      timer: Optional[Callable[[Callable[[], None], int], List[float]]] = None) -> TuningResult:
    """Times ``kernel`` (or ``kernel(cfg)``) over every configuration of ``search_space``
    and returns the :class:`TuningResult` (see the module documentation)."""
    from ._compile import Kernel, _device_target, compile as _compile

    configs = list(search_space)
    if not configs:
        raise ValueError("exhaustive_search: the search space is empty")
    if single_run_timeout_sec is not None and not single_run_timeout_sec > 0:
        raise ValueError(f"single_run_timeout_sec must be positive, got {single_run_timeout_sec!r}")
    say = (lambda text: None) if quiet else (lambda text: print(f"tileir.tune: {text}", file=sys.stderr, flush=True))
    target = target or _device_target()
    failures: List[Tuple[Any, str]] = []

    # Each configuration's kernel, grid and arguments.
    prepared = []
    for i, cfg in enumerate(configs):
        try:
            kern = kernel if isinstance(kernel, Kernel) else kernel(cfg)
            if not isinstance(kern, Kernel):
                raise TypeError(f"kernel must be a tileir kernel or a function of the configuration returning one, "
                                f"got {type(kern).__name__}")
            hints = hints_fn(cfg) if hints_fn is not None else {}
            if hints:
                kern = kern.replace_hints(**hints)
            grid, args = grid_fn(cfg), tuple(args_fn(cfg))
            grid = (int(grid),) if isinstance(grid, int) else tuple(int(g) for g in grid)
            prepared.append((i, cfg, kern, grid, args))
        except Exception as e:  # noqa: BLE001 - a bad configuration is a result
            failures.append((cfg, _message(e)))
            say(f"[{i + 1}/{len(configs)}] {cfg!r}: failed: {_message(e)}")

    from . import knobs

    use_cache = cache and knobs.cache_enabled() and len(prepared) == len(configs)
    key = _cache_key(prepared, target) if use_cache else None
    if key is not None:
        hit = _load_cached(key, configs)
        if hit is not None:
            if hit.best is not None:
                say(f"cached result: best {hit.best.config!r} at {hit.best.mean_us:.2f} µs")
            return hit

    timer = timer or _event_timer(stream)
    candidates: List[_Candidate] = []
    # A compile error is a fact of the configuration (cached with the result); a timeout or
    # a failure while running may not recur (the result is not cached).
    transient = False
    for i, cfg, kern, grid, args in prepared:
        def first_batch(kern=kern, grid=grid, args=args) -> Tuple[float, Callable[[], None], List[float]]:
            start = time.perf_counter()
            # The compile may be abandoned at the deadline (it finishes in the background);
            # the runs are timed here, never by an abandoned thread.
            compiled = _with_deadline(lambda: _compile(kern, args, target=target), single_run_timeout_sec, "compiling")
            compiled_s = time.perf_counter() - start

            def run(compiled=compiled) -> None:
                _launch(stream, grid, compiled, args)

            timer(run, WARMUP_RUNS)
            samples = _checked(timer(run, BATCH_RUNS), BATCH_RUNS)
            if single_run_timeout_sec is not None and time.perf_counter() - start > single_run_timeout_sec:
                raise TimeoutError(f"compiling and timing exceeded single_run_timeout_sec={single_run_timeout_sec}")
            return compiled_s, run, samples

        try:
            compiled_s, run, samples = first_batch()
        except Exception as e:  # noqa: BLE001 - a failing configuration is a result
            from .errors import CompilationError, FrontendError, ToolchainError

            transient |= not isinstance(e, (FrontendError, CompilationError, ToolchainError))
            failures.append((cfg, _message(e)))
            say(f"[{i + 1}/{len(configs)}] {cfg!r}: failed: {_message(e)}")
            continue
        c = _Candidate(i, cfg, run)
        c.samples.extend(samples)
        candidates.append(c)
        say(f"[{i + 1}/{len(configs)}] {cfg!r}: {c.mean:.2f} µs (compiled in {compiled_s:.2f} s)")

    transient |= _search(candidates, timer, failures, say)
    order = sorted(candidates, key=lambda c: (c.mean, c.index))
    result = TuningResult(order[0].measurement() if order else None, [c.measurement() for c in order], failures)
    if result.best is not None:
        say(f"best {result.best.config!r}: {result.best.mean_us:.2f} µs ± {result.best.error_margin_us:.2f} "
            f"({result.best.num_samples} samples)")
    else:
        say("every configuration failed")
    if key is not None and not transient:
        index = {id(c): i for i, c in enumerate(configs)}
        _store(key, result, lambda c: index[id(c)])
    return result
