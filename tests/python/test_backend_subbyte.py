"""Sub-byte elements in the generated code: f4E2M1FN tiles in memory (two to a byte, the
lower index in the low nibble), i4 tiles, and `pack` / `unpack` of 1- and 4-bit elements.
Each kernel (cuda_tile text) runs on the PTX emulator for sm_80 and sm_90a and must leave
memory exactly as the reference interpreter does; its PTX passes ptxas."""

import numpy as np
import pytest

import tileir
import tileir.ir
from tileir import _native

from test_backend_more_ops import _check

F4 = "f4E2M1FN"


def tensor(name, shape, strides, elem):
    dims = "x".join(str(d) for d in shape)
    return f"tensor_view<{dims}x{elem}, strides=[{','.join(str(s) for s in strides)}]>"


def f4_copy_kernel(rows, cols, row_stride, tile, padding="neg_inf", dynamic_stride=None):
    """y = f32(x) tile by tile (x: f4 with padding), z = f4(1.5 * f32(x)); x and z are
    rows x cols f4 arrays with `row_stride` elements per row (static, or the scalar argument
    %s with an assumed divisor when `dynamic_stride` is that divisor)."""
    tr, tc = tile
    stride = "?" if dynamic_stride else row_stride
    xt = f"tensor_view<{rows}x{cols}x{F4}, strides=[{stride},1]>"
    make = (f"make_tensor_view %x, shape = [{rows}, {cols}], strides = [%sd, 1] : tile<i32> -> {xt}"
            if dynamic_stride else f"make_tensor_view %x, shape = [{rows}, {cols}], strides = [{row_stride}, 1] : {xt}")
    makez = make.replace("%x", "%z")
    gr, gc = -(-rows // tr), -(-cols // tc)
    yt = f"tensor_view<{gr * tr}x{gc * tc}xf32, strides=[{gc * tc},1]>"
    xp = f"partition_view<tile=({tr}x{tc}), padding_value = {padding}, {xt}>"
    zp = f"partition_view<tile=({tr}x{tc}), {xt}>"
    yp = f"partition_view<tile=({tr}x{tc}), {yt}>"
    assume = f"%sd = assume div_by<{dynamic_stride}>, %s : tile<i32>" if dynamic_stride else ""
    return f"""
cuda_tile.module @m {{
  entry @k(%x: tile<ptr<{F4}>>, %y: tile<ptr<f32>>, %z: tile<ptr<{F4}>>, %s: tile<i32>) {{
    {assume}
    %xv = {make}
    %zv = {makez}
    %xp = make_partition_view %xv : {xp}
    %zp = make_partition_view %zv : {zp}
    %yv = make_tensor_view %y, shape = [{gr * tr}, {gc * tc}], strides = [{gc * tc}, 1] : {yt}
    %yp = make_partition_view %yv : {yp}
    %b:3 = get_tile_block_id : tile<i32>
    %v, %t0 = load_view_tko weak %xp[%b#0, %b#1] : {xp}, tile<i32>, tile<i32> -> tile<{tr}x{tc}x{F4}>, token
    %f = ftof %v : tile<{tr}x{tc}x{F4}> -> tile<{tr}x{tc}xf32>
    %t1 = store_view_tko weak %f, %yp[%b#0, %b#1] : tile<{tr}x{tc}xf32>, {yp}, tile<i32>, tile<i32> -> token
    %c = constant <f32: 1.5> : tile<{tr}x{tc}xf32>
    %g = mulf %f, %c : tile<{tr}x{tc}xf32>
    %h = ftof %g : tile<{tr}x{tc}xf32> -> tile<{tr}x{tc}x{F4}>
    %t2 = store_view_tko weak %h, %zp[%b#0, %b#1] : tile<{tr}x{tc}x{F4}>, {zp}, tile<i32>, tile<i32> -> token
    return
  }}
}}
""", (gr, gc, 1), (gr * tr, gc * tc)


@pytest.mark.parametrize("rows,cols,row_stride,tile,padding", [
    (6, 10, 14, (4, 8), "neg_inf"),   # ragged: rows and columns past the end, a gap between rows
    (8, 32, 32, (8, 16), "zero"),     # whole tiles
    (5, 6, 8, (2, 4), "nan"),         # NaN padding saturates to +6
    (3, 2, 2, (4, 2), "neg_zero"),
])
def test_f4_tiles_load_and_store_through_tensor_views(rows, cols, row_stride, tile, padding):
    rng = np.random.default_rng(rows * 100 + cols)
    text, grid, yshape = f4_copy_kernel(rows, cols, row_stride, tile, padding)
    nbytes = rows * row_stride // 2 + 1
    x = rng.integers(0, 256, nbytes, dtype=np.uint8)
    # z starts with random bytes: the nibbles no element covers (the gap to the next row)
    # must come back untouched.
    z = rng.integers(0, 256, nbytes, dtype=np.uint8)
    y = np.full(yshape, 99.0, np.float32)
    ref = _check(text, "k", grid, [x, y, z, 0])
    assert not np.array_equal(ref[2], z), "the kernel stored nothing"


def test_f4_stores_with_a_dynamic_even_row_stride():
    text, grid, yshape = f4_copy_kernel(6, 10, None, (4, 8), "zero", dynamic_stride=2)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 256, 40, dtype=np.uint8)
    z = rng.integers(0, 256, 40, dtype=np.uint8)
    _check(text, "k", grid, [x, np.zeros(yshape, np.float32), z, 12])


@pytest.mark.parametrize("dynamic", [False, True])
def test_f4_stores_that_split_bytes_between_threads_merge_each_nibble(dynamic):
    # An odd row stride (static, or a runtime one with no divisor stated) puts the two
    # halves of a byte in different rows, so in different threads: each element is merged
    # into its byte by a compare-and-swap on the word holding it.
    text, grid, yshape = (f4_copy_kernel(6, 12, None, (4, 8), dynamic_stride=1) if dynamic
                          else f4_copy_kernel(6, 12, 13, (4, 8)))
    ptx = tileir._toolchain.compile_to_ptx(
        dict(_native.compile(tileir.ir.parse(text), target="sm_90a", pipeline="", debug_info=False)["stages"])["llvm"],
        cpu="sm_90a")[0]
    assert "atom.global.cas.b32" in ptx or "atom.cas.b32" in ptx or "cas.b32" in ptx, ptx[:2000]
    rng = np.random.default_rng(11)
    x = rng.integers(0, 256, 40, dtype=np.uint8)
    # 40 bytes: the words the swaps read stay inside the buffer. Bytes no element covers
    # keep their random value, and so do the nibbles next to covered ones.
    z = rng.integers(0, 256, 40, dtype=np.uint8)
    ref = _check(text, "k", grid, [x, np.zeros(yshape, np.float32), z, 13])
    assert not np.array_equal(ref[2], z), "the kernel stored nothing"


def test_f4_loads_with_an_odd_row_stride():
    # Loads read each element's byte on its own: any stride works.
    text = f4_copy_kernel(6, 12, 13, (4, 8))[0]
    # Keep only the load half: drop the f4 store.
    text = "\n".join(l for l in text.splitlines() if "%t2 =" not in l)
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, 40, dtype=np.uint8)
    _check(text, "k", (2, 2, 1), [x, np.zeros((8, 16), np.float32), np.zeros(40, np.uint8), 0])


GATHER_F4 = f"""
cuda_tile.module @m {{
  entry @gather(%src: tile<ptr<{F4}>>, %ix: tile<ptr<i32>>, %dst: tile<ptr<f32>>) {{
    %iv = make_tensor_view %ix, shape = [32], strides = [1] : tensor_view<32xi32, strides=[1]>
    %ip = make_partition_view %iv : partition_view<tile=(32), tensor_view<32xi32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %idx, %t0 = load_view_tko weak %ip[%c0] : partition_view<tile=(32), tensor_view<32xi32, strides=[1]>>, tile<i32> -> tile<32xi32>, token
    %s1 = reshape %src : tile<ptr<{F4}>> -> tile<1xptr<{F4}>>
    %s = broadcast %s1 : tile<1xptr<{F4}>> -> tile<32xptr<{F4}>>
    %p0 = offset %s, %idx : tile<32xptr<{F4}>>, tile<32xi32> -> tile<32xptr<{F4}>>
    %three = constant <i64: 3> : tile<32xi64>
    %p = offset %p0, %three : tile<32xptr<{F4}>>, tile<32xi64> -> tile<32xptr<{F4}>>
    %v, %t1 = load_ptr_tko weak %p : tile<32xptr<{F4}>> -> tile<32x{F4}>, token
    %f = ftof %v : tile<32x{F4}> -> tile<32xf32>
    %ov = make_tensor_view %dst, shape = [32], strides = [1] : tensor_view<32xf32, strides=[1]>
    %op = make_partition_view %ov : partition_view<tile=(32), tensor_view<32xf32, strides=[1]>>
    %t2 = store_view_tko weak %f, %op[%c0] : tile<32xf32>, partition_view<tile=(32), tensor_view<32xf32, strides=[1]>>, tile<i32> -> token
    return
  }}
}}
"""


def test_f4_pointer_tiles_address_nibbles():
    """`offset` on f4 pointers counts elements (two per byte), across odd and even steps."""
    rng = np.random.default_rng(5)
    src = rng.integers(0, 256, 40, dtype=np.uint8)
    ix = rng.integers(0, 70, 32).astype(np.int32)
    ref = _check(GATHER_F4, "gather", (1, 1, 1), [src, ix, np.zeros(32, np.float32)])
    codes = np.stack([src & 15, src >> 4], axis=1).reshape(-1)
    values = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6] * 2, np.float32) * np.repeat([1, -1], 8)
    np.testing.assert_array_equal(ref[2], values[codes[ix + 3]])


SCATTER_F4 = GATHER_F4.replace(
    "%dst: tile<ptr<f32>>)", f"%dst: tile<ptr<f32>>, %out: tile<ptr<{F4}>>)").replace(
    "%f = ftof %v", f"""%o1 = reshape %out : tile<ptr<{F4}>> -> tile<1xptr<{F4}>>
    %ob = broadcast %o1 : tile<1xptr<{F4}>> -> tile<32xptr<{F4}>>
    %q0 = offset %ob, %idx : tile<32xptr<{F4}>>, tile<32xi32> -> tile<32xptr<{F4}>>
    %q = offset %q0, %three : tile<32xptr<{F4}>>, tile<32xi64> -> tile<32xptr<{F4}>>
    %t9 = store_ptr_tko weak %q, %v : tile<32xptr<{F4}>>, tile<32x{F4}> -> token
    %f = ftof %v""")


def test_f4_stores_through_pointer_tiles_merge_nibbles():
    """Scattered 4-bit stores: neighbouring nibbles of one byte come from different
    threads, and nibbles no element names keep their value."""
    rng = np.random.default_rng(6)
    src = rng.integers(0, 256, 40, dtype=np.uint8)
    # Distinct destinations (each nibble written at most once), odd and even alike.
    ix = rng.permutation(70)[:32].astype(np.int32)
    out = rng.integers(0, 256, 40, dtype=np.uint8)
    ref = _check(SCATTER_F4, "gather", (1, 1, 1), [src, ix, np.zeros(32, np.float32), out])
    codes = np.stack([src & 15, src >> 4], axis=1).reshape(-1)
    got = np.stack([ref[3] & 15, ref[3] >> 4], axis=1).reshape(-1)
    before = np.stack([out & 15, out >> 4], axis=1).reshape(-1)
    np.testing.assert_array_equal(got[ix + 3], codes[ix + 3])
    untouched = np.setdiff1d(np.arange(80), ix + 3)
    np.testing.assert_array_equal(got[untouched], before[untouched])


def pack_kernel(n, body):
    return f"""
cuda_tile.module @m {{
  entry @k(%x: tile<ptr<i8>>, %y: tile<ptr<i8>>) {{
    %xv = make_tensor_view %x, shape = [{n}], strides = [1] : tensor_view<{n}xi8, strides=[1]>
    %xp = make_partition_view %xv : partition_view<tile=({n}), tensor_view<{n}xi8, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %v, %t0 = load_view_tko weak %xp[%c0] : partition_view<tile=({n}), tensor_view<{n}xi8, strides=[1]>>, tile<i32> -> tile<{n}xi8>, token
    {body}
    return
  }}
}}
"""


def store_i8(value, n, dst="%y"):
    return (f"%yv = make_tensor_view {dst}, shape = [{n}], strides = [1] : tensor_view<{n}xi8, strides=[1]>\n"
            f"    %yp = make_partition_view %yv : partition_view<tile=({n}), tensor_view<{n}xi8, strides=[1]>>\n"
            f"    %t9 = store_view_tko weak {value}, %yp[%c0] : tile<{n}xi8>, "
            f"partition_view<tile=({n}), tensor_view<{n}xi8, strides=[1]>>, tile<i32> -> token")


PACKS = {
    # i1: bit k of byte i is element 8i + k.
    "i1": (64, """%z = constant <i8: 0> : tile<64xi8>
    %b = cmpi less_than %v, %z, signed : tile<64xi8> -> tile<64xi1>
    %p = pack %b : tile<64xi1> -> tile<8xi8>
    %u = unpack %p : tile<8xi8> -> tile<64xi1>
    %e = exti %u unsigned : tile<64xi1> -> tile<64xi8>
    %q = reshape %p : tile<8xi8> -> tile<8x1xi8>
    %qb = broadcast %q : tile<8x1xi8> -> tile<8x8xi8>
    %w = reshape %qb : tile<8x8xi8> -> tile<64xi8>
    %o = xori %w, %e : tile<64xi8>""", 64),
    # f4: two codes per byte, the lower index in the low nibble.
    "f4": (32, f"""%f = itof %v signed : tile<32xi8> -> tile<32xf32>
    %s = constant <f32: 0.125> : tile<32xf32>
    %g = mulf %f, %s : tile<32xf32>
    %h = ftof %g : tile<32xf32> -> tile<32x{F4}>
    %p = pack %h : tile<32x{F4}> -> tile<16xi8>
    %u = unpack %p : tile<16xi8> -> tile<32x{F4}>
    %back = ftof %u : tile<32x{F4}> -> tile<32xf32>
    %four = constant <f32: 4.0> : tile<32xf32>
    %m = mulf %back, %four : tile<32xf32>
    %e = ftoi %m signed : tile<32xf32> -> tile<32xi8>
    %pad = constant <i8: 0> : tile<16xi8>
    %w = cat %p, %pad dim = 0 : tile<16xi8>, tile<16xi8> -> tile<32xi8>
    %o = xori %w, %e : tile<32xi8>""", 32),
    # i4: trunci keeps the low four bits; exti reads bit 3 as the sign.
    "i4": (32, """%n = trunci %v : tile<32xi8> -> tile<32xi4>
    %p = pack %n : tile<32xi4> -> tile<16xi8>
    %u = unpack %p : tile<16xi8> -> tile<32xi4>
    %s = exti %u signed : tile<32xi4> -> tile<32xi32>
    %z = exti %u unsigned : tile<32xi4> -> tile<32xi16>
    %s8 = trunci %s : tile<32xi32> -> tile<32xi8>
    %z8 = trunci %z : tile<32xi16> -> tile<32xi8>
    %sh = constant <i8: 4> : tile<32xi8>
    %z4 = shli %z8, %sh : tile<32xi8>
    %pad = constant <i8: 0> : tile<16xi8>
    %w = cat %p, %pad dim = 0 : tile<16xi8>, tile<16xi8> -> tile<32xi8>
    %o0 = xori %w, %s8 : tile<32xi8>
    %o = addi %o0, %z4 : tile<32xi8>""", 32),
}


@pytest.mark.parametrize("kind", sorted(PACKS))
def test_pack_and_unpack_of_sub_byte_elements(kind):
    n, body, out = PACKS[kind]
    text = pack_kernel(n, body + "\n    " + store_i8("%o", out))
    rng = np.random.default_rng(11)
    x = rng.integers(-128, 128, n, dtype=np.int8)
    _check(text, "k", (1, 1, 1), [x, np.zeros(out, np.int8)])


def scaled_mma_kernel(scale_elem, block):
    m, n, k = 16, 16, 64
    ks = k // block
    def view(name, shape, elem="f32"):
        dims = "x".join(map(str, shape))
        strides = ",".join(map(str, [shape[1], 1]))
        t = f"tensor_view<{dims}x{elem}, strides=[{strides}]>"
        return t, f"partition_view<tile=({dims}), {t}>"
    lines = []
    for name, shape in [("a", (m, k)), ("b", (k, n)), ("sa", (m, ks)), ("sb", (ks, n)), ("c", (m, n))]:
        t, p = view(name, shape)
        lines.append(f"%{name}v = make_tensor_view %{name}, shape = [{shape[0]}, {shape[1]}], strides = [{shape[1]}, 1] : {t}")
        lines.append(f"%{name}p = make_partition_view %{name}v : {p}")
        if name != "c":
            lines.append(f"%{name}f, %{name}t = load_view_tko weak %{name}p[%z, %z] : {p}, tile<i32>, tile<i32> -> tile<{shape[0]}x{shape[1]}xf32>, token")
    rounding = " rounding<zero>" if scale_elem == "f8E8M0FNU" else ""
    dims = {"a": (m, k), "b": (k, n), "sa": (m, ks), "sb": (ks, n)}
    for name in ("a", "b"):
        r, c = dims[name]
        lines.append(f"%{name}4 = ftof %{name}f : tile<{r}x{c}xf32> -> tile<{r}x{c}x{F4}>")
    for name in ("sa", "sb"):
        r, c = dims[name]
        lines.append(f"%{name}8 = ftof %{name}f{rounding} : tile<{r}x{c}xf32> -> tile<{r}x{c}x{scale_elem}>")
    lines.append(f"%acc = constant <f32: 0.25> : tile<{m}x{n}xf32>")
    lines.append(f"%r = mmaf_scaled %a4, %b4, %acc, %sa8, %sb8 : tile<{m}x{k}x{F4}>, tile<{k}x{n}x{F4}>, tile<{m}x{n}xf32>, "
                 f"tile<{m}x{ks}x{scale_elem}>, tile<{ks}x{n}x{scale_elem}>")
    _, cp = view("c", (m, n))
    lines.append(f"%ct = store_view_tko weak %r, %cp[%z, %z] : tile<{m}x{n}xf32>, {cp}, tile<i32>, tile<i32> -> token")
    body = "\n    ".join(lines)
    return f"""
cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %sa: tile<ptr<f32>>, %sb: tile<ptr<f32>>, %c: tile<ptr<f32>>) {{
    %z = constant <i32: 0> : tile<i32>
    {body}
    return
  }}
}}
""", (m, n, k, ks)


@pytest.mark.parametrize("scale_elem,block", [("f8E8M0FNU", 32), ("f8E8M0FNU", 16), ("f8E4M3FN", 16)])
def test_block_scaled_mma_of_f4_operands(scale_elem, block):
    """mmaf_scaled with f4E2M1FN operands (MXFP4 / NVFP4 shapes) through the FMA variant:
    exact data (f4 values, power-of-two or e4m3 scales), so the sums are exact in f32."""
    text, (m, n, k, ks) = scaled_mma_kernel(scale_elem, block)
    rng = np.random.default_rng(block)
    f4_values = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
    a = rng.choice(f4_values, (m, k)) * rng.choice([-1, 1], (m, k))
    b = rng.choice(f4_values, (k, n)) * rng.choice([-1, 1], (k, n))
    scales = [0.25, 0.5, 1.0, 2.0, 4.0] if scale_elem == "f8E8M0FNU" else [0.5, 0.75, 1.0, 1.5, 2.0]
    sa = rng.choice(scales, (m, ks)).astype(np.float32)
    sb = rng.choice(scales, (ks, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    ref = _check(text, "k", (1, 1, 1), [a.astype(np.float32), b.astype(np.float32), sa, sb, c])
    v = k // ks
    want = 0.25 + (a * np.repeat(sa, v, axis=1)) @ (b * np.repeat(sb, v, axis=0))
    np.testing.assert_array_equal(ref[4], want.astype(np.float32))
