"""Compile time of every sample kernel (tests/python/frontend_samples.py), Python -> cubin,
tileir per stage next to cuTile + tileiras and Triton, all measured in one run.

    python3 benches/compile_samples.py [--repeats 3] [--samples softmax,transpose] [--peer-python PATH]

tileir: in this process, after one warm-up compile per sample (LLVM worker running, imports
done), each repeat compiles a fresh kernel object (``kernel.replace_hints()``) with the
persistent cache off (TILEIR_CACHE=0) for sm_90a; the medians of ``CompiledKernel.timings``
(frontend, rust_passes, llvm, ptxas, total) are printed. This is the method of Triton's
"cold" compile (docs/triton.md) and of compile_time.py's "in-process recompile".

Peers run in ``--peer-python`` (default ``.bench/venv/bin/python`` when it exists, else this
interpreter), which needs ``cuda-tile[tileiras]`` and ``triton``:

* cuTile + tileiras: the same sample source with ``import cuda.tile as ct`` in place of
  ``import tileir as ct``; cuTile's front end (AST->HIR memo cleared each repeat) exports
  bytecode for the sample's example arguments, then ``tileiras -O3 --gpu-name sm_90``. A
  sample cuTile rejects is reported with its error's first line.
* Triton: its cold compile (warmed process, empty TRITON_CACHE_DIR per compile, sm_90) of a
  hand-written equivalent where a short one exists: vector add, softmax and f16 matmul
  (benches/peers.py's kernels), transpose, layer norm forward and batched matmul (below);
  "-" elsewhere.

The last column is tileir's total over the faster peer's total. No GPU is needed.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SAMPLES_FILE = os.path.join(REPO, "tests", "python", "frontend_samples.py")
sys.path.insert(0, HERE)

import peers  # noqa: E402  (imports no peer at module level)

STAGES = ("frontend", "rust_passes", "llvm", "ptxas", "total")


# --------------------------------------------------------------------------------------------
# tileir (this process)
# --------------------------------------------------------------------------------------------

def tileir_sample(kern, make_args, repeats: int) -> dict:
    """Median per-stage timings of ``repeats`` compiles, each of a fresh kernel object with
    the persistent cache off, after one warm-up compile."""
    import tileir as ct

    saved = os.environ.get("TILEIR_CACHE")
    os.environ["TILEIR_CACHE"] = "0"
    try:
        args = make_args()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ct.compile(kern.replace_hints(), args, target="sm_90a")
            except Exception as e:
                return {"error": type(e).__name__ + ": " + (str(e).splitlines() or [""])[0][:200]}
            runs = []
            for _ in range(repeats):
                k = ct.compile(kern.replace_hints(), args, target="sm_90a")
                assert not k.from_cache
                runs.append(k.timings)
    finally:
        if saved is None:
            os.environ.pop("TILEIR_CACHE", None)
        else:
            os.environ["TILEIR_CACHE"] = saved
    return {"stages": {s: statistics.median(r[s] for r in runs) for s in STAGES},
            "ptx_compiler": os.path.basename(k.ptx_compiler or "?")}


# --------------------------------------------------------------------------------------------
# Peers (run in the peer interpreter: nothing here imports tileir)
# --------------------------------------------------------------------------------------------

def load_cutile_samples(folder: str) -> tuple[dict, dict]:
    """The samples file with ``import cuda.tile as ct``, executed one top-level statement at a
    time (so one definition cuTile rejects does not hide the others), and each SAMPLES entry
    evaluated alone. Returns ({name: (kernel, make_args)}, {name: error})."""
    with open(SAMPLES_FILE) as f:
        source = f.read().replace("import tileir as ct", "import cuda.tile as ct")
    path = os.path.join(folder, "cutile_frontend_samples.py")
    with open(path, "w") as f:
        f.write(source)
    module = types.ModuleType("cutile_frontend_samples")
    module.__file__ = path
    sys.modules[module.__name__] = module
    tree = ast.parse(source, path)
    failed_defs: dict[str, str] = {}
    samples_node = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SAMPLES" for t in node.targets):
            samples_node = node.value
            continue
        try:
            exec(compile(ast.Module([node], []), path, "exec", dont_inherit=True), module.__dict__)  # noqa: S102 - our own file
        except Exception as e:
            name = getattr(node, "name", None)
            if name:
                failed_defs[name] = _first_line(e)
    samples, errors = {}, {}
    for key, value in zip(samples_node.keys, samples_node.values):
        name = ast.literal_eval(key)
        kernel_name = getattr(value.elts[0], "id", None) if isinstance(value, ast.Tuple) else None
        if kernel_name in failed_defs:
            errors[name] = f"defining {kernel_name}: {failed_defs[kernel_name]}"
            continue
        try:
            samples[name] = eval(compile(ast.Expression(value), path, "eval", dont_inherit=True), module.__dict__)  # noqa: S307
        except Exception as e:
            errors[name] = _first_line(e)
    return samples, errors


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:200]


def _cutile_signature(ct, compilation, kern, args):
    """The KernelSignature cuTile would use for host example arguments (from_kernel_args needs
    libcuda): arrays as in peers._cutile_signature, Constant parameters by value, other
    scalars as int32/float32 scalars."""
    import numpy as np

    params = list(inspect.signature(kern._annotated_function.pyfunc).parameters.values())
    out = []
    for p, a in zip(params, args):
        if isinstance(a, np.ndarray):
            nd = a.ndim
            out.append(compilation.ArrayConstraint(
                getattr(ct, a.dtype.name), nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                may_alias_internally=False, stride_constant=(None,) * (nd - 1) + (1,),
                stride_divisible_by=(16,) * (nd - 1) + (1,) if nd > 1 else (1,),
                shape_divisible_by=1, base_addr_divisible_by=16))
        elif "Constant" in repr(p.annotation):
            out.append(a)
        else:
            out.append(compilation.ScalarConstraint(ct.float32 if isinstance(a, float) else ct.int32))
    return compilation.KernelSignature(out, compilation.CallingConvention.cutile_python_v1())


def cutile_sample(kern, make_args, repeats: int, arch: str = "sm_90") -> dict:
    """cuTile front end (HIR memo cleared) + ``tileiras -O3``, medians in seconds."""
    import cuda.tile as ct
    from cuda.tile import compilation

    try:
        sig = _cutile_signature(ct, compilation, kern, make_args())

        def export() -> bytes:
            buf = io.BytesIO()
            compilation.export_kernel(kern, [sig], buf, output_format="tileir_bytecode", bytecode_version="13.3")
            return buf.getvalue()

        fe = peers._time_frontend(export, repeats)
    except Exception as e:
        return {"rejected": _first_line(e)}
    tileiras = peers.find_nvidia_tool("tileiras")
    if tileiras is None:
        return {"skipped": "tileiras not found"}
    with tempfile.TemporaryDirectory(prefix="samples_tileiras_") as d:
        bc = os.path.join(d, "k.tileirbc")
        with open(bc, "wb") as f:
            f.write(fe.pop("bytecode"))
        times, proc = peers._time_cmd([tileiras, bc, "-o", os.path.join(d, "k.cubin"), "--gpu-name", arch, "-O3"],
                                      repeats)
        if proc.returncode != 0:
            return {"rejected": "tileiras: " + ((proc.stderr or proc.stdout).strip().splitlines() or ["?"])[0][:200]}
    return {"frontend_s": fe["frontend_median_s"], "tileiras_s": peers._median(times),
            "total_s": fe["frontend_median_s"] + peers._median(times)}


def _triton_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def transpose_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        t = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
        tl.store(y_ptr + rn[None, :] * M + rm[:, None], t, mask=mask)

    @triton.jit
    def layer_norm_fwd_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, N, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        x_ptr += row * N
        y_ptr += row * N
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + cols, mask=cols < N, other=0.0)
        mean = tl.sum(acc, axis=0) / N
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + cols, mask=cols < N, other=0.0)
            x = tl.where(cols < N, x - mean, 0.0)
            acc += x * x
        rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
        tl.store(mean_ptr + row, mean)
        tl.store(rstd_ptr + row, rstd)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            mask = cols < N
            x = tl.load(x_ptr + cols, mask=mask, other=0.0)
            w = tl.load(w_ptr + cols, mask=mask)
            b = tl.load(b_ptr + cols, mask=mask)
            tl.store(y_ptr + cols, (x - mean) * rstd * w + b, mask=mask)

    @triton.jit
    def batch_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        pid_b = tl.program_id(2)
        a_ptr += pid_b * M * K
        b_ptr += pid_b * K * N
        c_ptr += pid_b * M * N
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptr + rm[:, None] * K + (k * BK + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k * BK + rk)[None, :] < K), other=0.0)
            b = tl.load(b_ptr + (k * BK + rk)[:, None] * N + rn[None, :],
                        mask=((k * BK + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))

    div16 = [["tt.divisibility", 16]]
    return {
        "transpose": (transpose_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32",
                                         "BM": "constexpr", "BN": "constexpr"},
                      {"BM": 32, "BN": 64}, {(i,): div16 for i in range(4)}, {"num_warps": 4}),
        "layer_norm_fwd": (layer_norm_fwd_kernel,
                           {"x_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32", "y_ptr": "*fp32",
                            "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "N": "i32", "eps": "fp32",
                            "BLOCK": "constexpr"},
                           {"BLOCK": 256}, {(i,): div16 for i in range(6)}, {"num_warps": 4}),
        "batch_matmul": (batch_matmul_kernel,
                         {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                          "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
                         {"BM": 64, "BN": 64, "BK": 32}, {(i,): div16 for i in range(6)},
                         {"num_warps": 4, "num_stages": 3}),
    }


#: samples whose Triton equivalent is one of benches/peers.py's kernels
TRITON_FROM_PEERS = {"vec_add_gather": "vector_add", "softmax": "softmax", "matmul_f16": "matmul"}
TRITON_HERE = ("transpose", "layer_norm_fwd", "batch_matmul")


def triton_sample(name: str, repeats: int, arch: int = 90) -> dict:
    """Triton's cold compile (empty TRITON_CACHE_DIR per compile, first compile discarded)."""
    if name in TRITON_FROM_PEERS:
        r = peers.triton_cold(TRITON_FROM_PEERS[name], repeats, arch=arch)
        return {"total_s": r["cold_median_s"]} if "cold_median_s" in r else {"skipped": r.get("skipped", "?")}
    if name not in TRITON_HERE:
        return {}
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except Exception as e:
        return {"skipped": f"triton not importable: {_first_line(e)}"}
    fn, signature, constexprs, attrs, options = _triton_kernels()[name]
    walls = []
    with tempfile.TemporaryDirectory(prefix="samples_triton_cache_") as root, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for r in range(repeats + 1):
                d = os.path.join(root, str(r))
                os.makedirs(d)
                src = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
                with peers._env("TRITON_CACHE_DIR", d):
                    t0 = time.perf_counter()
                    triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)
                    if r:
                        walls.append(time.perf_counter() - t0)
        except Exception as e:
            return {"skipped": f"triton.compile failed: {_first_line(e)}"}
    return {"total_s": peers._median(walls)}


def peer_main(names: list[str], repeats: int) -> dict:
    out: dict = {"versions": {"cuda-tile": peers._pkg_version("cuda-tile"), "triton": peers._pkg_version("triton"),
                              "tileiras": peers._tool_version(peers.find_nvidia_tool("tileiras"))}}
    try:
        import cuda.tile  # noqa: F401
        have_cutile = True
    except Exception as e:
        have_cutile = False
        out["cutile_error"] = _first_line(e)
    with tempfile.TemporaryDirectory(prefix="samples_cutile_src_") as folder:
        samples, errors = load_cutile_samples(folder) if have_cutile else ({}, {})
        for name in names:
            entry = {}
            if not have_cutile:
                entry["cutile"] = {"skipped": out["cutile_error"]}
            elif name in errors:
                entry["cutile"] = {"rejected": errors[name]}
            elif name in samples:
                kern, make_args = samples[name]
                entry["cutile"] = cutile_sample(kern, make_args, repeats)
            entry["triton"] = triton_sample(name, repeats)
            out[name] = entry
    return out


PEER_SNIPPET = """
import json, sys
sys.path.insert(0, {here!r})
import compile_samples
print("@@JSON@@" + json.dumps(compile_samples.peer_main({names!r}, {n}), default=str))
"""


def run_peers(names: list[str], repeats: int, peer_python: str) -> dict:
    code = PEER_SNIPPET.format(here=HERE, names=list(names), n=repeats)
    p = subprocess.run([peer_python, "-c", code], capture_output=True, text=True, cwd=tempfile.gettempdir())
    for line in p.stdout.splitlines():
        if line.startswith("@@JSON@@"):
            return json.loads(line[len("@@JSON@@"):])
    return {"error": ((p.stderr or p.stdout).strip().splitlines() or ["no output"])[-1][:300]}


# --------------------------------------------------------------------------------------------
# Table
# --------------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--samples", default="", help="comma-separated sample names (default: all)")
    ap.add_argument("--peer-python", default=None)
    args = ap.parse_args()

    sys.path.insert(0, os.path.dirname(SAMPLES_FILE))
    from frontend_samples import SAMPLES

    names = [s for s in args.samples.split(",") if s] or list(SAMPLES)
    unknown = [s for s in names if s not in SAMPLES]
    if unknown:
        ap.error(f"unknown samples {unknown}; known: {', '.join(SAMPLES)}")
    peer_python = args.peer_python
    default_venv = os.path.join(REPO, ".bench", "venv", "bin", "python")
    if peer_python is None:
        peer_python = default_venv if os.path.exists(default_venv) else sys.executable

    peer = run_peers(names, args.repeats, peer_python)
    ours = {name: tileir_sample(*SAMPLES[name], args.repeats) for name in names}

    ms = lambda s: f"{s * 1e3:.1f}"  # noqa: E731
    v = peer.get("versions", {})
    print(f"compile time, Python kernel -> cubin (sm_90a / sm_90), ms, medians of {args.repeats}; "
          f"tileir in-process with a fresh kernel object and TILEIR_CACHE=0; peers in {peer_python} "
          f"(cuda-tile {v.get('cuda-tile')}, tileiras {v.get('tileiras')}, triton {v.get('triton')})")
    if "error" in peer:
        print(f"peers not measured: {peer['error']}")
    header = ("sample", "frontend", "rust", "llvm", "ptxas", "tileir", "cuTile+tileiras", "Triton", "tileir/peer")
    rows, notes = [], []
    for name in names:
        o = ours[name]
        pk = peer.get(name, {})
        cells = [name]
        if "error" in o:
            cells += ["-"] * 5
            notes.append((name, f"tileir: {o['error']}"))
        else:
            cells += [ms(o["stages"][s]) for s in STAGES]
        totals = []
        for peer_name, label in (("cutile", "cuTile"), ("triton", "Triton")):
            r = pk.get(peer_name, {})
            if "total_s" in r:
                cells.append(ms(r["total_s"]))
                totals.append(r["total_s"])
            elif "rejected" in r:
                cells.append("rejected")
                notes.append((name, f"{label} rejects it: {r['rejected']}"))
            elif "skipped" in r:
                cells.append("n/a")
                notes.append((name, f"{label} not measured: {r['skipped']}"))
            else:
                cells.append("\u2014")
        cells.append(f"{o['stages']['total'] / min(totals):.2f}" if totals and "error" not in o else "\u2014")
        rows.append(cells)
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    fmt = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths)))
    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt(r))
    ptx = sorted({o["ptx_compiler"] for o in ours.values() if "ptx_compiler" in o})
    print(f"\ntileir PTX compiler: {', '.join(ptx) or '?'}; Triton: vec_add_gather, softmax and matmul_f16 use "
          "benches/peers.py's vector add (BLOCK 1024), softmax and matmul (128x128x32) kernels")
    grouped: dict[str, list[str]] = {}
    for name, note in notes:
        grouped.setdefault(note, []).append(name)
    for note, where in grouped.items():
        print(f"{', '.join(where)}: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
