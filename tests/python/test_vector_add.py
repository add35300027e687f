"""The foundation's vertical slice: Python kernel -> every stage -> cubin, without a GPU."""

import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import tileir as ct
from tileir import errors

from arrays import assert_same_bits, emulate_and_interpret
from kernels import vector_add

HERE = Path(__file__).parent


def arrays(n=1000, dtype=np.float32):
    return np.zeros(n, dtype), np.zeros(n, dtype), np.zeros(n, dtype)


def random_arrays(n=1000, dtype=np.float32, count=3, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return [rng.standard_normal(n).astype(dtype) for _ in range(count)]
    return [rng.integers(-100, 100, n).astype(dtype) for _ in range(count)]


def runs_like_the_interpreter(compiled, kernel, args, grid):
    """``compiled`` on the PTX emulator writes what ``kernel`` writes under ct.interpret,
    bit for bit (adds and copies are exact: both round each sum once, in the same way)."""
    want, got = emulate_and_interpret(grid, kernel, compiled, args)
    for w, g in zip(want, got):
        if isinstance(w, np.ndarray):
            assert_same_bits(g, w)


@pytest.mark.parametrize("target", ["sm_90a", "sm_80"])
def test_ptx_is_accepted_by_ptxas(target):
    k = ct.compile(vector_add, (*arrays(), 1024), target=target)
    for stage in ("cuda_tile", "nv_tileaa", "nv_tileas", "llvm", "ptx"):
        assert k.asm[stage].strip(), stage
    assert k.cubin[:4] == b"\x7fELF"
    assert f".target {target}" in k.asm["ptx"]
    assert ".entry vector_add(" in k.asm["ptx"]
    assert ".reqntid 128, 1, 1" in k.asm["ptx"]
    assert k.num_threads == 128
    assert k.ptxas_info is not None and 0 < k.registers <= 64, k.ptxas_info
    assert not k.spills
    assert set(k.timings) >= {"frontend", "rust_passes", "llvm", "ptxas"}
    # The sm_80 PTX runs on the emulator too (it has no sm_90a-only instruction).
    runs_like_the_interpreter(k, vector_add, [*random_arrays(1000), 1024], (1,))


def test_each_stage_is_in_its_dialect():
    k = ct.compile(vector_add, (*arrays(), 256))
    assert "load_view_tko weak" in k.asm["cuda_tile"] and "nv_tile" not in k.asm["cuda_tile"]
    aa = k.asm["nv_tileaa"]
    assert "nv_tileaa.tiled_load" in aa and "cuda_tile" not in aa and "nv_tileas" not in aa
    ts = k.asm["nv_tileas"]
    assert "nv_tileas.tiled_load" in ts and "#nv_tileas.blocked<" in ts
    runs_like_the_interpreter(k, vector_add, [*random_arrays(1000), 256], (4,))


def test_tail_elements_are_masked():
    """Elements past the array's end are neither read nor written. Each tile access makes one
    uniform test, "the whole tile is inside the array", against the runtime size: when it
    holds, plain vector accesses; otherwise every element is guarded by its own predicate
    (index < size) on a predicated PTX ld/st, and masked-off loads read the padding."""
    k = ct.compile(vector_add, (*arrays(1000), 1024))
    ts = k.asm["nv_tileas"]
    assert re.search(r"nv_tileas.tiled_load weak %\w+\[%\w+\] token = %\w+ padding = zero", ts), ts
    ll = k.asm["llvm"]
    size = {}
    for arr in "abc":
        m = re.search(rf"(%z\d+) = zext i32 %{arr}_shape0 to i64", ll)
        assert m, f"size of {arr} not read from its shape parameter"
        size[arr] = m.group(1)
    for arr in "abc":
        # Fast-path test: tile start >= 0 and tile end <= size.
        assert re.search(rf"icmp sle i64 %end\d+, {size[arr]}\b", ll), arr
        # Slow path: one predicate per element, compared with the size.
        assert len(re.findall(rf"icmp ult i64 %\w+, {size[arr]}\b", ll)) == 2 * 4, arr
    assert "llvm.masked." not in ll
    # Loads: 4 elements per group, padding 0 moved in first, each element behind its own predicate.
    loads = re.findall(r'asm sideeffect "(mov.b32 \$0, 0x0;.*?)", "(=r,=r,=r,=r,l,b,b,b,b)"', ll)
    assert len(loads) == 2 * 2, loads  # 2 arrays x 2 groups per thread
    for body, _ in loads:
        assert all(f"@${5 + j} ld.global.b32 ${j}, [$4+{4 * j}];" in body for j in range(4)), body
    stores = re.findall(r'asm sideeffect "(@\$1 st.global.b32 .*?)", "l,b,b,b,b,r,r,r,r,~\{memory\}"', ll)
    assert len(stores) == 2, ll
    # No unguarded global access: every plain load/store sits in a block reached only when
    # the whole tile is in bounds.
    blocks = re.split(r"\n(?=[\w.]+:\n)", ll)
    for block in blocks:
        if re.search(r"= load <4 x float>|store <4 x float>", block):
            assert block.startswith("fast."), block[:80]
    ptx = k.asm["ptx"]
    assert "ld.global.v4" in ptx and "st.global.v4" in ptx
    assert len(re.findall(r"@%p\d+ ld\.global\.b32", ptx)) == 16
    assert len(re.findall(r"@%p\d+ st\.global\.b32", ptx)) == 8
    # Run: the one tile is partial (1000 of 1024 elements), so the masked path runs; the
    # emulator faults on any access past an array's end.
    runs_like_the_interpreter(k, vector_add, [*random_arrays(1000), 1024], (1,))


@ct.kernel
def copy_float(a, b, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.NAN)
    ct.store(b, index=(i,), tile=t)


@ct.kernel
def copy_int(a, b, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(b, index=(i,), tile=t)


@pytest.mark.parametrize("dtype,ld", [(np.float16, "b16"), (np.float64, "b64"), (np.int8, "b8"),
                                      (np.int16, "b16"), (np.int32, "b32"), (np.int64, "b64")])
@pytest.mark.parametrize("target", ["sm_90a", "sm_80"])
def test_predicated_accesses_of_every_width_pass_ptxas(dtype, ld, target):
    a = np.zeros(999, dtype)
    kernel = copy_float if np.dtype(dtype).kind == "f" else copy_int
    k = ct.compile(kernel, (a, a.copy(), 256), target=target)
    ptx = k.asm["ptx"]
    assert re.search(rf"@%p\d+ ld\.global\.{ld}", ptx) and re.search(rf"@%p\d+ st\.global\.{ld}", ptx), ptx
    assert k.cubin[:4] == b"\x7fELF"
    if dtype == np.float16:
        assert "mov.b16 $0, 0x7E00;" in k.asm["llvm"]  # NaN padding in f16 bits
    if dtype == np.float64:
        assert "mov.b64 $0, 0x7FF8000000000000;" in k.asm["llvm"]
    # 999 elements in four 256-element tiles: the last one is partial (predicated path).
    runs_like_the_interpreter(k, kernel, [*random_arrays(999, dtype, count=2), 256], (4,))


def test_unaligned_or_strided_arrays_do_not_use_vector_accesses():
    base = np.zeros(1025, np.float32)
    unaligned = base[1:]  # 4-byte offset: not 16-byte aligned
    k = ct.compile(vector_add, (unaligned, unaligned, unaligned, 256))
    assert "vector_width = 1" in k.asm["nv_tileas"] and "align 16" not in k.asm["llvm"]
    # Run on unaligned views of their own (the copies the helper makes land aligned: code
    # compiled without the alignment fact runs on any address).
    views = [x[1:] for x in random_arrays(1025)]
    runs_like_the_interpreter(k, vector_add, [*views, 256], (4,))
    strided = np.zeros(2048, np.float32)[::2]
    k = ct.compile(vector_add, (strided, strided, strided, 256))
    assert "strides=[?]" in k.asm["cuda_tile"] and "vector_width = 1" in k.asm["nv_tileas"]
    assert k.cubin[:4] == b"\x7fELF"
    # Strided views keep their strides in the copies.
    runs_like_the_interpreter(k, vector_add, [*(x[::2] for x in random_arrays(2048)), 256], (4,))


def test_cuda_tile_text_is_byte_identical_across_processes():
    script = (
        "import sys; sys.path.insert(0, %r)\n"
        "import numpy as np, tileir as ct\n"
        "from kernels import vector_add\n"
        "z = np.zeros(100, np.float32)\n"
        "k = ct.compile(vector_add, (z, z, z, 128))\n"
        "sys.stdout.write('\\x00'.join(k.asm[s] for s in ('cuda_tile','nv_tileaa','nv_tileas','llvm','ptx')))\n"
    ) % str(HERE)
    outs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert outs[0] == outs[1]
    z = np.zeros(100, np.float32)
    here = ct.compile(vector_add.replace_hints(), (z, z, z, 128))
    assert outs[0].split("\x00")[0] == here.asm["cuda_tile"]
    runs_like_the_interpreter(here, vector_add, [*random_arrays(100), 128], (1,))


def test_compiles_are_deterministic_across_threads():
    z = np.zeros(100, np.float32)
    results, errs, kernels = [], [], []

    def work():
        try:
            k = ct.compile(vector_add.replace_hints(), (z, z, z, 64))
            results.append((k.asm["llvm"], k.asm["ptx"], k.cubin))
            kernels.append(k)
        except Exception as e:  # pragma: no cover - reported below
            errs.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errs, errs
    assert len(set(results)) == 1
    runs_like_the_interpreter(kernels[0], vector_add, [*random_arrays(100), 64], (2,))


def test_specializations_are_cached():
    z = np.zeros(64, np.float32)
    kern = vector_add.replace_hints()
    k1 = ct.compile(kern, (z, z, z, 64))
    assert ct.compile(kern, (z, z, z, 64)) is k1
    assert ct.compile(kern, (z, z, z, 128)) is not k1
    h = np.zeros(64, np.float16)
    kh = ct.compile(kern, (h, h, h, 64))
    assert "f16" in kh.asm["cuda_tile"]
    runs_like_the_interpreter(k1, kern, [*random_arrays(64), 64], (1,))
    runs_like_the_interpreter(kh, kern, [*random_arrays(64, np.float16), 64], (1,))


def test_kernel_cannot_be_called_directly():
    with pytest.raises(TypeError, match="use tileir.launch"):
        vector_add(1, 2, 3, 4)
    with pytest.raises(TypeError, match="unknown kernel hint 'num_warps'"):
        vector_add.replace_hints(num_warps=8)


def test_launch_without_a_driver_is_a_clear_error():
    from tileir import cuda

    if cuda.is_available():
        pytest.skip("a CUDA driver is present")
    z = np.zeros(16, np.float32)
    with pytest.raises(errors.LaunchError, match="no CUDA driver found"):
        ct.launch(None, (1,), vector_add, (z, z, z, 16))


def test_bad_target_and_opt_level():
    z = np.zeros(16, np.float32)
    with pytest.raises(ValueError, match="unsupported target 'sm_75'"):
        ct.compile(vector_add, (z, z, z, 16), target="sm_75")
    with pytest.raises(ValueError, match="opt_level"):
        ct.compile(vector_add, (z, z, z, 16), opt_level=7)


@pytest.mark.gpu
def test_vector_add_on_gpu_matches_numpy():
    from tileir import cuda

    n = (1 << 24) + 7
    rng = np.random.default_rng(1)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.empty((n,), np.float32)
    ct.launch(None, (ct.cdiv(n, 1024),), vector_add, (da, db, dc, 1024))
    cuda.synchronize()
    np.testing.assert_array_equal(dc.copy_to_host(), a + b)


def test_names_captured_from_an_enclosing_function_resolve():
    import tileir as tile_api

    def make(tile_size):
        @tile_api.kernel
        def copy(a, b):
            tile_api.store(b, index=(tile_api.bid(0),), tile=tile_api.load(a, index=(tile_api.bid(0),), shape=(tile_size,)))
        return copy

    z = np.zeros(256, np.float32)
    kern = make(128)
    k = ct.compile(kern, (z, z))
    assert "tile<128xf32>" in k.asm["cuda_tile"]
    runs_like_the_interpreter(k, kern, random_arrays(256, count=2), (2,))
