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


F4_GATHER = """\
cuda_tile.module @kernels {
  entry @gather(%src: tile<ptr<f4E2M1FN>>, %dst: tile<ptr<f32>>, %off: tile<i32>) {
    %i = iota : tile<8xi32>
    %o1 = reshape %off : tile<i32> -> tile<1xi32>
    %o = broadcast %o1 : tile<1xi32> -> tile<8xi32>
    %idx = addi %i, %o : tile<8xi32>
    %s1 = reshape %src : tile<ptr<f4E2M1FN>> -> tile<1xptr<f4E2M1FN>>
    %s = broadcast %s1 : tile<1xptr<f4E2M1FN>> -> tile<8xptr<f4E2M1FN>>
    %p = offset %s, %idx : tile<8xptr<f4E2M1FN>>, tile<8xi32> -> tile<8xptr<f4E2M1FN>>
    %v, %t = load_ptr_tko weak %p : tile<8xptr<f4E2M1FN>> -> tile<8xf4E2M1FN>, token
    %f = ftof %v : tile<8xf4E2M1FN> -> tile<8xf32>
    %d1 = reshape %dst : tile<ptr<f32>> -> tile<1xptr<f32>>
    %d = broadcast %d1 : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %q = offset %d, %i : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %t2 = store_ptr_tko weak %q, %f : tile<8xptr<f32>>, tile<8xf32> -> token
    return
  }
}
"""

# f4E2M1FN values by bit pattern (sign, 2 exponent bits, 1 mantissa bit).
F4_VALUES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def test_f4_elements_through_pointers_at_odd_offsets():
    m = tileir.ir.parse(F4_GATHER, file_name="f4.mlir")
    m.verify()
    packed = np.arange(16, dtype=np.uint8) * np.uint8(37) ^ np.uint8(0x5A)
    nibbles = np.stack([packed & 0xF, packed >> 4], axis=1).ravel()  # element 2i in the low nibble
    for off in (0, 1, 7):
        out = np.zeros(8, np.float32)
        tileir.interpreter.run_module(m, "gather", (1,), (packed, out, off))
        np.testing.assert_array_equal(out, np.array([F4_VALUES[v] for v in nibbles[off:off + 8]], np.float32))


SHIFT = """\
cuda_tile.module @kernels {
  entry @shift(%a: tile<ptr<i32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %nx = addi %bx, %one : tile<i32>
    %tv = make_tensor_view %a, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<64xi32, strides=[1]>>
    %x, %t0 = load_view_tko weak %pv[%nx] : partition_view<tile=(16), tensor_view<64xi32, strides=[1]>>, tile<i32> -> tile<16xi32>, token
    %t1 = store_view_tko weak %x, %pv[%bx] : tile<16xi32>, partition_view<tile=(16), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


def test_a_block_reading_what_another_block_writes_is_a_race():
    m = tileir.ir.parse(SHIFT, file_name="shift.mlir")
    m.verify()
    a = np.arange(64, dtype=np.int32)
    tileir.interpreter.run_module(m, "shift", (3,), (a,))  # unchecked: runs x-fastest
    np.testing.assert_array_equal(a[:48], np.arange(16, 64))
    for kw in ({"detect_races": True}, {"shuffle": 9}, {"detect_races": True, "parallel": True}):
        a = np.arange(64, dtype=np.int32)
        with pytest.raises(errors.InterpreterError) as e:
            tileir.interpreter.run_module(m, "shift", (3,), (a,), **kw)
        assert e.value.kind == "Race", kw
        msg = str(e.value)
        assert "tile block (1, 0, 0) writes element 16 of argument #0 (tile<ptr<i32>>)" in msg, msg
        assert "which tile block (0, 0, 0) reads" in msg and "undefined behavior" in msg, msg
