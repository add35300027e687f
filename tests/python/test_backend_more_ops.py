"""Ops lowered through pointer tiles or module globals (gather/scatter views, view
reductions, globals), written as cuda_tile text: the generated code (on the PTX emulator) must
read and write what the reference interpreter does, and pass ptxas for sm_80 and sm_90a."""

import numpy as np
import pytest

import tileir
import tileir.interpreter
import tileir.ir
from tileir import _native
from tileir._toolchain import compile_to_ptx, find_ptxas, run_ptxas
from tileir.emulator import run_ptx


def _copy(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _check(text, entry, grid, args, scalar_kinds=None):
    """Runs `entry` on the interpreter and (for both targets) on the emulator; returns the
    interpreter's arrays after asserting the emulator's match them."""
    m = tileir.ir.parse(text)
    ref = _copy(args)
    tileir.interpreter.run_module(m, entry, grid, ref)
    for target in ("sm_80", "sm_90a"):
        out = _native.compile(m, target=target, pipeline="", debug_info=False)
        ptx, _ = compile_to_ptx(dict(out["stages"])["llvm"], cpu=target)
        if find_ptxas():
            res = run_ptxas(ptx, arch=target)
            assert getattr(res, "ok", True), res
        got = _copy(args)
        emu_args = [
            (scalar_kinds or {}).get(i, ("i32", a)) if not isinstance(a, np.ndarray) else a for i, a in enumerate(got)
        ]
        emu_args = [a if isinstance(a, np.ndarray) else ("i32", a) if not isinstance(a, tuple) else a for a in emu_args]
        run_ptx(ptx, entry, grid, (out["kernels"][0]["num_threads"],), emu_args)
        for r, g in zip(ref, got):
            if isinstance(r, np.ndarray):
                np.testing.assert_array_equal(g, r, err_msg=target)
    return ref


GATHER = """
cuda_tile.module @m {
  entry @gather(%x: tile<ptr<f32>>, %ix: tile<ptr<i32>>, %y: tile<ptr<f32>>, %n: tile<i32>) {
    %tv = make_tensor_view %x, shape = [%n, 12], strides = [12, 1] : tile<i32> -> tensor_view<?x12xf32, strides=[12,1]>
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(8x8), padding_value = nan, tensor_view<?x12xf32, strides=[12,1]>, sparse_dim=0>
    %iv = make_tensor_view %ix, shape = [16], strides = [1] : tensor_view<16xi32, strides=[1]>
    %ip = make_partition_view %iv : partition_view<tile=(8), tensor_view<16xi32, strides=[1]>>
    %ov = make_tensor_view %y, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf32, strides=[16,1]>
    %op = make_partition_view %ov : partition_view<tile=(8x8), tensor_view<16x16xf32, strides=[16,1]>>
    %b:3 = get_tile_block_id : tile<i32>
    %rows, %t1 = load_view_tko weak %ip[%b#0] : partition_view<tile=(8), tensor_view<16xi32, strides=[1]>>, tile<i32> -> tile<8xi32>, token
    %g, %t2 = load_view_tko weak %gv[%rows, %b#1] : gather_scatter_view<tile=(8x8), padding_value = nan, tensor_view<?x12xf32, strides=[12,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> tile<8x8xf32>, token
    %t3 = store_view_tko weak %g, %op[%b#0, %b#1] : tile<8x8xf32>, partition_view<tile=(8x8), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
"""


def test_gather_view_pads_out_of_range_rows_and_columns():
    rng = np.random.default_rng(1)
    n = 20
    x = rng.standard_normal((n, 12)).astype(np.float32)
    # In range, just past the end, far past it, and -1 (unsigned: huge) all appear.
    ix = np.array([3, 19, 20, 0, 7, 25, -1, 11, 5, 5, 18, 2, 1000, 9, 0, 13], np.int32)
    y = np.full((16, 16), -1.0, np.float32)
    ref = _check(GATHER, "gather", (2, 2), [x, ix, y, n])[2]
    assert ref[0, 0] == x[3, 0] and np.isnan(ref[2, 0]) and np.isnan(ref[6, 3])
    # Columns 12..15 of the second column tile are out of bounds: padded.
    assert np.isnan(ref[0, 12]) and ref[0, 11] == x[3, 11]


SCATTER = """
cuda_tile.module @m {
  entry @scatter(%v: tile<ptr<i32>>, %ix: tile<ptr<i64>>, %y: tile<ptr<i32>>) {
    %vv = make_tensor_view %v, shape = [8, 8], strides = [8, 1] : tensor_view<8x8xi32, strides=[8,1]>
    %vp = make_partition_view %vv : partition_view<tile=(4x8), tensor_view<8x8xi32, strides=[8,1]>>
    %iv = make_tensor_view %ix, shape = [8], strides = [1] : tensor_view<8xi64, strides=[1]>
    %ip = make_partition_view %iv : partition_view<tile=(8), tensor_view<8xi64, strides=[1]>>
    %yv = make_tensor_view %y, shape = [6, 20], strides = [20, 1] : tensor_view<6x20xi32, strides=[20,1]>
    %gv = make_gather_scatter_view %yv : gather_scatter_view<tile=(4x8), tensor_view<6x20xi32, strides=[20,1]>, sparse_dim=1>
    %b:3 = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %cols, %t1 = load_view_tko weak %ip[%c0] : partition_view<tile=(8), tensor_view<8xi64, strides=[1]>>, tile<i32> -> tile<8xi64>, token
    %val, %t2 = load_view_tko weak %vp[%b#0, %c0] : partition_view<tile=(4x8), tensor_view<8x8xi32, strides=[8,1]>>, tile<i32> -> tile<4x8xi32>, token
    %t3 = store_view_tko weak %val, %gv[%b#0, %cols] : tile<4x8xi32>, gather_scatter_view<tile=(4x8), tensor_view<6x20xi32, strides=[20,1]>, sparse_dim=1>, tile<i32>, tile<8xi64> -> token
    return
  }
}
"""


def test_scatter_view_masks_out_of_range_rows_and_columns():
    rng = np.random.default_rng(2)
    v = rng.integers(-1000, 1000, (8, 8)).astype(np.int32)
    # Distinct columns (no write races), two of them out of range.
    ix = np.array([19, 0, 20, 7, 3, 1 << 40, 12, 5], np.int64)
    y = np.full((6, 20), -7, np.int32)
    ref = _check(SCATTER, "scatter", (2,), [v, ix, y])[2]
    assert ref[0, 19] == v[0, 0] and ref[5, 12] == v[5, 6]
    # Rows 6 and 7 of the second tile fall outside the 6-row tensor: not written anywhere.
    assert (ref[:, [c for c in range(20) if c not in (19, 0, 7, 3, 12, 5)]] == -7).all()


RED_PARTITION = """
cuda_tile.module @m {
  entry @red(%v: tile<ptr<i32>>, %y: tile<ptr<i32>>) {
    %vv = make_tensor_view %v, shape = [12, 8], strides = [8, 1] : tensor_view<12x8xi32, strides=[8,1]>
    %vp = make_partition_view %vv : partition_view<tile=(4x8), tensor_view<12x8xi32, strides=[8,1]>>
    %yv = make_tensor_view %y, shape = [10, 8], strides = [8, 1] : tensor_view<10x8xi32, strides=[8,1]>
    %yp = make_partition_view %yv : partition_view<tile=(4x8), tensor_view<10x8xi32, strides=[8,1]>>
    %b:3 = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %val, %t1 = load_view_tko weak %vp[%b#0, %c0] : partition_view<tile=(4x8), tensor_view<12x8xi32, strides=[8,1]>>, tile<i32> -> tile<4x8xi32>, token
    %t2 = atomic_red_view_tko relaxed device %yp[%b#0, %c0], MODE, %val : tile<4x8xi32>, partition_view<tile=(4x8), tensor_view<10x8xi32, strides=[8,1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("mode", ["add", "max", "umin", "xor"])
def test_atomic_red_partition_view_skips_the_ragged_edge(mode):
    rng = np.random.default_rng(3)
    v = rng.integers(-50, 50, (12, 8)).astype(np.int32)
    y = rng.integers(-50, 50, (10, 8)).astype(np.int32)
    # Three row tiles: the last covers rows 8..11 of a 10-row tensor.
    _check(RED_PARTITION.replace("MODE", mode), "red", (3,), [v, y])


RED_STRIDED = """
cuda_tile.module @m {
  entry @red(%v: tile<ptr<f32>>, %y: tile<ptr<f32>>, %n: tile<i32>) {
    %vv = make_tensor_view %v, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %vp = make_partition_view %vv : partition_view<tile=(8), tensor_view<64xf32, strides=[1]>>
    %yv = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %sv = make_strided_view %yv : strided_view<tile=(8), traversal_strides=[3], tensor_view<?xf32, strides=[1]>>
    %b:3 = get_tile_block_id : tile<i32>
    %val, %t1 = load_view_tko weak %vp[%b#0] : partition_view<tile=(8), tensor_view<64xf32, strides=[1]>>, tile<i32> -> tile<8xf32>, token
    %t2 = atomic_red_view_tko relaxed tl_blk %sv[%b#0], addf, %val : tile<8xf32>, strided_view<tile=(8), traversal_strides=[3], tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


def test_atomic_red_strided_view_overlapping_windows():
    # Small integers in f32: sums are exact whatever order the overlapping windows land in.
    rng = np.random.default_rng(4)
    n = 20
    v = rng.integers(-8, 8, 64).astype(np.float32)
    y = rng.integers(-8, 8, n).astype(np.float32)
    # ceil((20 - 8) / 3) + 1 = 5 windows; the last (15..22) runs past the end.
    _check(RED_STRIDED, "red", (5,), [v, y, n])


GLOBALS = """
cuda_tile.module @m {
  global private constant @tab alignment = 16 <f32: [1.5, -2.0, 3.25, 4.0, 5.0, -6.5, 7.0, 8.0]> : tile<8xf32>
  global @bias <i32: [10, 20, 30, 40]> : tile<4xi32>
  entry @k(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %z: tile<ptr<i32>>) {
    %io = iota : tile<8xi32>
    %g = get_global @tab : tile<ptr<f32>>
    %g1 = reshape %g : tile<ptr<f32>> -> tile<1xptr<f32>>
    %gb = broadcast %g1 : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %gp = offset %gb, %io : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %t, %t1 = load_ptr_tko weak %gp : tile<8xptr<f32>> -> tile<8xf32>, token
    %xv = make_tensor_view %x, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
    %xp = make_partition_view %xv : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %a, %t2 = load_view_tko weak %xp[%c0] : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>, tile<i32> -> tile<8xf32>, token
    %s = mulf %a, %t rounding<nearest_even> : tile<8xf32>
    %yv = make_tensor_view %y, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
    %yp = make_partition_view %yv : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>
    %t3 = store_view_tko weak %s, %yp[%c0] : tile<8xf32>, partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>, tile<i32> -> token
    %h = get_global @bias : tile<ptr<i32>>
    %h1 = reshape %h : tile<ptr<i32>> -> tile<1xptr<i32>>
    %hb = broadcast %h1 : tile<1xptr<i32>> -> tile<4xptr<i32>>
    %i4 = iota : tile<4xi32>
    %hp = offset %hb, %i4 : tile<4xptr<i32>>, tile<4xi32> -> tile<4xptr<i32>>
    %bv, %t4 = load_ptr_tko weak %hp : tile<4xptr<i32>> -> tile<4xi32>, token
    %zv = make_tensor_view %z, shape = [4], strides = [1] : tensor_view<4xi32, strides=[1]>
    %zp = make_partition_view %zv : partition_view<tile=(4), tensor_view<4xi32, strides=[1]>>
    %t5 = store_view_tko weak %bv, %zp[%c0] : tile<4xi32>, partition_view<tile=(4), tensor_view<4xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


def test_globals_are_initialized_and_readable():
    x = np.random.default_rng(5).standard_normal(8).astype(np.float32)
    y = np.zeros(8, np.float32)
    z = np.zeros(4, np.int32)
    ref = _check(GLOBALS, "k", (1,), [x, y, z])
    np.testing.assert_array_equal(ref[2], [10, 20, 30, 40])
    m = tileir.ir.parse(GLOBALS)
    stages = dict(_native.compile(m, target="sm_90a", pipeline="", debug_info=False)["stages"])
    assert "nv_tileaa.global constant @tab alignment = 16" in stages["nv_tileaa"]
    assert "@tileir_global_tab = addrspace(1) constant [8 x float]" in stages["llvm"]


BF16_ATOMIC_ADD = """
cuda_tile.module @m {
  entry @k(%y: tile<ptr<bf16>>) {
    %io = iota : tile<32xi32>
    %y1 = reshape %y : tile<ptr<bf16>> -> tile<1xptr<bf16>>
    %yb = broadcast %y1 : tile<1xptr<bf16>> -> tile<32xptr<bf16>>
    %p = offset %yb, %io : tile<32xptr<bf16>>, tile<32xi32> -> tile<32xptr<bf16>>
    %one = constant <bf16: 1.0> : tile<32xbf16>
    %old, %t = atomic_rmw_tko relaxed device %p, addf, %one : tile<32xptr<bf16>>, tile<32xbf16> -> tile<32xbf16>, token
    return
  }
}
"""


def test_bf16_atomic_add_before_sm_90_is_a_located_error():
    m = tileir.ir.parse(BF16_ATOMIC_ADD, file_name="a.mlir")
    with pytest.raises(Exception) as err:
        _native.compile(m, target="sm_80", pipeline="", debug_info=False)
    text = str(err.value)
    assert "a.mlir:9:" in text and "atomic addf on bf16 needs sm_90 or newer; the target is sm_80" in text, text
    # sm_90a has the instruction.
    out = _native.compile(m, target="sm_90a", pipeline="", debug_info=False)
    ptx, _ = compile_to_ptx(dict(out["stages"])["llvm"], cpu="sm_90a")
    assert "atom" in ptx and "bf16" in ptx
    if find_ptxas():
        run_ptxas(ptx, arch="sm_90a")


def directed_bf16(mode):
    ty = "tensor_view<128xbf16, strides=[1]>"
    pv = f"partition_view<tile=(128), {ty}>"
    ops = "\n".join(
        f"    %r{i} = {op} %a, %b rounding<{mode}> : tile<128xbf16>\n"
        f"    %yv{i} = make_tensor_view %y{i}, shape = [128], strides = [1] : {ty}\n"
        f"    %yp{i} = make_partition_view %yv{i} : {pv}\n"
        f"    %ts{i} = store_view_tko weak %r{i}, %yp{i}[%c0] : tile<128xbf16>, {pv}, tile<i32> -> token"
        for i, op in enumerate(["addf", "subf", "mulf", "divf"]))
    params = ", ".join(f"%y{i}: tile<ptr<bf16>>" for i in range(4))
    return f"""
cuda_tile.module @m {{
  entry @k(%x: tile<ptr<bf16>>, %w: tile<ptr<bf16>>, {params}) {{
    %c0 = constant <i32: 0> : tile<i32>
    %xv = make_tensor_view %x, shape = [128], strides = [1] : {ty}
    %xp = make_partition_view %xv : {pv}
    %wv = make_tensor_view %w, shape = [128], strides = [1] : {ty}
    %wp = make_partition_view %wv : {pv}
    %a, %t0 = load_view_tko weak %xp[%c0] : {pv}, tile<i32> -> tile<128xbf16>, token
    %b, %t1 = load_view_tko weak %wp[%c0] : {pv}, tile<i32> -> tile<128xbf16>, token
{ops}
    return
  }}
}}
"""


@pytest.mark.parametrize("mode", ["zero", "negative_inf", "positive_inf"])
def test_bf16_arithmetic_with_directed_rounding_is_bit_exact(mode):
    rng = np.random.default_rng(7)
    # bf16 bit patterns: the top halves of random f32 values, finite and of mixed scale.
    def bf16(n, scale):
        f = (rng.standard_normal(n) * scale).astype(np.float32)
        return (f.view(np.uint32) >> 16).astype(np.uint16)
    x, w = bf16(128, 1e3), bf16(128, 1.0)
    outs = [np.zeros(128, np.uint16) for _ in range(4)]
    ref = _check(directed_bf16(mode), "k", (1,), [x, w] + outs)
    assert all(r.any() for r in ref[2:])


def narrow_globals(elem, values):
    n = len(values)
    return f"""
cuda_tile.module @m {{
  global private constant @tab <{elem}: [{", ".join(values)}]> : tile<{n}x{elem}>
  entry @k(%y: tile<ptr<f32>>) {{
    %io = iota : tile<{n}xi32>
    %g = get_global @tab : tile<ptr<{elem}>>
    %g1 = reshape %g : tile<ptr<{elem}>> -> tile<1xptr<{elem}>>
    %gb = broadcast %g1 : tile<1xptr<{elem}>> -> tile<{n}xptr<{elem}>>
    %gp = offset %gb, %io : tile<{n}xptr<{elem}>>, tile<{n}xi32> -> tile<{n}xptr<{elem}>>
    %t, %t1 = load_ptr_tko weak %gp : tile<{n}xptr<{elem}>> -> tile<{n}x{elem}>, token
    %p = print_tko "%g\\n", %t : tile<{n}x{elem}> -> token
    %f = ftof %t : tile<{n}x{elem}> -> tile<{n}xf32>
    %yv = make_tensor_view %y, shape = [{n}], strides = [1] : tensor_view<{n}xf32, strides=[1]>
    %yp = make_partition_view %yv : partition_view<tile=({n}), tensor_view<{n}xf32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %t2 = store_view_tko weak %f, %yp[%c0] : tile<{n}xf32>, partition_view<tile=({n}), tensor_view<{n}xf32, strides=[1]>>, tile<i32> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize("elem,values", [
    ("f8E4M3FN", ["1.0", "-2.5", "448.0", "0.015625", "-0.0", "3.0", "-6.0", "0.5"]),
    ("f8E5M2", ["1.0", "-3.0", "57344.0", "0.25", "-0.0", "1.5", "-1024.0", "2.0"]),
    ("f4E2M1FN", ["0.5", "-1.0", "6.0", "1.5", "-0.0", "3.0", "-4.0", "2.0", "1.0", "-0.5", "0.0", "-6.0", "4.0", "-1.5", "2.0", "3.0"]),
    ("tf32", ["1.0", "-2.5", "3.140625", "1026.0", "-0.0", "0.125", "7.0", "-9.0"]),
])
def test_globals_and_prints_of_narrow_formats(elem, values):
    text = narrow_globals(elem, values)
    y = np.zeros(len(values), np.float32)
    ref = _check(text, "k", (1,), [y])
    np.testing.assert_array_equal(ref[0], np.array([float(v) for v in values], np.float32))
    for target in ("sm_80", "sm_90a"):
        out = _native.compile(tileir.ir.parse(text), target=target, pipeline="", debug_info=False)
        ptx, _ = compile_to_ptx(dict(out["stages"])["llvm"], cpu=target)
        res = run_ptx(ptx, "k", (1,), (out["kernels"][0]["num_threads"],), [np.zeros(len(values), np.float32)])
        printed = res.output.strip()
        assert printed.startswith("[") and len(printed.split(",")) == len(values), printed
        assert [float(v) for v in printed.strip("[]").split(",")] == [float(v) for v in values], printed
