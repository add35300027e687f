"""Compile-time benchmark: a Python vector-add kernel to a cubin, split by stage, next to
Triton's cold compile and NVIDIA's tileiras measured in the same run.

    python3 benches/compile_time.py [--repeats 11] [--peer-python PATH]

tileir's figure is a *cold* compile in a warmed-up process, the same method as Triton's
"cold" number: each repeat uses a fresh kernel object (empty cache) after one throwaway
compile has started the LLVM worker. Stages: front end (Python AST → cuda_tile in the
Rust arena), Rust passes (verify, cuda_tile → nv_tileaa → nv_tileas → LLVM IR text), LLVM
(LLVM IR → PTX in the worker process), ptxas (PTX → cubin).

The peers run in this interpreter when `triton` / `cuda.tile` import here; otherwise pass
`--peer-python` naming an interpreter that has them (for example a venv made with
`python3 -m pip install triton "cuda-tile[tileiras]"`), and they run there, in the same
invocation. Ratios are tileir / peer for the same kernel, target sm_90 (sm_90a).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def tileir_vector_add(repeats: int, target: str = "sm_90a") -> dict:
    import tileir as ct

    sys.path.insert(0, os.path.join(HERE, "..", "examples"))
    from vector_add import vector_add as kernel  # the README's example kernel

    x = np.zeros(1 << 20, np.float32)
    ct.compile(kernel.replace_hints(), (x, x, x, 1024), target=target)  # starts the LLVM worker
    runs = []
    for _ in range(repeats):
        k = ct.compile(kernel.replace_hints(), (x, x, x, 1024), target=target)
        runs.append(k.timings)
    med = {s: statistics.median(r[s] for r in runs) for s in runs[0]}
    return {"median_s": med["total"], "min_s": min(r["total"] for r in runs), "stages_median_s": med,
            "registers": k.registers, "ptx_lines": k.asm["ptx"].count("\n")}


PEER_SNIPPET = """
import json, sys
sys.path.insert(0, {here!r})
import peers
n = {n}
out = {{"triton": peers.triton_vector_add_cold(n, arch=90),
        "tileiras": peers.tileiras_vector_add(n, archs=("sm_90",))}}
for v in out.values():
    for k in ("ptx", "bytecode", "tileir_mlir"):
        v.pop(k, None)
    for a in v.get("archs", {{}}).values():
        a.pop("ptx", None)
print("@@JSON@@" + json.dumps(out, default=str))
"""


def run_peers(repeats: int, peer_python: str | None) -> dict:
    python = peer_python or sys.executable
    code = PEER_SNIPPET.format(here=HERE, n=repeats)
    p = subprocess.run([python, "-c", code], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("@@JSON@@"):
            return json.loads(line[len("@@JSON@@"):])
    return {"error": (p.stderr or p.stdout)[-2000:]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--peer-python", default=None)
    args = ap.parse_args()

    ours = tileir_vector_add(args.repeats)
    peers = run_peers(args.repeats, args.peer_python)
    ms = lambda s: f"{s * 1e3:7.2f} ms"  # noqa: E731
    print(f"vector add, f32, TILE=1024, sm_90a; medians of {args.repeats}")
    print(f"  tileir cold compile      {ms(ours['median_s'])}  (min {ms(ours['min_s'])}, {ours['registers']} regs)")
    for stage in ("frontend", "rust_passes", "llvm", "ptxas"):
        print(f"    {stage:<22} {ms(ours['stages_median_s'][stage])}")
    fastest = None
    tri = peers.get("triton", {})
    if "cold_median_s" in tri:
        print(f"  Triton {tri.get('triton_version')} cold  {ms(tri['cold_median_s'])}   ratio tileir/Triton = "
              f"{ours['median_s'] / tri['cold_median_s']:.2f}")
        fastest = tri["cold_median_s"]
    else:
        print(f"  Triton: {tri.get('skipped') or peers.get('error', 'not measured')}")
    tis = peers.get("tileiras", {})
    sm90 = tis.get("archs", {}).get("sm_90", {})
    if "tileiras_median_s" in sm90:
        total = tis["frontend_median_s"] + sm90["tileiras_median_s"]
        print(f"  cuTile front end + tileiras {tis.get('tileiras_version')}  {ms(total)} "
              f"(front end {ms(tis['frontend_median_s'])}, tileiras {ms(sm90['tileiras_median_s'])})"
              f"   ratio tileir/cuTile = {ours['median_s'] / total:.2f}")
        fastest = total if fastest is None else min(fastest, total)
    else:
        print(f"  tileiras: {tis.get('skipped') or tis.get('tileiras_skipped') or peers.get('error', 'not measured')}")
    if fastest:
        ratio = ours["median_s"] / fastest
        verdict = "meets" if ratio < 1 / 3 else "misses"
        print(f"  tileir / fastest peer = {ratio:.2f} ({verdict} the < 0.33 target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
