"""The PTX emulator: compiled kernels run on the CPU and agree with ct.interpret (the
reference) and NumPy; PTX text runs with explicit buffers; faults name their PTX line."""

import numpy as np
import pytest

import tileir as ct
from tileir.emulator import EmulatorError, emulate, run_ptx

from kernels import vector_add

SCALE_PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry scale(.param .u64 out, .param .u64 inp, .param .u32 n, .param .f32 k)
{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.b64 %rd1, [out];
    ld.param.b64 %rd2, [inp];
    ld.param.b32 %r1, [n];
    ld.param.b32 %r2, [k];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra $L_end;
    mul.wide.u32 %rd3, %r6, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.b32 %r7, [%rd4];
    mul.rn.f32 %r7, %r7, %r2;
    add.s64 %rd5, %rd1, %rd3;
    st.global.b32 [%rd5], %r7;
$L_end:
    ret;
}
"""


@pytest.mark.parametrize("n,tile", [(1000, 1024), (4096 + 7, 1024), (3000, 256)])
def test_vector_add_matches_interpreter(n, tile):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c_emu = np.full(n, np.nan, np.float32)
    c_ref = np.full(n, np.nan, np.float32)
    grid = (ct.cdiv(n, tile),)
    r = emulate(grid, vector_add, (a, b, c_emu, tile))
    ct.interpret(grid, vector_add, (a, b, c_ref, tile))
    np.testing.assert_array_equal(c_emu, c_ref)
    np.testing.assert_array_equal(c_emu, a + b)
    assert r.thread_insts > 0


def test_emulate_is_exported_and_aliasing_arguments_alias():
    n = 2048
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, np.float32)
    ct.emulate((2,), vector_add, (a, b, a, 1024))  # in place: a += b
    np.testing.assert_array_equal(a, np.arange(n, dtype=np.float32) + 1)


def test_emulate_compiled_kernel_and_strided_views():
    base = np.zeros(4000, np.float32)
    a = np.arange(2000, dtype=np.float32)
    b = np.full(2000, 2.0, np.float32)
    c = base[::2]  # a strided view: written in place, the gaps untouched
    k = ct.compile(vector_add, (a, b, c, 1024))
    emulate((2,), k, (a, b, c, 1024))
    ref = np.zeros(4000, np.float32)
    ct.interpret((2,), vector_add, (a, b, ref[::2], 1024))
    np.testing.assert_array_equal(ref[::2], a + b)
    np.testing.assert_array_equal(base, ref)
    assert not base[1::2].any()


def test_run_ptx_with_scalars():
    n = 300
    x = np.linspace(-1, 1, n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    r = run_ptx(SCALE_PTX, "scale", (3,), (128,), [out, x, n, 2.5])
    np.testing.assert_array_equal(out, x * np.float32(2.5))
    assert r.output == ""


def test_out_of_bounds_names_line_and_buffer():
    x = np.zeros(100, np.float32)
    out = np.zeros(100, np.float32)
    with pytest.raises(EmulatorError) as e:
        run_ptx(SCALE_PTX, "scale", (1,), (128,), [out, x, 128, 1.0])
    assert e.value.kind == "Memory"
    assert e.value.line == 20  # the ld.global
    assert "past the end of 'buffer #" in str(e.value) and "thread (100,0,0)" in str(e.value)


def test_bad_ptx_is_a_parse_error_with_line():
    with pytest.raises(EmulatorError) as e:
        run_ptx(".version 8.6\n.entry k()\n{\n add.s32 %r1 %r2;\n}\n", None, 1, 32, [])
    assert e.value.kind == "Parse" and e.value.line == 4


# Every sample kernel under the emulator against ct.interpret, with per-run tolerances, is
# test_backend_emulated.py (sample_runs.py).


def test_list_of_arrays_parameters():
    from test_frontend_lists import copy_into_list, sum_list

    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(1000).astype(np.float32) for _ in range(3)]
    got, want = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    emulate((4,), sum_list, (xs, got, 256))
    ct.interpret((4,), sum_list, (xs, want, 256))
    np.testing.assert_array_equal(got, want)
    src = rng.standard_normal(64).astype(np.float32)
    outs = [np.zeros(64, np.float32) for _ in range(3)]
    emulate((8,), copy_into_list, (src, outs, 2))
    np.testing.assert_array_equal(outs[2], src)
    assert not outs[0].any() and not outs[1].any()


UNINIT_PTX = """
.version 8.6
.target sm_90a
.address_size 64
.shared .align 4 .b8 s[128];
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.b64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, s;
    add.s32 %r3, %r3, %r2;
    ld.shared.b32 %r2, [%r3];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.b32 [%rd3], %r2;
    ret;
}
"""


def test_uninitialized_shared_memory_is_poison_or_an_error():
    out = np.zeros(32, np.float32)
    run_ptx(UNINIT_PTX, "k", 1, 32, [out])
    assert np.isnan(out).all()
    run_ptx(UNINIT_PTX, "k", 1, 32, [out], shared_fill=0)
    assert not out.any()
    with pytest.raises(EmulatorError) as e:
        run_ptx(UNINIT_PTX, "k", 1, 32, [out], race_check=True)
    assert e.value.line == 14 and "nothing has written" in str(e.value)


# Thread t stores word t, then reads word (t + 32) % 64: written by another thread of the
# CTA (another warp), ordered only when BARRIER is a bar.sync.
GLOBAL_RACE_PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 buf, .param .u64 out)
{
    .reg .b32 %r<6>; .reg .b64 %rd<8>;
    ld.param.b64 %rd1, [buf];
    ld.param.b64 %rd5, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.b32 [%rd3], %r1;
    BARRIER
    add.s32 %r2, %r1, 32;
    and.b32 %r2, %r2, 63;
    mul.wide.u32 %rd4, %r2, 4;
    add.s64 %rd4, %rd1, %rd4;
    ld.global.b32 %r3, [%rd4];
    add.s64 %rd6, %rd5, %rd2;
    st.global.b32 [%rd6], %r3;
    ret;
}
"""


def test_global_memory_races_within_a_cta_are_reported():
    buf, out = np.zeros(64, np.uint32), np.zeros(64, np.uint32)
    with pytest.raises(EmulatorError) as e:
        run_ptx(GLOBAL_RACE_PTX.replace("BARRIER", ""), "k", 1, 64, [buf, out], race_check=True)
    assert "global-memory race" in str(e.value) and "with no barrier ordering them" in str(e.value)
    run_ptx(GLOBAL_RACE_PTX.replace("BARRIER", "bar.sync 0;"), "k", 1, 64, [buf, out], race_check=True)
    np.testing.assert_array_equal(out, (np.arange(64) + 32) % 64)
    # Without the race check the racy kernel runs (and happens to read what warp order gives).
    run_ptx(GLOBAL_RACE_PTX.replace("BARRIER", ""), "k", 1, 64, [buf, out])
    # Accesses of different CTAs are not compared (both CTAs write the same words here).
    run_ptx(GLOBAL_RACE_PTX.replace("BARRIER", "bar.sync 0;"), "k", 2, 64, [buf, out], race_check=True)
