"""Kernel parameters of every scalar type: a scalar narrower than 32 bits travels in the low
bits of a 32-bit parameter slot (as booleans do) and is truncated inside the kernel."""

import numpy as np
import pytest

import tileir.ir
from tileir import _native
from tileir._toolchain import compile_to_ptx, find_ptxas, run_ptxas
from tileir.emulator import run_ptx

TARGETS = ("sm_80", "sm_90a")

NARROW = """
cuda_tile.module @m {
  entry @k(%x: tile<ptr<f32>>, %h: tile<f16>, %i: tile<i16>, %b: tile<bf16>, %c: tile<i8>, %e: tile<f8E4M3FN>) {
    %t = make_token : token
    %v = make_tensor_view %x, shape = [16], strides = [1] : tensor_view<16xf32, strides=[1]>
    %p = make_partition_view %v : partition_view<tile=(16), tensor_view<16xf32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %hf = ftof %h : tile<f16> -> tile<f32>
    %if = itof %i signed : tile<i16> -> tile<f32>
    %bf = ftof %b : tile<bf16> -> tile<f32>
    %cf = itof %c signed : tile<i8> -> tile<f32>
    %ef = ftof %e : tile<f8E4M3FN> -> tile<f32>
    %a1 = addf %hf, %if : tile<f32>
    %a2 = addf %a1, %bf : tile<f32>
    %a3 = addf %a2, %cf : tile<f32>
    %a4 = addf %a3, %ef : tile<f32>
    %r = reshape %a4 : tile<f32> -> tile<1xf32>
    %y = broadcast %r : tile<1xf32> -> tile<16xf32>
    %st = store_view_tko weak %y, %p[%c0] token = %t : tile<16xf32>, partition_view<tile=(16), tensor_view<16xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_narrow_scalar_parameters_arrive_in_32_bit_slots(target):
    out = _native.compile(tileir.ir.parse(NARROW, file_name="k.mlir"), target=target, pipeline="", debug_info=False)
    assert out["kernels"][0]["params"] == ["ptr", "i32", "i32", "i32", "i32", "i32"]
    ptx, _ = compile_to_ptx(dict(out["stages"])["llvm"], cpu=target)
    if find_ptxas():
        assert getattr(run_ptxas(ptx, arch=target), "ok", True)
    x = np.zeros(16, np.float32)
    h = int(np.float16(1.5).view(np.uint16))
    b = int(np.array([0.25], np.float32).view(np.uint32)[0] >> 16)  # bf16 bits of 0.25
    e = 0x38  # f8E4M3FN 1.0
    # Garbage above the value's bits must not leak into it: the kernel truncates.
    args = [x, ("u32", 0xABCD0000 | h), ("u32", 0xFFFFFFFE), ("u32", 0x12340000 | b), ("u32", 0x55500003),
            ("u32", 0x7700 | e)]
    run_ptx(ptx, "k", 1, out["kernels"][0]["num_threads"], args)
    np.testing.assert_array_equal(x, np.full(16, 1.5 - 2 + 0.25 + 3 + 1.0, np.float32))


def test_a_scalar_f4_parameter_is_a_located_error():
    # A lone 4-bit float has no byte of its own: cuda_tile rejects the type.
    text = NARROW.replace("%e: tile<f8E4M3FN>", "%e: tile<f4E2M1FN>").replace("ftof %e : tile<f8E4M3FN>", "ftof %e : tile<f4E2M1FN>")
    with pytest.raises(tileir.errors.TileIRError) as e:
        _native.compile(tileir.ir.parse(text, file_name="k.mlir"), target="sm_90a", pipeline="", debug_info=False)
    assert "k.mlir:3:3: error:" in str(e.value) and "argument #5 has invalid type tile<f4E2M1FN>" in str(e.value)
