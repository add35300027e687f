"""Front-end compile time: Python kernel -> verified cuda_tile IR, tileir against cuTile Python.

Usage (from the repository root, with tileir importable)::

    python3 benches/frontend.py [--repeats N] [--peer-python .bench/venv/bin/python]

tileir: ``tileir.compile_to_ir(kernel, args)`` (AST -> native builder -> verifier) for a
128x128x32 f16 matmul with f32 accumulation. "cold" clears the front end's parsed-source
cache before each run; "warm" keeps it (the kernel is still re-translated and re-verified
each time: nothing of the module is cached). cuTile: ``export_kernel(...,
output_format="tileir_bytecode")`` of the same kernel (``benches/peers.py``), run in the
peer virtual environment in a subprocess; its "cold" clears cuTile's HIR cache, its
"warm" keeps it. Both report medians of N runs in the same invocation.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MATMUL_SRC = '''\
import tileir as ct


@ct.kernel
def matmul(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=ct.astype(acc, C.dtype))
'''

PEER_SNIPPET = '''
import json, sys
sys.path.insert(0, {benches!r})
import peers
r = peers.cutile_matmul_frontend({n})
r.pop("bytecode", None)
print(json.dumps(r, default=str))
'''


def tileir_side(n: int) -> dict:
    import numpy as np

    t0 = time.perf_counter()
    import tileir as ct
    tr = importlib.import_module("tileir._frontend.translate")
    import_s = time.perf_counter() - t0

    d = tempfile.mkdtemp(prefix="tileir_bench_")
    path = os.path.join(d, "bench_matmul.py")
    with open(path, "w") as f:
        f.write(MATMUL_SRC)
    spec = importlib.util.spec_from_file_location("bench_matmul", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    a = np.zeros((1024, 1024), np.float16)
    args = (a, a, a, 128, 128, 32)

    t0 = time.perf_counter()
    m = ct.compile_to_ir(mod.matmul, args)
    first = time.perf_counter() - t0
    cold, warm = [], []
    for _ in range(n):
        tr._SOURCES.clear()
        t0 = time.perf_counter()
        ct.compile_to_ir(mod.matmul, args)
        cold.append(time.perf_counter() - t0)
    for _ in range(n):
        t0 = time.perf_counter()
        ct.compile_to_ir(mod.matmul, args)
        warm.append(time.perf_counter() - t0)
    return {"import_s": import_s, "first_call_s": first, "cold_median_s": statistics.median(cold),
            "warm_median_s": statistics.median(warm), "ops": str(m).count("\n"), "module": str(m)}


def peer_side(python: str, n: int) -> dict:
    if not os.path.exists(python):
        return {"skipped": f"{python} not found"}
    code = PEER_SNIPPET.format(benches=os.path.join(REPO, "benches"), n=n)
    p = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return {"skipped": f"peer run failed: {p.stderr.strip()[-400:]}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--peer-python", default=os.path.join(REPO, ".bench", "venv", "bin", "python"))
    ap.add_argument("--show-ir", action="store_true")
    args = ap.parse_args()
    ours = tileir_side(args.repeats)
    peer = peer_side(args.peer_python, args.repeats)
    ms = lambda s: f"{s * 1e3:8.3f} ms"  # noqa: E731
    print(f"front end: matmul 128x128x32 f16 -> verified cuda_tile IR, median of {args.repeats}")
    print(f"  tileir  first call {ms(ours['first_call_s'])}  cold {ms(ours['cold_median_s'])}  "
          f"warm {ms(ours['warm_median_s'])}")
    if "skipped" in peer:
        print(f"  cuTile  skipped: {peer['skipped']}")
        return 0
    pc, pw = peer["frontend_median_s"], peer["frontend_hir_cached_median_s"]
    print(f"  cuTile  first call {ms(peer['first_call_s'])}  cold {ms(pc)}  warm {ms(pw)}  "
          f"(cuda-tile {peer.get('cuda_tile_version')}, bytecode {peer.get('bytecode_version')})")
    print(f"  speed-up: cold {pc / ours['cold_median_s']:.1f}x, warm {pw / ours['warm_median_s']:.1f}x "
          f"(target: 10x)")
    if args.show_ir:
        print(ours["module"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
