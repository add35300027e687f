"""Child process of :class:`tileir._toolchain.llvm_worker.LLVMWorker`.

Runs as a plain script (``python -I _llvm_worker_main.py [--path DIR]...``) and imports
only the standard library and llvmlite, never tileir, so it works whatever the
parent's ``sys.path`` looks like. ``--path DIR`` entries are prepended to ``sys.path``
(the parent passes the directory it found llvmlite in).

Protocol, over stdin/stdout, one request at a time: every message is a frame made of a
4-byte little-endian length followed by that many bytes of UTF-8 JSON.

* On start the child sends a hello frame:
  ``{"ok": true, "hello": {"llvmlite": "0.50.0", "llvm": "22.1.0", ...}}`` or, when
  llvmlite is unusable, ``{"ok": false, "fatal": true, "kind": "toolchain", "error": ...}``
  and exits.
* Request ``{"id": n, "op": "compile", "llvm_ir": str, "cpu": "sm_90a",
  "features": "+ptx86", "opt_level": 3, "codegen_opt_level": 3,
  "triple": "nvptx64-nvidia-cuda", "passes": null | ["instruction_combine", ...]}`` (``passes``,
  when given, replaces ``default<O{opt_level}>`` by those module passes, llvmlite's
  ``add_<name>_pass``; an optional ``"libdevice": path`` links that libdevice bitcode
  into a module that calls ``__nv_*`` functions) gets
  ``{"id": n, "ok": true, "ptx": str, "times": {"parse": s, "verify": s, "opt": s,
  "codegen": s}}`` or ``{"id": n, "ok": false, "stage": "parse"|"verify"|...,
  "error": str}``. Every reply also carries ``"rss_mb"`` (resident memory, Linux).
* Request ``{"id": n, "op": "ptx_compile", "library": path, "ptx": str, "options": [...]}``
  compiles PTX with NVIDIA's PTX compiler library (``_ptx_library.py``) and gets
  ``{"id": n, "ok": true, "compiled": bool, "cubin": base64, "info_log": str,
  "error_log": str, "result": "SUCCESS"|..., "version": "13.5"}``.
* Request ``{"id": n, "op": "ping"}`` gets ``{"id": n, "ok": true, "hello": {...}}``.
* End of input: the child exits with status 0.

LLVM fatal errors (``LLVM ERROR: Cannot select ...``) call ``abort()`` here; the parent
notices the closed pipe and reports the child's stderr.
"""

import json
import os
import struct
import sys
import time

MIN_LLVMLITE = (0, 50)
INSTALL_HINT = 'pip install "llvmlite>=0.50"'
DEFAULT_TRIPLE = "nvptx64-nvidia-cuda"
_HEADER = struct.Struct("<I")
_MAX_FRAME = 1 << 31


def _setup_channels():
    """Return (input, output) binary streams for the protocol.

    The protocol output is a private duplicate of fd 1; fd 1 itself is then pointed
    at stderr, so that stray prints (from Python or from C code) cannot corrupt the
    frames.
    """
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out = os.fdopen(proto_fd, "wb")
    return sys.stdin.buffer, out


def _read_exact(stream, n):
    chunks = []
    while n > 0:
        chunk = stream.read(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read_frame(stream):
    head = _read_exact(stream, _HEADER.size)
    if head is None:
        return None
    (length,) = _HEADER.unpack(head)
    if length > _MAX_FRAME:
        raise ValueError("frame too large: %d bytes" % length)
    body = _read_exact(stream, length)
    if body is None:
        return None
    return json.loads(body.decode("utf-8"))


def _write_frame(stream, obj):
    body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def _rss_mb():
    """Resident memory of this process in MiB (Linux), or None."""
    try:
        with open("/proc/self/statm", "rb") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / (1024.0 * 1024.0)
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _version_tuple(text):
    parts = []
    for piece in str(text).split(".")[:2]:
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        parts.append(int(digits) if digits else 0)
    while len(parts) < 2:
        parts.append(0)
    return tuple(parts)


class _Compiler:
    def __init__(self, llvm, hello):
        self.llvm = llvm
        self.hello = hello
        self._machines = {}
        self._libdevice = {}  # path -> bitcode bytes

    def target_machine(self, triple, cpu, features, codegen_opt):
        key = (triple, cpu, features, codegen_opt)
        tm = self._machines.get(key)
        if tm is None:
            target = self.llvm.Target.from_triple(triple)
            tm = target.create_target_machine(cpu=cpu, features=features, opt=codegen_opt)
            self._machines[key] = tm
        return tm

    def compile(self, req):
        llvm = self.llvm
        triple = req.get("triple") or DEFAULT_TRIPLE
        cpu = req["cpu"]
        features = req.get("features", "")
        opt = int(req.get("opt_level", 3))
        codegen_opt = int(req.get("codegen_opt_level", 3))
        text = req["llvm_ir"]
        stage = "target"
        try:
            tm = self.target_machine(triple, cpu, features, codegen_opt)
            # A fresh context per module: nothing accumulates between requests, and
            # named struct types are never renamed because of an earlier module.
            ctx = llvm.create_context()
            stage = "parse"
            t0 = time.perf_counter()
            mod = llvm.parse_assembly(text, context=ctx)
            t1 = time.perf_counter()
            stage = "verify"
            mod.verify()
            t2 = time.perf_counter()
            stage = "opt"
            mod.triple = triple
            mod.data_layout = str(tm.target_data)
            link_s = None
            if req.get("libdevice"):
                stage = "libdevice"
                link_s = self.link_libdevice(mod, ctx, req["libdevice"], tm)
                stage = "opt"
            passes = req.get("passes")
            if passes is not None:
                # A pipeline of our own: these module passes, in this order.
                pto = llvm.create_pipeline_tuning_options(speed_level=max(min(opt, 3), 0))
                pb = llvm.create_pass_builder(tm, pto)
                mpm = llvm.create_new_module_pass_manager()
                for name in passes:
                    add = getattr(mpm, "add_%s_pass" % name, None)
                    if add is None:
                        raise ValueError("unknown LLVM pass %r" % (name,))
                    add()
                if passes:
                    mpm.run(mod, pb)
            elif opt > 0:
                pto = llvm.create_pipeline_tuning_options(speed_level=min(opt, 3))
                pb = llvm.create_pass_builder(tm, pto)
                pb.getModulePassManager().run(mod, pb)
            t3 = time.perf_counter()
            stage = "codegen"
            ptx = tm.emit_assembly(mod)
            t4 = time.perf_counter()
        except Exception as exc:  # llvmlite reports parse/verify errors as RuntimeError
            return {"ok": False, "stage": stage, "error": str(exc).strip(),
                    "error_type": type(exc).__name__}
        del mod, ctx
        times = {"parse": t1 - t0, "verify": t2 - t1, "opt": t3 - t2, "codegen": t4 - t3}
        if link_s is not None:
            times["libdevice"] = link_s  # part of "opt"
        return {"ok": True, "ptx": ptx, "times": times}

    def link_libdevice(self, mod, ctx, path, tm):
        """Links NVIDIA's libdevice (``path``, LLVM bitcode) into ``mod``, which calls
        ``__nv_*`` functions: every ``__nv_*`` definition becomes internal and the unused
        ones are dropped at once (global DCE), so the O2/O3 pipeline only sees the few the
        kernel calls. The NVVMReflect pass of the NVPTX pipeline then folds libdevice's
        ``__nvvm_reflect`` queries (``__CUDA_ARCH`` from the target, ``__CUDA_FTZ`` from the
        module's ``nvvm-reflect-ftz`` flag, which the LLVM writer sets).

        The bitcode bytes are read once per worker; they are parsed again for every module
        (~70 ms): a parsed module must live in the compiled module's context, and cloning
        a cached one measured slower than parsing the bitcode again. Returns seconds."""
        llvm = self.llvm
        t0 = time.perf_counter()
        bc = self._libdevice.get(path)
        if bc is None:
            with open(path, "rb") as f:
                bc = self._libdevice[path] = f.read()
        lib = llvm.parse_bitcode(bc, context=ctx)
        # libdevice says nvptx64-nvidia-gpulibs and an older data layout: take the module's,
        # so that the linker does not warn.
        lib.triple = mod.triple
        lib.data_layout = mod.data_layout
        mod.link_in(lib)
        missing = []
        for fn in mod.functions:
            if fn.name.startswith("__nv_"):
                if fn.is_declaration:
                    missing.append(fn.name)
                else:
                    fn.linkage = "internal"
        if missing:
            raise RuntimeError("libdevice (%s) has no function %s" % (path, ", ".join(sorted(missing))))
        pto = llvm.create_pipeline_tuning_options(speed_level=0)
        pb = llvm.create_pass_builder(tm, pto)
        mpm = llvm.create_new_module_pass_manager()
        mpm.add_global_dead_code_eliminate_pass()
        mpm.run(mod, pb)
        # The O0 pipeline too: it holds NVVMReflect, so that `__nvvm_reflect` is folded
        # even when the request asks for no IR pipeline or a custom one (a few ms).
        pb.getModulePassManager().run(mod, pb)
        return time.perf_counter() - t0


def _load_llvmlite():
    """Import and initialise llvmlite; return (llvm, hello) or raise _StartupError."""
    t0 = time.perf_counter()
    try:
        import llvmlite
        import llvmlite.binding as llvm
    except Exception as exc:  # ImportError, or a broken shared library (OSError)
        raise _StartupError(
            "llvmlite could not be imported in the LLVM worker (%s: %s); tileir needs "
            "llvmlite 0.50 or newer: %s" % (type(exc).__name__, exc, INSTALL_HINT))
    version = getattr(llvmlite, "__version__", "0")
    if _version_tuple(version) < MIN_LLVMLITE:
        raise _StartupError(
            "llvmlite %s is too old: tileir needs llvmlite 0.50 or newer (LLVM 22 NVPTX "
            "backend): %s" % (version, INSTALL_HINT))
    try:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        llvm.Target.from_triple(DEFAULT_TRIPLE)
    except Exception as exc:
        raise _StartupError(
            "this llvmlite build (%s) cannot target %s (%s); install an official "
            "build: %s" % (version, DEFAULT_TRIPLE, exc, INSTALL_HINT))
    hello = {
        "llvmlite": version,
        "llvm": ".".join(str(x) for x in llvm.llvm_version_info),
        "python": "%d.%d.%d" % sys.version_info[:3],
        "pid": os.getpid(),
        "init_s": time.perf_counter() - t0,
    }
    return llvm, hello


class _StartupError(Exception):
    pass


_PTX_LIBRARIES = {}


def _ptx_compile(req):
    """PTX -> cubin with NVIDIA's PTX compiler library, loaded into this process (a crash
    of the library ends the worker, not the user's process)."""
    import base64
    import importlib.util

    path = req["library"]
    lib = _PTX_LIBRARIES.get(path)
    t0 = time.perf_counter()
    try:
        if lib is None:
            here = os.path.dirname(os.path.abspath(__file__))
            spec = importlib.util.spec_from_file_location("_tileir_ptx_library", os.path.join(here, "_ptx_library.py"))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            lib = _PTX_LIBRARIES[path] = mod.PTXCompilerLibrary(path)
        t1 = time.perf_counter()
        ok, cubin, info, error, result = lib.compile(req["ptx"], list(req["options"]))
    except Exception as exc:
        return {"ok": False, "stage": "ptx_library", "error": "%s: %s" % (type(exc).__name__, exc)}
    t2 = time.perf_counter()
    return {"ok": True, "compiled": ok, "cubin": base64.b64encode(cubin).decode("ascii"), "info_log": info,
            "error_log": error, "result": result, "version": lib.version,
            "times": {"load": t1 - t0, "compile": t2 - t1}}


def main(argv):
    args = list(argv)
    extra = []
    while args:
        if args[0] == "--path" and len(args) >= 2:
            extra.append(args[1])
            args = args[2:]
        else:
            args = args[1:]
    for path in reversed(extra):
        if path and path not in sys.path:
            sys.path.insert(0, path)
    try:  # Ctrl-C in the terminal belongs to the parent, which decides what to do
        import signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except Exception:
        pass
    inp, out = _setup_channels()
    try:
        llvm, hello = _load_llvmlite()
    except _StartupError as exc:
        _write_frame(out, {"ok": False, "fatal": True, "kind": "toolchain", "error": str(exc)})
        return 3
    compiler = _Compiler(llvm, hello)
    _write_frame(out, {"ok": True, "hello": hello})
    while True:
        try:
            req = _read_frame(inp)
        except ValueError as exc:
            sys.stderr.write("tileir LLVM worker: bad request frame: %s\n" % exc)
            return 2
        if req is None:
            return 0
        op = req.get("op", "compile")
        if op == "compile":
            resp = compiler.compile(req)
        elif op == "ptx_compile":
            resp = _ptx_compile(req)
        elif op == "ping":
            resp = {"ok": True, "hello": hello}
        else:
            resp = {"ok": False, "stage": "protocol", "error": "unknown op %r" % (op,)}
        resp["id"] = req.get("id")
        # llvmlite 0.50 leaks memory in every new-PM pipeline run (about 1 MB for a
        # 2000-line kernel at O3); the parent recycles the worker when this grows.
        resp["rss_mb"] = _rss_mb()
        _write_frame(out, resp)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
