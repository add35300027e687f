"""`cuda_tile.alloca` in the generated code (device-heap memory private to the tile block,
freed where its block ends) and the CTA barriers that token-ordered memory accesses need
when another thread may have touched the same bytes. Each kernel runs on the PTX emulator
for sm_80 and sm_90a and must leave memory as the reference interpreter does."""

import re

import numpy as np
import pytest

import tileir.interpreter
import tileir.ir
from tileir import _native
from tileir._toolchain import compile_to_ptx, find_ptxas, run_ptxas
from tileir.emulator import run_ptx

TARGETS = ("sm_80", "sm_90a")


def _ptx(text, target):
    out = _native.compile(tileir.ir.parse(text, file_name="k.mlir"), target=target, pipeline="", debug_info=False)
    ptx, _ = compile_to_ptx(dict(out["stages"])["llvm"], cpu=target)
    if find_ptxas():
        res = run_ptxas(ptx, arch=target)
        assert getattr(res, "ok", True), res
    return ptx, out["kernels"][0]["num_threads"]


def _run_both(text, grid, args, **emu):
    """The interpreter's arrays; asserts the emulator's match them on both targets and
    returns the last emulation's result too."""
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    tileir.interpreter.run_module(tileir.ir.parse(text), "k", grid, ref)
    res = None
    for target in TARGETS:
        ptx, threads = _ptx(text, target)
        got = [a.copy() if isinstance(a, np.ndarray) else ("i32", a) for a in args]
        res = run_ptx(ptx, "k", grid, (threads,), got, **emu)
        for r, g in zip(ref, got):
            if isinstance(r, np.ndarray):
                np.testing.assert_array_equal(g, r, err_msg=target)
    return ref, res


def _ptr_tile(name, n, ty, src):
    return (f"%{name}1 = reshape {src} : tile<ptr<{ty}>> -> tile<1xptr<{ty}>>\n"
            f"    %{name} = broadcast %{name}1 : tile<1xptr<{ty}>> -> tile<{n}xptr<{ty}>>")


def reverse_kernel(n, alignment=16, flags=""):
    """Each tile block writes its block id + iota into an alloca, reads it back reversed
    (token-ordered after the store: element i was written by another thread), and stores
    that and the alloca's address modulo its alignment to y."""
    return f"""
cuda_tile.module @m {{
  entry @k(%y: tile<ptr<f32>>, %al: tile<ptr<i64>>) {{
    %p = alloca num_elem = {n}, alignment = {alignment} {flags}: tile<ptr<f32>>
    %io = iota : tile<{n}xi32>
    {_ptr_tile("pb", n, "f32", "%p")}
    %pp = offset %pb, %io : tile<{n}xptr<f32>>, tile<{n}xi32> -> tile<{n}xptr<f32>>
    %b:3 = get_tile_block_id : tile<i32>
    %bb1 = reshape %b#0 : tile<i32> -> tile<1xi32>
    %bb = broadcast %bb1 : tile<1xi32> -> tile<{n}xi32>
    %k = constant <i32: 1000> : tile<{n}xi32>
    %base = muli %bb, %k : tile<{n}xi32>
    %vals = addi %base, %io : tile<{n}xi32>
    %f = itof %vals signed rounding<nearest_even> : tile<{n}xi32> -> tile<{n}xf32>
    %t0 = store_ptr_tko weak %pp, %f : tile<{n}xptr<f32>>, tile<{n}xf32> -> token
    %last = constant <i32: {n - 1}> : tile<{n}xi32>
    %rev = subi %last, %io : tile<{n}xi32>
    %pr = offset %pb, %rev : tile<{n}xptr<f32>>, tile<{n}xi32> -> tile<{n}xptr<f32>>
    %v, %t1 = load_ptr_tko weak %pr token=%t0 : tile<{n}xptr<f32>> -> tile<{n}xf32>, token
    %w = ptr_to_int %p : tile<ptr<f32>> -> tile<i64>
    %am = constant <i64: {alignment - 1}> : tile<i64>
    %mis = andi %w, %am : tile<i64>
    %yv = make_tensor_view %y, shape = [8, {n}], strides = [{n}, 1] : tensor_view<8x{n}xf32, strides=[{n},1]>
    %yp = make_partition_view %yv : partition_view<tile=(1x{n}), tensor_view<8x{n}xf32, strides=[{n},1]>>
    %v2 = reshape %v : tile<{n}xf32> -> tile<1x{n}xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %t2 = store_view_tko weak %v2, %yp[%b#0, %c0] : tile<1x{n}xf32>, partition_view<tile=(1x{n}), tensor_view<8x{n}xf32, strides=[{n},1]>>, tile<i32>, tile<i32> -> token
    {_ptr_tile("ab", 1, "i64", "%al")}
    %bo = reshape %b#0 : tile<i32> -> tile<1xi32>
    %aq = offset %ab, %bo : tile<1xptr<i64>>, tile<1xi32> -> tile<1xptr<i64>>
    %mis1 = reshape %mis : tile<i64> -> tile<1xi64>
    %t3 = store_ptr_tko weak %aq, %mis1 : tile<1xptr<i64>>, tile<1xi64> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize("n,alignment,flags", [(256, 16, ""), (64, 128, "global "), (1024, 256, "")])
def test_alloca_memory_is_shared_by_the_tile_block_and_freed(n, alignment, flags):
    text = reverse_kernel(n, alignment, flags)
    y = np.full((8, n), -1.0, np.float32)
    al = np.full(8, -1, np.int64)
    ref, res = _run_both(text, (8, 1, 1), [y, al])
    expect = (np.arange(8)[:, None] * 1000 + np.arange(n)[None, ::-1]).astype(np.float32)
    np.testing.assert_array_equal(ref[0], expect)
    # The emulator's heap: one allocation per tile block, each aligned, each freed.
    assert res.heap_allocations == 8 and res.heap_frees == 8 and res.heap_live_at_exit == 0, res
    ptx, _ = _ptx(text, "sm_90a")
    assert "call.uni (retval0), malloc" in ptx and "call.uni free" in ptx
    # The reversed load reads what other threads stored: a barrier lies between them.
    store, load = ptx.index("st.global"), ptx.rindex("ld.global")
    assert "bar.sync" in ptx[store:load], ptx


LOOP = """
cuda_tile.module @m {
  entry @k(%y: tile<ptr<f32>>, %n: tile<i32>) {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %z = constant <f32: 0.0> : tile<128xf32>
    %acc = for %i in (%c0 to %n, step %c1) : tile<i32> iter_values(%a = %z) -> (tile<128xf32>) {
      %p = alloca num_elem = 128, alignment = 16 : tile<ptr<f32>>
      %io = iota : tile<128xi32>
      %p1 = reshape %p : tile<ptr<f32>> -> tile<1xptr<f32>>
      %pb = broadcast %p1 : tile<1xptr<f32>> -> tile<128xptr<f32>>
      %pp = offset %pb, %io : tile<128xptr<f32>>, tile<128xi32> -> tile<128xptr<f32>>
      %ib1 = reshape %i : tile<i32> -> tile<1xi32>
      %ib = broadcast %ib1 : tile<1xi32> -> tile<128xi32>
      %s = addi %io, %ib : tile<128xi32>
      %f = itof %s signed rounding<nearest_even> : tile<128xi32> -> tile<128xf32>
      %t0 = store_ptr_tko weak %pp, %f : tile<128xptr<f32>>, tile<128xf32> -> token
      %c127 = constant <i32: 127> : tile<128xi32>
      %rev = subi %c127, %io : tile<128xi32>
      %pr = offset %pb, %rev : tile<128xptr<f32>>, tile<128xi32> -> tile<128xptr<f32>>
      %v, %t1 = load_ptr_tko weak %pr token=%t0 : tile<128xptr<f32>> -> tile<128xf32>, token
      %r = remi %i, %c2 signed : tile<i32>
      %odd = cmpi equal %r, %c1, signed : tile<i32> -> tile<i1>
      if %odd {
        continue %a : tile<128xf32>
      }
      %na = addf %a, %v rounding<nearest_even> : tile<128xf32>
      continue %na : tile<128xf32>
    }
    %yv = make_tensor_view %y, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %yp = make_partition_view %yv : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %t2 = store_view_tko weak %acc, %yp[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


def test_alloca_in_a_loop_is_freed_on_every_path_out_of_its_block():
    # Odd iterations leave the body through `continue` inside an `if`, even ones at its
    # end: both free the iteration's memory.
    y = np.zeros(128, np.float32)
    ref, res = _run_both(LOOP, (2, 1, 1), [y, 5])
    assert ref[0][0] == 127 * 3 + (0 + 2 + 4)
    assert res.heap_allocations == 10 and res.heap_frees == 10 and res.heap_live_at_exit == 0, res


def test_an_exhausted_device_heap_fails_the_launch_at_the_alloca():
    text = reverse_kernel(256)
    ptx, threads = _ptx(text, "sm_90a")
    with pytest.raises(Exception) as e:
        run_ptx(ptx, "k", (8, 1, 1), (threads,), [np.zeros((8, 256), np.float32), np.zeros(8, np.int64)],
                malloc_heap_bytes=1000)
    msg = str(e.value)
    assert "cuda_tile.alloca: the device heap has no 1024 bytes left" in msg and "k.mlir:4" in msg, msg


def test_alloca_with_a_bad_alignment_is_a_verifier_error():
    bad = reverse_kernel(64).replace("alignment = 16", "alignment = 3")
    with pytest.raises(Exception) as e:
        _native.compile(tileir.ir.parse(bad), target="sm_90a", pipeline="", debug_info=False)
    assert "alignment" in str(e.value)


# ---- token order between tiled accesses ----

def rows_kernel(transposed):
    """Stores a 64 x 64 tile through one view, then (token-ordered) loads it back through a
    view that is the same (each thread reads what it wrote) or the transpose (it reads
    what other threads wrote), and stores that to z."""
    xv = "tensor_view<64x64xf32, strides=[64,1]>"
    rv = "tensor_view<64x64xf32, strides=[1,64]>" if transposed else xv
    reread = (f"%rv = make_tensor_view %y, shape = [64, 64], strides = [1, 64] : {rv}\n"
              f"    %rp = make_partition_view %rv : partition_view<tile=(64x64), {rv}>") if transposed else \
        f"%rp = make_partition_view %yv : partition_view<tile=(64x64), {rv}>"
    return f"""
cuda_tile.module @m {{
  entry @k(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %z: tile<ptr<f32>>) {{
    %c0 = constant <i32: 0> : tile<i32>
    %xv = make_tensor_view %x, shape = [64, 64], strides = [64, 1] : {xv}
    %xp = make_partition_view %xv : partition_view<tile=(64x64), {xv}>
    %yv = make_tensor_view %y, shape = [64, 64], strides = [64, 1] : {xv}
    %yp = make_partition_view %yv : partition_view<tile=(64x64), {xv}>
    {reread}
    %zv = make_tensor_view %z, shape = [64, 64], strides = [64, 1] : {xv}
    %zp = make_partition_view %zv : partition_view<tile=(64x64), {xv}>
    %a, %t0 = load_view_tko weak %xp[%c0, %c0] : partition_view<tile=(64x64), {xv}>, tile<i32>, tile<i32> -> tile<64x64xf32>, token
    %t1 = store_view_tko weak %a, %yp[%c0, %c0] token = %t0 : tile<64x64xf32>, partition_view<tile=(64x64), {xv}>, tile<i32>, tile<i32> -> token
    %b, %t2 = load_view_tko weak %rp[%c0, %c0] token = %t1 : partition_view<tile=(64x64), {rv}>, tile<i32>, tile<i32> -> tile<64x64xf32>, token
    %t3 = store_view_tko weak %b, %zp[%c0, %c0] : tile<64x64xf32>, partition_view<tile=(64x64), {xv}>, tile<i32>, tile<i32> -> token
    return
  }}
}}
"""


def _barriers_between_store_and_reload(ptx):
    first_store = ptx.index("st.global")
    last_load = ptx.rindex("ld.global")
    return ptx[first_store:last_load].count("bar.sync")


def test_a_reload_through_another_view_waits_for_the_store_at_a_barrier():
    x = np.random.default_rng(2).standard_normal((64, 64)).astype(np.float32)
    ref, _ = _run_both(rows_kernel(True), (1, 1, 1), [x, np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32)])
    np.testing.assert_array_equal(ref[2], x.T)
    for target in TARGETS:
        assert _barriers_between_store_and_reload(_ptx(rows_kernel(True), target)[0]) >= 1, target


def test_a_reload_of_the_same_tile_by_the_same_threads_needs_no_barrier():
    # The store takes no token here; the reload, through an equal view of y, reads in each
    # thread what that thread stored.
    text = rows_kernel(False).replace(" token = %t0 : tile<64x64xf32>", " : tile<64x64xf32>")
    x = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    ref, _ = _run_both(text, (1, 1, 1), [x, np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32)])
    np.testing.assert_array_equal(ref[2], x)
    for target in TARGETS:
        assert "bar.sync" not in _ptx(text, target)[0], target


def test_a_store_ordered_after_a_load_of_another_array_waits_for_it():
    # x and y may be one array: like NVIDIA's compiler, tileir does not assume distinct
    # parameters never alias, so the store waits for every thread's load (one barrier).
    text = rows_kernel(False).replace(" token = %t1 :", " :")
    for target in TARGETS:
        ptx = _ptx(text, target)[0]
        assert ptx.count("bar.sync") == 1, target
        assert ptx.index("ld.global") < ptx.index("bar.sync") < ptx.index("st.global"), target


def test_untokened_accesses_and_reads_after_reads_get_no_barrier():
    # The same kernel with the reload taking the first load's token (read after read)
    # and the store taking none: nothing orders the store, so no barrier is placed.
    text = rows_kernel(True).replace("token = %t1 :", "token = %t0 :").replace(" token = %t0 : tile<64x64xf32>", " : tile<64x64xf32>")
    assert re.search(r"load_view_tko weak %rp\[%c0, %c0\] token = %t0", text)
    for target in TARGETS:
        assert "bar.sync" not in _ptx(text, target)[0], target
