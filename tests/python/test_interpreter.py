"""The reference interpreter from Python: parsed cuda_tile modules run on NumPy arrays."""

import numpy as np
import pytest

import tileir.interpreter
import tileir.ir
from tileir import errors

VADD_DYN = """\
cuda_tile.module @kernels {
  entry @vadd(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %n: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tb = make_tensor_view %b, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tc = make_tensor_view %c, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pa = make_partition_view %ta : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %pc = make_partition_view %tc : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
    %x, %t0 = load_view_tko weak %pa[%bx] : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %y, %t1 = load_view_tko weak %pb[%bx] : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %s = addf %x, %y : tile<64xf32>
    %t2 = store_view_tko weak %s, %pc[%bx] : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""

ASSERTS = """\
cuda_tile.module @kernels {
  entry @check(%v: tile<i32>) {
    %zero = constant <i32: 0> : tile<i32>
    %ok = cmpi greater_than %v, %zero, signed : tile<i32> -> tile<i1>
    %t = print_tko "v=%d\\n", %v : tile<i32> -> token
    assert %ok, "v must be positive" : tile<i1>
    return
  }
}
"""


def test_vector_add_with_a_partial_last_tile_matches_numpy():
    m = tileir.ir.parse(VADD_DYN, file_name="vadd.mlir")
    m.verify()
    rng = np.random.default_rng(0)
    n = 200
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = np.full(n, np.nan, np.float32)
    tileir.interpreter.run_module(m, "vadd", (4,), (a, b, c, n))
    np.testing.assert_array_equal(c, a + b)
    # The same result in a shuffled block order, with race detection on.
    d = np.zeros(n, np.float32)
    tileir.interpreter.run_module(m, "vadd", (4,), (a, b, d, n), shuffle=7, detect_races=True)
    np.testing.assert_array_equal(d, a + b)


def test_print_output_and_assert_location():
    m = tileir.ir.parse(ASSERTS, file_name="check.mlir")
    assert tileir.interpreter.run_module(m, "check", (1,), (5,)) == "v=5\n"
    with pytest.raises(errors.InterpreterError) as e:
        tileir.interpreter.run_module(m, "check", (1,), (-3,))
    assert e.value.kind == "AssertionFailed"
    assert e.value.location == ("check.mlir", 6, 5)
    assert "v must be positive" in str(e.value)


def test_argument_mistakes_are_type_errors():
    m = tileir.ir.parse(VADD_DYN)
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="takes 4 argument"):
        tileir.interpreter.run_module(m, "vadd", (1,), (x, x, x))
    with pytest.raises(TypeError, match="needs dtype float32"):
        tileir.interpreter.run_module(m, "vadd", (1,), (x.astype(np.float64), x, x, 8))
