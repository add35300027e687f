"""Compile-time benchmark: Python kernel -> cubin for vector add, softmax and matmul, tileir
next to Triton's cold compile and cuTile + tileiras, all measured in one run.

    python3 benches/compile_time.py [--repeats 5] [--peer-python PATH] [--kernels vector_add,softmax,matmul]

tileir, for each kernel (the same cuTile source text cuTile compiles, with
``import tileir as ct``):

* cold, fresh process: a new interpreter with an empty TILEIR_CACHE_DIR runs
  ``ct.compile``; the figure is that call (it includes starting the LLVM worker process);
  the interpreter's ``import tileir`` is reported beside it.
* warm, fresh process: the same, with the cache the cold run filled: the ``ct.compile``
  call is a cache hit (target: at most 1 ms beyond importing tileir).
* in-process recompile: in a process that has compiled once (LLVM worker running), a fresh
  kernel object with the persistent cache off: the same method as Triton's "cold"
  (docs/triton.md: one-time per-process costs excluded, empty cache per compile).

Peers (in ``--peer-python``, default ``.bench/venv/bin/python`` when it exists, else this
interpreter): Triton's cold compile of its own kernel for the same job (``triton.compile``,
fresh TRITON_CACHE_DIR each time) and cuTile's front end (AST memo cleared) + ``tileiras
-O3`` for the same source. Target: tileir cold <= 1/3 of the faster peer, per kernel.

The PTX compiler tileir used is printed (NVIDIA's PTX compiler library in the LLVM worker
when ``nvidia-nvptxcompiler`` is installed, else the ptxas executable). Fresh processes run
with bytecode caching on (PYTHONPYCACHEPREFIX in a temporary folder, warmed first), as a
user's interpreter would. A kernel the backend cannot compile yet is reported as such.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import peers  # noqa: E402  (imports no peer at module level)

KERNELS = ("vector_add", "softmax", "matmul")

FRESH = r'''
import json, sys, time
t0 = time.perf_counter()
import tileir as ct
t1 = time.perf_counter()
import importlib.util, numpy as np
spec = importlib.util.spec_from_file_location("bench_kernel_{name}", {path!r})
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
args = {args}
t2 = time.perf_counter()
out = {{"import_s": t1 - t0}}
try:
    k = ct.compile(getattr(mod, {name!r}), args, target="sm_90a")
    t3 = time.perf_counter()
    out.update(compile_s=t3 - t2, from_cache=k.from_cache, ptx_compiler=k.ptx_compiler, registers=k.registers,
               timings=k.timings)
    if not k.from_cache:
        from tileir._toolchain import get_worker
        out["llvm_worker_start_s"] = get_worker().last_start_seconds
except Exception as e:
    out["error"] = type(e).__name__ + ": " + str(e).splitlines()[0][:200]
print("@@JSON@@" + json.dumps(out))
'''


def _args_expr(name: str) -> str:
    spec = peers.KERNEL_ARGS[name]
    arrays = [f"np.zeros({shape!r}, np.{dtype})" for shape, dtype in spec["arrays"]]
    return "(" + ", ".join(arrays + [repr(c) for c in spec["constants"]]) + ",)"


def _kernel_file(folder: str, name: str) -> str:
    path = os.path.join(folder, f"bench_{name}.py")
    with open(path, "w") as f:
        f.write(peers.CUTILE_SOURCES[name].replace("import cuda.tile as ct", "import tileir as ct"))
    return path


def _fresh(name: str, path: str, env: dict) -> dict:
    code = FRESH.format(name=name, path=path, args=_args_expr(name))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    for line in p.stdout.splitlines():
        if line.startswith("@@JSON@@"):
            return json.loads(line[8:])
    return {"error": (p.stderr or p.stdout).strip().splitlines()[-1][:300] if (p.stderr or p.stdout) else "no output"}


def tileir_fresh(name: str, path: str, repeats: int, work: str) -> dict:
    """Cold (empty cache) and warm (cache hit) compiles, each in a fresh interpreter."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(work, "pycache")
    colds, warms, imports_cold, imports_warm = [], [], [], []
    last = {}
    last_start = None
    _fresh(name, path, dict(env, TILEIR_CACHE_DIR=os.path.join(work, "warmup")))  # fills the bytecode cache
    for r in range(repeats):
        cache = os.path.join(work, f"cache-{name}-{r}")
        cold = _fresh(name, path, dict(env, TILEIR_CACHE_DIR=cache))
        if "error" in cold:
            return {"error": cold["error"]}
        warm = _fresh(name, path, dict(env, TILEIR_CACHE_DIR=cache))
        if "error" in warm or not warm.get("from_cache"):
            return {"error": "the second process did not hit the cache: " + str(warm)[:200]}
        if "llvm_worker_start_s" in cold:
            last_start = cold["llvm_worker_start_s"]
        colds.append(cold["compile_s"])
        warms.append(warm["compile_s"])
        imports_cold.append(cold["import_s"])
        imports_warm.append(warm["import_s"])
        last = cold
        shutil.rmtree(cache, ignore_errors=True)
    return {"cold_s": statistics.median(colds), "warm_s": statistics.median(warms), "warm_min_s": min(warms),
            "import_s": statistics.median(imports_cold + imports_warm), "ptx_compiler": last.get("ptx_compiler"),
            "registers": last.get("registers"), "cold_stages": last.get("timings", {}), "worker_start_s": last_start}


def tileir_in_process(name: str, path: str, repeats: int, ptx_compiler: str | None = None) -> dict:
    """Triton's "cold": a warmed-up process, a fresh kernel object, no persistent cache.
    ``ptx_compiler`` sets TILEIR_PTX_COMPILER for the measurement."""
    import importlib.util

    import numpy as np  # noqa: F401  (the args expression)

    import tileir as ct

    os.environ["TILEIR_CACHE"] = "0"
    saved_mode = os.environ.pop("TILEIR_PTX_COMPILER", None)
    if ptx_compiler:
        os.environ["TILEIR_PTX_COMPILER"] = ptx_compiler
    try:
        spec = importlib.util.spec_from_file_location(f"bench_inproc_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        kern = getattr(mod, name)
        args = eval(_args_expr(name))  # noqa: S307 - our own expression
        try:
            ct.compile(kern.replace_hints(), args, target="sm_90a")
        except Exception as e:
            return {"error": type(e).__name__ + ": " + str(e).splitlines()[0][:200]}
        ks = [ct.compile(kern.replace_hints(), args, target="sm_90a") for _ in range(repeats)]
        runs = [k.timings for k in ks]
    finally:
        os.environ.pop("TILEIR_CACHE", None)
        os.environ.pop("TILEIR_PTX_COMPILER", None)
        if saved_mode is not None:
            os.environ["TILEIR_PTX_COMPILER"] = saved_mode
    stages = {s: statistics.median(r[s] for r in runs) for s in runs[0]}
    return {"median_s": stages["total"], "stages": stages, "ptx_compiler": ks[-1].ptx_compiler}


PEER_SNIPPET = """
import json, sys
sys.path.insert(0, {here!r})
import peers
out = {{}}
for k in {kernels!r}:
    out[k] = {{"triton": peers.triton_cold(k, {n}), "tileiras": peers.cutile_tileiras_cold(k, {n})}}
print("@@JSON@@" + json.dumps(out, default=str))
"""


def run_peers(kernels, repeats: int, peer_python: str | None) -> dict:
    python = peer_python or sys.executable
    code = PEER_SNIPPET.format(here=HERE, n=repeats, kernels=tuple(kernels))
    p = subprocess.run([python, "-c", code], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("@@JSON@@"):
            return json.loads(line[len("@@JSON@@"):])
    return {"error": (p.stderr or p.stdout)[-2000:]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--peer-python", default=None)
    ap.add_argument("--kernels", default=",".join(KERNELS))
    args = ap.parse_args()
    kernels = [k for k in args.kernels.split(",") if k]
    peer_python = args.peer_python
    default_venv = os.path.join(REPO, ".bench", "venv", "bin", "python")
    if peer_python is None and os.path.exists(default_venv):
        peer_python = default_venv

    ms = lambda s: f"{s * 1e3:8.2f} ms"  # noqa: E731
    peer = run_peers(kernels, args.repeats, peer_python)
    from tileir._toolchain import find_ptx_archive

    lib_available = find_ptx_archive() is not None
    work = tempfile.mkdtemp(prefix="tileir-compile-bench-")
    try:
        print(f"compile time, Python kernel -> cubin, sm_90a; medians of {args.repeats}")
        for name in kernels:
            path = _kernel_file(work, name)
            print(f"\n{name}:")
            inproc = tileir_in_process(name, path, args.repeats)
            if "error" in inproc:
                print(f"  tileir: not compiled yet ({inproc['error']})")
                fresh = None
            else:
                fresh = tileir_fresh(name, path, args.repeats, work)
            if fresh and "error" not in fresh:
                ws = fresh.get("worker_start_s")
                print(f"  tileir cold, fresh process      {ms(fresh['cold_s'])}   (+ import tileir {ms(fresh['import_s'])}; "
                      f"of it, LLVM worker start {ms(ws) if ws else '-'}; PTX compiler: "
                      f"{os.path.basename(fresh['ptx_compiler'] or '?')}; {fresh['registers']} regs)")
                beyond = fresh["warm_s"]
                print(f"  tileir warm, fresh process      {ms(beyond)}   (min {ms(fresh['warm_min_s'])}) cache hit beyond "
                      f"import: {'meets' if beyond <= 1e-3 else 'misses'} the <= 1 ms target")
            elif fresh:
                print(f"  tileir fresh processes: {fresh['error']}")
            if "error" not in inproc:
                st = inproc["stages"]
                print(f"  tileir in-process recompile     {ms(inproc['median_s'])}   (front end {ms(st['frontend'])}, "
                      f"Rust {ms(st['rust_passes'])}, LLVM {ms(st['llvm'])}, PTX->cubin {ms(st['ptxas'])}; "
                      f"{os.path.basename(inproc['ptx_compiler'] or '?')})")
                if not inproc["ptx_compiler"].startswith("nvPTXCompiler") and lib_available:
                    lib = tileir_in_process(name, path, args.repeats, ptx_compiler="library")
                    if "error" not in lib:
                        st = lib["stages"]
                        print(f"    same, PTX compiler library    {ms(lib['median_s'])}   (LLVM {ms(st['llvm'])}, PTX->cubin "
                              f"{ms(st['ptxas'])}; {lib['ptx_compiler']}: CUDA 13 cubins, for drivers r580+)")
                    else:
                        print(f"    same, PTX compiler library: {lib['error']}")
            pk = peer.get(name, {})
            fastest = None
            tri = pk.get("triton", {})
            if "cold_median_s" in tri:
                print(f"  Triton {tri.get('triton_version')} cold             {ms(tri['cold_median_s'])}   "
                      f"({tri.get('registers')} regs)")
                fastest = tri["cold_median_s"]
            else:
                print(f"  Triton: {tri.get('skipped') or peer.get('error', 'not measured')[:200]}")
            tis = pk.get("tileiras", {})
            if "total_median_s" in tis:
                print(f"  cuTile + tileiras cold          {ms(tis['total_median_s'])}   (front end "
                      f"{ms(tis['frontend_median_s'])}, tileiras {ms(tis['tileiras_median_s'])}; {tis.get('registers')} regs)")
                fastest = tis["total_median_s"] if fastest is None else min(fastest, tis["total_median_s"])
            else:
                print(f"  cuTile + tileiras: {tis.get('skipped') or peer.get('error', 'not measured')[:200]}")
            if fastest and "error" not in inproc:
                for label, ours in (("in-process recompile", inproc["median_s"]),
                                    ("cold, fresh process", fresh["cold_s"] if fresh and "cold_s" in fresh else None)):
                    if ours is None:
                        continue
                    ratio = ours / fastest
                    print(f"  tileir {label} / fastest peer = {ratio:.2f} "
                          f"({'meets' if ratio <= 1 / 3 else 'misses'} the <= 0.33 target)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
