"""Every kernel-side operation compiles to a cubin (through ptxas) for sm_80 and sm_90a, and
the cubin's PTX runs on the emulator like the kernel on the interpreter.

The kernels are those of ``test_frontend_ops.CASES`` (one small kernel per cuTile
operation, 99 in all). The backend has no dead-code elimination, so every op a kernel
builds is lowered even when its result is unused. Operations the backend cannot compile
yet are listed in ``NOT_YET`` with the reason; they must fail with a located error that
names the op (never a wrong cubin), and ``xfail_strict`` turns an unexpected success into
a failure so the list cannot go stale.
"""

import re

import numpy as np
import pytest

import tileir as ct

from test_frontend_ops import ARGS, CASES, _module_for

TARGETS = ["sm_80", "sm_90a"]

#: The grid each op's kernel is emulated and interpreted on (the kernels read bid(1), bid(2)).
GRID = (2, 2, 2)

#: operation -> (cuda_tile op that is missing, why); per target where it differs.
NOT_YET = {}

#: Failing only on some targets: (operation, target) -> (missing op, why).
NOT_YET_ON = {}


def _expectation(name, target):
    return NOT_YET_ON.get((name, target)) or NOT_YET.get(name)


def _params():
    out = []
    for name in sorted(CASES):
        for target in TARGETS:
            marks = []
            missing = _expectation(name, target)
            if missing:
                marks.append(pytest.mark.xfail(reason=f"'{missing[0]}': {missing[1]}", raises=ct.errors.CompilationError,
                                               strict=True))
            out.append(pytest.param(name, target, marks=marks, id=f"{name}-{target}"))
    return out


@pytest.mark.parametrize("name,target", _params())
def test_operation_reaches_a_cubin(tmp_path_factory, name, target):
    mod = _module_for(tmp_path_factory, name, CASES[name])
    missing = _expectation(name, target)
    try:
        k = ct.compile(mod.k, ARGS, target=target)
    except ct.errors.CompilationError as e:
        if missing:
            # The refusal is located and names the op.
            assert f"cuda_tile.{missing[0]}" in str(e), str(e)
            assert re.search(r"op_\w+\.py:\d+:\d+: error:", str(e)), str(e)
        raise
    assert k.cubin[:4] == b"\x7fELF"
    assert f".target {target}" in k.asm["ptx"]
    # The cubin's PTX runs on the emulator (no undefined behaviour) and leaves every array
    # argument as the interpreter does.
    emulated = [a.copy() if isinstance(a, np.ndarray) else a for a in ARGS]
    interpreted = [a.copy() if isinstance(a, np.ndarray) else a for a in ARGS]
    # (No race check: some cases scatter duplicate indices, a race of the program itself.)
    ct.emulate(GRID, k, emulated)
    ct.interpret(GRID, mod.k, interpreted)
    for i, (got, want) in enumerate(zip(emulated, interpreted)):
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, want, err_msg=f"argument #{i}")


def test_unsupported_ops_are_few_and_named():
    assert set(NOT_YET) <= set(CASES)
    assert not NOT_YET
