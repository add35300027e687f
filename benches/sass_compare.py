"""SASS of tileir next to cuTile + tileiras for the same sample kernels (issue #14).

    PYTHONPATH=python python3 benches/sass_compare.py --peer-python /tmp/peervenv/bin/python \
        [--samples matmul_f16,matmul_f32] [--json] [--opcodes] [--save-dir DIR] [--cuobjdump PATH]

For each sample of tests/python/frontend_samples.py (default: the matmul ones), one cubin per
compiler, both for Hopper:

* tileir: ``ct.compile(kernel, example_args, target="sm_90a")`` in this process (persistent
  cache off), its ``CompiledKernel.cubin``.
* cuTile + tileiras: in ``--peer-python`` (default ``.bench/venv/bin/python`` when it exists,
  else this interpreter), which needs ``cuda-tile[tileiras]``; the same sample source with
  ``import cuda.tile as ct`` (benches/compile_samples.py's loader), exported to bytecode for a
  signature like the one cuTile's JIT derives from the same arrays (16-byte aligned base,
  unit inner stride, strides divisible by 16 bytes, dims divisible by 16 marked so: what
  tileir specializes on too), then ``tileiras -O3 --gpu-name sm_90`` (which emits sm_90a).

Then, for both cubins, ``cuobjdump -res-usage`` (registers, static shared memory, local
memory), ``cuobjdump -elf`` (threads per CTA from EIATTR_REQNTID) and ``cuobjdump -sass``,
whose instructions are counted by class (static counts, NOPs left out). cuobjdump comes from
``--cuobjdump``, else this interpreter's environment, else the peer's (pip wheels
``nvidia-cuda-cuobjdump`` and ``nvidia-cuda-nvdisasm``: ``cuobjdump -sass`` runs nvdisasm),
else ``$PATH`` / ``$CUDA_HOME/bin``. No GPU is needed.

Set up a peer environment (never a dependency of tileir)::

    python3 -m venv /tmp/peervenv
    /tmp/peervenv/bin/pip install "cuda-tile[tileiras]" nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm numpy
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SAMPLES_FILE = os.path.join(REPO, "tests", "python", "frontend_samples.py")
sys.path.insert(0, HERE)

import peers  # noqa: E402  (imports no peer and not tileir at module level)

TILEIR_TARGET = "sm_90a"
TILEIRAS_GPU = "sm_90"  # tileiras' name for Hopper; its cubin is sm_90a code

INSTALL_HINT = ('python3 -m venv /tmp/peervenv && /tmp/peervenv/bin/pip install "cuda-tile[tileiras]" '
                "nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm numpy; then pass --peer-python /tmp/peervenv/bin/python")


class ToolMissing(Exception):
    """A tool or package the comparison cannot do without; its message says what to install."""


# --------------------------------------------------------------------------------------------
# SASS instruction classes
# --------------------------------------------------------------------------------------------

#: (row label, base mnemonics) in table order; a mnemonic's base is its text before the first
#: '.', so HGMMA.64x128x16.F32 is HGMMA and SYNCS.PHASECHK.TRANS64.TRYWAIT is SYNCS
CLASSES = (
    ("HGMMA", ("HGMMA",)),
    ("HMMA", ("HMMA",)),
    ("UTMALDG/UTMASTG/UBLKCP", ("UTMALDG", "UTMASTG", "UBLKCP")),
    ("LDGSTS", ("LDGSTS",)),
    ("LDG", ("LDG",)),
    ("STG", ("STG",)),
    ("LDS", ("LDS",)),
    ("STS", ("STS",)),
    ("LDSM", ("LDSM",)),
    ("STSM", ("STSM",)),
    ("BAR", ("BAR",)),
    ("SYNCS (mbarrier)", ("SYNCS",)),
    ("FFMA", ("FFMA",)),
    ("LDL/STL (local)", ("LDL", "STL")),
)
CLASS_OF = {m: label for label, ms in CLASSES for m in ms}
OTHER = "other"
CLASS_LABELS = [label for label, _ in CLASSES] + [OTHER]

_INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_PRED = re.compile(r"^@!?U?P(?:T|\d+)\s+")
_FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)")


def parse_sass(text: str) -> dict:
    """{function: Counter(base mnemonic -> static count)} of ``cuobjdump -sass`` output, plus
    the ``.target`` line(s) under the key ``None``."""
    funcs: dict = {}
    current = None
    targets = sorted(set(re.findall(r"^\s*\.target\s+(\S+)", text, re.M)))
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m:
            current = funcs.setdefault(m.group(1), Counter())
            continue
        m = _INSTR.match(line)
        if not m or current is None:
            continue
        body = _PRED.sub("", m.group(2))
        op = body.split(None, 1)[0] if body else ""
        if op:
            current[op.split(".", 1)[0]] += 1
    return {"functions": funcs, "targets": targets}


def classify(opcodes: Counter) -> dict:
    """Instruction counts by class; NOPs (alignment padding) apart, not in the total."""
    out = {label: 0 for label in CLASS_LABELS}
    for op, n in opcodes.items():
        if op == "NOP":
            continue
        out[CLASS_OF.get(op, OTHER)] += n
    out["total (no NOP)"] = sum(n for op, n in opcodes.items() if op != "NOP")
    out["NOP"] = opcodes.get("NOP", 0)
    return out


# --------------------------------------------------------------------------------------------
# cuobjdump
# --------------------------------------------------------------------------------------------

def _run(cmd: list[str], env: dict | None = None) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        msg = (p.stderr or p.stdout).strip()
        if "nvdisasm" in msg:
            raise ToolMissing(f"{' '.join(cmd[:2])}: {msg.splitlines()[-1]}\n"
                              "cuobjdump -sass runs nvdisasm: pip install nvidia-cuda-nvdisasm into the peer venv, "
                              "or put a CUDA toolkit's bin on PATH")
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {msg[:500]}")
    return p.stdout


def parse_res_usage(text: str) -> dict:
    """{function: {REG, STACK, SHARED, LOCAL, ...}} of ``cuobjdump -res-usage``."""
    out = {}
    for m in re.finditer(r"^\s*Function\s+(\S+?):\s*\n\s*(.*)$", text, re.M):
        out[m.group(1)] = {k: int(v) for k, v in re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", m.group(2))}
    return out


def parse_elf_info(text: str) -> dict:
    """{function: {"reqntid": [x, y, z] | None, "mbarriers": n | None, "reg_reconfig": bool}}
    from the ``.nv.info.<function>`` sections of ``cuobjdump -elf``."""
    out = {}
    # a section's dump starts with its name (or ".section <name>") at the start of a line
    parts = re.split(r"^(?:\.section\s+)?(\.\S+)[ \t]*$", text, flags=re.M)
    for section, body in zip(parts[1::2], parts[2::2]):
        if not section.startswith(".nv.info."):
            continue
        name = section[len(".nv.info."):]
        req = re.search(r"EIATTR_REQNTID\s+Format:\s*\S+\s+Value:\s*((?:0x[0-9a-fA-F]+\s*){1,3})", body)
        mb = re.search(r"EIATTR_NUM_MBARRIERS\s+Format:\s*\S+\s+Value:\s*(0x[0-9a-fA-F]+)", body)
        out[name] = {"reqntid": [int(v, 16) for v in req.group(1).split()] if req else None,
                     "mbarriers": int(mb.group(1), 16) if mb else None,
                     "reg_reconfig": "EIATTR_REG_RECONFIG" in body}
    return out


def analyse_cubin(cubin: bytes, cuobjdump: str, nvdisasm: str | None, save_stem: str | None = None) -> dict:
    env = dict(os.environ)
    if nvdisasm:
        env["NVDISASM_PATH"] = os.path.dirname(nvdisasm)
        env["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + env.get("PATH", "")
    with tempfile.TemporaryDirectory(prefix="sass_compare_") as d:
        path = os.path.join(d, "k.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        res = parse_res_usage(_run([cuobjdump, "-res-usage", path], env))
        elf = parse_elf_info(_run([cuobjdump, "-elf", path], env))
        sass_text = _run([cuobjdump, "-sass", path], env)
    if save_stem:
        with open(save_stem + ".cubin", "wb") as f:
            f.write(cubin)
        with open(save_stem + ".sass", "w") as f:
            f.write(sass_text)
    sass = parse_sass(sass_text)
    if not sass["functions"]:
        raise RuntimeError("cuobjdump -sass printed no function")
    opcodes: Counter = Counter()
    for c in sass["functions"].values():
        opcodes.update(c)
    kernels = sorted(sass["functions"])
    first = kernels[0]
    r = res.get(first, {})
    e = elf.get(first, {})
    return {
        "functions": kernels,
        "sass_targets": sass["targets"],
        "registers": r.get("REG"),
        "shared_bytes": r.get("SHARED"),
        "local_bytes": r.get("LOCAL"),
        "stack_bytes": r.get("STACK"),
        "threads": (e.get("reqntid") or [None])[0] if e.get("reqntid") else None,
        "reqntid": e.get("reqntid"),
        "mbarriers": e.get("mbarriers"),
        "reg_reconfig": e.get("reg_reconfig"),
        "res_usage": res,
        "classes": classify(opcodes),
        "opcodes": dict(sorted(opcodes.items(), key=lambda kv: (-kv[1], kv[0]))),
        "sass_lines": sum(opcodes.values()),
    }


# --------------------------------------------------------------------------------------------
# Peer side: cuTile + tileiras (runs in --peer-python; never imports tileir)
# --------------------------------------------------------------------------------------------

def _jit_like_signature(ct, compilation, kern, args):
    """What cuTile's JIT would assume for these host arrays: base divisible by 16, unit last
    stride, strides divisible by 16 bytes, dims divisible by 16 marked; Constant parameters
    by value, other scalars int32/float32."""
    import inspect

    import numpy as np

    params = list(inspect.signature(kern._annotated_function.pyfunc).parameters.values())
    out = []
    for p, a in zip(params, args):
        if isinstance(a, np.ndarray):
            nd, item = a.ndim, a.dtype.itemsize
            strides = [s // item for s in a.strides]
            stride_div = 16 // item if 16 % item == 0 else 1
            out.append(compilation.ArrayConstraint(
                getattr(ct, a.dtype.name), nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                may_alias_internally=False,
                stride_constant=tuple(1 if s == 1 else None for s in strides),
                stride_divisible_by=tuple(1 if s == 1 else (stride_div if s % stride_div == 0 else 1)
                                          for s in strides),
                shape_divisible_by=tuple(16 if d % 16 == 0 else 1 for d in a.shape),
                base_addr_divisible_by=16))
        elif "Constant" in repr(p.annotation):
            out.append(a)
        else:
            out.append(compilation.ScalarConstraint(ct.float32 if isinstance(a, float) else ct.int32))
    return compilation.KernelSignature(out, compilation.CallingConvention.cutile_python_v1())


def peer_main(names: list[str], out_dir: str) -> dict:
    """Compile ``names`` with cuTile + tileiras into ``out_dir/<name>.tileiras.cubin``; also say
    where this environment's cuobjdump / nvdisasm are."""
    import compile_samples

    out: dict = {"python": sys.executable,
                 "cuobjdump": peers.find_nvidia_tool("cuobjdump"),
                 "nvdisasm": peers.find_nvidia_tool("nvdisasm"),
                 "cuda-tile": peers._pkg_version("cuda-tile")}
    try:
        import cuda.tile as ct
        from cuda.tile import compilation
    except Exception as e:
        out["fatal"] = f"cuda.tile is not importable in {sys.executable}: {compile_samples._first_line(e)}"
        return out
    tileiras = peers.find_nvidia_tool("tileiras")
    if tileiras is None:
        out["fatal"] = f"tileiras not found for {sys.executable} (pip install 'cuda-tile[tileiras]')"
        return out
    out["tileiras"] = tileiras
    out["tileiras_version"] = peers._tool_version(tileiras)
    results = {}
    with tempfile.TemporaryDirectory(prefix="sass_compare_cutile_src_") as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        samples, errors = compile_samples.load_cutile_samples(folder)
        for name in names:
            if name in errors:
                results[name] = {"error": f"cuTile rejects it: {errors[name]}"}
                continue
            kern, make_args = samples[name]
            try:
                sig = _jit_like_signature(ct, compilation, kern, make_args())
                buf = io.BytesIO()
                compilation.export_kernel(kern, [sig], buf, output_format="tileir_bytecode", bytecode_version="13.3")
            except Exception as e:
                results[name] = {"error": f"cuTile rejects it: {compile_samples._first_line(e)}"}
                continue
            bc = os.path.join(out_dir, f"{name}.tileirbc")
            cubin = os.path.join(out_dir, f"{name}.tileiras.cubin")
            with open(bc, "wb") as f:
                f.write(buf.getvalue())
            p = subprocess.run([tileiras, bc, "-o", cubin, "--gpu-name", TILEIRAS_GPU, "-O3"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                first = ((p.stderr or p.stdout).strip().splitlines() or ["?"])[0]
                results[name] = {"error": f"tileiras: {first[:300]}"}
                continue
            results[name] = {"cubin": cubin, "signature": repr(sig.parameters)}
    out["samples"] = results
    return out


PEER_SNIPPET = """
import json, sys
sys.path.insert(0, {here!r})
import sass_compare
print("@@JSON@@" + json.dumps(sass_compare.peer_main({names!r}, {out!r}), default=str))
"""


def run_peer(peer_python: str, names: list[str], out_dir: str) -> dict:
    if not (os.path.isfile(peer_python) and os.access(peer_python, os.X_OK)):
        raise ToolMissing(f"peer interpreter {peer_python} does not exist; {INSTALL_HINT}")
    code = PEER_SNIPPET.format(here=HERE, names=list(names), out=out_dir)
    p = subprocess.run([peer_python, "-c", code], capture_output=True, text=True, cwd=tempfile.gettempdir())
    for line in p.stdout.splitlines():
        if line.startswith("@@JSON@@"):
            return json.loads(line[len("@@JSON@@"):])
    tail = ((p.stderr or p.stdout).strip().splitlines() or ["no output"])[-1][:300]
    raise ToolMissing(f"the peer interpreter {peer_python} failed: {tail}")


# --------------------------------------------------------------------------------------------
# tileir side (this process)
# --------------------------------------------------------------------------------------------

def _import_tileir():
    try:
        import tileir  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(REPO, "python"))
        try:
            import tileir  # noqa: F401
        except ImportError as e:
            raise ToolMissing(f"tileir is not importable ({e}); run with PYTHONPATH={os.path.join(REPO, 'python')}")
    import tileir

    return tileir


def tileir_cubin(ct, kern, make_args) -> dict:
    saved = os.environ.get("TILEIR_CACHE")
    os.environ["TILEIR_CACHE"] = "0"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            k = ct.compile(kern, make_args(), target=TILEIR_TARGET)
    except Exception as e:
        text = str(e).strip().splitlines()
        return {"error": f"tileir: {type(e).__name__}: {text[0] if text else ''}"[:300]}
    finally:
        if saved is None:
            os.environ.pop("TILEIR_CACHE", None)
        else:
            os.environ["TILEIR_CACHE"] = saved
    ptx = (k.asm or {}).get("ptx", "")
    info = k.ptxas_info
    return {"cubin_bytes": k.cubin, "num_threads": k.num_threads,
            "dynamic_smem": k.dynamic_smem, "tensor_maps": len(k.tensor_maps),
            "ptx_compiler": k.ptx_compiler,
            "ptxas": None if info is None else {
                "registers": info.registers, "shared_bytes": info.shared_bytes,
                "spill_stores_bytes": info.spill_stores_bytes, "spill_loads_bytes": info.spill_loads_bytes,
                "stack_frame_bytes": info.stack_frame_bytes},
            "ptx_counts": {"mma.sync": len(re.findall(r"\bmma\.sync\b", ptx)),
                           "wgmma.mma_async": len(re.findall(r"\bwgmma\.mma_async\b", ptx)),
                           "cp.async.bulk.tensor": len(re.findall(r"\bcp\.async\.bulk\.tensor\b", ptx)),
                           "cp.async(.ca/.cg)": len(re.findall(r"\bcp\.async\.c[ag]\b", ptx)),
                           "ldmatrix": len(re.findall(r"\bldmatrix\b", ptx))}}


# --------------------------------------------------------------------------------------------
# Table
# --------------------------------------------------------------------------------------------

RES_ROWS = (("threads / CTA", "threads"), ("registers", "registers"), ("shared mem (B)", "shared_bytes"),
            ("local mem (B)", "local_bytes"))


def render(names: list[str], results: dict) -> str:
    rows: list[list[str]] = []
    for label, key in RES_ROWS:
        rows.append([label] + [_cell(results[n][c], key) for n in names for c in ("tileir", "tileiras")])
    rows.append(None)
    for label in ["total (no NOP)"] + CLASS_LABELS:
        rows.append([label] + [_cell(results[n][c], label, cls=True) for n in names for c in ("tileir", "tileiras")])
    head1 = [""] + [x for n in names for x in (n, "")]
    head2 = ["SASS, sm_90a"] + ["tileir", "tileiras"] * len(names)
    body = [r for r in rows if r is not None]
    widths = [max(len(r[i]) for r in body + [head2]) for i in range(len(head2))]
    # a sample name spans its two columns
    for j, n in enumerate(names):
        a, b = 1 + 2 * j, 2 + 2 * j
        need = len(n) - (widths[a] + 2 + widths[b])
        if need > 0:
            widths[a] += need
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths)))
    line1 = widths[0] * " " + "".join("  " + n.center(widths[1 + 2 * j] + 2 + widths[2 + 2 * j])
                                      for j, n in enumerate(names))
    sep = "  ".join("-" * w for w in widths)
    out = [line1.rstrip(), fmt(head2), sep]
    for r in rows:
        out.append(sep if r is None else fmt(r))
    return "\n".join(out)


def _cell(r: dict, key: str, cls: bool = False) -> str:
    if "error" in r:
        return "-"
    v = r["classes"].get(key) if cls else r.get(key)
    return "?" if v is None else str(v)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", default="", help="comma-separated sample names (default: every *matmul* sample)")
    ap.add_argument("--peer-python", default=None, help="interpreter with cuda-tile[tileiras] installed")
    ap.add_argument("--cuobjdump", default=None, help="cuobjdump to use (default: searched, see above)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ap.add_argument("--opcodes", action="store_true", help="also print every mnemonic's count")
    ap.add_argument("--save-dir", default=None, help="write <sample>.<compiler>.{cubin,sass} there")
    args = ap.parse_args()
    try:
        return _main(ap, args)
    except ToolMissing as e:
        print(f"sass_compare: {e}", file=sys.stderr)
        return 2


def _main(ap, args) -> int:
    ct = _import_tileir()
    sys.path.insert(0, os.path.dirname(SAMPLES_FILE))
    from frontend_samples import SAMPLES

    names = [s for s in args.samples.split(",") if s] or [s for s in SAMPLES if "matmul" in s]
    unknown = [s for s in names if s not in SAMPLES]
    if unknown:
        ap.error(f"unknown samples {unknown}; known: {', '.join(SAMPLES)}")
    peer_python = args.peer_python
    if peer_python is None:
        default_venv = os.path.join(REPO, ".bench", "venv", "bin", "python")
        peer_python = default_venv if os.path.exists(default_venv) else sys.executable
    if args.save_dir:
        os.makedirs(args.save_dir, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="sass_compare_cubins_") as work:
        peer = run_peer(peer_python, names, work)
        if "fatal" in peer:
            raise ToolMissing(f"{peer['fatal']}; {INSTALL_HINT}")
        if args.cuobjdump and not (os.path.isfile(args.cuobjdump) and os.access(args.cuobjdump, os.X_OK)):
            raise ToolMissing(f"--cuobjdump {args.cuobjdump} is not an executable file")
        cuobjdump = args.cuobjdump or peers.find_nvidia_tool("cuobjdump") or peer.get("cuobjdump")
        if not cuobjdump:
            raise ToolMissing("cuobjdump not found (looked in --cuobjdump, this interpreter's and the peer's "
                              "nvidia-* wheels, Triton's bundled tools, $PATH, $CUDA_HOME/bin); "
                              f"pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm with {peer_python} -m pip")
        side = os.path.join(os.path.dirname(cuobjdump), "nvdisasm")
        nvdisasm = ((side if os.access(side, os.X_OK) else None) or peers.find_nvidia_tool("nvdisasm")
                    or peer.get("nvdisasm"))

        results: dict = {}
        for name in names:
            kern, make_args = SAMPLES[name]
            stem = (lambda c: os.path.join(args.save_dir, f"{name}.{c}")) if args.save_dir else (lambda c: None)
            ours = tileir_cubin(ct, kern, make_args)
            if "error" not in ours:
                cubin = ours.pop("cubin_bytes")
                ours.update(analyse_cubin(cubin, cuobjdump, nvdisasm, stem("tileir")))
            theirs = dict(peer["samples"].get(name, {"error": "no peer result"}))
            if "error" not in theirs:
                with open(theirs["cubin"], "rb") as f:
                    cubin = f.read()
                theirs.pop("cubin")
                theirs.update(analyse_cubin(cubin, cuobjdump, nvdisasm, stem("tileiras")))
            results[name] = {"tileir": ours, "tileiras": theirs}

    meta = {"tileir_target": TILEIR_TARGET, "tileiras_gpu_name": TILEIRAS_GPU, "peer_python": peer_python,
            "cuda-tile": peer.get("cuda-tile"), "tileiras": peer.get("tileiras"),
            "tileiras_version": peer.get("tileiras_version"), "cuobjdump": cuobjdump,
            "cuobjdump_version": peers._tool_version(cuobjdump), "nvdisasm": nvdisasm}
    if args.json:
        print(json.dumps({"meta": meta, "samples": results}, indent=2, default=str))
        return 0

    print(f"SASS side by side: tileir (target {TILEIR_TARGET}) vs cuTile {meta['cuda-tile']} + tileiras "
          f"(--gpu-name {TILEIRAS_GPU} -O3; {meta['tileiras_version']}); cuobjdump {meta['cuobjdump']} "
          f"({meta['cuobjdump_version']})")
    print(render(names, results))
    print("\nstatic instruction counts of cuobjdump -sass (NOP padding left out); registers / shared / local "
          "from cuobjdump -res-usage (shared = the static .nv.shared size, where tileir's ptxas -v smem is "
          "1 KiB less: the sm_90 reserve); threads / CTA from EIATTR_REQNTID")
    for name in names:
        for comp in ("tileir", "tileiras"):
            r = results[name][comp]
            if "error" in r:
                print(f"{name} / {comp}: {r['error']}")
                continue
            extra = []
            if r.get("sass_targets") and r["sass_targets"] != [TILEIR_TARGET]:
                extra.append(f"SASS target {','.join(r['sass_targets'])}")
            if len(r["functions"]) > 1:
                extra.append(f"{len(r['functions'])} functions: {', '.join(r['functions'])} (counts summed)")
            if r.get("reg_reconfig"):
                extra.append("setmaxnreg (register reconfiguration)")
            if r.get("mbarriers") == 0xFFFF:
                # ptxas's EIATTR_NUM_MBARRIERS when it cannot count them statically.
                extra.append("mbarriers (ptxas: count unknown, 0xffff)")
            elif r.get("mbarriers"):
                extra.append(f"{r['mbarriers']} mbarriers")
            if comp == "tileir":
                if r.get("dynamic_smem"):
                    extra.append(f"{r['dynamic_smem']} B dynamic shared memory per launch (not in the "
                                 "shared mem row, which is the static size)")
                if r.get("tensor_maps"):
                    extra.append(f"{r['tensor_maps']} TMA tensor maps")
                pi = r.get("ptxas") or {}
                if pi:
                    extra.append(f"ptxas -v: {pi['registers']} regs, {pi['shared_bytes']} B smem, spills "
                                 f"{pi['spill_stores_bytes']}/{pi['spill_loads_bytes']} B")
                pc = r.get("ptx_counts") or {}
                extra.append("PTX: " + (", ".join(f"{k} {v}" for k, v in pc.items() if v)
                                        or "no " + " / ".join(pc)))
            if extra:
                print(f"{name} / {comp}: " + "; ".join(extra))
    if args.opcodes:
        for name in names:
            cols = [c for c in ("tileir", "tileiras") if "error" not in results[name][c]]
            ops = sorted({op for c in cols for op in results[name][c]["opcodes"]},
                         key=lambda op: (-sum(results[name][c]["opcodes"].get(op, 0) for c in cols), op))
            print(f"\n{name}: every mnemonic (" + " / ".join(cols) + ")")
            for op in ops:
                print(f"  {op:<14}" + "".join(f"{results[name][c]['opcodes'].get(op, 0):>8}" for c in cols))
    if args.save_dir:
        print(f"\ncubins and SASS written to {args.save_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
