"""PTX emulator throughput: emulated thread-instructions per second on straight-line ALU
code (one core), and the time of a 2^20-element vector add through ``ct.emulate``.

    python benches/emulator.py [--ops 2000] [--ctas 64] [--n 1048576]

A benchmark, not a test: it prints figures and checks only that results are right.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import tileir as ct
from tileir.emulator import run_ptx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "python"))
from kernels import vector_add  # noqa: E402


def alu_ptx(n: int) -> str:
    """``n`` ALU instructions (integer and f32) per thread, then one store."""
    ops = []
    for i in range(n):
        d, a, b = 4 + i % 8, 4 + (i + 3) % 8, 4 + (i + 5) % 8
        ops.append([f"add.s32 %r{d}, %r{a}, %r{b};", f"xor.b32 %r{d}, %r{a}, %r{b};", f"shl.b32 %r{d}, %r{a}, 3;",
                    f"mad.lo.s32 %r{d}, %r{a}, %r{b}, %r1;", f"add.rn.f32 %r{d}, %r{a}, %r{b};",
                    f"fma.rn.f32 %r{d}, %r{a}, %r{b}, %r{a};"][i % 6])
    body = "\n".join(ops)
    return (".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry alu(.param .u64 out)\n{\n"
            ".reg .b32 %r<16>;\n.reg .b64 %rd<4>;\nld.param.b64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\n"
            "mov.b32 %r4, %r1;\nmov.b32 %r5, %r2;\nmov.b32 %r6, 3;\nmov.b32 %r7, 0f3F800000;\nmov.b32 %r8, 5;\n"
            "mov.b32 %r9, 7;\nmov.b32 %r10, 11;\nmov.b32 %r11, 13;\n" + body +
            "\nmad.lo.s32 %r3, %r2, 128, %r1;\nmul.wide.u32 %rd2, %r3, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
            "st.global.b32 [%rd3], %r4;\nret;\n}\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", type=int, default=2000)
    p.add_argument("--ctas", type=int, default=64)
    p.add_argument("--n", type=int, default=1 << 20)
    args = p.parse_args(argv)

    out = np.zeros(args.ctas * 128, np.uint32)
    r = run_ptx(alu_ptx(args.ops), "alu", (args.ctas,), (128,), [out], threads=1)
    print(f"straight-line ALU, 1 core: {r.thread_insts} thread-instructions in {r.seconds:.3f} s = "
          f"{r.thread_insts / r.seconds:.3e} thread-instructions/s")

    n = args.n
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    k = ct.compile(vector_add, (a, b, c, 1024))
    for threads, label in ((1, "1 core"), (0, "all cores")):
        c[:] = 0
        t0 = time.perf_counter()
        r = ct.emulate((ct.cdiv(n, 1024),), k, (a, b, c, 1024), threads=threads)
        total = time.perf_counter() - t0
        assert np.array_equal(c, a + b)
        print(f"vector add n={n} ({label}): emulation {r.seconds:.3f} s, with argument copies {total:.3f} s, "
              f"{r.thread_insts / r.seconds:.3e} thread-instructions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
