"""Memory-ordering tokens from the front end (the token-order pass, cuTile's token order).

Accesses of one array are ordered in program order, so a store and a later load of the
same memory are separated by a CTA barrier on the GPU; accesses of arrays that do not
share memory stay unordered. Which arrays share memory is part of the specialization
(cuTile's element-disjointness)."""

import re

import numpy as np
import pytest

import tileir as ct
from tileir import emulator
from tileir._compile import compile_to_ir
from tileir._frontend.specialize import alias_labels, aliases_internally, memory_span, specialize

TARGETS = ["sm_80", "sm_90a"]


def barriers(ptx: str) -> int:
    return len(re.findall(r"\bbar\.sync|\bbarrier\.sync", ptx))


@ct.kernel
def store_then_reload(a, out):
    t = ct.load(a, index=(0,), shape=(256,))
    ct.store(a, index=(0,), tile=t + 1.0)
    # a[128:256], written just above by other threads than the ones that read it here
    u = ct.load(a, index=(1,), shape=(128,))
    ct.store(out, index=(0,), tile=u)


@ct.kernel
def copy_and_reread(a, b, out):
    t = ct.load(a, index=(0,), shape=(256,))
    ct.store(b, index=(0,), tile=t * 2.0)
    u = ct.load(a, index=(1,), shape=(128,))
    ct.store(out, index=(0,), tile=u)


def run_both(kernel, args, target):
    want = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    ct.interpret((1,), kernel, want)
    got = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    emulator.emulate((1,), kernel, got, target=target, race_check=True)
    return want, got


@pytest.mark.parametrize("target", TARGETS)
def test_a_load_after_a_store_to_the_same_array_waits_for_it(target):
    # Before the token-order pass every access took the initial token: no barrier, and
    # the emulator read the elements before the other threads had stored them (128 for 129).
    a = np.arange(256, dtype=np.float32)
    out = np.zeros(128, np.float32)
    compiled = ct.compile(store_then_reload, (a, out), target=target)
    assert barriers(compiled.asm["ptx"]) >= 1
    want, got = run_both(store_then_reload, [a, out], target)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[1], np.arange(128, 256, dtype=np.float32) + 1)


@pytest.mark.parametrize("target", TARGETS)
def test_accesses_of_disjoint_arrays_stay_unordered(target):
    a, b, out = np.arange(256, dtype=np.float32), np.zeros(256, np.float32), np.zeros(128, np.float32)
    compiled = ct.compile(copy_and_reread, (a, b, out), target=target)
    assert barriers(compiled.asm["ptx"]) == 0
    ir = str(compile_to_ir(copy_and_reread, (a, b, out)))
    assert "join_tokens" not in ir


@pytest.mark.parametrize("target", TARGETS)
def test_the_same_array_passed_twice_is_ordered(target):
    # b is a: the store through b must reach the load through a.
    a, out = np.arange(256, dtype=np.float32), np.zeros(128, np.float32)
    spec = specialize(copy_and_reread.fn, (a, a, out))
    assert spec.aliasing == (0, 0, 2)
    compiled = ct.compile(copy_and_reread, (a, a, out), target=target)
    assert barriers(compiled.asm["ptx"]) >= 1
    want = [a.copy(), None, out.copy()]
    want[1] = want[0]
    ct.interpret((1,), copy_and_reread, want)
    got = [a.copy(), None, out.copy()]
    got[1] = got[0]
    emulator.emulate((1,), copy_and_reread, got, target=target, race_check=True)
    np.testing.assert_array_equal(got[2], want[2])
    np.testing.assert_array_equal(got[2], np.arange(128, 256, dtype=np.float32) * 2)


def test_overlapping_views_share_an_alias_set_and_disjoint_views_do_not():
    base = np.zeros(1024, np.float32)
    out = np.zeros(128, np.float32)
    assert specialize(copy_and_reread.fn, (base[:300], base[200:600], out)).aliasing == (0, 0, 2)
    assert specialize(copy_and_reread.fn, (base[:300], base[300:600], out)).aliasing == (0, 1, 2)
    # a different aliasing is a different specialization: compiled separately
    k1 = ct.compile(copy_and_reread, (base[:300], base[200:600], out), target="sm_80")
    k2 = ct.compile(copy_and_reread, (base[:300], base[300:600], out), target="sm_80")
    assert barriers(k1.asm["ptx"]) >= 1 and barriers(k2.asm["ptx"]) == 0


def test_memory_spans_and_internal_aliasing():
    assert memory_span(1000, (4, 3), (3, 1), 32) == (1000, 1048)
    assert memory_span(1000, (4,), (-1,), 32) == (988, 1004)
    assert memory_span(1000, (0, 3), (3, 1), 32) == (1000, 1000)
    assert memory_span(1000, (3,), (1,), 4) == (1000, 1002)
    assert aliases_internally((4, 3), (0, 1))  # a broadcast row
    assert aliases_internally((4, 3), (2, 1))  # overlapping windows
    assert not aliases_internally((4, 3), (3, 1)) and not aliases_internally((4, 3), (1, 4))
    assert not aliases_internally((1, 5), (0, 1))  # a unit dimension's stride is never used
    assert alias_labels([((0, 10),), (), ((20, 30),), ((5, 25),)]) == (0, -1, 0, 0)
    assert alias_labels([((0, 10),), ((10, 20),), ((0, 0),)]) == (0, 1, 2)


def test_a_zero_stride_array_is_specialized_as_aliasing_itself():
    row = np.broadcast_to(np.arange(16, dtype=np.float32), (8, 16))
    out = np.zeros((8, 16), np.float32)

    @ct.kernel
    def copy2(x, y):
        ct.store(y, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(8, 16)))

    spec = specialize(copy2.fn, (row, out))
    assert spec.params[0].may_alias_internally and not spec.params[1].may_alias_internally


@ct.kernel
def rows_parallel(x, y, n: int):
    for i in range(n):
        t = ct.load(x, index=(i,), shape=(16,))
        ct.store(y, index=(i,), tile=t * 2.0)


@ct.kernel
def rows_shifted(x, y, n: int):
    for i in range(n):
        t = ct.load(x, index=(i,), shape=(16,))
        ct.store(y, index=(i + 1,), tile=t * 2.0)


@ct.kernel
def rows_halved(x, y, n: int):
    for i in range(n):
        t = ct.load(x, index=(i,), shape=(16,))
        ct.store(y, index=(i // 2,), tile=t * 2.0)


def test_a_store_indexed_by_the_loop_variable_is_a_parallel_store():
    x, y = np.arange(64, dtype=np.float32), np.zeros(80, np.float32)
    ir = str(compile_to_ir(rows_parallel, (x, y, 4)))
    assert "iter_values" not in ir, ir  # nothing carried from iteration to iteration
    # i + 1 differs in every iteration as well; i // 2 does not.
    ir = str(compile_to_ir(rows_shifted, (x, y, 4)))
    assert "iter_values" not in ir, ir
    ir = str(compile_to_ir(rows_halved, (x, y, 4)))
    assert re.search(r"iter_values\(%\w+ = %\w+\) -> \(token\)", ir), ir
    # A stride-0 destination writes the same elements in every iteration: not parallel.
    y0 = np.lib.stride_tricks.as_strided(np.zeros(16, np.float32), shape=(80,), strides=(0,))
    ir = str(compile_to_ir(rows_parallel, (x, y0, 4)))
    assert re.search(r"iter_values\(%\w+ = %\w+\) -> \(token\)", ir), ir


@pytest.mark.parametrize("target", TARGETS)
def test_loop_stores_run_on_the_emulator(target):
    x, y = np.arange(64, dtype=np.float32), np.zeros(80, np.float32)
    for kernel in (rows_parallel, rows_shifted, rows_halved):
        want, got = run_both(kernel, [x, y, 4], target)
        np.testing.assert_array_equal(got[1], want[1])


@ct.kernel
def list_store_then_load(arrays, out):
    t = ct.load(arrays[0], index=(0,), shape=(256,))
    ct.store(arrays[1], index=(0,), tile=t + 1.0)
    u = ct.load(arrays[0], index=(1,), shape=(128,))
    ct.store(out, index=(0,), tile=u)


@pytest.mark.parametrize("target", TARGETS)
def test_arrays_of_a_list_may_alias_each_other(target):
    # The kernel cannot know which list items are the same array: a store to one orders
    # later loads of any.
    a = np.arange(256, dtype=np.float32)
    out = np.zeros(128, np.float32)
    compiled = ct.compile(list_store_then_load, ([a, a], out), target=target)
    assert barriers(compiled.asm["ptx"]) >= 1
    ir = str(compile_to_ir(list_store_then_load, ([a, a], out)))
    store_tok = re.search(r"(%\d+) = store_view_tko", ir).group(1)
    assert re.search(rf"load_view_tko weak %\d+\[%\d+\] token = {store_tok}\b", ir), ir
    want = [[a.copy()], out.copy()]
    want[0].append(want[0][0])
    ct.interpret((1,), list_store_then_load, want)
    got = [[a.copy()], out.copy()]
    got[0].append(got[0][0])
    emulator.emulate((1,), list_store_then_load, got, target=target, race_check=True)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[1], a[128:] + 1)


def test_a_load_follows_the_store_before_it_and_print_follows_both():
    @ct.kernel
    def store_print(a):
        ct.store(a, index=(0,), tile=ct.full((16,), 1.0, ct.float32))
        ct.printf("%f\n", ct.load(a, index=(0,), shape=(16,)))

    ir = str(compile_to_ir(store_print, (np.zeros(16, np.float32),)))
    store_tok = re.search(r"(%\d+) = store_view_tko", ir).group(1)
    load_tok = re.search(rf"%\d+, (%\d+) = load_view_tko weak %\d+\[%\d+\] token = {store_tok}\b", ir).group(1)
    joined = re.search(rf"(%\d+) = join_tokens {store_tok}, {load_tok}\b", ir).group(1)
    assert re.search(rf"print_tko .* token={joined}\b", ir), ir


@pytest.mark.gpu
def test_launches_specialize_on_aliasing_and_the_fast_path_checks_it():
    # The second launch of each signature goes through the generated launcher, which must
    # notice that b is (or is no longer) a, and fall back to the other specialization.
    from tileir import cuda

    host = np.arange(256, dtype=np.float32)
    for _ in range(2):
        for same in (False, True, False):
            a = cuda.to_device(host)
            b = a if same else cuda.to_device(np.zeros(256, np.float32))
            out = cuda.to_device(np.zeros(128, np.float32))
            ct.launch(None, (1,), copy_and_reread, [a, b, out])
            cuda.synchronize()
            want = (host[128:] * 2) if same else host[128:]
            np.testing.assert_array_equal(out.copy_to_host(), want)


@ct.kernel
def persistent_rows(x, y, tiles_n: int, total: int):
    for t in range(ct.bid(0), total, ct.num_blocks(0)):
        bm = t // tiles_n
        bn = t % tiles_n
        ct.store(y, index=(bm, bn), tile=ct.load(x, index=(bm, bn), shape=(4, 8)) + 1.0)


@ct.kernel
def persistent_halves(x, y, total: int):
    for t in range(ct.bid(0), total, ct.num_blocks(0)):
        # t // 2 repeats every other iteration: two iterations store the same tile
        ct.store(y, index=(t // 2, 0), tile=ct.load(x, index=(t, 0), shape=(4, 8)))


def test_a_persistent_loops_quotient_and_remainder_store_is_parallel():
    # (t // n, t % n) differs in every iteration, so the stores need no order among
    # themselves (beyond cuTile's rule, which asks for the induction variable itself).
    x, y = np.arange(16 * 16, dtype=np.float32).reshape(16, 16), np.zeros((16, 16), np.float32)
    ir = str(compile_to_ir(persistent_rows, (x, y, 2, 8)))
    assert "iter_values" not in ir, ir
    ir = str(compile_to_ir(persistent_halves, (x, y, 4)))
    assert re.search(r"iter_values\(%\w+ = %\w+\) -> \(token\)", ir), ir
    # persistent_halves runs on one block: across blocks, two iterations storing the same
    # tile would race by design (blocks are unordered), and the order within a block, which
    # the carried token keeps, is what this test is about.
    for target in TARGETS:
        for grid, kernel, args in (((3,), persistent_rows, [x, y, 2, 8]),
                                   ((1,), persistent_halves, [x, y, 4])):
            want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            ct.interpret(grid, kernel, want)
            got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            emulator.emulate(grid, kernel, got, target=target, race_check=True)
            np.testing.assert_array_equal(got[1], want[1])
