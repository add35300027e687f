"""Register layouts chosen per value (`tileas-assign-layouts`): a tile loaded or stored
through a transposed view (`order=(1, 0)`) is held with its unit-stride dimension fastest, so
its global accesses are 16-byte vectors instead of one strided element per access. Each
kernel runs on the PTX emulator for sm_80 and sm_90a and must match `ct.interpret` bit for
bit (ragged edges included); the PTX and the nv_tileas IR show the layouts chosen."""

import re

import numpy as np
import pytest

import tileir as ct

from arrays import assert_same_bits, emulate_and_interpret

ConstInt = ct.Constant[int]
TARGETS = ["sm_80", "sm_90a"]
VECTOR_LOAD = re.compile(r"ld\.global\.v\d\.b\d+")


@ct.kernel
def transposed_in(x, y, z, tm: ConstInt, tn: ConstInt):
    """y = 2t + 1 and z = t, where t is x's transposed tile: the element-wise op follows t's
    layout, y (row-major) is stored through a conversion, z (transposed) directly."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn), order=(1, 0))
    ct.store(y, index=(i, j), tile=t * 2 + 1)
    ct.store(z, index=(i, j), tile=t, order=(1, 0))


@ct.kernel
def transposed_out(x, y, tm: ConstInt, tn: ConstInt):
    """A row-major tile stored through a transposed view: converted before the store."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn))
    ct.store(y, index=(i, j), tile=t - 3, order=(1, 0))


@ct.kernel
def matmul_bt(A, Bt, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """C = A @ Bt^T with Bt stored N x K row-major: B's tiles come through a transposed view."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0.0, dtype=np.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(Bt, index=(k, j), shape=(tk, tn), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def matmul_bt_batched(A, Bt, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """As attention loads K: B's tile through a transposed rank-3 view, then reshaped to
    rank 2 (on sm_90a its registers go to a K-major wgmma image)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0.0, dtype=np.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(Bt, index=(0, k, j), shape=(1, tk, tn), order=(0, 2, 1), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b.reshape((tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def transposed_sum(x, y, tm: ConstInt, tn: ConstInt):
    """y's tile = the sum over k of x's transposed tiles (k, i): the loop carries the sum in
    the loaded tiles' layout, converted once after the loop for the row-major store."""
    i = ct.bid(0)
    acc = ct.full((tm, tn), 0.0, dtype=np.float32)
    for k in range(ct.num_tiles(x, axis=0, shape=(tn, tm))):
        acc = acc + ct.load(x, index=(i, k), shape=(tm, tn), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(i, 0), tile=acc)


@ct.kernel
def matmul_bt_batched_and_copy(A, Bt, C, D, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """matmul_bt_batched whose B tiles are also copied out: a tile with another use is not
    copied straight into shared memory by TMA, so it reaches the mma in registers."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0.0, dtype=np.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(Bt, index=(0, k, j), shape=(1, tk, tn), order=(0, 2, 1), padding_mode=ct.PaddingMode.ZERO)
        ct.store(D, index=(0, k, j), tile=b, order=(0, 2, 1))
        acc = ct.mma(a, b.reshape((tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def matmul_ct(A, B, Ct, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """C = A @ B stored transposed: a conversion after a software-pipelined K loop."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0.0, dtype=np.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Ct, index=(i, j), tile=acc, order=(1, 0))


@ct.kernel
def transposed_sums(x, rows_out, cols_out, tm: ConstInt, tn: ConstInt):
    """Row and column sums of x's transposed tile: the reductions read it in its layout."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
    ct.store(rows_out, index=(j, i), tile=ct.sum(t, axis=1, keepdims=True).reshape((1, tm)))
    ct.store(cols_out, index=(i, j), tile=ct.sum(t, axis=0, keepdims=True).reshape((1, tn)))


@ct.kernel
def transposed_add(x, w, z, tm: ConstInt, tn: ConstInt):
    """z = x + w, all three through transposed views: no data changes threads."""
    i, j = ct.bid(0), ct.bid(1)
    a = ct.load(x, index=(i, j), shape=(tm, tn), order=(1, 0))
    b = ct.load(w, index=(i, j), shape=(tm, tn), order=(1, 0))
    ct.store(z, index=(i, j), tile=a + b, order=(1, 0))


def _values(rng, shape, dtype):
    # Small integers: every sum and product below is exact in each type.
    return rng.integers(-4, 5, size=shape).astype(dtype)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8])
def test_transposed_loads_vectorize_and_match(target, dtype):
    rng = np.random.default_rng(1)
    tm, tn = 32, 32
    # The tiles' grid leaves ragged edges in both dimensions; rows of x (48 elements) and y
    # (80) are multiples of 16 elements, cuTile's stride fact, so both vectorize: y's
    # row-major store then reads 2t + 1 through a conversion.
    rows, cols = 48, 80
    x = _values(rng, (cols, rows), dtype)  # read transposed: t[r, c] = x[c, r]
    y = np.zeros((rows, cols), dtype)
    z = np.zeros((cols, rows), dtype)
    args = [x, y, z, tm, tn]
    k = ct.compile(transposed_in, args, target=target)
    tileas = k.asm["nv_tileas"]
    assert re.search(rf"tiled_load .*vector_width = {16 // np.dtype(dtype).itemsize} .*order=\[0, 1\]", tileas), tileas
    assert VECTOR_LOAD.search(k.asm["ptx"])
    assert "convert_layout" in tileas
    grid = (-(-rows // tm), -(-cols // tn), 1)
    interpreted, emulated = emulate_and_interpret(grid, transposed_in, k, args, race_check=True)
    for i in (1, 2):
        assert_same_bits(emulated[i], interpreted[i])
    np.testing.assert_array_equal(interpreted[2], x)  # z holds t transposed back: x itself
    np.testing.assert_array_equal(interpreted[1], (x.T * 2 + 1).astype(dtype))


@pytest.mark.parametrize("target", TARGETS)
def test_transposed_stores_convert_and_match(target):
    rng = np.random.default_rng(2)
    tm, tn = 64, 32
    rows, cols = 112, 90  # y's rows (112 elements) are a multiple of 16: cuTile's stride fact
    x = _values(rng, (rows, cols), np.float16)
    y = np.zeros((cols, rows), np.float16)
    args = [x, y, tm, tn]
    k = ct.compile(transposed_out, args, target=target)
    tileas = k.asm["nv_tileas"]
    assert "convert_layout" in tileas and re.search(r"tiled_store .*vector_width = 8 .*order=\[0, 1\]", tileas), tileas
    grid = (-(-rows // tm), -(-cols // tn), 1)
    interpreted, emulated = emulate_and_interpret(grid, transposed_out, k, args, race_check=True)
    assert_same_bits(emulated[1], interpreted[1])
    np.testing.assert_array_equal(interpreted[1], x.T - 3)


@pytest.mark.parametrize("target", TARGETS)
def test_mma_operand_through_a_transposed_view(target):
    rng = np.random.default_rng(3)
    tm, tn, tk = 64, 64, 32
    m, n, kk = 96, 80, 80  # ragged in M, N and K; Bt's rows a multiple of 16 elements
    a = _values(rng, (m, kk), np.float16)
    bt = _values(rng, (n, kk), np.float16)
    c = np.zeros((m, n), np.float32)
    args = [a, bt, c, tm, tn, tk]
    k = ct.compile(matmul_bt, args, target=target)
    assert re.search(r"tiled_load .*order=\[0, 1\]", k.asm["nv_tileas"])
    # B's tile reaches the mma in its own layout: no conversion on the way.
    assert "convert_layout" not in k.asm["nv_tileas"]
    grid = (-(-m // tm), -(-n // tn), 1)
    interpreted, emulated = emulate_and_interpret(grid, matmul_bt, k, args, race_check=True)
    assert_same_bits(emulated[2], interpreted[2])
    np.testing.assert_array_equal(interpreted[2], a.astype(np.float32) @ bt.T.astype(np.float32))


def test_the_pass_can_be_turned_off():
    x = np.zeros((64, 32), np.float16)
    args = [x, np.zeros((32, 64), np.float16), np.zeros((64, 32), np.float16), 32, 32]
    on = ct.compile(transposed_in, args, target="sm_90a")
    pipeline = re.sub(r"tileas-assign-layouts(\{[^}]*\})?", "tileas-assign-layouts{anchor-loads=false anchor-stores=false}",
                      on.pipeline)
    assert pipeline != on.pipeline
    off = ct.compile(transposed_in, args, target="sm_90a", pipeline=pipeline)
    assert "order=[0, 1]" in on.asm["nv_tileas"]
    assert "order=[0, 1]" not in off.asm["nv_tileas"] and "convert_layout" not in off.asm["nv_tileas"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("copied", [False, True], ids=["mma_only", "also_copied"])
def test_mma_operand_through_a_transposed_rank3_view(target, copied):
    rng = np.random.default_rng(4)
    tm, tn, tk = 64, 64, 32
    m, n, kk = 96, 80, 80
    a = _values(rng, (m, kk), np.float16)
    bt = _values(rng, (1, n, kk), np.float16)
    c = np.zeros((m, n), np.float32)
    kern = matmul_bt_batched_and_copy if copied else matmul_bt_batched
    args = [a, bt, c, *([np.zeros_like(bt)] if copied else []), tm, tn, tk]
    k = ct.compile(kern, args, target=target)
    tileas, ptx = k.asm["nv_tileas"], k.asm["ptx"]
    # The reshape's result keeps the load's layout (K fastest): no conversion anywhere.
    assert re.search(r"reshape .*-> tile<32x64xf16, #nv_tileas.blocked<size_per_thread=\[8, 1\].*order=\[0, 1\]", tileas), tileas
    assert "convert_layout" not in tileas
    if target == "sm_90a":
        # B is read K-major (no transpose immediate): copied by TMA as a 3-d box when the mma
        # is its only use, else stored from the registers that hold it K-fastest.
        assert set(re.findall(r"wgmma.mma_async[^;]*?(\d+, \d+, \d+, \d+);", ptx)) == {"1, 1, 0, 0"}
        assert ("cp.async.bulk.tensor.3d" in ptx) != copied
    grid = (-(-m // tm), -(-n // tn), 1)
    interpreted, emulated = emulate_and_interpret(grid, kern, k, args, race_check=True)
    assert_same_bits(emulated[2], interpreted[2])
    np.testing.assert_array_equal(interpreted[2], a.astype(np.float32) @ bt[0].T.astype(np.float32))
    if copied:
        assert_same_bits(emulated[3], interpreted[3])
        np.testing.assert_array_equal(interpreted[3], bt)


@pytest.mark.parametrize("target", TARGETS)
def test_a_loop_carries_a_sum_of_transposed_tiles_in_their_layout(target):
    rng = np.random.default_rng(5)
    tm, tn = 32, 16
    rows, cols = 80, 48  # x is cols x rows; the k loop runs over x's rows in steps of tn
    x = _values(rng, (cols, rows), np.float32)
    y = np.zeros((rows, tn), np.float32)
    args = [x, y, tm, tn]
    k = ct.compile(transposed_sum, args, target=target)
    lowered = k.asm["nv_tileas-registers"]
    assert "order=[0, 1]" in lowered and lowered.count("convert_layout") == 1
    assert lowered.index("convert_layout") > lowered.index("continue"), lowered
    grid = (-(-rows // tm), 1, 1)
    interpreted, emulated = emulate_and_interpret(grid, transposed_sum, k, args, race_check=True)
    assert_same_bits(emulated[1], interpreted[1])
    want = sum(x[kk * tn:(kk + 1) * tn].T for kk in range(cols // tn))
    np.testing.assert_array_equal(interpreted[1], want)


@pytest.mark.parametrize("target", TARGETS)
def test_a_conversion_after_a_pipelined_loop(target):
    rng = np.random.default_rng(6)
    tm, tn, tk = 64, 32, 32
    m, n, kk = 96, 80, 80
    a = _values(rng, (m, kk), np.float16)
    b = _values(rng, (kk, n), np.float16)
    ct_ = np.zeros((n, m + 16), np.float32)[:, :m]  # rows of 112 elements: a multiple of 16
    args = [a, b, ct_, tm, tn, tk]
    k = ct.compile(matmul_ct, args, target=target)
    stages = k.asm["nv_tileas-registers"]
    assert "convert_layout" in stages and "create_pipeline" not in stages and "consume_one" not in stages
    grid = (-(-m // tm), -(-n // tn), 1)
    interpreted, emulated = emulate_and_interpret(grid, matmul_ct, k, args, race_check=True)
    assert_same_bits(emulated[2], interpreted[2])
    np.testing.assert_array_equal(interpreted[2], (a.astype(np.float32) @ b.astype(np.float32)).T)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("variant", ["tree", "serial"])
def test_reductions_read_the_transposed_layout(target, variant):
    rng = np.random.default_rng(7)
    tm, tn = 64, 32
    rows, cols = 96, 80
    x = _values(rng, (cols, rows), np.float32)  # t = x's transposed tiles: rows x cols
    gi, gj = -(-rows // tm), -(-cols // tn)
    rows_out = np.zeros((gj, gi * tm), np.float32)
    cols_out = np.zeros((gi, gj * tn), np.float32)
    args = [x, rows_out, cols_out, tm, tn]
    k = ct.compile(transposed_sums, args, target=target)
    if variant == "serial":
        pipeline = k.pipeline.replace('force-variant=""', 'force-variant="reduce:serial"')
        assert pipeline != k.pipeline
        k = ct.compile(transposed_sums, args, target=target, pipeline=pipeline)
    tileas = k.asm["nv_tileas"]
    assert "order=[0, 1]" in tileas and "convert_layout" not in tileas, tileas
    interpreted, emulated = emulate_and_interpret((gi, gj, 1), transposed_sums, k, args, race_check=True)
    for i in (1, 2):
        assert_same_bits(emulated[i], interpreted[i])
    t = np.zeros((gi * tm, gj * tn), np.float32)
    t[:rows, :cols] = x.T
    np.testing.assert_array_equal(interpreted[1], t.reshape(gi * tm, gj, tn).sum(axis=2).T)
    np.testing.assert_array_equal(interpreted[2], t.reshape(gi, tm, gj * tn).sum(axis=1))


@pytest.mark.parametrize("target", TARGETS)
def test_an_op_of_two_transposed_tiles_converts_neither(target):
    rng = np.random.default_rng(8)
    tm, tn = 32, 32
    rows, cols = 48, 80
    x, w = _values(rng, (cols, rows), np.float16), _values(rng, (cols, rows), np.float16)
    z = np.zeros((cols, rows), np.float16)
    args = [x, w, z, tm, tn]
    k = ct.compile(transposed_add, args, target=target)
    tileas = k.asm["nv_tileas"]
    assert tileas.count("order=[0, 1]") >= 3 and "convert_layout" not in tileas, tileas
    grid = (-(-rows // tm), -(-cols // tn), 1)
    interpreted, emulated = emulate_and_interpret(grid, transposed_add, k, args, race_check=True)
    assert_same_bits(emulated[2], interpreted[2])
    np.testing.assert_array_equal(interpreted[2], x + w)
