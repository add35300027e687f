"""Locate and run ``ptxas`` (PTX -> cubin) and parse its ``-v`` report.

``run_ptxas`` has no side effects beyond a private temporary directory: ptxas
advisories (``(C7508)`` setmaxnreg ignored, ``(C7509)``/``(C7517)`` wgmma serialised,
...) arrive as ``info`` lines with exit status 0 (docs/nvptx.md, pitfall P5); they are
collected in :attr:`PtxasResult.advisories` and turned into
:class:`~tileir.errors.TileIRPerformanceWarning` by :func:`warn_advisories`, which the
caller invokes.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence

from ..errors import PtxasError, TileIRPerformanceWarning, ToolchainError
from ..knobs import ptxas_override

__all__ = [
    "PtxasInfo",
    "PtxasResult",
    "find_ptxas",
    "ptx_compiler_fingerprint",
    "ptxas_version",
    "parse_ptxas_log",
    "run_ptxas",
    "compile_ptx",
    "ptx_library",
    "find_ptx_archive",
    "warn_advisories",
    "INSTALL_HINT",
]

INSTALL_HINT = "pip install nvidia-cuda-nvcc-cu12 (or set CUDA_HOME or TILEIR_PTXAS)"
_EXE = "ptxas.exe" if os.name == "nt" else "ptxas"
# Layouts of the NVIDIA pip wheels below the `nvidia` namespace package.
_WHEEL_LAYOUTS = (("cuda_nvcc", "bin"), ("cu13", "bin"), ("cu12", "bin"))


# --------------------------------------------------------------------------------------
# Finding ptxas
# --------------------------------------------------------------------------------------

def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _resolve_user_path(path: str, origin: str) -> str:
    """A path given by the user: the executable, or a CUDA directory holding it."""
    path = os.path.expanduser(path)
    if os.path.isdir(path):
        for candidate in (os.path.join(path, _EXE), os.path.join(path, "bin", _EXE)):
            if _is_executable(candidate):
                return os.path.abspath(candidate)
        raise ToolchainError("%s %r is a directory without %s in it or in its bin/ folder"
                             % (origin, path, _EXE))
    if not os.path.exists(path):
        raise ToolchainError("%s %r does not exist" % (origin, path))
    if not _is_executable(path):
        raise ToolchainError("%s %r is not an executable file" % (origin, path))
    return os.path.abspath(path)


_NVIDIA_ROOTS: Optional[List[str]] = None


def nvidia_roots() -> List[str]:
    """The folders of the ``nvidia`` namespace package (NVIDIA's wheels), looked up once per
    process: finding a namespace package reads every sys.path entry."""
    global _NVIDIA_ROOTS
    if _NVIDIA_ROOTS is None:
        try:
            spec = importlib.util.find_spec("nvidia")
        except (ImportError, ValueError):
            spec = None
        _NVIDIA_ROOTS = list(spec.submodule_search_locations or []) if spec is not None else []
    return _NVIDIA_ROOTS


def _wheel_candidates() -> List[str]:
    found = []
    for root in nvidia_roots():
        for layout in _WHEEL_LAYOUTS:
            found.append(os.path.join(root, *layout, _EXE))
    return found


def _cuda_home_candidates() -> List[str]:
    found = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root:
            found.append(os.path.join(root, "bin", _EXE))
    return found


def find_ptxas(explicit: Optional[str] = None) -> str:
    """Absolute path of the ptxas to use.

    Order: ``explicit``; ``$TILEIR_PTXAS``; the ``nvidia-cuda-nvcc-cu12`` wheel
    (``nvidia/cuda_nvcc/bin``) or the CUDA 13 wheel (``nvidia/cu13/bin``);
    ``$CUDA_HOME/bin`` and ``$CUDA_PATH/bin``; ``ptxas`` on ``PATH``. An explicit
    path or ``TILEIR_PTXAS`` may also name a CUDA directory.
    """
    if explicit is not None:
        return _resolve_user_path(os.fspath(explicit), "ptxas path")
    override = ptxas_override()
    if override:
        return _resolve_user_path(override, "TILEIR_PTXAS")
    for candidate in _wheel_candidates() + _cuda_home_candidates():
        if _is_executable(candidate):
            return os.path.abspath(candidate)
    import shutil

    on_path = shutil.which("ptxas")
    if on_path:
        return os.path.abspath(on_path)
    raise ToolchainError("ptxas was not found; install it with: " + INSTALL_HINT)


@functools.lru_cache(maxsize=None)
def _version_of(path: str, mtime_ns: int) -> str:
    import subprocess

    try:
        proc = subprocess.run([path, "--version"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainError("cannot run %s --version: %s" % (path, exc)) from exc
    text = proc.stdout.decode("utf-8", "replace")
    match = re.search(r"\bV(\d+\.\d+\.\d+)", text) or re.search(r"release (\d+\.\d+)", text)
    if proc.returncode != 0 or not match:
        raise ToolchainError("unexpected output from %s --version (exit status %d):\n%s"
                             % (path, proc.returncode, text.strip()))
    return match.group(1)


def ptxas_version(path: Optional[str] = None) -> str:
    """The version of ptxas at ``path`` (default: :func:`find_ptxas`), e.g. ``"12.9.86"``."""
    path = find_ptxas(path)
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        mtime = 0
    return _version_of(path, mtime)


_ARCHIVE = "libnvptxcompiler_static.a"
_ARCHIVE_LAYOUTS = (("cu13", "lib"), ("cuda_nvcc", "lib"), ("cu12", "lib"), ("nvptxcompiler", "lib"))


def find_ptx_archive() -> Optional[str]:
    """Path of NVIDIA's PTX compiler library, ``libnvptxcompiler_static.a``, in an installed
    NVIDIA wheel (``pip install nvidia-nvptxcompiler``) or ``$TILEIR_NVPTXCOMPILER_STATIC``;
    None when there is none."""
    explicit = os.environ.get("TILEIR_NVPTXCOMPILER_STATIC")
    if explicit:
        return explicit if os.path.isfile(explicit) else None
    for base in nvidia_roots():
        for layout in _ARCHIVE_LAYOUTS:
            path = os.path.join(base, *layout, _ARCHIVE)
            if os.path.isfile(path):
                return os.path.abspath(path)
    return None


def _archive_id(archive: str) -> str:
    st = os.stat(archive)
    return "%s:%d:%d" % (archive, st.st_size, st.st_mtime_ns)


def _cuda_major_of_path(path: str) -> Optional[int]:
    """The CUDA major version an NVIDIA wheel's layout names (``nvidia/cu13/...`` -> 13,
    ``nvidia/cuda_nvcc/...`` and ``nvidia/cu12/...`` -> 12), or None."""
    parts = os.path.normpath(path).split(os.sep)
    for i in range(len(parts) - 1):
        if parts[i] == "nvidia":
            nxt = parts[i + 1]
            if nxt.startswith("cu") and nxt[2:].isdigit():
                return int(nxt[2:])
            if nxt == "cuda_nvcc":
                return 12
    return None


#: The first driver branch of each CUDA major release (CUDA 13 needs r580).
_MIN_DRIVER = {12: 525, 13: 580}
_DRIVER_MAJOR: List[Optional[int]] = []


def installed_driver_branch() -> Optional[int]:
    """The NVIDIA kernel driver's branch (580 for 580.95.05) from /proc/driver/nvidia/version,
    read once per process (no libcuda load); None without a driver (or off Linux)."""
    if not _DRIVER_MAJOR:
        value = None
        try:
            with open("/proc/driver/nvidia/version", "r", errors="replace") as f:
                match = re.search(r"Kernel Module\s+(?:for\s+\S+\s+)?(\d+)\.", f.read())
            value = int(match.group(1)) if match else None
        except OSError:
            pass
        _DRIVER_MAJOR.append(value)
    return _DRIVER_MAJOR[0]


def _library_fits(archive: str) -> bool:
    """Whether ``auto`` uses the PTX compiler library at ``archive``: when it was named
    explicitly (TILEIR_NVPTXCOMPILER_STATIC); when its CUDA release is the one of the
    ptxas executable tileir would otherwise run; or when this machine's driver runs that
    release's cubins. Cubins of CUDA 13's compiler use a new ELF ABI (drivers before r580
    are not made for it), so without such a driver a CUDA 12 toolchain keeps its ptxas."""
    if os.environ.get("TILEIR_NVPTXCOMPILER_STATIC"):
        return True
    lib_major = _cuda_major_of_path(archive)
    if lib_major is not None:
        driver = installed_driver_branch()
        if driver is not None and driver >= _MIN_DRIVER.get(lib_major, 10**6):
            return True
    try:
        exe = find_ptxas(None)
    except ToolchainError:
        return True  # no executable to fall back to: the library is all there is
    # A ptxas outside NVIDIA's wheels (CUDA_HOME, PATH) is of unknown release without
    # running it, which a cache hit must not do: it keeps being used.
    exe_major = _cuda_major_of_path(exe)
    return lib_major is not None and lib_major == exe_major


def _uses_process(ptxas: Optional[str]) -> bool:
    """True when the ptxas executable must be used: an explicit ptxas (argument or
    TILEIR_PTXAS) or TILEIR_PTX_COMPILER=process."""
    from ..knobs import ptx_compiler

    return ptxas is not None or bool(ptxas_override()) or ptx_compiler() == "process"


def ptx_compiler_fingerprint(ptxas: Optional[str] = None) -> str:
    """Identifies the PTX compiler a compile would use, cheaply (no process is run): the
    PTX compiler library's archive, or the ptxas executable, by path, size and modification
    time. The persistent cache keys on it."""
    if not _uses_process(ptxas):
        from ..knobs import ptx_compiler

        archive = find_ptx_archive()
        if archive is not None and not isinstance(_LIBRARY_STATE.get(archive), Exception) and \
                (ptx_compiler() == "library" or _library_fits(archive)):
            return "nvptxcompiler:" + _archive_id(archive)
    try:
        path = find_ptxas(ptxas)
    except ToolchainError:
        return "ptxas:none"
    try:
        st = os.stat(path)
    except OSError:
        return "ptxas:%s:missing" % path
    return "ptxas:%s:%d:%d" % (path, st.st_size, st.st_mtime_ns)


# --------------------------------------------------------------------------------------
# Parsing `ptxas -v`
# --------------------------------------------------------------------------------------

@dataclass
class PtxasInfo:
    """Resource usage of one function, from ``ptxas -v``. Absent fields read as 0."""

    name: str
    registers: int = 0
    spill_stores_bytes: int = 0
    spill_loads_bytes: int = 0
    stack_frame_bytes: int = 0
    shared_bytes: int = 0
    constant_bytes: int = 0          # cmem[0] when reported, else the sum of all banks
    barriers: int = 0
    cmem: Dict[int, int] = field(default_factory=dict)   # bank -> bytes
    is_entry: bool = False
    arch: Optional[str] = None
    compile_time_ms: Optional[float] = None
    raw: List[str] = field(default_factory=list)

    @property
    def spills(self) -> bool:
        return bool(self.spill_stores_bytes or self.spill_loads_bytes)


_ADVISORY_RE = re.compile(r"\((C\d{4})\)")
_ENTRY_RE = re.compile(r"Compiling (entry )?function '([^']+)' for '([^']+)'")
_PROPS_RE = re.compile(r"Function properties for (\S+)")
_FRAME_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED_RE = re.compile(r"Used (\d+) registers(.*)$")
_CTIME_RE = re.compile(r"Compile time = ([\d.]+) ms")
_GMEM_RE = re.compile(r"ptxas info\s*:\s*(\d+) bytes gmem")
_BYTES_RE = re.compile(r"(\d+) bytes (smem|lmem|cmem\[(\d+)\])")
_BARRIERS_RE = re.compile(r"used (\d+) barriers")


def _apply_used(info: PtxasInfo, registers: int, rest: str) -> None:
    info.registers = registers
    match = _BARRIERS_RE.search(rest)
    if match:
        info.barriers = int(match.group(1))
    for amount, kind, bank in _BYTES_RE.findall(rest):
        if kind == "smem":
            info.shared_bytes = int(amount)
        elif bank:
            info.cmem[int(bank)] = int(amount)
    if info.cmem:
        info.constant_bytes = info.cmem.get(0, sum(info.cmem.values()))


def parse_ptxas_log(log: str):
    """Parse ``ptxas -v`` output into ``(info, advisories, warnings, gmem_bytes)``.

    ``info`` maps each function named in the report (entries and, with
    ``is_entry=False``, called functions) to a :class:`PtxasInfo`.
    """
    info: Dict[str, PtxasInfo] = {}
    advisories: List[str] = []
    warning_lines: List[str] = []
    gmem = 0
    entry: Optional[PtxasInfo] = None     # entry being compiled ("Used ..." belongs to it)
    props: Optional[PtxasInfo] = None     # function of the last "Function properties"

    def get(name: str) -> PtxasInfo:
        if name not in info:
            info[name] = PtxasInfo(name=name)
        return info[name]

    for line in log.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if _ADVISORY_RE.search(stripped):
            advisories.append(stripped)
            continue
        if stripped.startswith("ptxas warning"):
            warning_lines.append(stripped)
            continue
        match = _ENTRY_RE.search(stripped)
        if match:
            entry = get(match.group(2))
            entry.is_entry = entry.is_entry or bool(match.group(1))
            entry.arch = match.group(3)
            entry.raw.append(stripped)
            props = None
            continue
        match = _PROPS_RE.search(stripped)
        if match:
            props = get(match.group(1))
            props.raw.append(stripped)
            continue
        match = _FRAME_RE.search(stripped)
        if match:
            target = props or entry
            if target is not None:
                target.stack_frame_bytes = int(match.group(1))
                target.spill_stores_bytes = int(match.group(2))
                target.spill_loads_bytes = int(match.group(3))
                target.raw.append(stripped)
            continue
        match = _USED_RE.search(stripped)
        if match:
            target = entry or props
            if target is not None:
                _apply_used(target, int(match.group(1)), match.group(2))
                target.raw.append(stripped)
            continue
        match = _CTIME_RE.search(stripped)
        if match:
            if entry is not None:
                entry.compile_time_ms = float(match.group(1))
                entry.raw.append(stripped)
            continue
        match = _GMEM_RE.search(stripped)
        if match:
            gmem += int(match.group(1))
            continue
    return info, advisories, warning_lines, gmem


# --------------------------------------------------------------------------------------
# Running ptxas
# --------------------------------------------------------------------------------------

@dataclass
class PtxasResult:
    """What :func:`run_ptxas` produced."""

    cubin: bytes
    info: Dict[str, PtxasInfo]
    advisories: List[str]
    log: str
    warnings: List[str] = field(default_factory=list)   # "ptxas warning : ..." lines
    gmem_bytes: int = 0
    arch: str = ""
    command: List[str] = field(default_factory=list)
    seconds: float = 0.0


def _crashed(rc: int) -> bool:
    if rc < 0:
        return True
    # Windows reports an unhandled exception as an NTSTATUS code (0xC0000005, ...).
    return os.name == "nt" and rc >= 0xC0000000


def _describe_rc(rc: int) -> str:
    import signal

    if rc < 0:
        try:
            return "killed by %s" % signal.Signals(-rc).name
        except (ValueError, AttributeError):
            return "killed by signal %d" % -rc
    return "exit status %d (0x%X)" % (rc, rc) if rc > 255 else "exit status %d" % rc


def _keep_ptx(ptx: str) -> str:
    import tempfile

    keep_dir = tempfile.mkdtemp(prefix="tileir-ptxas-failure-")
    path = os.path.join(keep_dir, "kernel.ptx")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(ptx)
    return path


def run_ptxas(ptx: str, *, arch: str, opt_level: int = 3, ptxas: Optional[str] = None,
              extra_args: Sequence[str] = (), timeout: float = 120) -> PtxasResult:
    """Assemble ``ptx`` for ``arch`` (e.g. ``"sm_90a"``) with ``ptxas -v``.

    Raises :class:`~tileir.errors.PtxasError` when ptxas fails (its message is in the
    error), crashes or times out (the PTX is then kept on disk and its path is named
    in the error).
    """
    import subprocess
    import tempfile

    if not re.match(r"^sm_\d+[af]?$", arch or ""):
        raise PtxasError("invalid ptxas arch %r: expected a name such as 'sm_90a'" % (arch,))
    exe = find_ptxas(ptxas)
    with tempfile.TemporaryDirectory(prefix="tileir-ptxas-") as tmp:
        ptx_path = os.path.join(tmp, "kernel.ptx")
        cubin_path = os.path.join(tmp, "kernel.cubin")
        with open(ptx_path, "w", encoding="utf-8", newline="\n") as f:
            f.write(ptx)
        cmd = [exe, "-arch=" + arch, "-O%d" % int(opt_level), "-v", *map(str, extra_args),
               ptx_path, "-o", cubin_path]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            kept = _keep_ptx(ptx)
            err = PtxasError("ptxas timed out after %s s for %s; the PTX was kept at %s"
                             % (timeout, arch, kept))
            err.ptx_path = kept  # type: ignore[attr-defined]
            err.log = (exc.output or b"").decode("utf-8", "replace")  # type: ignore[attr-defined]
            raise err from None
        except OSError as exc:
            raise ToolchainError("cannot run ptxas at %s: %s" % (exe, exc)) from exc
        seconds = time.perf_counter() - t0
        log = proc.stdout.decode("utf-8", "replace")
        rc = proc.returncode
        if rc != 0:
            if _crashed(rc):
                kept = _keep_ptx(ptx)
                message = ("ptxas crashed (%s) while assembling for %s: this is an internal "
                           "error in ptxas, not in your kernel. The PTX was kept at %s"
                           % (_describe_rc(rc), arch, kept))
            else:
                kept = None
                message = "ptxas rejected the PTX for %s (%s)" % (arch, _describe_rc(rc))
            text = log.strip().replace(ptx_path, "<kernel.ptx>")
            if text:
                message += ":\n" + text
            err = PtxasError(message)
            err.log = log  # type: ignore[attr-defined]
            err.returncode = rc  # type: ignore[attr-defined]
            err.ptx_path = kept  # type: ignore[attr-defined]
            raise err
        try:
            with open(cubin_path, "rb") as f:
                cubin = f.read()
        except OSError as exc:
            raise PtxasError("ptxas reported success but wrote no cubin (%s):\n%s"
                             % (exc, log.strip())) from exc
    info, advisories, warning_lines, gmem = parse_ptxas_log(log)
    return PtxasResult(cubin=cubin, info=info, advisories=advisories, log=log,
                       warnings=warning_lines, gmem_bytes=gmem, arch=arch, command=cmd,
                       seconds=seconds)


#: archive path -> the shared object built from it, or the exception that stopped its use
_LIBRARY_STATE: Dict[str, object] = {}


def ptx_library(build: bool = True) -> Optional[str]:
    """The shared object of NVIDIA's PTX compiler library (built from the
    ``nvidia-nvptxcompiler`` wheel's static archive on first use), or None when it is not
    installed, cannot be built, or TILEIR_PTX_COMPILER=process. With
    TILEIR_PTX_COMPILER=library, its absence is a ToolchainError."""
    from ..knobs import ptx_compiler, toolchain_dir
    from . import _ptx_library

    mode = ptx_compiler()
    if mode == "process":
        return None
    archive = find_ptx_archive()
    if archive is None:
        if mode == "library":
            raise ToolchainError("TILEIR_PTX_COMPILER=library, but NVIDIA's PTX compiler library is not installed "
                                 "(pip install nvidia-nvptxcompiler)")
        return None
    if mode == "auto" and not _library_fits(archive):
        return None
    state = _LIBRARY_STATE.get(archive)
    if isinstance(state, str):
        return state
    if isinstance(state, Exception):
        if mode == "library":
            raise ToolchainError("the PTX compiler library cannot be used: %s" % state)
        return None
    import subprocess
    import tempfile

    errors = []
    roots = (toolchain_dir(), os.path.join(tempfile.gettempdir(), "tileir-%s" % getattr(os, "getuid", lambda: "")()))
    failed_marker = _ptx_library.shared_path(archive, roots[0]) + ".failed"
    if mode == "auto" and os.path.isfile(failed_marker):
        # An earlier process could not link it (no C compiler): do not try in every process.
        _LIBRARY_STATE[archive] = ToolchainError("linking failed before (%s)" % failed_marker)
        return None
    for root in roots:
        so = _ptx_library.shared_path(archive, root)
        if os.path.isfile(so):
            _LIBRARY_STATE[archive] = so
            return so
        if not build:
            return None
        try:
            _ptx_library.build_shared(archive, so)
        except (OSError, subprocess.SubprocessError) as exc:
            out = getattr(exc, "output", b"") or b""
            errors.append("%s%s" % (exc, (": " + out.decode("utf-8", "replace")[-2000:]) if out else ""))
            continue
        _LIBRARY_STATE[archive] = so
        return so
    err = ToolchainError("could not link %s into a shared library (a C compiler, cc, is needed): %s"
                         % (archive, "; ".join(errors)))
    _LIBRARY_STATE[archive] = err
    try:
        os.makedirs(os.path.dirname(failed_marker), exist_ok=True)
        with open(failed_marker, "w") as f:
            f.write(str(err) + "\n")
    except OSError:
        pass
    if mode == "library":
        raise err
    return None


def ptx_compiler_status() -> str:
    """One line saying which PTX compiler compiles go to, and why (for ``tileir-cache show``)."""
    from ..knobs import ptx_compiler

    mode = ptx_compiler()
    archive = find_ptx_archive()
    try:
        exe = find_ptxas(None)
    except ToolchainError as e:
        exe = None
        missing = str(e)
    if _uses_process(None):
        why = "TILEIR_PTXAS is set" if ptxas_override() else "TILEIR_PTX_COMPILER=process"
        return "ptxas executable %s (%s)" % (exe or "(none: %s)" % missing, why)
    if archive is None:
        return ("ptxas executable %s, one process per kernel (NVIDIA's PTX compiler library is not installed: "
                "pip install nvidia-nvptxcompiler for in-process compiles with a CUDA 13 toolchain)"
                % (exe or "(none)"))
    if mode == "auto" and not _library_fits(archive):
        major = _cuda_major_of_path(archive)
        driver = installed_driver_branch()
        return ("ptxas executable %s: the PTX compiler library (CUDA %s) is installed, but its cubins need driver "
                "r%s+ and this machine has %s (TILEIR_PTX_COMPILER=library uses it anyway)"
                % (exe, major or "?", _MIN_DRIVER.get(major or 0, "?"),
                   "r%d" % driver if driver else "no NVIDIA driver"))
    state = _LIBRARY_STATE.get(archive)
    if isinstance(state, Exception):
        return "ptxas executable %s: the PTX compiler library failed: %s" % (exe, state)
    return "NVIDIA's PTX compiler library, in the LLVM worker process (%s)" % archive


def compile_ptx(ptx: str, *, arch: str, opt_level: int = 3, ptxas: Optional[str] = None,
                extra_args: Sequence[str] = (), timeout: float = 120) -> PtxasResult:
    """PTX -> cubin: in-process through NVIDIA's PTX compiler library when it is installed
    (run in the LLVM worker process, so that a crash cannot end the caller), else the
    ptxas executable (:func:`run_ptxas`). Same options, same ``-v`` report, same errors."""
    if not _uses_process(ptxas):
        library = ptx_library()
        if library is not None:
            result = _compile_with_library(library, ptx, arch=arch, opt_level=opt_level, extra_args=extra_args)
            if result is not None:
                return result
    return run_ptxas(ptx, arch=arch, opt_level=opt_level, ptxas=ptxas, extra_args=extra_args, timeout=timeout)


def _compile_with_library(library: str, ptx: str, *, arch: str, opt_level: int,
                          extra_args: Sequence[str]) -> Optional[PtxasResult]:
    from ..errors import LLVMError
    from ..knobs import ptx_compiler
    from .llvm_worker import get_worker

    if not re.match(r"^sm_\d+[af]?$", arch or ""):
        raise PtxasError("invalid ptxas arch %r: expected a name such as 'sm_90a'" % (arch,))
    options = ["-arch=" + arch, "-O%d" % int(opt_level), "-v", *map(str, extra_args)]
    t0 = time.perf_counter()
    try:
        resp = get_worker().ptx_compile(library, ptx, options)
    except LLVMError as exc:
        stage = getattr(exc, "stage", "")
        if stage in ("crash", "timeout"):
            kept = _keep_ptx(ptx)
            what = "crashed" if stage == "crash" else "timed out"
            err = PtxasError("NVIDIA's PTX compiler library %s while assembling for %s (in tileir's worker process; "
                             "this process is unaffected): this is an internal error in the PTX compiler, not in "
                             "your kernel. The PTX was kept at %s\n%s" % (what, arch, kept, exc))
            err.ptx_path = kept  # type: ignore[attr-defined]
            err.log = getattr(exc, "stderr", "")  # type: ignore[attr-defined]
            err.returncode = getattr(exc, "returncode", None)  # type: ignore[attr-defined]
            raise err from None
        # The library would not load: use the executable from now on.
        _LIBRARY_STATE[library] = exc
        for archive, so in list(_LIBRARY_STATE.items()):
            if so == library:
                _LIBRARY_STATE[archive] = exc
        if ptx_compiler() == "library":
            raise ToolchainError("the PTX compiler library cannot be used: %s" % exc) from None
        return None
    seconds = time.perf_counter() - t0
    log = (resp.get("info_log") or "")
    error_log = resp.get("error_log") or ""
    if error_log:
        log = (log.rstrip("\n") + "\n" + error_log) if log else error_log
    if not resp.get("compiled"):
        message = "ptxas rejected the PTX for %s (PTX compiler library: %s)" % (arch, resp.get("result"))
        if log.strip():
            message += ":\n" + log.strip()
        err = PtxasError(message)
        err.log = log  # type: ignore[attr-defined]
        err.returncode = 1  # type: ignore[attr-defined]
        err.ptx_path = None  # type: ignore[attr-defined]
        raise err
    info, advisories, warning_lines, gmem = parse_ptxas_log(log)
    return PtxasResult(cubin=resp["cubin"], info=info, advisories=advisories, log=log, warnings=warning_lines,
                       gmem_bytes=gmem, arch=arch, command=["nvPTXCompiler " + str(resp.get("version"))] + options,
                       seconds=seconds)


def warn_advisories(result: PtxasResult, *, stacklevel: int = 1,
                    kernel: Optional[str] = None) -> int:
    """Emit each ptxas advisory of ``result`` as a TileIRPerformanceWarning.

    ``stacklevel`` counts from the caller of this function (1: the warning points at
    the line that called ``warn_advisories``; 2: at that function's caller, ...).
    ``kernel`` only decorates the message. Returns the number of warnings emitted.
    """
    count = 0
    lines: Iterable[str] = result.advisories
    for line in lines:
        text = re.sub(r"^ptxas info\s*:\s*", "", line)
        where = " in kernel %r" % kernel if kernel else ""
        warnings.warn("ptxas advisory%s (%s): %s" % (where, result.arch or "?", text),
                      TileIRPerformanceWarning, stacklevel=stacklevel + 1)
        count += 1
    return count
