"""View forms the front end does not produce, written as cuda_tile text: the generated
code (on the PTX emulator) must read and write what the reference interpreter does."""

import numpy as np

import tileir
import tileir.interpreter
import tileir.ir
from tileir import _native
from tileir._toolchain import compile_to_ptx
from tileir.emulator import run_ptx

STRIDED = """
cuda_tile.module @m {
  entry @windows(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %n: tile<i32>) {
    %t = make_token : token
    %tv = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %sv = make_strided_view %tv : strided_view<tile=(8), traversal_strides=[3], padding_value = nan, tensor_view<?xf32, strides=[1]>>
    %ov = make_tensor_view %y, shape = [64, 8], strides = [8, 1] : tensor_view<64x8xf32, strides=[8,1]>
    %op = make_partition_view %ov : partition_view<tile=(1x8), tensor_view<64x8xf32, strides=[8,1]>>
    %b:3 = get_tile_block_id : tile<i32>
    %cnt = get_index_space_shape %sv : strided_view<tile=(8), traversal_strides=[3], padding_value = nan, tensor_view<?xf32, strides=[1]>> -> tile<i32>
    %inside = cmpi less_than %b#0, %cnt, signed : tile<i32> -> tile<i1>
    if %inside {
      %w, %t2 = load_view_tko weak %sv[%b#0] token = %t : strided_view<tile=(8), traversal_strides=[3], padding_value = nan, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<8xf32>, token
      %w2 = reshape %w : tile<8xf32> -> tile<1x8xf32>
      %c0 = constant <i32: 0> : tile<i32>
      %t3 = store_view_tko weak %w2, %op[%b#0, %c0] token = %t2 : tile<1x8xf32>, partition_view<tile=(1x8), tensor_view<64x8xf32, strides=[8,1]>>, tile<i32> -> token
    }
    return
  }
}
"""


def test_strided_view_windows_match_the_interpreter():
    n = 40
    x = np.arange(n, dtype=np.float32)
    y_ref = np.full((64, 8), -1.0, np.float32)
    m = tileir.ir.parse(STRIDED)
    grid = (20,)
    tileir.interpreter.run_module(m, "windows", grid, (x.copy(), y_ref, n))
    out = _native.compile(m, target="sm_90a", pipeline="", debug_info=False)
    stages = dict(out["stages"])
    assert "origin_step = [3]" in stages["nv_tileaa"], stages["nv_tileaa"]
    ptx, _ = compile_to_ptx(stages["llvm"], cpu="sm_90a")
    kernel = out["kernels"][0]
    y = np.full((64, 8), -1.0, np.float32)
    run_ptx(ptx, "windows", grid, (kernel["num_threads"],), [x.copy(), y, ("i32", n)])
    np.testing.assert_array_equal(y, y_ref)
    # Window 11 starts at 33 and runs past the end: padded with NaN.
    assert np.isnan(y[11, 7]) and y[11, 0] == 33.0
    # ceil((40 - 8) / 3) + 1 = 12 windows.
    assert (y[12:] == -1).all() and (y[:12, 0] == np.arange(12) * 3).all()
