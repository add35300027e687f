"""The front end's test kernels reach cubins: every kernel that the interpreter tests
(the MODULES below, each case of a parametrized test included) run through
``ct.interpret`` is also compiled for sm_80 and sm_90a (through ptxas when it
is installed) and run on the PTX emulator on copies of the same arguments, and must leave
memory as the interpreter did: exactly for integers and booleans, within a few ulps for
floats (the backend's math is within its documented bounds, and reductions may group
differently).

Each interpreter test runs as it is, with ``ct.interpret`` wrapped: the wrapper runs the
interpreter first (a call the interpreter refuses is left to the test), then the compiled
kernel. A kernel the backend cannot compile fails here, naming it."""

import importlib
import inspect
import os

import numpy as np
import pytest

import tileir as ct

MODULES = ("test_frontend_semantics", "test_interpret_kernels", "test_frontend_lang", "test_ops_numerics",
           "test_frontend_lists", "test_frontend_future")
TARGETS = ("sm_80", "sm_90a")
#: Interpreter calls per test that are also compiled and emulated (property tests make many);
#: TILEIR_EMULATE_ALL_CALLS=1 emulates every one (a longer run, kept out of CI).
CALLS_PER_TEST = None if os.environ.get("TILEIR_EMULATE_ALL_CALLS") == "1" else 3

#: Tests whose kernels the emulator cannot be held to the interpreter's exact results on.
NOT_COMPARED = {
    "test_ops_numerics.test_custom_reduce_and_scan_are_sequential_element_then_accumulator":
        "its combiners are order-sensitive: cuda_tile leaves the order of a reduction open, the "
        "interpreter documents a sequential one and the backend reduces as a tree",
    "test_interpret_kernels.test_read_write_races_name_both_blocks_the_array_and_the_element":
        "its tile blocks race by design (block i reads what block i + 1 writes), so the result "
        "depends on the order the emulator's CTAs run in",
}


def _cases(fn):
    """(keyword arguments, id suffix) for each case of a test: one without arguments, or
    every combination of its `parametrize` marks (a test taking fixtures gives none)."""
    cases = [({}, "")]
    for mark in getattr(fn, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = [n.strip() for n in (mark.args[0].split(",") if isinstance(mark.args[0], str) else mark.args[0])]
        expanded = []
        for i, value in enumerate(mark.args[1]):
            if hasattr(value, "values") and hasattr(value, "marks"):  # pytest.param(...)
                if value.marks:
                    continue
                value = value.values if len(names) > 1 else value.values[0]
            values = value if len(names) > 1 else (value,)
            for kw, suffix in cases:
                expanded.append(({**kw, **dict(zip(names, values))}, f"{suffix}-{i}"))
        cases = expanded
    params = set(inspect.signature(fn).parameters)
    return [(kw, suffix) for kw, suffix in cases if set(kw) == params]


def _tests():
    out = []
    for name in MODULES:
        mod = importlib.import_module(name)
        for fname, fn in sorted(vars(mod).items()):
            if not fname.startswith("test_") or not callable(fn):
                continue
            marks = getattr(fn, "pytestmark", [])
            if any(m.name in ("gpu", "skip", "skipif", "xfail") for m in marks):
                continue
            for kw, suffix in _cases(fn):
                test_id = f"{name}.{fname}{suffix}"
                out.append(pytest.param(fn, kw, f"{name}.{fname}" in NOT_COMPARED, id=test_id))
    return out


def _compare(got, want, what, approximate=False):
    if not isinstance(want, np.ndarray):
        return
    if want.dtype.kind == "f" and want.dtype.itemsize >= 2:
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        assert (np.isnan(w) == np.isnan(g)).all(), f"{what}: NaN positions differ:\n{g}\n{w}"
        infinite = np.isinf(w) | np.isinf(g)
        assert (g[infinite] == w[infinite]).all(), f"{what}: infinities differ:\n{g}\n{w}"
        finite = np.isfinite(w) & ~infinite
        # The approx forms (tanh.approx: relative error 2^-10.987) are emulated correctly
        # rounded by the emulator and as the documented structure by the interpreter.
        eps = 2.0 ** -13 if approximate else float(np.finfo(want.dtype).eps)
        scale = max(float(np.max(np.abs(w[finite]), initial=0.0)), 1.0)
        np.testing.assert_allclose(g[finite], w[finite], rtol=8 * eps, atol=64 * eps * scale, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("test,kwargs,compiled_only", _tests())
def test_interpreted_kernels_also_compile_and_match_on_the_emulator(test, kwargs, compiled_only, monkeypatch):
    real = ct.interpret
    ran = []

    def interpret_then_emulate(grid, kernel, args, *rest, **kw):
        before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        result = real(grid, kernel, args, *rest, **kw)
        if kw.get("stage") not in (None, "cuda_tile") or (CALLS_PER_TEST is not None and len(ran) >= CALLS_PER_TEST):
            return result
        # Atomics make the outcome depend on the order tile blocks run in (which one wins a
        # compare-and-swap): such kernels must compile and run, their results not match.
        ir = str(ct.compile_to_ir(kernel, before))
        racy = "atomic_" in ir or compiled_only
        approximate = "rounding<approx>" in ir
        for target in TARGETS:
            mine = [a.copy() if isinstance(a, np.ndarray) else a for a in before]
            try:
                ct.emulate(grid, kernel, mine, target=target, race_check=True)
            except Exception as e:  # noqa: BLE001 - reported with the kernel's name
                raise AssertionError(f"kernel '{getattr(kernel, '__name__', kernel)}' for {target}: "
                                     f"{type(e).__name__}: {e}") from e
            for i, (g, w) in enumerate(zip(mine, args) if not racy else ()):
                _compare(g, w, f"kernel '{getattr(kernel, '__name__', kernel)}' argument #{i} on {target}", approximate)
        ran.append(kernel)
        return result

    monkeypatch.setattr(ct, "interpret", interpret_then_emulate)
    test(**kwargs)
    if not ran:
        pytest.skip("the test interprets no kernel successfully")
