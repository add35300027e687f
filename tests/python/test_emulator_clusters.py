"""Thread-block clusters on the PTX emulator from Python: a cluster launch (``cluster=``)
gives each CTA its rank, a kernel compiled with the ``num_ctas`` hint carries
``.reqnctapercluster`` and emulates like ``ct.interpret``, and a grid the cluster does not
divide is refused."""

import numpy as np
import pytest

import tileir as ct
from tileir.emulator import EmulatorError, emulate, run_ptx

RANKS_PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry ranks(.param .u64 out)
{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
    ld.param.b64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_end;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %cluster_ctarank;
    mov.u32 %r4, %cluster_nctarank;
    mad.lo.u32 %r5, %r4, 16, %r3;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.b32 [%rd3], %r5;
$L_end:
    ret;
}
"""


def test_cluster_launch_gives_each_cta_its_rank():
    out = np.zeros(8, np.uint32)
    run_ptx(RANKS_PTX, "ranks", (8,), (32,), [out], cluster=(4,))
    # rank = ctaid mod 4, 4 CTAs per cluster (encoded as 16 * nctarank + rank).
    assert out.tolist() == [64 + (i % 4) for i in range(8)]
    out[:] = 0
    run_ptx(RANKS_PTX, "ranks", (8,), (32,), [out])
    assert out.tolist() == [16] * 8  # without clusters, each CTA is a cluster of one


def test_a_grid_the_cluster_does_not_divide_is_refused():
    with pytest.raises(EmulatorError, match="cluster"):
        run_ptx(RANKS_PTX, "ranks", (6,), (32,), [np.zeros(6, np.uint32)], cluster=(4,))


@ct.kernel(num_ctas=2)
def double(x, y, T: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(T,)) * 2.0)


def test_a_num_ctas_kernel_runs_in_clusters():
    x = np.arange(1024, dtype=np.float32)
    k = ct.compile(double, (x, x, 128), target="sm_90a")
    assert ".reqnctapercluster 2" in k.asm["ptx"]
    y = np.zeros_like(x)
    emulate((8,), k, (x, y, 128))
    assert np.array_equal(y, x * 2)
