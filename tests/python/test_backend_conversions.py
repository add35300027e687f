"""Conversions between every pair of float formats (f64, f32, tf32, f16, bf16, the fp8
formats, f8E8M0FNU and f4E2M1FN), and between integers and the narrow formats, run on the
PTX emulator (the code handed to ptxas) and on the interpreter: bit-exact.

The inputs are chosen where conversions go wrong: ties of every narrow format, values a
hair off a tie (which a narrowing through f32 would round twice), each format's largest
value and its overflow, subnormals, zeros of both signs, infinities and NaN (any NaN
matches any NaN: cuda_tile does not define NaN payloads).
"""

import numpy as np
import pytest

import tileir.interpreter
import tileir.ir
from tileir import _native
from tileir._toolchain import compile_to_ptx, find_ptxas, run_ptxas
from tileir.emulator import run_ptx

N = 1024
TILE = 256
FLOATS = ["f64", "f32", "tf32", "f16", "bf16", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN"]


def rounding_modes(to):
    """The `ftof` rounding modes cuda_tile allows into `to` (e8m0 only rounds up or down)."""
    return ["zero", "positive_inf"] if to == "f8E8M0FNU" else ["nearest_even"]


def conversion(value, frm, to, rounding):
    attr = "" if rounding == "nearest_even" else f" rounding<{rounding}>"
    return f"ftof {value}{attr} : tile<{TILE}x{frm}> -> tile<{TILE}x{to}>"


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 6.0, 5.0, 7.0, -5.0, 0.25, 0.75, -0.25,
               448.0, 464.0, 465.0, 480.0, 57344.0, 61440.0, 61441.0, 65504.0, 65520.0, 3.3895313892515355e38,
               2.0**-127, 2.0**-126, 1.5 * 2.0**-127, 2.0**127, 1.5 * 2.0**127, 2.0**128, 3.4028234663852886e38,
               3.4028234663852886e38 * (1 + 2.0**-30), 1e300, -1e300, 5e-324, 2.0**-149, 2.0**-150, 1.5 * 2.0**-149,
               2.0**-133, 2.0**-14, 2.0**-24, 2.0**-25, 1.5 * 2.0**-25, 2.0**-6, 2.0**-9, 2.0**-10, 2.0**-16, 2.0**-17]
    # Ties and near-ties of formats with up to 4 fraction bits, a hair above and below.
    structured = []
    for e in range(-18, 18):
        for k in range(32):
            for eps in (0.0, 2.0**-40, -2.0**-40, 2.0**-27, -2.0**-27):
                structured.append((1 + k / 32 + eps) * 2.0**e)
    structured = rng.permutation(np.array(structured))
    # Ties of bf16, f16/tf32 and f32 (7, 10 and 23 fraction bits), and a hair off them.
    wide = []
    for fraction_bits in (7, 10, 23):
        m = rng.integers(0, 2**fraction_bits, 40)
        e = rng.integers(-30, 30, 40)
        tie = (1 + (2 * m + 1) / 2.0**(fraction_bits + 1)) * 2.0**e
        wide += list(tie) + list(tie * (1 + 2.0**-45)) + list(tie * (1 - 2.0**-45))
    n_random = 200
    random = rng.choice([-1, 1], n_random) * np.ldexp(rng.random(n_random) + 0.5, rng.integers(-150, 130, n_random))
    signs = rng.choice([-1.0, 1.0], len(structured))
    pool = np.concatenate([special, wide, random, structured * signs])
    return pool[:N].astype(np.float64)


def module(src, body_lines, out_rows):
    body = "\n    ".join(body_lines)
    return f"""
cuda_tile.module @m {{
  entry @k(%x: tile<ptr<{src}>>, %y: tile<ptr<f64>>) {{
    %xv = make_tensor_view %x, shape = [{N}], strides = [1] : tensor_view<{N}x{src}, strides=[1]>
    %xp = make_partition_view %xv : partition_view<tile=({TILE}), tensor_view<{N}x{src}, strides=[1]>>
    %yv = make_tensor_view %y, shape = [{out_rows}, {N}], strides = [{N}, 1] : tensor_view<{out_rows}x{N}xf64, strides=[{N},1]>
    %yp = make_partition_view %yv : partition_view<tile=(1x{TILE}), tensor_view<{out_rows}x{N}xf64, strides=[{N},1]>>
    %b:3 = get_tile_block_id : tile<i32>
    %v, %t0 = load_view_tko weak %xp[%b#0] : partition_view<tile=({TILE}), tensor_view<{N}x{src}, strides=[1]>>, tile<i32> -> tile<{TILE}x{src}>, token
    {body}
    return
  }}
}}
"""


def store_row(value, row, yp_type=None):
    """Lines storing the f64 tile `value` into row `row` of the output."""
    return [
        f"%r{row} = constant <i32: {row}> : tile<i32>",
        f"%s{row} = reshape {value} : tile<{TILE}xf64> -> tile<1x{TILE}xf64>",
        f"%w{row} = store_view_tko weak %s{row}, %yp[%r{row}, %b#0] : tile<1x{TILE}xf64>, "
        f"partition_view<tile=(1x{TILE}), tensor_view<ROWSx{N}xf64, strides=[{N},1]>>, tile<i32>, tile<i32> -> token",
    ]


def run_and_compare(text, src_array, rows, targets, labels):
    m = tileir.ir.parse(text)
    want = np.zeros((rows, N), np.float64)
    tileir.interpreter.run_module(m, "k", (N // TILE, 1, 1), [src_array.copy(), want])
    for target in targets:
        out = _native.compile(m, target=target, pipeline="", debug_info=False)
        ptx, _ = compile_to_ptx(dict(out["stages"])["llvm"], cpu=target)
        if find_ptxas():
            res = run_ptxas(ptx, arch=target)
            assert getattr(res, "ok", True), res
        got = np.zeros((rows, N), np.float64)
        run_ptx(ptx, "k", (N // TILE, 1, 1), (out["kernels"][0]["num_threads"],), [src_array.copy(), got])
        for r in range(rows):
            # Bit-exact, but any NaN matches any NaN: cuda_tile leaves NaN payloads open.
            g, w = got[r].view(np.uint64), want[r].view(np.uint64)
            bad = np.nonzero((g != w) & ~(np.isnan(got[r]) & np.isnan(want[r])))[0]
            assert len(bad) == 0, (
                f"{target} {labels[r]}: {len(bad)} of {N} differ; first inputs "
                f"{[float(src_array[i]) for i in bad[:4]]}: emulated {[float(got[r][i]) for i in bad[:4]]}, "
                f"interpreted {[float(want[r][i]) for i in bad[:4]]}")
    return want


@pytest.mark.parametrize("src", FLOATS)
def test_float_to_float_conversions_are_bit_exact(src):
    """f64 inputs are rounded into `src`, then converted to every other format under every
    rounding mode it allows, then widened back to f64 (exact) for comparison."""
    lines, labels = [], []
    first = "f8E8M0FNU" if src == "f8E8M0FNU" else None
    lines.append("%a = " + (conversion("%v", "f64", src, "positive_inf") if first else
                           conversion("%v", "f64", src, "nearest_even")) if src != "f64" else "%a = ftof %v : tile<256xf64> -> tile<256xf32>")
    if src == "f64":
        lines[-1] = "%a_unused = ftof %v : tile<256xf64> -> tile<256xf32>"
        a = "%v"
    else:
        a = "%a"
    row = 0
    for to in FLOATS:
        if to == src:
            continue
        for rounding in rounding_modes(to):
            d = f"%d{row}"
            lines.append(f"{d} = " + conversion(a, src, to, rounding))
            if to == "f64":
                back = d
            else:
                back = f"%e{row}"
                lines.append(f"{back} = " + conversion(d, to, "f64", "nearest_even"))
            lines += store_row(back, row)
            labels.append(f"{src} -> {to} ({rounding})")
            row += 1
    text = module("f64", lines, row).replace("ROWS", str(row))
    # sm_80 converts fp8 in software, sm_90a with the hardware's cvt: both must agree.
    run_and_compare(text, inputs(), row, ["sm_90a", "sm_80"], labels)


def test_f4_conversions_need_no_fp8_hardware():
    """f4E2M1FN is converted in software: it compiles for sm_80 too."""
    lines = [conversion("%v", "f64", "f4E2M1FN", "nearest_even").join(["%a = ", ""])]
    labels = []
    for row, to in enumerate(["f64", "f32", "f16", "bf16", "f8E8M0FNU"]):
        rounding = rounding_modes(to)[0]
        lines.append(f"%d{row} = " + conversion("%a", "f4E2M1FN", to, rounding))
        back = f"%d{row}"
        if to != "f64":
            lines.append(f"%e{row} = " + conversion(back, to, "f64", "nearest_even"))
            back = f"%e{row}"
        lines += store_row(back, row)
        labels.append(f"f4E2M1FN -> {to}")
    rows = len(labels)
    text = module("f64", lines, rows).replace("ROWS", str(rows))
    got = run_and_compare(text, inputs(1), rows, ["sm_80", "sm_90a"], labels)
    # The f4 values themselves: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
    finite = got[0][~np.isnan(got[0])]
    assert set(np.abs(finite)) == {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}


INTS = [("i8", np.int8), ("i16", np.int16), ("i32", np.int32), ("i64", np.int64)]


@pytest.mark.parametrize("ity,np_ty", INTS)
@pytest.mark.parametrize("signed", [True, False])
def test_integer_to_narrow_float_and_back(ity, np_ty, signed):
    """`itof` into fp8 and f4E2M1FN rounds once (an i64 is not first rounded to f64), and
    `ftoi` out of every narrow format saturates like the interpreter."""
    rng = np.random.default_rng(3)
    info = np.iinfo(np_ty)
    vals = list(range(-40, 41)) + [info.min, info.max, info.min + 1, info.max - 1]
    if ity == "i64":
        # Ties of fp8 a hair off (2^60 + 2^57 + 1 is above a tie that f64 would round onto).
        vals += [2**60 + 2**57 + 1, 2**60 + 2**57, 2**60 + 2**57 - 1, 2**62 + 2**58 + 1, -(2**60 + 2**57 + 1),
                 2**63 - 2**10 - 1]
    vals += list(rng.integers(info.min, info.max, N, dtype=np_ty, endpoint=True))
    x = np.array(vals[:N]).astype(np_ty)
    sign = "signed" if signed else "unsigned"
    lines, labels = [], []
    row = 0
    for to in ["f8E4M3FN", "f8E5M2", "f4E2M1FN", "f16", "bf16"]:
        lines.append(f"%d{row} = itof %v {sign} : tile<{TILE}x{ity}> -> tile<{TILE}x{to}>")
        lines.append(f"%e{row} = " + conversion(f"%d{row}", to, "f64", "nearest_even"))
        lines += store_row(f"%e{row}", row)
        labels.append(f"{ity} -> {to} ({sign})")
        row += 1
        # ... and back to the integer type.
        lines.append(f"%i{row} = ftoi %d{row - 1} {sign} : tile<{TILE}x{to}> -> tile<{TILE}x{ity}>")
        lines.append(f"%j{row} = itof %i{row} {sign} : tile<{TILE}x{ity}> -> tile<{TILE}xf64>")
        lines += store_row(f"%j{row}", row)
        labels.append(f"{to} -> {ity} ({sign})")
        row += 1
    text = module(ity, lines, row).replace("ROWS", str(row))
    run_and_compare(text, x, row, ["sm_90a", "sm_80"], labels)


def fp8_view_kernel(elem, padding):
    xt = f"tensor_view<6x10x{elem}, strides=[16,1]>"
    xp = f"partition_view<tile=(4x8), padding_value = {padding}, {xt}>"
    zp = f"partition_view<tile=(4x8), {xt}>"
    yt = "tensor_view<8x16xf32, strides=[16,1]>"
    yp = f"partition_view<tile=(4x8), {yt}>"
    return f"""
cuda_tile.module @m {{
  entry @k(%x: tile<ptr<{elem}>>, %y: tile<ptr<f32>>, %z: tile<ptr<{elem}>>) {{
    %xv = make_tensor_view %x, shape = [6, 10], strides = [16, 1] : {xt}
    %zv = make_tensor_view %z, shape = [6, 10], strides = [16, 1] : {xt}
    %xp = make_partition_view %xv : {xp}
    %zp = make_partition_view %zv : {zp}
    %yv = make_tensor_view %y, shape = [8, 16], strides = [16, 1] : {yt}
    %yp = make_partition_view %yv : {yp}
    %b:3 = get_tile_block_id : tile<i32>
    %v, %t0 = load_view_tko weak %xp[%b#0, %b#1] : {xp}, tile<i32>, tile<i32> -> tile<4x8x{elem}>, token
    %f = ftof %v : tile<4x8x{elem}> -> tile<4x8xf32>
    %t1 = store_view_tko weak %f, %yp[%b#0, %b#1] : tile<4x8xf32>, {yp}, tile<i32>, tile<i32> -> token
    %c = constant <f32: -3.0> : tile<4x8xf32>
    %g = mulf %f, %c : tile<4x8xf32>
    %h = ftof %g : tile<4x8xf32> -> tile<4x8x{elem}>
    %t2 = store_view_tko weak %h, %zp[%b#0, %b#1] : tile<4x8x{elem}>, {zp}, tile<i32>, tile<i32> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize("elem", ["f8E4M3FN", "f8E5M2"])
@pytest.mark.parametrize("padding", ["nan", "pos_inf", "neg_zero"])
def test_fp8_tiles_load_and_store_through_views_with_padding(elem, padding):
    """fp8 arrays (raw bytes) through partition views over ragged edges; padding in a
    format without infinity is NaN, as the interpreter defines it."""
    rng = np.random.default_rng(2)
    x = rng.integers(0, 256, 96, dtype=np.uint8)
    z = rng.integers(0, 256, 96, dtype=np.uint8)
    text = fp8_view_kernel(elem, padding)
    m = tileir.ir.parse(text)
    want = [x.copy(), np.zeros((8, 16), np.float32), z.copy()]
    tileir.interpreter.run_module(m, "k", (2, 2, 1), want)
    for target in ("sm_90a", "sm_80"):
        out = _native.compile(m, target=target, pipeline="", debug_info=False)
        ptx, _ = compile_to_ptx(dict(out["stages"])["llvm"], cpu=target)
        if find_ptxas():
            assert getattr(run_ptxas(ptx, arch=target), "ok", True)
        got = [x.copy(), np.zeros((8, 16), np.float32), z.copy()]
        run_ptx(ptx, "k", (2, 2, 1), (out["kernels"][0]["num_threads"],), got)
        check_fp8_results(elem, got, want)


def check_fp8_results(elem, got, want):
    """The f32 copy and the stored fp8 bytes agree, any NaN matching any NaN (payloads and
    signs of NaN are left open)."""
    def fp8_nan(b):
        return (b & 0x7F) == 0x7F if elem == "f8E4M3FN" else ((b & 0x7C) == 0x7C) & ((b & 3) != 0)
    agree = (got[2] == want[2]) | (fp8_nan(got[2]) & fp8_nan(want[2]))
    assert agree.all(), (got[2][~agree], want[2][~agree])
    same = (got[1] == want[1]) | (np.isnan(got[1]) & np.isnan(want[1]))
    assert same.all(), (got[1], want[1])
