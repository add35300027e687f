"""List-of-arrays kernel parameters (cuTile's ``List[Array]``), and ``return`` inside a
run-time loop of an inlined helper.

A list parameter is specialized on its arrays' dtype and rank (and the facts all of them
share) and passed as (address of a record buffer, length): one row of int64 words per
array (base address, shapes, strides). ``lst[i]`` loads a record; ``len(lst)`` is the
run-time length.
"""

import numpy as np
import pytest

import tileir as ct
from tileir._compile import _matches_spec, list_arg_records
from tileir._frontend import ListSpec, list_records, specialize
from source_errors import caret_col, check_location  # noqa: F401


# ------------------------------------------------------------------------------------------
# Kernels
# ------------------------------------------------------------------------------------------

@ct.kernel
def sum_list(inp_list, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for k in range(len(inp_list)):
        a = inp_list[k]
        acc = acc + ct.load(a, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    ct.store(out, index=(bid,), tile=acc.astype(out.dtype))


@ct.kernel
def sum_list_2d(inp_list, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    k = 0
    while k < len(inp_list):
        acc = acc + ct.load(inp_list[k], (i, j), (TM, TN), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        k += 1
    ct.store(out, (i, j), acc.astype(out.dtype))


@ct.kernel
def pick_constant(inp_list, out):
    # Constant indices, the array's shape and a tiled view of a list item.
    second = inp_list[1]
    n = second.shape[0]
    view = inp_list[0].tiled_view((16,), padding_mode=ct.PaddingMode.ZERO)
    t = view.load((ct.bid(0),)) + ct.load(second, (ct.bid(0),), (16,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (ct.bid(0),), t + n)


@ct.kernel
def copy_into_list(src, out_list, which: int):
    # Stores through a list item chosen at run time.
    ct.store(out_list[which], (ct.bid(0),), ct.load(src, (ct.bid(0),), (8,)))


@ct.kernel
def gather_peers(inp_list, out, TILE: ct.Constant[int]):
    # AllGatherMatmul's access pattern: block b reads peer b's shard.
    peer = ct.bid(0)
    ct.store(out, (peer,), ct.load(inp_list[peer], (0,), (TILE,)))


# ------------------------------------------------------------------------------------------
# Interpreter runs against NumPy
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_sum_over_a_runtime_loop_matches_numpy(seed, dtype):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    size = int(rng.integers(1, 200))
    xs = [(rng.standard_normal(size) * 8).astype(dtype) for _ in range(n)]
    out = np.zeros(size, dtype)
    ct.interpret((-(-size // 32),), sum_list, (xs, out, 32))
    expect = np.sum([x.astype(np.float32) for x in xs], axis=0).astype(dtype)
    np.testing.assert_allclose(out.astype(np.float32), expect.astype(np.float32), rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("seed", range(3))
def test_two_dimensional_items_with_strides_match_numpy(seed):
    rng = np.random.default_rng(100 + seed)
    m, n = int(rng.integers(1, 40)), int(rng.integers(1, 40))
    # Items of one dtype and rank, some of them strided views of larger arrays.
    xs = []
    for k in range(int(rng.integers(1, 5))):
        big = rng.standard_normal((m * 2, n + 3)).astype(np.float32)
        xs.append(big[::2, 1:n + 1] if k % 2 else np.ascontiguousarray(big[:m, :n]))
    out = np.zeros((m, n), np.float32)
    ct.interpret((-(-m // 16), -(-n // 16)), sum_list_2d, (xs, out, 16, 16))
    np.testing.assert_allclose(out, np.sum(xs, axis=0), rtol=1e-5, atol=1e-5)


def test_constant_index_shape_and_tiled_view():
    a = np.arange(40, dtype=np.float32)
    b = np.arange(40, dtype=np.float32) * 10
    out = np.zeros(40, np.float32)
    ct.interpret((3,), pick_constant, ([a, b], out))
    np.testing.assert_array_equal(out, a + b + 40)


def test_store_through_a_list_item_and_aliasing_arguments():
    src = np.arange(16, dtype=np.int32)
    outs = [np.zeros(16, np.int32) for _ in range(3)]
    ct.interpret((2,), copy_into_list, (src, outs, 2))
    np.testing.assert_array_equal(outs[2], src)
    assert not outs[0].any() and not outs[1].any()
    # An item that is also another argument (a view of it) shares its memory.
    buf = np.zeros(32, np.int32)
    ct.interpret((2,), copy_into_list, (src, [buf[16:], buf[:16]], 0))
    np.testing.assert_array_equal(buf, np.concatenate([np.zeros(16, np.int32), src]))


def test_block_per_peer_like_all_gather():
    shards = [np.full(16, k, np.float32) for k in range(4)]
    out = np.zeros(64, np.float32)
    ct.interpret((4,), gather_peers, (shards, out, 16))
    np.testing.assert_array_equal(out, np.repeat(np.arange(4, dtype=np.float32), 16))


# ------------------------------------------------------------------------------------------
# IR, specialization, marshalling
# ------------------------------------------------------------------------------------------

def test_compiled_ir_verifies_and_loads_the_records():
    xs = [np.zeros(64, np.float32), np.zeros(64, np.float32)]
    m = ct.compile(sum_list, (xs, np.zeros(64, np.float32), 32), stage="cuda_tile")
    text = m.to_text()
    assert "entry @sum_list(%inp_list: tile<ptr<i64>>, %inp_list_len: tile<i32>," in text
    assert "tensor_view<?x3xi64, strides=[3,1]>" in text
    assert "partition_view<tile=(1x4), tensor_view<?x3xi64, strides=[3,1]>>" in text
    assert "int_to_ptr" in text and "trunci" in text
    m.verify()
    # The bytecode round trip keeps it valid.
    m.to_bytecode()


def test_specialization_is_on_dtype_and_rank_not_length():
    a = np.zeros(64, np.float32)
    s2 = specialize(sum_list.fn, ([a, a], a, 32))
    s5 = specialize(sum_list.fn, ([a] * 5, a, 32))
    assert s2 == s5
    assert isinstance(s2.params[0], ListSpec)
    assert s2.params[0].element.dtype == ct.float32 and s2.params[0].element.ndim == 1
    assert specialize(sum_list.fn, ([a.astype(np.float16)], a, 32)) != s2
    # Facts are those every item has: one unaligned item drops the alignment fact.
    base = np.zeros(80, np.float32)
    unaligned = specialize(sum_list.fn, ([a, base[1:65]], a, 32)).params[0].element
    assert s2.params[0].element.aligned16 and not unaligned.aligned16


def test_int64_index_annotation_on_lists():
    from typing import Annotated

    @ct.kernel
    def k(xs: Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)], out):
        ct.store(out, (0,), ct.load(xs[0], (0,), (16,)))

    a = np.zeros(16, np.float32)
    assert specialize(k.fn, ([a], a)).params[0].element.index64
    text = ct.compile_to_ir(k, ([a], a)).to_text()
    assert "trunci" not in text and "tensor_view<?xf32, strides=[1]>" in text


def test_list_records_layout():
    rec = list_records([(0x7f00_0000_0010, (3, 4), (4, 1)), (2**64 - 16, (5, 6), (12, 2))], 2)
    assert rec.dtype == np.int64 and rec.shape == (2, 5) and rec.flags.c_contiguous
    assert rec[0].tolist() == [0x7f00_0000_0010, 3, 4, 4, 1]
    # Addresses are unsigned: the high bit survives as the word's bits.
    assert int(rec[1, 0].view(np.uint64)) == 2**64 - 16
    assert rec[1, 1:].tolist() == [5, 6, 12, 2]
    with pytest.raises(ValueError, match="item #0 has 1 dimension"):
        list_records([(0, (3,), (1,))], 2)


class _FakeDeviceArray:
    """An object with a CUDA array interface (no GPU needed to build records from it)."""

    def __init__(self, ptr, shape, strides_bytes, typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False),
                                         "strides": strides_bytes, "version": 3}


def test_launch_records_hold_device_addresses_shapes_and_element_strides():
    spec = specialize(sum_list.fn, ([np.zeros((4, 8), np.float32)], np.zeros(8, np.float32), 32)).params[0]
    items = [_FakeDeviceArray(0x7000_0000, (4, 8), (32, 4)), _FakeDeviceArray(0x7000_1000, (4, 8), (64, 8))]
    try:
        rec = list_arg_records("inp_list", spec, items)
    except ct.errors.TileIRError as e:  # no driver to classify the pointers: nothing more to check here
        pytest.skip(f"array_info needs the CUDA driver here: {e}")
    assert rec.tolist() == [[0x7000_0000, 4, 8, 8, 1], [0x7000_1000, 4, 8, 16, 2]]


def test_launch_refuses_host_arrays_in_a_list():
    spec = specialize(sum_list.fn, ([np.zeros(8, np.float32)], np.zeros(8, np.float32), 32)).params[0]
    with pytest.raises(ct.errors.LaunchError, match="item #0 of list argument 'inp_list' lives on the host"):
        list_arg_records("inp_list", spec, [np.zeros(8, np.float32)])


def test_compiled_kernel_matching_accepts_lists_with_at_least_the_facts():
    from tileir._compile import CompiledKernel

    a = np.zeros(64, np.float32)
    spec = specialize(sum_list.fn, ([a, a], a, 32))
    ck = CompiledKernel("sum_list", "sm_90a", spec, {}, b"", 128, [], "", None, [], {})
    assert _matches_spec(ck, ([a, a, a], a, 32))
    assert not _matches_spec(ck, ([a.astype(np.float16)], a, 32))
    assert not _matches_spec(ck, ([np.zeros(80, np.float32)[1:65]], a, 32))  # not 16-byte aligned
    assert not _matches_spec(ck, ([], a, 32))


# ------------------------------------------------------------------------------------------
# Errors, located at the user's source
# ------------------------------------------------------------------------------------------

@ct.kernel
def takes_list(inp_list, out):
    ct.store(out, (0,), ct.load(inp_list[0], (0,), (16,)))


def test_mixed_dtypes_are_a_located_error():
    with pytest.raises(ct.TileTypeError, match="arrays in list parameter 'inp_list' vary in data type: item #0 is "
                                               "float32, item #1 is float16") as e:
        ct.compile_to_ir(takes_list, ([np.zeros(16, np.float32), np.zeros(16, np.float16)], np.zeros(16, np.float32)))
    check_location(e.value, "def takes_list(inp_list", "inp_list")


def test_mixed_ranks_are_a_located_error():
    with pytest.raises(ct.TileTypeError, match="vary in rank: item #0 has 1 dimension.*item #1 has 2") as e:
        ct.compile_to_ir(takes_list, ([np.zeros(16, np.float32), np.zeros((4, 4), np.float32)],
                                      np.zeros(16, np.float32)))
    check_location(e.value, "def takes_list(inp_list", "inp_list")


def test_empty_list_and_non_array_items_are_located_errors():
    with pytest.raises(ct.TileTypeError, match="empty lists are not supported as kernel arguments") as e:
        ct.compile_to_ir(takes_list, ([], np.zeros(16, np.float32)))
    check_location(e.value, "def takes_list(inp_list", "inp_list")
    with pytest.raises(ct.TileTypeError, match="item #1 of list parameter 'inp_list' is a int; expected list items "
                                               "to be arrays") as e:
        ct.compile_to_ir(takes_list, ([np.zeros(16, np.float32), 3], np.zeros(16, np.float32)))
    check_location(e.value, "def takes_list(inp_list", "inp_list")


def test_tuple_of_arrays_is_still_a_located_unsupported_error():
    with pytest.raises(ct.TileUnsupportedFeatureError, match="parameter 'inp_list' is a tuple of arrays") as e:
        ct.compile_to_ir(takes_list, ((np.zeros(16, np.float32),), np.zeros(16, np.float32)))
    check_location(e.value, "def takes_list(inp_list", "inp_list")


@ct.kernel
def float_index(inp_list, out, x: float):
    ct.store(out, (0,), ct.load(inp_list[x], (0,), (16,)))


@ct.kernel
def string_index(inp_list, out):
    ct.store(out, (0,), ct.load(inp_list["a"], (0,), (16,)))


@ct.kernel
def negative_index(inp_list, out):
    ct.store(out, (0,), ct.load(inp_list[-1], (0,), (16,)))


@ct.kernel
def list_attribute(inp_list, out):
    ct.store(out, (0,), ct.load(inp_list.shape, (0,), (16,)))


def test_indexing_errors_are_located():
    a = [np.zeros(16, np.float32)]
    o = np.zeros(16, np.float32)
    with pytest.raises(ct.TileTypeError, match=r"a list index must be an integer scalar, got tile<f32>") as e:
        ct.compile_to_ir(float_index, (a, o, 1.0))
    check_location(e.value, "inp_list[x]", "x]")
    with pytest.raises(ct.TileTypeError, match="a list index must be an integer scalar, got str") as e:
        ct.compile_to_ir(string_index, (a, o))
    check_location(e.value, 'inp_list["a"]', '"a"')
    with pytest.raises(ct.TileValueError, match="list index -1 is negative") as e:
        ct.compile_to_ir(negative_index, (a, o))
    check_location(e.value, "inp_list[-1]", "-1")
    with pytest.raises(ct.TileTypeError, match="a list of arrays has no attribute 'shape'") as e:
        ct.compile_to_ir(list_attribute, (a, o))
    check_location(e.value, "inp_list.shape")


# ------------------------------------------------------------------------------------------
# `return` inside a run-time loop of an inlined helper
# ------------------------------------------------------------------------------------------

def first_above(x, n, thr):
    """Index of the first of x[0..n) above thr, or -1."""
    for i in range(n):
        if ct.load(x, (i,), (1,)).item() > thr:
            return i
    return -1


def partial_sum_until(x, n, thr):
    """Sum of x[0..k] where k is the first index whose element exceeds thr (nested loops,
    a while loop inside a for loop, the return under a run-time `if`)."""
    acc = 0.0
    for i in range(n):
        j = 0
        while j < 1:
            v = ct.load(x, (i,), (1,)).item()
            if v > thr:
                return acc + v
            acc = acc + v
            j += 1
    return acc


def scaled_or_none(t, n):
    """Returns inside the loop and again after it; tiles of shape (16,)."""
    k = 0
    while k < n:
        if k == 2:
            return t * 3.0
        k += 1
    return t


def bare_return(y, t, n):
    for i in range(n):
        if i == 1:
            ct.store(y, (0,), t)
            return
    ct.store(y, (0,), t + 1.0)


@ct.kernel
def helper_loops(X, T, Y, n: int, thr: float):
    r = first_above(X, n, thr)
    s = partial_sum_until(X, n, thr)
    ct.store(Y, (0,), ct.full((1,), r, dtype=ct.int32).astype(ct.float32))
    ct.store(Y, (1,), ct.full((1,), s, dtype=ct.float32))
    t = ct.load(T, (0,), (16,))
    ct.store(T, (1,), scaled_or_none(t, n))


@ct.kernel
def helper_bare_return(T, Y, n: int):
    bare_return(Y, ct.load(T, (0,), (16,)), n)


def reference_first_above(x, n, thr):
    for i in range(n):
        if x[i] > thr:
            return i
    return -1


def reference_partial_sum(x, n, thr):
    acc = np.float32(0)
    for i in range(n):
        if x[i] > thr:
            return acc + x[i]
        acc = acc + x[i]
    return acc


@pytest.mark.parametrize("seed", range(5))
def test_helper_returns_inside_runtime_loops_match_numpy(seed):
    rng = np.random.default_rng(seed)
    x = rng.random(8).astype(np.float32)
    n = int(rng.integers(0, 9))
    thr = float(rng.choice([0.5, 0.9, 2.0]))
    y = np.zeros(2, np.float32)
    t = np.zeros(32, np.float32)
    t[:16] = rng.standard_normal(16).astype(np.float32)
    ct.interpret((1,), helper_loops, (x, t, y, n, thr))
    assert y[0] == reference_first_above(x, n, thr)
    np.testing.assert_allclose(y[1], reference_partial_sum(x, n, thr), rtol=1e-6)
    np.testing.assert_array_equal(t[16:], t[:16] * 3.0 if n > 2 else t[:16])


@pytest.mark.parametrize("n", [0, 1, 3])
def test_bare_return_inside_a_helper_loop(n):
    t = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    ct.interpret((1,), helper_bare_return, (t, y, n))
    np.testing.assert_array_equal(y, t if n > 1 else t + 1.0)


def returns_two_types(t, n):
    for i in range(n):
        if i == 1:
            return t
        if i == 2:
            return t.astype(ct.float16)
    return t


def returns_an_array(x, n):
    for i in range(n):
        return x
    return x


def test_helper_loop_return_errors_are_located():
    @ct.kernel
    def k(X, n: int):
        ct.store(X, (0,), returns_two_types(ct.load(X, (0,), (16,)), n))

    with pytest.raises(ct.TileTypeError, match="the helper returns tile<16xf32> from this loop in one place and "
                                               "tile<16xf16> in another") as e:
        ct.compile_to_ir(k, (np.zeros(16, np.float32), 4))
    check_location(e.value, "return t.astype(ct.float16)", "return")

    @ct.kernel
    def k2(X, n: int):
        ct.store(returns_an_array(X, n), (0,), ct.load(X, (0,), (16,)))

    with pytest.raises(ct.TileUnsupportedFeatureError, match="a helper can only return tiles, numbers or tuples of "
                                                             "them from inside a run-time loop") as e:
        ct.compile_to_ir(k2, (np.zeros(16, np.float32), 4))
    check_location(e.value, "        return x", "return")


def load_row(lst, k, i):
    """A helper that takes the list itself."""
    return ct.gather(lst[k], ct.arange(8, dtype=ct.int32) + i * 8)


@ct.kernel
def list_through_helper(inp_list, out):
    acc = ct.zeros((8,), dtype=ct.float32)
    for k in range(len(inp_list)):
        acc = acc + load_row(inp_list, k, ct.bid(0))
    ct.scatter(out, ct.arange(8, dtype=ct.int32) + ct.bid(0) * 8, acc)


def test_list_passed_to_a_helper_with_gather_scatter_and_repeated_items():
    a = np.arange(20, dtype=np.float32)
    b = -np.arange(20, dtype=np.float32) * 0.5
    out = np.zeros(20, np.float32)
    ct.interpret((3,), list_through_helper, ([a, b, a], out))
    np.testing.assert_array_equal(out, 2 * a + b)
