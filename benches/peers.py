"""Compile-time measurements of our peers: Triton and NVIDIA's cuTile Python + tileiras.

This module deliberately does not import tileir; it only measures the other compilers, so that
the tileir side of the benchmark can be compared against the numbers it returns.

Everything here works on a machine without a GPU:

* Triton: ``triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))`` (Triton ships
  its own ptxas).
* cuTile: ``cuda.tile.compilation.export_kernel(..., output_format="tileir_bytecode")`` with a
  hand-built ``KernelSignature`` (no driver needed), then the ``tileiras`` binary from the
  ``nvidia-cuda-tileiras`` wheel (``pip install "cuda-tile[tileiras]"``).

Each public function returns a plain ``dict``. When the peer is not installed it returns
``{"skipped": "<reason>"}`` instead of raising.

Public functions::

    triton_vector_add_cold(n_repeats=5, *, arch=90, size_divisible_by_16=False) -> dict
    tileiras_vector_add(n_repeats=5, *, archs=("sm_90", "sm_80"), shape_divisible_by=1,
                        bytecode_version="13.3") -> dict
    cutile_matmul_frontend(n_repeats=5, *, bytecode_version="13.3") -> dict
    ptx_summary(ptx) -> dict
    elf_sections(data) -> dict[str, bytes]
    ptx_from_cubin(cubin) -> str | None
    find_nvidia_tool(name) -> str | None
    ptxas_resource_usage(ptx, arch) -> dict
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Any, Callable, Iterator

__all__ = [
    "triton_vector_add_cold",
    "tileiras_vector_add",
    "cutile_matmul_frontend",
    "ptx_summary",
    "elf_sections",
    "ptx_from_cubin",
    "find_nvidia_tool",
    "ptxas_resource_usage",
]

VADD_BLOCK = 1024


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def _pkg_version(dist: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return None


@contextlib.contextmanager
def _env(name: str, value: str | None) -> Iterator[None]:
    """Temporarily set (or unset, for None) one environment variable."""
    old = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def find_nvidia_tool(name: str) -> str | None:
    """Locate an NVIDIA command-line tool (tileiras, tileirdisasm, ptxas, cuobjdump, ...).

    Search order: the running interpreter's bin folder, the pip ``nvidia/cu*/bin`` folders,
    Triton's bundled ``backends/nvidia/bin``, ``$PATH``, ``$CUDA_HOME/bin``.
    """
    candidates: list[str] = [os.path.join(os.path.dirname(sys.executable), name)]
    try:
        import nvidia  # namespace package from the nvidia-* wheels

        for root in list(getattr(nvidia, "__path__", [])):
            for sub in sorted(os.listdir(root), reverse=True):
                if sub.startswith("cu"):
                    candidates.append(os.path.join(root, sub, "bin", name))
    except Exception:
        pass
    spec = importlib.util.find_spec("triton") if "triton" not in sys.modules else None
    triton_dir = None
    if "triton" in sys.modules:
        triton_dir = os.path.dirname(sys.modules["triton"].__file__ or "")
    elif spec is not None and spec.origin:
        triton_dir = os.path.dirname(spec.origin)
    if triton_dir:
        candidates.append(os.path.join(triton_dir, "backends", "nvidia", "bin", name))
    which = shutil.which(name)
    if which:
        candidates.append(which)
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home:
        candidates.append(os.path.join(cuda_home, "bin", name))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def _tool_version(path: str | None) -> str | None:
    """The 'Cuda compilation tools, release X, VY' line of an NVIDIA tool's --version."""
    if not path:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except Exception:
        return None
    for line in out.splitlines():
        if "release" in line:
            return line.strip()
    return out.strip().splitlines()[-1] if out.strip() else None


# --------------------------------------------------------------------------------------------
# ELF / PTX helpers
# --------------------------------------------------------------------------------------------


def elf_sections(data: bytes) -> dict[str, bytes]:
    """Return {section name: section bytes} of an ELF file (32/64-bit, either endianness)."""
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    ei_class, ei_data = data[4], data[5]
    end = "<" if ei_data == 1 else ">"
    if ei_class == 2:  # ELF64
        (shoff,) = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)
        # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, ...
        hfmt, i_off, i_size = end + "IIQQQQ", 4, 5
    elif ei_class == 1:  # ELF32
        (shoff,) = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x2E)
        hfmt, i_off, i_size = end + "IIIIII", 4, 5
    else:
        raise ValueError(f"unknown ELF class {ei_class}")
    headers = [struct.unpack_from(hfmt, data, shoff + k * shentsize) for k in range(shnum)]
    if not headers:
        return {}
    strtab_off = headers[shstrndx][i_off]
    out: dict[str, bytes] = {}
    for h in headers:
        name_start = strtab_off + h[0]
        name = data[name_start:data.index(b"\0", name_start)].decode("utf-8", "replace")
        sh_type = h[1]
        body = b"" if sh_type == 8 else data[h[i_off]:h[i_off] + h[i_size]]  # 8 = SHT_NOBITS
        out[name] = body
    return out


_PTX_TAIL_MARKER = ".nv_intermediate_source_section"


def ptx_from_cubin(cubin: bytes, *, keep_source_section: bool = False) -> str | None:
    """Extract the PTX that a ``--lineinfo`` cubin carries in ``.nv_debug_ptx_txt``.

    In that section the PTX lines are separated by NUL bytes. tileiras also appends a
    ``.nv_intermediate_source_section { ... }`` block holding the TileIR text; ptxas rejects it
    ("Undefined file index"), so by default it is cut off, which leaves assemblable PTX.
    """
    raw = elf_sections(cubin).get(".nv_debug_ptx_txt")
    if raw is None:
        return None
    text = raw.replace(b"\0", b"\n").decode("utf-8", "replace").strip("\n")
    if not keep_source_section:
        cut = text.find(_PTX_TAIL_MARKER)
        if cut >= 0:
            text = text[:cut].rstrip()
    return text + "\n"


def ptx_summary(ptx: str) -> dict:
    """A few facts about a PTX kernel, for eyeballing against our own PTX."""

    def first(pattern: str) -> str | None:
        m = re.search(pattern, ptx, re.M)
        return m.group(1).strip() if m else None

    params = re.findall(r"^\s*\.param\s+([^,\n)]*?)\s*[,)]?\s*$", ptx, re.M)
    lines = ptx.splitlines()

    def count(pattern: str) -> int:
        rx = re.compile(pattern)
        return sum(1 for ln in lines if rx.search(ln))

    return {
        "version": first(r"^\s*\.version\s+(\S+)"),
        "target": first(r"^\s*\.target\s+(\S+)"),
        "reqntid": first(r"\.reqntid\s+([\d, ]+)"),
        "maxntid": first(r"\.maxntid\s+([\d, ]+)"),
        "minnctapersm": first(r"\.minnctapersm\s+(\d+)"),
        "maxnreg": first(r"\.maxnreg\s+(\d+)"),
        "params": params,
        "lines": len(lines),
        "bytes": len(ptx.encode()),
        "ld_global_scalar": count(r"\bld\.global\.") - count(r"\bld\.global(\.\w+)*\.v\d"),
        "ld_global_vector": count(r"\bld\.global(\.\w+)*\.v\d"),
        "st_global_scalar": count(r"\bst\.global\.") - count(r"\bst\.global(\.\w+)*\.v\d"),
        "st_global_vector": count(r"\bst\.global(\.\w+)*\.v\d"),
        "predicated_ld_st": count(r"@%p\d+\s+(ld|st)\.global"),
        "branches": count(r"\bbra(\.uni)?\b"),
        "block_id_source": ("%clusterid" if "%clusterid" in ptx else
                            "%ctaid" if "%ctaid" in ptx else None),
    }


def ptxas_resource_usage(ptx: str, arch: str) -> dict:
    """Assemble ``ptx`` with ``ptxas -v -arch <arch>`` and parse registers / spills / smem."""
    ptxas = find_nvidia_tool("ptxas")
    if ptxas is None:
        return {"skipped": "ptxas not found"}
    with tempfile.TemporaryDirectory(prefix="peers_ptxas_") as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        p = subprocess.run([ptxas, "-v", "-arch", arch, src, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
    log = p.stdout + p.stderr
    if p.returncode != 0:
        return {"error": log.strip(), "ptxas": ptxas}
    m = re.search(r"Used (\d+) registers", log)
    sp = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
    sm = re.search(r"(\d+) bytes smem", log)
    return {
        "ptxas": ptxas,
        "ptxas_version": _tool_version(ptxas),
        "arch": arch,
        "registers": int(m.group(1)) if m else None,
        "spill_stores": int(sp.group(1)) if sp else None,
        "spill_loads": int(sp.group(2)) if sp else None,
        "smem_bytes": int(sm.group(1)) if sm else 0,
        "log": log.strip(),
    }


def _cubin_registers(cubin: bytes) -> int | None:
    """Registers of the (single) kernel in a cubin, via ``cuobjdump -res-usage``."""
    tool = find_nvidia_tool("cuobjdump")
    if tool is None:
        return None
    with tempfile.TemporaryDirectory(prefix="peers_cuobjdump_") as d:
        path = os.path.join(d, "k.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        p = subprocess.run([tool, "-res-usage", path], capture_output=True, text=True)
    m = re.search(r"REG:(\d+)", p.stdout)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------------------------
# Triton
# --------------------------------------------------------------------------------------------


def _make_triton_add_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)

    return add_kernel


def triton_vector_add_cold(n_repeats: int = 5, *, arch: int = 90,
                           size_divisible_by_16: bool = False) -> dict:
    """Triton's cold compile time for fp32 vector add (BLOCK=1024, num_warps=4).

    "Cold" as in triton.md §1.1: inside a process that has already compiled once (so the
    one-time ``triton_key()`` hashing, imports and ``ptxas --version`` probes are excluded),
    each timed ``triton.compile`` gets a fresh, empty ``TRITON_CACHE_DIR``.

    Pointers carry ``tt.divisibility=16`` as the JIT would infer for torch allocations;
    ``size_divisible_by_16=True`` also marks ``n_elements`` (what the JIT infers when
    n % 16 == 0).

    Returns medians/mins in seconds, per-stage medians from ``knobs.compilation.listener``,
    the PTX of the last compile and its summary.
    """
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except Exception as e:  # ImportError, or a broken install
        return {"skipped": f"triton not importable: {type(e).__name__}: {e}"}

    n_repeats = max(1, int(n_repeats))
    kernel = _make_triton_add_kernel()
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                 "n_elements": "i32", "BLOCK": "constexpr"}
    div16 = [["tt.divisibility", 16]]
    attrs: dict[tuple[int, ...], Any] = {(0,): div16, (1,): div16, (2,): div16}
    if size_divisible_by_16:
        attrs[(3,)] = div16
    target = GPUTarget("cuda", arch, 32)
    options = {"num_warps": 4}

    records: list[dict] = []

    def listener(*, src, metadata, metadata_group, times, cache_hit):  # noqa: ARG001
        records.append({"cache_hit": cache_hit,
                        "ir_initialization": times.ir_initialization,
                        "stages": list(times.lowering_stages),
                        "store_results": times.store_results})

    knobs = getattr(triton, "knobs", None)
    comp_knobs = getattr(knobs, "compilation", None)
    have_listener = comp_knobs is not None and hasattr(comp_knobs, "listener")
    prev_listener = comp_knobs.listener if have_listener else None

    def one_compile(cache_root: str, tag: str):
        cache_dir = os.path.join(cache_root, tag)
        os.makedirs(cache_dir)
        src = ASTSource(fn=kernel, signature=signature, constexprs={"BLOCK": VADD_BLOCK},
                        attrs=attrs)
        with _env("TRITON_CACHE_DIR", cache_dir):
            t0 = time.perf_counter()
            compiled = triton.compile(src, target=target, options=options)
            dt = time.perf_counter() - t0
        shutil.rmtree(cache_dir, ignore_errors=True)
        return compiled, dt

    walls: list[float] = []
    compiled = None
    with tempfile.TemporaryDirectory(prefix="peers_triton_cache_") as cache_root, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Triton 3.9's TRITON_DEFAULT_FP_FUSION notice
        try:
            if have_listener:
                comp_knobs.listener = listener
            _, first_s = one_compile(cache_root, "warmup")  # one-time per-process costs
            records.clear()
            for r in range(n_repeats):
                compiled, dt = one_compile(cache_root, f"r{r}")
                walls.append(dt)
        except Exception as e:
            return {"skipped": f"triton.compile failed: {type(e).__name__}: {e}",
                    "triton_version": getattr(triton, "__version__", None)}
        finally:
            if have_listener:
                comp_knobs.listener = prev_listener

    stage_names = ["frontend(ast->ttir)"]
    per_stage: dict[str, list[float]] = {"frontend(ast->ttir)": []}
    for rec in records:
        if rec["cache_hit"]:
            continue
        per_stage["frontend(ast->ttir)"].append(rec["ir_initialization"] * 1e-6)
        for name, us in rec["stages"]:
            if name not in per_stage:
                per_stage[name] = []
                stage_names.append(name)
            per_stage[name].append(us * 1e-6)
        per_stage.setdefault("store_results", []).append(rec["store_results"] * 1e-6)
    if "store_results" in per_stage:
        stage_names.append("store_results")
    stages_median = {k: _median(per_stage[k]) for k in stage_names if per_stage[k]}

    assert compiled is not None
    ptx = compiled.asm.get("ptx", "")
    cubin = compiled.asm.get("cubin", b"")
    ptxas_tool = None
    try:
        from triton.backends.nvidia.compiler import get_ptxas

        ptxas_tool = get_ptxas(arch)
    except Exception:
        pass
    return {
        "tool": "triton",
        "triton_version": triton.__version__,
        "ptxas": getattr(ptxas_tool, "path", None),
        "ptxas_version": getattr(ptxas_tool, "version", None),
        "target": f"cuda:{arch}:32",
        "options": dict(options, BLOCK=VADD_BLOCK),
        "attrs": {str(k): v for k, v in attrs.items()},
        "n_repeats": n_repeats,
        "first_compile_s": first_s,
        "cold_median_s": _median(walls),
        "cold_min_s": min(walls),
        "cold_all_s": walls,
        "stages_median_s": stages_median,
        "listener_available": have_listener,
        "ptx": ptx,
        "ptx_summary": ptx_summary(ptx) if ptx else None,
        "cubin_bytes": len(cubin) if isinstance(cubin, (bytes, bytearray)) else None,
        "registers": _cubin_registers(cubin) if isinstance(cubin, (bytes, bytearray)) else None,
    }


# --------------------------------------------------------------------------------------------
# cuTile Python + tileiras
# --------------------------------------------------------------------------------------------

# cuTile's front end reads kernel source with `inspect`, so kernels must live in real files.
_CUTILE_VADD_SRC = '''\
import cuda.tile as ct


@ct.kernel
def vector_add(a, b, c, TILE: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(i,), tile=x + y)
'''

_CUTILE_MATMUL_SRC = '''\
import cuda.tile as ct


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


@contextlib.contextmanager
def _kernel_module(source: str, stem: str) -> Iterator[Any]:
    """Write ``source`` to a temporary .py file and import it as a fresh module."""
    d = tempfile.mkdtemp(prefix="peers_cutile_src_")
    mod_name = f"_peers_{stem}_{os.getpid()}_{abs(hash(d)) % 10**8}"
    path = os.path.join(d, f"{stem}.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(mod_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(mod_name, None)
        shutil.rmtree(d, ignore_errors=True)


def _clear_cutile_frontend_cache() -> bool:
    """cuTile memoises Python AST -> HIR per function (lru_cache); clear it for a cold front end.

    Triton re-parses the kernel's AST on every compile, so the 'cold' numbers compare like with
    like only with this cleared. Private API: returns False if it is not there.
    """
    try:
        from cuda.tile._passes import ast2hir

        ast2hir.get_function_hir.cache_clear()
        return True
    except Exception:
        return False


def _time_frontend(export: Callable[[], bytes], n_repeats: int) -> dict:
    t0 = time.perf_counter()
    bc = export()  # first call in this process: lazy imports, one-time set-up
    first_s = time.perf_counter() - t0
    cold: list[float] = []
    warm: list[float] = []
    cleared = False
    for _ in range(n_repeats):
        cleared = _clear_cutile_frontend_cache()
        t0 = time.perf_counter()
        bc = export()
        cold.append(time.perf_counter() - t0)
    for _ in range(n_repeats):
        t0 = time.perf_counter()
        bc = export()
        warm.append(time.perf_counter() - t0)
    return {
        "bytecode": bc,
        "first_call_s": first_s,
        "frontend_median_s": _median(cold),
        "frontend_min_s": min(cold),
        "frontend_all_s": cold,
        "frontend_hir_cached_median_s": _median(warm),
        "frontend_cold_is_hir_uncached": cleared,
    }


def _time_cmd(cmd: list[str], n_repeats: int) -> tuple[list[float], subprocess.CompletedProcess]:
    times: list[float] = []
    proc = None
    for _ in range(n_repeats):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n"
                               f"{proc.stdout}{proc.stderr}")
    assert proc is not None
    return times, proc


def _vadd_signature(ct, compilation, shape_divisible_by: int):
    arr = compilation.ArrayConstraint(
        ct.float32, 1,
        index_dtype=ct.int32,
        stride_lower_bound_incl=0,
        alias_groups=(),
        may_alias_internally=False,
        stride_constant=(1,),
        shape_divisible_by=shape_divisible_by,
        base_addr_divisible_by=16,
    )
    return compilation.KernelSignature([arr, arr, arr, VADD_BLOCK],
                                       compilation.CallingConvention.cutile_python_v1())


def tileiras_vector_add(n_repeats: int = 5, *, archs: tuple[str, ...] = ("sm_90", "sm_80"),
                        shape_divisible_by: int = 1, bytecode_version: str = "13.3") -> dict:
    """cuTile Python front end + ``tileiras`` for f32 vector add (TILE=1024, 1-D).

    (a) front end: Python function -> TileIR bytecode via ``export_kernel`` with a hand-built
        ``KernelSignature`` (3 x f32 rank-1 arrays, int32 index, base address divisible by 16,
        unit stride, no aliasing; TILE=1024 as a constant). ``frontend_median_s`` clears cuTile's
        AST->HIR memo before each call (cold, like Triton); ``frontend_hir_cached_median_s``
        does not. ``shape_divisible_by=16`` adds the assumption the JIT makes when n % 16 == 0.
    (b) ``tileiras <bc> -o <cubin> --gpu-name <arch> -O3`` wall time per arch (median), plus the
        same with ``--lineinfo`` (what cuTile's JIT runs); the ``--lineinfo`` cubin yields
        NVIDIA's PTX from its ``.nv_debug_ptx_txt`` section.
    """
    try:
        import cuda.tile as ct
        from cuda.tile import compilation
    except Exception as e:
        return {"skipped": f"cuda.tile not importable: {type(e).__name__}: {e}"}

    n_repeats = max(1, int(n_repeats))
    sig = _vadd_signature(ct, compilation, shape_divisible_by)
    result: dict[str, Any] = {
        "tool": "cutile+tileiras",
        "cuda_tile_version": getattr(ct, "__version__", None) or _pkg_version("cuda-tile"),
        "bytecode_version": bytecode_version,
        "n_repeats": n_repeats,
        "signature": repr(sig),
        "symbol": sig.with_mangled_symbol("vector_add").symbol,
    }
    try:
        with _kernel_module(_CUTILE_VADD_SRC, "cutile_vadd") as mod:
            def export() -> bytes:
                buf = io.BytesIO()
                compilation.export_kernel(mod.vector_add, [sig], buf,
                                          output_format="tileir_bytecode",
                                          bytecode_version=bytecode_version)
                return buf.getvalue()

            result.update(_time_frontend(export, n_repeats))
    except Exception as e:
        result["skipped"] = f"cuTile export failed: {type(e).__name__}: {e}"
        return result

    bytecode: bytes = result["bytecode"]
    result["bytecode_bytes"] = len(bytecode)

    tileiras = find_nvidia_tool("tileiras")
    result["tileiras"] = tileiras
    if tileiras is None:
        result["tileiras_skipped"] = "tileiras not found (pip install 'cuda-tile[tileiras]')"
        return result
    result["tileiras_version"] = _tool_version(tileiras)
    disasm = find_nvidia_tool("tileirdisasm")

    per_arch: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="peers_tileiras_") as d:
        bc_path = os.path.join(d, "vadd.tileirbc")
        with open(bc_path, "wb") as f:
            f.write(bytecode)
        if disasm:
            p = subprocess.run([disasm, bc_path], capture_output=True, text=True)
            result["tileir_mlir"] = p.stdout if p.returncode == 0 else None
            if p.returncode != 0:
                result["tileirdisasm_error"] = p.stderr.strip()
        for arch in archs:
            cubin_path = os.path.join(d, f"vadd_{arch}.cubin")
            base = [tileiras, bc_path, "-o", cubin_path, "--gpu-name", arch, "-O3"]
            try:
                plain, _ = _time_cmd(base, n_repeats)
                li, _ = _time_cmd(base + ["--lineinfo"], n_repeats)
            except Exception as e:
                per_arch[arch] = {"error": str(e)}
                continue
            with open(cubin_path, "rb") as f:
                cubin = f.read()
            ptx = ptx_from_cubin(cubin)
            per_arch[arch] = {
                "tileiras_median_s": _median(plain),
                "tileiras_min_s": min(plain),
                "tileiras_all_s": plain,
                "tileiras_lineinfo_median_s": _median(li),
                "cubin_bytes": len(cubin),
                "cubin_registers": _cubin_registers(cubin),
                "ptx": ptx,
                "ptx_summary": ptx_summary(ptx) if ptx else None,
            }
    result["archs"] = per_arch
    return result


def cutile_matmul_frontend(n_repeats: int = 5, *, bytecode_version: str = "13.3") -> dict:
    """cuTile front-end time (Python -> bytecode) for a 128x128x32 f16 matmul (f32 accumulate).

    A, B, C are f16 rank-2 row-major arrays (last stride constant 1, leading stride divisible
    by 8 elements = 16 bytes, base address divisible by 16, int32 indices, no aliasing).
    """
    try:
        import cuda.tile as ct
        from cuda.tile import compilation
    except Exception as e:
        return {"skipped": f"cuda.tile not importable: {type(e).__name__}: {e}"}

    n_repeats = max(1, int(n_repeats))
    arr = compilation.ArrayConstraint(
        ct.float16, 2,
        index_dtype=ct.int32,
        stride_lower_bound_incl=0,
        alias_groups=(),
        may_alias_internally=False,
        stride_constant=(None, 1),
        stride_divisible_by=(8, 1),
        base_addr_divisible_by=16,
    )
    sig = compilation.KernelSignature([arr, arr, arr, 128, 128, 32],
                                      compilation.CallingConvention.cutile_python_v1())
    result: dict[str, Any] = {
        "tool": "cutile",
        "cuda_tile_version": getattr(ct, "__version__", None) or _pkg_version("cuda-tile"),
        "bytecode_version": bytecode_version,
        "tile": (128, 128, 32),
        "n_repeats": n_repeats,
    }
    try:
        with _kernel_module(_CUTILE_MATMUL_SRC, "cutile_matmul") as mod:
            def export() -> bytes:
                buf = io.BytesIO()
                compilation.export_kernel(mod.matmul, [sig], buf,
                                          output_format="tileir_bytecode",
                                          bytecode_version=bytecode_version)
                return buf.getvalue()

            result.update(_time_frontend(export, n_repeats))
    except Exception as e:
        result["skipped"] = f"cuTile export failed: {type(e).__name__}: {e}"
        return result
    result["bytecode_bytes"] = len(result["bytecode"])
    return result


# --------------------------------------------------------------------------------------------
# Softmax and matmul (one source text for cuTile and tileir; Triton's own kernels)
# --------------------------------------------------------------------------------------------

#: cuTile Python kernels, compiled by cuTile (``import cuda.tile as ct``) and, with the import
#: swapped, by tileir (``import tileir as ct``): the same source for both.
CUTILE_SOURCES = {
    "vector_add": _CUTILE_VADD_SRC,
    "softmax": '''\
import cuda.tile as ct


@ct.kernel
def softmax(x, y, TILE: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.NEG_INF)
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=e / s)
''',
    "matmul": _CUTILE_MATMUL_SRC,
}

#: the example arguments' shapes/dtypes/constants for each kernel (host arrays for tileir;
#: constraints for cuTile; Triton's signature below)
KERNEL_ARGS = {
    "vector_add": {"arrays": [((1 << 20,), "float32")] * 3, "constants": [1024]},
    "softmax": {"arrays": [((4096, 1024), "float32")] * 2, "constants": [1024]},
    "matmul": {"arrays": [((1024, 1024), "float16")] * 3, "constants": [128, 128, 32]},
}


def _cutile_signature(ct, compilation, kernel: str):
    spec = KERNEL_ARGS[kernel]
    arrays = []
    for shape, dtype in spec["arrays"]:
        nd = len(shape)
        arrays.append(compilation.ArrayConstraint(
            getattr(ct, dtype), nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
            may_alias_internally=False, stride_constant=(None,) * (nd - 1) + (1,),
            stride_divisible_by=(16,) * (nd - 1) + (1,) if nd > 1 else (1,),
            shape_divisible_by=16, base_addr_divisible_by=16))
    return compilation.KernelSignature(arrays + list(spec["constants"]),
                                       compilation.CallingConvention.cutile_python_v1())


def cutile_tileiras_cold(kernel: str, n_repeats: int = 5, *, arch: str = "sm_90",
                         bytecode_version: str = "13.3") -> dict:
    """cuTile front end (HIR memo cleared: cold) + ``tileiras -O3`` for ``kernel`` (one of
    CUTILE_SOURCES), medians in seconds; ``total_median_s`` is their sum."""
    try:
        import cuda.tile as ct
        from cuda.tile import compilation
    except Exception as e:
        return {"skipped": f"cuda.tile not importable: {type(e).__name__}: {e}"}
    try:
        sig = _cutile_signature(ct, compilation, kernel)
        with _kernel_module(CUTILE_SOURCES[kernel], f"cutile_{kernel}") as mod:
            fn = getattr(mod, kernel)

            def export() -> bytes:
                buf = io.BytesIO()
                compilation.export_kernel(fn, [sig], buf, output_format="tileir_bytecode",
                                          bytecode_version=bytecode_version)
                return buf.getvalue()

            result = _time_frontend(export, n_repeats)
    except Exception as e:
        return {"skipped": f"cuTile export failed: {type(e).__name__}: {str(e)[:300]}"}
    tileiras = find_nvidia_tool("tileiras")
    if tileiras is None:
        return {"skipped": "tileiras not found (pip install 'cuda-tile[tileiras]')"}
    with tempfile.TemporaryDirectory(prefix="peers_tileiras_") as d:
        bc = os.path.join(d, "k.tileirbc")
        with open(bc, "wb") as f:
            f.write(result.pop("bytecode"))
        try:
            times, _ = _time_cmd([tileiras, bc, "-o", os.path.join(d, "k.cubin"), "--gpu-name", arch, "-O3"],
                                 n_repeats)
        except Exception as e:
            return {"skipped": f"tileiras failed: {str(e)[:300]}"}
        with open(os.path.join(d, "k.cubin"), "rb") as f:
            cubin = f.read()
    return {"tool": "cutile+tileiras", "tileiras_version": _tool_version(tileiras),
            "frontend_median_s": result["frontend_median_s"], "tileiras_median_s": _median(times),
            "total_median_s": result["frontend_median_s"] + _median(times),
            "registers": _cubin_registers(cubin)}


def _make_triton_softmax_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_kernel(x_ptr, y_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * row_stride + offs, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(y_ptr + row * row_stride + offs, e / tl.sum(e, axis=0), mask=mask)

    return softmax_kernel


def _make_triton_matmul_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptr + rm[:, None] * stride_am + (k * BK + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k * BK + rk)[None, :] < K), other=0.0)
            b = tl.load(b_ptr + (k * BK + rk)[:, None] * stride_bk + rn[None, :],
                        mask=((k * BK + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    return matmul_kernel


def triton_cold(kernel: str, n_repeats: int = 5, *, arch: int = 90) -> dict:
    """Triton's cold compile (warmed-up process, empty TRITON_CACHE_DIR per compile) of
    ``kernel``: vector_add, softmax or matmul; medians in seconds."""
    if kernel == "vector_add":
        r = triton_vector_add_cold(n_repeats, arch=arch)
        return {k: r[k] for k in ("skipped", "triton_version", "cold_median_s", "registers") if k in r}
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except Exception as e:
        return {"skipped": f"triton not importable: {type(e).__name__}: {e}"}
    div16 = [["tt.divisibility", 16]]
    if kernel == "softmax":
        fn = _make_triton_softmax_kernel()
        signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32", "row_stride": "i32",
                     "BLOCK": "constexpr"}
        constexprs = {"BLOCK": 1024}
        attrs = {(0,): div16, (1,): div16, (2,): div16, (3,): div16}
        options = {"num_warps": 4}
    else:
        fn = _make_triton_matmul_kernel()
        signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                     "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
                     "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
        constexprs = {"BM": 128, "BN": 128, "BK": 32}
        attrs = {(i,): div16 for i in range(9)}
        options = {"num_warps": 4, "num_stages": 3}
    target = GPUTarget("cuda", arch, 32)
    walls = []
    compiled = None
    with tempfile.TemporaryDirectory(prefix="peers_triton_cache_") as root, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for r in range(n_repeats + 1):
                d = os.path.join(root, str(r))
                os.makedirs(d)
                src = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
                with _env("TRITON_CACHE_DIR", d):
                    t0 = time.perf_counter()
                    compiled = triton.compile(src, target=target, options=options)
                    if r:
                        walls.append(time.perf_counter() - t0)
        except Exception as e:
            return {"skipped": f"triton.compile failed: {type(e).__name__}: {str(e)[:300]}"}
    cubin = compiled.asm.get("cubin", b"")
    return {"triton_version": triton.__version__, "cold_median_s": _median(walls),
            "registers": _cubin_registers(cubin) if isinstance(cubin, (bytes, bytearray)) else None}
