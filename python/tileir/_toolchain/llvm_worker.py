"""LLVM IR text -> PTX text in a persistent child process.

LLVM reports some errors (``LLVM ERROR: Cannot select ...``, a PTX version too old for
the target, ...) by calling ``abort()``, which would take the whole Python process
down (docs/nvptx.md, pitfall P1). The NVPTX backend therefore runs in a child process
(``_llvm_worker_main.py``) that is started on first use and then kept, so repeated
compiles do not pay for a process start and an llvmlite initialisation each time.

When the child dies, the request fails with :class:`~tileir.errors.LLVMError` carrying
the child's stderr (the ``LLVM ERROR`` line) and exit status, and the next request
starts a fresh child.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Dict, Optional, Sequence, Tuple

from ..errors import LLVMError, ToolchainError

__all__ = [
    "LLVMWorker",
    "compile_to_ptx",
    "get_worker",
    "shutdown",
    "DEFAULT_TRIPLE",
    "INSTALL_HINT",
    "find_libdevice",
]

DEFAULT_TRIPLE = "nvptx64-nvidia-cuda"
INSTALL_HINT = 'pip install "llvmlite>=0.50"'
_WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_llvm_worker_main.py")
_HEADER = struct.Struct("<I")
_MAX_FRAME = 1 << 31
# Child stderr is kept in a temporary file; it is emptied between requests once it
# grows past this size, and at most _STDERR_REPORT bytes of it go into a message.
_STDERR_TRUNCATE = 1 << 20
_STDERR_REPORT = 64 * 1024
_CPU_RE = re.compile(r"^sm_\d+[af]?$")
# LLVM prints these and carries on with a default, giving PTX for the wrong target.
_BAD_TARGET_RE = re.compile(r"is not a recognized (processor|feature) for this target")


def _describe_exit(rc: Optional[int]) -> str:
    if rc is None:
        return "still running"
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except (ValueError, AttributeError):
            name = "signal %d" % -rc
        return "killed by %s (exit status %d)" % (name, rc)
    return "exit status %d" % rc


def _dedupe_lines(text: str) -> str:
    """Drop repeated lines (LLVM prints some warnings once per function)."""
    seen = set()
    kept = []
    for line in text.splitlines():
        if line in seen:
            continue
        seen.add(line)
        kept.append(line)
    return "\n".join(kept)


def _llvmlite_search_dir() -> Optional[str]:
    """Directory holding the ``llvmlite`` package as this interpreter sees it."""
    try:
        spec = importlib.util.find_spec("llvmlite")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return os.path.dirname(os.path.abspath(locations[0]))
    if spec.origin:
        return os.path.dirname(os.path.abspath(spec.origin))
    return None


LIBDEVICE_HINT = ('pip install nvidia-cuda-nvcc (it ships nvvm/libdevice/libdevice.10.bc), or set '
                  'TILEIR_LIBDEVICE to the file, or CUDA_HOME to a CUDA toolkit')
_libdevice_memo: Dict[str, Optional[str]] = {}


def find_libdevice() -> Optional[str]:
    """Path of NVIDIA's ``libdevice.10.bc`` (the accurate math library the LLVM writer calls
    as ``__nv_*``), or None. Looked for, in order: ``TILEIR_LIBDEVICE`` (a file),
    ``$CUDA_HOME`` / ``$CUDA_PATH`` (``nvvm/libdevice``), the nvidia-cuda-nvcc wheel
    (``nvidia/cuda_nvcc/nvvm/libdevice``, or ``nvidia/cu13/...``) on ``sys.path``, then
    ``/usr/local/cuda``. Memoized per environment."""
    key = "\0".join(os.environ.get(v, "") for v in ("TILEIR_LIBDEVICE", "CUDA_HOME", "CUDA_PATH"))
    if key in _libdevice_memo:
        return _libdevice_memo[key]
    rel = os.path.join("nvvm", "libdevice", "libdevice.10.bc")
    candidates = []
    explicit = os.environ.get("TILEIR_LIBDEVICE")
    if explicit:
        candidates.append(explicit)
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root:
            candidates.append(os.path.join(root, rel))
    for entry in sys.path:
        if entry and os.path.isdir(os.path.join(entry, "nvidia")):
            for sub in ("cuda_nvcc", "cu13", "cu12"):
                candidates.append(os.path.join(entry, "nvidia", sub, rel))
    candidates.append(os.path.join("/usr/local/cuda", rel))
    found = next((c for c in candidates if os.path.isfile(c)), None)
    _libdevice_memo[key] = found
    return found


class _Child:
    """One running worker process and its channels."""

    def __init__(self, proc: subprocess.Popen, stderr_path: str, stderr_writer, stderr_reader):
        self.proc = proc
        self.stderr_path = stderr_path
        self._stderr_writer = stderr_writer
        self._stderr_reader = stderr_reader
        self.hello: Dict[str, Any] = {}
        self.owner_pid = os.getpid()
        self.requests = 0
        self.rss_mb: Optional[float] = None
        self.ready = False  # the hello frame was read
        self.t0 = time.perf_counter()

    # -- stderr bookkeeping -------------------------------------------------------
    def stderr_size(self) -> int:
        try:
            return os.fstat(self._stderr_reader.fileno()).st_size
        except (OSError, ValueError):
            return 0

    def maybe_truncate_stderr(self) -> None:
        # The child opened the file in append mode, so its next write lands at the
        # new end; only called while no request is in flight.
        if self.stderr_size() > _STDERR_TRUNCATE:
            try:
                os.ftruncate(self._stderr_writer.fileno(), 0)
            except (OSError, ValueError):
                pass

    def stderr_since(self, offset: int) -> str:
        try:
            size = self.stderr_size()
            start = max(offset, size - _STDERR_REPORT)
            if size <= start:
                return ""
            self._stderr_reader.seek(start)
            data = self._stderr_reader.read(size - start)
        except (OSError, ValueError):
            return ""
        text = _dedupe_lines(data.decode("utf-8", "replace"))
        if start > offset:
            text = "[... %d bytes of stderr omitted ...]\n" % (start - offset) + text
        return text.strip()

    # -- frames -------------------------------------------------------------------
    def send(self, body: bytes) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(_HEADER.pack(len(body)) + body)
        stdin.flush()

    def recv(self) -> Optional[Dict[str, Any]]:
        stdout = self.proc.stdout
        assert stdout is not None
        head = stdout.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack(head)
        if length > _MAX_FRAME:
            raise LLVMError("LLVM worker sent a malformed frame (length %d)" % length)
        body = stdout.read(length)
        if len(body) < length:
            return None
        return json.loads(body.decode("utf-8"))

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> Optional[int]:
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return None

    def close(self, graceful: bool = True) -> None:
        """Stop the process (EOF first when graceful) and release the files."""
        if graceful and self.proc.poll() is None:
            try:
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
                self.proc.wait(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout, self._stderr_writer, self._stderr_reader):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass
        try:
            os.unlink(self.stderr_path)
        except OSError:
            pass


class LLVMWorker:
    """Compiles LLVM IR text to PTX in a persistent, restartable child process.

    Thread-safe: requests are serialised by a lock. ``timeout`` bounds each request
    (and the start of the child); on expiry the child is killed and
    :class:`~tileir.errors.LLVMError` is raised.

    llvmlite 0.50 leaks memory on every optimisation-pipeline run, so the child is
    replaced (before the next request) once its resident memory exceeds
    ``max_rss_mb`` (Linux) or it has served ``max_requests`` requests; None disables
    either limit. ``python`` overrides the interpreter that runs the child.
    """

    def __init__(self, *, timeout: float = 120.0, python: Optional[str] = None,
                 max_rss_mb: Optional[float] = 512.0, max_requests: Optional[int] = 2000):
        self.timeout = float(timeout)
        self.max_rss_mb = max_rss_mb
        self.max_requests = max_requests
        self._python = python
        self._lock = threading.Lock()
        self._child: Optional[_Child] = None
        self._next_id = 0
        self._startup_error: Optional[ToolchainError] = None
        self.starts = 0
        self.recycled = 0
        self.last_start_seconds: Optional[float] = None
        self.last_stderr = ""

    # -- public API -------------------------------------------------------------------
    def compile_to_ptx(self, llvm_ir: str, *, cpu: str, features: str = "+ptx86",
                       opt_level: int = 3, codegen_opt_level: int = 3,
                       triple: str = DEFAULT_TRIPLE,
                       passes: Optional[Sequence[str]] = None) -> Tuple[str, Dict[str, float]]:
        """Return ``(ptx, times)`` for the LLVM IR module ``llvm_ir``.

        ``opt_level`` selects the new-PM ``default<O{n}>`` IR pipeline (0 skips it);
        ``passes`` (llvmlite pass names such as ``"instruction_combine"``) replaces it by a
        pipeline of those module passes in that order (an empty list: no IR passes);
        ``codegen_opt_level`` is the TargetMachine's optimisation level. ``times``
        holds seconds spent in ``parse``, ``verify``, ``opt``, ``codegen`` (in the
        child), ``roundtrip`` (the whole call seen from here) and ``startup`` when the
        call had to start the child.
        """
        if not isinstance(llvm_ir, str):
            raise TypeError("llvm_ir must be a str, not %s" % type(llvm_ir).__name__)
        if not _CPU_RE.match(cpu or ""):
            raise LLVMError("invalid NVPTX cpu %r: expected a name such as 'sm_90a' or 'sm_80'"
                            % (cpu,))
        opt_level = int(opt_level)
        codegen_opt_level = int(codegen_opt_level)
        if not 0 <= opt_level <= 3 or not 0 <= codegen_opt_level <= 3:
            raise LLVMError("opt_level and codegen_opt_level must be in 0..3, got %d and %d"
                            % (opt_level, codegen_opt_level))
        request = {"op": "compile", "llvm_ir": llvm_ir, "cpu": cpu, "features": features,
                   "opt_level": opt_level, "codegen_opt_level": codegen_opt_level,
                   "triple": triple, "passes": None if passes is None else [str(p) for p in passes]}
        if "@__nv_" in llvm_ir:
            # The module calls libdevice's accurate math (f64 transcendentals, f32 log/sin/...).
            libdevice = find_libdevice()
            if libdevice is None:
                err = LLVMError("this kernel needs NVIDIA's libdevice (libdevice.10.bc) for its "
                                "accurate math functions, and it was not found: " + LIBDEVICE_HINT)
                err.stage = "libdevice"  # type: ignore[attr-defined]
                err.stderr = ""  # type: ignore[attr-defined]
                raise err
            request["libdevice"] = libdevice
        t0 = time.perf_counter()
        with self._lock:
            started = self._ensure_started()
            resp, stderr_text = self._transact(request, what="compiling for %s" % cpu)
        self.last_stderr = stderr_text
        if not resp.get("ok"):
            stage = resp.get("stage", "?")
            what = {"parse": "LLVM could not parse the IR",
                    "verify": "the LLVM IR verifier rejected the module",
                    "target": "LLVM could not create a target machine",
                    "opt": "the LLVM optimisation pipeline failed",
                    "codegen": "NVPTX code generation failed",
                    "libdevice": "linking libdevice failed"}.get(stage, "LLVM failed")
            message = "%s (cpu %s, features %s):\n%s" % (what, cpu, features,
                                                         resp.get("error", "").strip())
            if stderr_text:
                message += "\n" + stderr_text
            err = LLVMError(message)
            err.stage = stage  # type: ignore[attr-defined]
            err.stderr = stderr_text  # type: ignore[attr-defined]
            raise err
        bad = _BAD_TARGET_RE.search(stderr_text)
        if bad:
            err = LLVMError("LLVM does not know the target %s / %s:\n%s"
                            % (cpu, features, stderr_text))
            err.stage = "target"  # type: ignore[attr-defined]
            err.stderr = stderr_text  # type: ignore[attr-defined]
            raise err
        times = dict(resp.get("times") or {})
        times["roundtrip"] = time.perf_counter() - t0
        if started is not None:
            times["startup"] = started
        return resp["ptx"], times

    def ptx_compile(self, library: str, ptx: str, options) -> Dict[str, Any]:
        """PTX -> cubin with the PTX compiler library at ``library``, in the worker process.

        Returns the worker's reply (``compiled``, ``cubin`` as bytes, ``info_log``,
        ``error_log``, ``result``, ``version``, ``times``). A crash of the library ends the
        worker only: it raises :class:`~tileir.errors.LLVMError` with ``stage == "crash"``
        and the next request starts a new worker.
        """
        import base64

        request = {"op": "ptx_compile", "library": library, "ptx": ptx, "options": [str(o) for o in options]}
        t0 = time.perf_counter()
        with self._lock:
            self._ensure_started()
            resp, stderr_text = self._transact(request, what="compiling PTX with the PTX compiler library")
        if not resp.get("ok"):
            err = LLVMError("the PTX compiler library could not be used: %s" % resp.get("error", "?"))
            err.stage = resp.get("stage", "ptx_library")  # type: ignore[attr-defined]
            err.stderr = stderr_text  # type: ignore[attr-defined]
            raise err
        resp = dict(resp)
        resp["cubin"] = base64.b64decode(resp.get("cubin") or "")
        resp["stderr"] = stderr_text
        resp.setdefault("times", {})["roundtrip"] = time.perf_counter() - t0
        return resp

    def versions(self) -> Dict[str, Any]:
        """``{"llvmlite": ..., "llvm": ..., "python": ...}`` as seen by the child."""
        with self._lock:
            self._ensure_started()
            assert self._child is not None
            return dict(self._child.hello)

    def ping(self) -> Dict[str, Any]:
        with self._lock:
            self._ensure_started()
            resp, _ = self._transact({"op": "ping"}, what="ping")
            return dict(resp.get("hello") or {})

    @property
    def pid(self) -> Optional[int]:
        child = self._child
        if child is None or child.owner_pid != os.getpid() or not child.alive():
            return None
        return child.proc.pid

    def close(self) -> None:
        """Stop the child process (it is started again on the next request)."""
        with self._lock:
            self._discard(graceful=True)

    def __enter__(self) -> "LLVMWorker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            child = self._child
            if child is not None and child.owner_pid == os.getpid():
                child.close(graceful=False)
        except Exception:
            pass

    # -- process management ---------------------------------------------------------
    def _discard(self, graceful: bool) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.owner_pid != os.getpid():
            return  # inherited through fork(): the process belongs to the parent
        child.close(graceful=graceful)

    def _worn_out(self, child: _Child) -> bool:
        if self.max_requests is not None and child.requests >= self.max_requests:
            return True
        return (self.max_rss_mb is not None and child.rss_mb is not None
                and child.rss_mb > self.max_rss_mb)

    def prestart(self) -> None:
        """Starts the child process without waiting for it to be ready, so that its start-up
        overlaps with the caller's work (the next request waits for it). Never raises: a
        failure shows at the next request."""
        with self._lock:
            child = self._child
            if child is not None and child.owner_pid == os.getpid() and child.alive():
                return
            try:
                self._ensure_started(handshake=False)
            except Exception:
                pass

    def _ensure_started(self, handshake: bool = True) -> Optional[float]:
        """Start the child if needed; return the start time in seconds, or None."""
        child = self._child
        if child is not None:
            if child.owner_pid != os.getpid():
                self._child = None
            elif child.alive() and not child.ready and handshake:
                return self._handshake(child)
            elif child.alive() and not self._worn_out(child):
                child.maybe_truncate_stderr()
                return None
            elif child.alive():
                self.recycled += 1
                self._discard(graceful=True)
            else:
                self._discard(graceful=False)
        if self._startup_error is not None:
            raise self._startup_error
        python = self._python or sys.executable
        if not python:
            raise ToolchainError("cannot start the LLVM worker: sys.executable is not set")
        cmd = [python, "-I", _WORKER_SCRIPT]
        search_dir = _llvmlite_search_dir()
        if search_dir:
            # -S: no site module, so no .pth files run at start-up (they can cost far more
            # than the worker's own start); llvmlite's folder is passed explicitly.
            cmd = [python, "-I", "-S", _WORKER_SCRIPT, "--path", search_dir]
        fd, stderr_path = tempfile.mkstemp(prefix="tileir-llvm-", suffix=".stderr")
        os.close(fd)
        stderr_writer = open(stderr_path, "ab")
        stderr_reader = open(stderr_path, "rb")
        kwargs: Dict[str, Any] = {}
        if os.name == "nt":
            kwargs["creationflags"] = getattr(subprocess, "CREATE_NO_WINDOW", 0)
        else:
            kwargs["start_new_session"] = True  # terminal signals go to the parent only
        t0 = time.perf_counter()
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=stderr_writer, close_fds=True, **kwargs)
        except OSError as exc:
            stderr_writer.close()
            stderr_reader.close()
            os.unlink(stderr_path)
            raise ToolchainError("cannot start the LLVM worker (%s): %s" % (python, exc)) from exc
        child = _Child(proc, stderr_path, stderr_writer, stderr_reader)
        child.t0 = t0
        self._child = child
        self.starts += 1
        if not handshake:
            return None
        return self._handshake(child)

    def _handshake(self, child: "_Child") -> float:
        """Wait for a new child's hello; return the seconds since it was started."""
        try:
            hello, _ = self._receive(child, 0, what="starting the LLVM worker")
        except BaseException:
            self._discard(graceful=False)
            raise
        if not hello.get("ok"):
            self._discard(graceful=False)
            message = hello.get("error") or "the LLVM worker failed to start"
            if INSTALL_HINT not in message:
                message += " (%s)" % INSTALL_HINT
            err = ToolchainError(message)
            if hello.get("kind") == "toolchain":
                self._startup_error = err
            raise err
        child.hello = dict(hello.get("hello") or {})
        child.ready = True
        elapsed = time.perf_counter() - child.t0
        self.last_start_seconds = elapsed
        return elapsed

    def _transact(self, request: Dict[str, Any], what: str) -> Tuple[Dict[str, Any], str]:
        child = self._child
        assert child is not None
        self._next_id += 1
        request = dict(request, id=self._next_id)
        try:
            body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise LLVMError("the LLVM IR text is not valid Unicode: %s" % exc) from None
        offset = child.stderr_size()
        resp, stderr_text = self._receive(child, offset, what=what, body=body)
        if resp.get("id") != request["id"]:
            self._discard(graceful=False)
            raise LLVMError("LLVM worker protocol error: reply %r to request %r"
                            % (resp.get("id"), request["id"]))
        child.requests += 1
        rss = resp.get("rss_mb")
        child.rss_mb = float(rss) if isinstance(rss, (int, float)) else None
        return resp, stderr_text

    def _receive(self, child: _Child, offset: int, what: str,
                 body: Optional[bytes] = None) -> Tuple[Dict[str, Any], str]:
        """Send the frame ``body`` (if any) and read one frame, under the timeout watchdog."""
        expired = threading.Event()

        def on_timeout() -> None:
            expired.set()
            try:
                child.proc.kill()
            except OSError:
                pass

        watchdog = threading.Timer(self.timeout, on_timeout)
        watchdog.daemon = True
        watchdog.start()
        resp: Optional[Dict[str, Any]] = None
        try:
            try:
                if body is not None:
                    child.send(body)
                resp = child.recv()
            except (OSError, ValueError):
                resp = None  # broken pipe / closed stream: the child died
            except BaseException:
                # KeyboardInterrupt (or similar) mid-request: the protocol state is
                # unknown, so drop this child; the next request starts a new one.
                watchdog.cancel()
                self._discard(graceful=False)
                raise
        finally:
            watchdog.cancel()
        if resp is not None:
            return resp, child.stderr_since(offset)
        # The child is gone (or hung and killed by the watchdog).
        rc = child.kill()
        stderr_text = child.stderr_since(offset)
        self._discard(graceful=False)
        if expired.is_set():
            message = ("the LLVM worker timed out after %g s while %s and was killed"
                       % (self.timeout, what))
        else:
            message = ("LLVM aborted while %s (the LLVM worker process %s); a new worker "
                       "is started on the next compile" % (what, _describe_exit(rc)))
        if stderr_text:
            message += ":\n" + stderr_text
        err = LLVMError(message)
        err.stderr = stderr_text  # type: ignore[attr-defined]
        err.returncode = rc  # type: ignore[attr-defined]
        err.stage = "timeout" if expired.is_set() else "crash"  # type: ignore[attr-defined]
        raise err


_singleton: Optional[LLVMWorker] = None
_singleton_pid: Optional[int] = None
_singleton_lock = threading.Lock()


def get_worker() -> LLVMWorker:
    """The process-wide :class:`LLVMWorker` (a new one after ``fork()``)."""
    global _singleton, _singleton_pid
    with _singleton_lock:
        if _singleton is None or _singleton_pid != os.getpid():
            _singleton = LLVMWorker()
            _singleton_pid = os.getpid()
        return _singleton


def compile_to_ptx(llvm_ir: str, *, cpu: str, features: str = "+ptx86", opt_level: int = 3,
                   codegen_opt_level: int = 3, triple: str = DEFAULT_TRIPLE,
                   passes: Optional[Sequence[str]] = None) -> Tuple[str, Dict[str, float]]:
    """``get_worker().compile_to_ptx(...)``."""
    return get_worker().compile_to_ptx(llvm_ir, cpu=cpu, features=features, opt_level=opt_level,
                                       codegen_opt_level=codegen_opt_level, triple=triple, passes=passes)


def shutdown() -> None:
    """Stop the process-wide worker, if any (registered with :mod:`atexit`)."""
    global _singleton
    with _singleton_lock:
        worker = _singleton
        if worker is None or _singleton_pid != os.getpid():
            return
        _singleton = None
    try:
        worker.close()
    except Exception:
        pass


atexit.register(shutdown)
