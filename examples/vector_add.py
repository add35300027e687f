"""The main job: compile the vector-add kernel through every stage and report what each
produced; when a GPU is present, launch it and check it against NumPy.

    python examples/vector_add.py [--target sm_90a] [--n 1000003] [--tile 1024] [--show STAGE]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import tileir as ct


@ct.kernel
def vector_add(a, b, c, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ta = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(i,), tile=ta + tb)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="sm_90a", choices=["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"])
    p.add_argument("--n", type=int, default=(1 << 20) + 7, help="elements (a tail past the last full tile is masked)")
    p.add_argument("--tile", type=int, default=1024)
    p.add_argument("--show", default=None, help="print the full text of one stage (cuda_tile, nv_tileaa, nv_tileas, llvm, ptx)")
    args = p.parse_args(argv)

    rng = np.random.default_rng(0)
    a = rng.standard_normal(args.n, dtype=np.float32)
    b = rng.standard_normal(args.n, dtype=np.float32)
    c = np.zeros_like(a)

    k = ct.compile(vector_add, (a, b, c, args.tile), target=args.target)
    print(f"kernel {k.name} for {k.target}: {k.num_threads} threads/CTA, pipeline {k.pipeline}")
    for stage in ("cuda_tile", "nv_tileaa", "nv_tileas", "llvm", "ptx"):
        text = k.asm[stage]
        print(f"  {stage:<10} {len(text):>7} bytes {text.count(chr(10)):>5} lines")
    print(f"  {'cubin':<10} {len(k.cubin):>7} bytes")
    info = k.ptxas_info
    print(f"ptxas: {info.registers} registers, {info.shared_bytes} bytes shared, "
          f"{info.spill_stores_bytes}+{info.spill_loads_bytes} bytes spilled, {info.constant_bytes} bytes cmem[0]")
    print("compile time (ms): " + ", ".join(f"{s} {t * 1e3:.1f}" for s, t in k.timings.items()))
    if args.show:
        print(k.asm[args.show])

    from tileir import cuda

    if not cuda.is_available():
        print("no GPU/driver found: skipped launching (compile-only run)")
        return 0
    da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.to_device(c)
    grid = (ct.cdiv(args.n, args.tile),)
    ct.launch(None, grid, vector_add, (da, db, dc, args.tile))
    cuda.synchronize()
    got = dc.copy_to_host()
    expected = a + b
    if not np.array_equal(got, expected):
        bad = np.flatnonzero(got != expected)
        print(f"MISMATCH: {bad.size} of {args.n} elements differ, first at {bad[0]}: {got[bad[0]]} vs {expected[bad[0]]}")
        return 1
    print(f"launched on the GPU: {args.n} elements match NumPy exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
