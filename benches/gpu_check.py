"""GPU checks of the foundation (run on a machine with a CUDA GPU; exits 2 without one).

    python3 benches/gpu_check.py [--n 16777223] [--tile 1024] [--repeats 50]

1. Vector add of 2^24+7 float32 elements through tileir.launch must match NumPy exactly
   (the 7-element tail exercises the masked path).
2. Bandwidth: the kernel's achieved bandwidth (3 arrays moved) next to a device-to-device
   copy (cuMemcpyDtoD, 2 arrays moved) measured in the same run, timed with CUDA events;
   also next to torch's `a + b` when torch is installed.
"""

from __future__ import annotations

import argparse
import statistics
import sys

import numpy as np

import os

import tileir as ct
from tileir._toolchain import cuda

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from vector_add import vector_add  # noqa: E402  (the README's example kernel)


def time_ms(fn, repeats: int, inner: int = 10) -> float:
    """Median over ``repeats`` of the mean time of ``inner`` back-to-back calls between two
    CUDA events: queuing several launches keeps the GPU busy, so the host's launch cost
    (measured separately by benches/launch_overhead.py) does not count as kernel time."""
    start, stop = cuda.Event(), cuda.Event()
    for _ in range(3):
        fn()
    samples = []
    for _ in range(repeats):
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_ms(stop) / inner)
    return statistics.median(samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=(1 << 24) + 7)
    ap.add_argument("--tile", type=int, default=1024)
    ap.add_argument("--repeats", type=int, default=50)
    args = ap.parse_args()
    if not cuda.is_available():
        print("no CUDA GPU/driver: nothing checked")
        return 2
    n, tile = args.n, args.tile
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.empty((n,), np.float32)
    grid = (ct.cdiv(n, tile),)
    ct.launch(None, grid, vector_add, (da, db, dc, tile))
    cuda.synchronize()
    got = dc.copy_to_host()
    exact = np.array_equal(got, a + b)
    print(f"vector add of {n} float32: {'matches NumPy exactly' if exact else 'MISMATCH'}")
    if not exact:
        bad = np.flatnonzero(got != a + b)
        print(f"  {bad.size} elements differ; first at {bad[0]}: {got[bad[0]]} vs {(a + b)[bad[0]]}")

    k = ct.compile(vector_add, (da, db, dc, tile), target="sm_90a" if cuda.compute_capability(0) == (9, 0) else
                   f"sm_{''.join(map(str, cuda.compute_capability(0)))}")
    print(f"  kernel: {k.num_threads} threads, {k.registers} registers")
    kernel_ms = time_ms(lambda: ct.launch(None, grid, vector_add, (da, db, dc, tile)), args.repeats)
    copy_dst = cuda.empty((n,), np.float32)
    copy_ms = time_ms(lambda: cuda.memcpy_dtod(copy_dst, da, 4 * n), args.repeats)
    gb = 1e-9
    kernel_bw = 3 * 4 * n * gb / (kernel_ms * 1e-3)
    copy_bw = 2 * 4 * n * gb / (copy_ms * 1e-3)
    print(f"  tileir vector add: {kernel_ms * 1e3:.1f} us, {kernel_bw:.0f} GB/s")
    print(f"  device-to-device copy: {copy_ms * 1e3:.1f} us, {copy_bw:.0f} GB/s")
    print(f"  ratio (vector add bandwidth / copy bandwidth): {kernel_bw / copy_bw:.2f}")
    try:
        import torch

        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        tc = torch.empty_like(ta)
        torch_ms = time_ms(lambda: torch.add(ta, tb, out=tc), args.repeats)
        print(f"  torch.add: {torch_ms * 1e3:.1f} us, {3 * 4 * n * gb / (torch_ms * 1e-3):.0f} GB/s; "
              f"tileir/torch time ratio {kernel_ms / torch_ms:.2f}")
    except ImportError:
        print("  torch not installed: no torch comparison")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
