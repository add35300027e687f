"""Interpreter benchmark: tileir's reference interpreter next to Triton's interpreter
(``TRITON_INTERPRET=1`` on torch CPU tensors), both measured in the same run.

    python3 benches/interpreter.py [--repeats N] [--peer-python PATH] [--cargo]

Workloads (the ones issue #5 names):

* vector add: 2^20 float32 elements, 1024-element tiles (1024 tile blocks);
* matmul: 512x512x512 float16 inputs, float32 accumulator, 64x64x32 tiles (64 tile blocks,
  16 ``mmaf`` steps each).

tileir's side runs ``tileir.interpreter.run_module`` on a parsed and verified cuda_tile module
with NumPy arrays, so its figures include the Python binding (argument checks, copying the
arrays into interpreter memory and the written ones back). It imports tileir from this
repository's ``python/`` directory: build the extension first (``maturin develop --release``,
or ``cargo build --release -p tileir-py`` and copy ``target/release/lib_native.so`` to
``python/tileir/_native.abi3.so``). ``--cargo`` also runs the Rust-level benchmark
(``cargo bench -p tileir-interp --bench interp``, no Python) and prints its lines.

Triton's side runs the equivalent ``@triton.jit`` kernels under ``TRITON_INTERPRET=1`` on
torch CPU tensors in ``--peer-python`` (default: ``.bench/venv/bin/python`` when it exists,
else this interpreter), in a subprocess of this same invocation. When torch or triton cannot
be imported there, the peer column says why and no ratio is printed.

Every figure is the minimum over the repeats after one warm-up call (the median is printed
too); the minimum is the figure least disturbed by other load on the machine. Ratios are
Triton time / tileir time ("x faster"). Both sides check their results (exact for these
inputs: every product and partial sum is representable in float32).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

VADD_N = 1 << 20
VADD_TILE = 1024
MM = (512, 512, 512)
MM_TILE = (64, 64, 32)


def vadd_text(n: int, tile: int) -> str:
    tv = f"tensor_view<{n}xf32, strides=[1]>"
    pz = f"partition_view<tile=({tile}), padding_value = zero, {tv}>"
    pc = f"partition_view<tile=({tile}), {tv}>"
    return f"""cuda_tile.module @kernels {{
  entry @vadd(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>) {{
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [{n}], strides = [1] : {tv}
    %tb = make_tensor_view %b, shape = [{n}], strides = [1] : {tv}
    %tc = make_tensor_view %c, shape = [{n}], strides = [1] : {tv}
    %pa = make_partition_view %ta : {pz}
    %pb = make_partition_view %tb : {pz}
    %pc = make_partition_view %tc : {pc}
    %x, %t0 = load_view_tko weak %pa[%bx] : {pz}, tile<i32> -> tile<{tile}xf32>, token
    %y, %t1 = load_view_tko weak %pb[%bx] : {pz}, tile<i32> -> tile<{tile}xf32>, token
    %s = addf %x, %y : tile<{tile}xf32>
    %t2 = store_view_tko weak %s, %pc[%bx] : tile<{tile}xf32>, {pc}, tile<i32> -> token
    return
  }}
}}
"""


def matmul_text(m: int, n: int, k: int, bm: int, bn: int, bk: int) -> str:
    ta = f"tensor_view<{m}x{k}xf16, strides=[{k},1]>"
    tb = f"tensor_view<{k}x{n}xf16, strides=[{n},1]>"
    tc = f"tensor_view<{m}x{n}xf32, strides=[{n},1]>"
    pa = f"partition_view<tile=({bm}x{bk}), {ta}>"
    pb = f"partition_view<tile=({bk}x{bn}), {tb}>"
    pc = f"partition_view<tile=({bm}x{bn}), {tc}>"
    acc = f"tile<{bm}x{bn}xf32>"
    return f"""cuda_tile.module @kernels {{
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {{
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [{m}, {k}], strides = [{k}, 1] : {ta}
    %tb = make_tensor_view %b, shape = [{k}, {n}], strides = [{n}, 1] : {tb}
    %tc = make_tensor_view %c, shape = [{m}, {n}], strides = [{n}, 1] : {tc}
    %pa = make_partition_view %ta : {pa}
    %pb = make_partition_view %tb : {pb}
    %pc = make_partition_view %tc : {pc}
    %zero = constant <f32: 0.000000e+00> : {acc}
    %lb = constant <i32: 0> : tile<i32>
    %ub = constant <i32: {k // bk}> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %r = for %kk in (%lb to %ub, step %st) : tile<i32> iter_values(%acc = %zero) -> ({acc}) {{
      %x, %t0 = load_view_tko weak %pa[%by, %kk] : {pa}, tile<i32> -> tile<{bm}x{bk}xf16>, token
      %y, %t1 = load_view_tko weak %pb[%kk, %bx] : {pb}, tile<i32> -> tile<{bk}x{bn}xf16>, token
      %d = mmaf %x, %y, %acc : tile<{bm}x{bk}xf16>, tile<{bk}x{bn}xf16>, {acc}
      continue %d : {acc}
    }}
    %t2 = store_view_tko weak %r, %pc[%by, %bx] : {acc}, {pc}, tile<i32> -> token
    return
  }}
}}
"""


def timed(f, repeats: int) -> dict:
    f()  # warm-up
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        runs.append(time.perf_counter() - start)
    return {"min_s": min(runs), "median_s": statistics.median(runs), "repeats": repeats}


def matmul_inputs():
    """f16 inputs that are multiples of 1/8 in [-1, 1]: every product and partial sum of the
    512-long dot products is exact in float32, so any summation order gives the same result."""
    m, n, k = MM
    rng = np.random.default_rng(0)
    a = (rng.integers(-8, 9, (m, k)) / 8).astype(np.float16)
    b = (rng.integers(-8, 9, (k, n)) / 8).astype(np.float16)
    return a, b


def tileir_side(repeats: int) -> dict:
    sys.path.insert(0, os.path.join(REPO, "python"))
    import tileir.interpreter
    import tileir.ir
    from tileir import _native

    out = {"native": _native.__file__,
           "native_mtime": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(_native.__file__)))}

    mod = tileir.ir.parse(vadd_text(VADD_N, VADD_TILE), file_name="vadd.mlir")
    mod.verify()
    a = np.arange(VADD_N, dtype=np.float32)
    b = np.float32(0.5) * a
    c = np.zeros(VADD_N, np.float32)
    grid = (VADD_N // VADD_TILE,)
    out["vadd"] = timed(lambda: tileir.interpreter.run_module(mod, "vadd", grid, (a, b, c)), repeats)
    out["vadd"]["correct"] = bool(np.array_equal(c, a + b))

    (m, n, k), (bm, bn, bk) = MM, MM_TILE
    mod = tileir.ir.parse(matmul_text(m, n, k, bm, bn, bk), file_name="matmul.mlir")
    mod.verify()
    x, y = matmul_inputs()
    z = np.zeros((m, n), np.float32)
    grid = (n // bn, m // bm)
    out["matmul"] = timed(lambda: tileir.interpreter.run_module(mod, "matmul", grid, (x, y, z)),
                          max(3, repeats // 4))
    out["matmul"]["correct"] = bool(np.array_equal(z, x.astype(np.float32) @ y.astype(np.float32)))
    return out


PEER_SNIPPET = r"""
import json, os, statistics, sys, time
os.environ["TRITON_INTERPRET"] = "1"
repeats = int(sys.argv[1])
VADD_N, VADD_TILE, MM, MM_TILE = json.loads(sys.argv[2])
try:
    import numpy as np
    import torch
    import triton
    import triton.language as tl
except Exception as e:  # noqa: BLE001 - report any import failure as a skip
    print(json.dumps({"skipped": f"{type(e).__name__}: {e}"}))
    sys.exit(0)

@triton.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.float32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

def timed(f, reps):
    f()
    runs = []
    for _ in range(reps):
        s = time.perf_counter(); f(); runs.append(time.perf_counter() - s)
    return {"min_s": min(runs), "median_s": statistics.median(runs), "repeats": reps}

out = {"triton_version": triton.__version__, "torch_version": torch.__version__,
       "python": sys.version.split()[0]}
x = torch.arange(VADD_N, dtype=torch.float32)
y = x * 0.5
z = torch.zeros_like(x)
out["vadd"] = timed(lambda: vadd[(VADD_N // VADD_TILE,)](x, y, z, VADD_N, BLOCK=VADD_TILE), repeats)
out["vadd"]["correct"] = bool(torch.equal(z, x + y))

(m, n, k), (bm, bn, bk) = MM, MM_TILE
g = np.random.default_rng(0)
a_np = (g.integers(-8, 9, (m, k)) / 8).astype(np.float16)
b_np = (g.integers(-8, 9, (k, n)) / 8).astype(np.float16)
a, b = torch.from_numpy(a_np), torch.from_numpy(b_np)
c = torch.zeros((m, n), dtype=torch.float32)
out["matmul"] = timed(lambda: matmul[(n // bn, m // bm)](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk), repeats)
out["matmul"]["correct"] = bool(np.array_equal(c.numpy(), a_np.astype(np.float32) @ b_np.astype(np.float32)))
print(json.dumps(out))
"""


def peer_side(python: str, repeats: int) -> dict:
    arg = json.dumps([VADD_N, VADD_TILE, MM, MM_TILE])
    try:
        p = subprocess.run([python, "-c", PEER_SNIPPET, str(repeats), arg], capture_output=True,
                           text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"skipped": f"could not run {python}: {e}"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        return {"skipped": f"{python} failed (exit {p.returncode}): {p.stderr.strip()[-400:]}"}
    return json.loads(lines[-1])


def cargo_bench() -> list[str]:
    p = subprocess.run(["cargo", "bench", "-q", "-p", "tileir-interp", "--bench", "interp"],
                       cwd=REPO, capture_output=True, text=True)
    if p.returncode != 0:
        return [f"cargo bench failed (exit {p.returncode}): {p.stderr.strip()[-400:]}"]
    return [ln for ln in p.stdout.splitlines() if " ms" in ln]


def ms(r: dict | None) -> str:
    if not r or "min_s" not in r:
        return "-"
    return f"{r['min_s'] * 1e3:10.2f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=20, help="timed calls per tileir workload")
    ap.add_argument("--peer-repeats", type=int, default=3, help="timed calls per Triton workload")
    default_peer = os.path.join(REPO, ".bench", "venv", "bin", "python")
    ap.add_argument("--peer-python", default=default_peer if os.path.exists(default_peer) else sys.executable)
    ap.add_argument("--cargo", action="store_true", help="also run the Rust-level cargo bench")
    args = ap.parse_args()

    print(f"interpreter benchmark: {platform.machine()}, {os.cpu_count()} CPU cores, "
          f"python {sys.version.split()[0]}, numpy {np.__version__}")
    ours = tileir_side(args.repeats)
    print(f"tileir native module: {ours['native']} (built {ours['native_mtime']})")
    peer = peer_side(args.peer_python, args.peer_repeats)
    if "skipped" in peer:
        print(f"Triton interpreter ({args.peer_python}): not measurable here: {peer['skipped']}")
    else:
        print(f"Triton interpreter: triton {peer['triton_version']}, torch {peer['torch_version']} "
              f"(CPU tensors), python {peer['python']} ({args.peer_python})")

    rows = [
        (f"vector add 2^20 f32, tile {VADD_TILE} ({VADD_N // VADD_TILE} blocks)", "vadd"),
        ("matmul 512^3 f16->f32, tiles 64x64x32 (64 blocks)", "matmul"),
    ]
    print()
    print(f"  {'workload':<52} {'tileir':>13} {'Triton interp':>15} {'ratio':>10}")
    for label, key in rows:
        o, t = ours[key], peer.get(key)
        ratio = f"{t['min_s'] / o['min_s']:8.1f}x" if t and "min_s" in t else "-"
        print(f"  {label:<52} {ms(o):>13} {ms(t):>15} {ratio:>10}")
    print()
    for key in ("vadd", "matmul"):
        o, t = ours[key], peer.get(key) or {}
        print(f"  {key}: tileir min/median {o['min_s'] * 1e3:.2f}/{o['median_s'] * 1e3:.2f} ms over "
              f"{o['repeats']} calls, correct={o['correct']}"
              + (f"; Triton min/median {t['min_s'] * 1e3:.1f}/{t['median_s'] * 1e3:.1f} ms over "
                 f"{t['repeats']} calls, correct={t['correct']}" if "min_s" in t else ""))
    print("  ratio = Triton interpreter time / tileir time (minimum of each), same run, same machine")
    if args.cargo:
        print("\nRust level (cargo bench -p tileir-interp --bench interp, no Python):")
        for ln in cargo_bench():
            print("  " + ln)
    return 0


if __name__ == "__main__":
    sys.exit(main())
