"""NVIDIA's PTX compiler library (the ``nvPTXCompiler`` API) through ctypes.

Imports only the standard library: it runs inside the LLVM worker process
(``_llvm_worker_main.py``), so that a crash of the compiler (docs/nvptx.md, P2: ptxas
SIGSEGV on some wgmma descriptor arithmetic) takes down the worker, never the user's
process. The library compiles whole programs with ptxas's own options (``-arch``, ``-O3``,
``--maxrregcount``, ``-lineinfo``, ``--warn-on-spills``, ``-v``): ``setmaxnreg`` keeps
working, and its info log is ptxas's ``-v`` report.

PyPI ships the library only as a static archive (``nvidia-nvptxcompiler``:
``nvidia/cu13/lib/libnvptxcompiler_static.a`` and ``nvPTXCompiler.h``). :func:`build_shared`
links it once into a shared object with the C compiler (``cc``) that building tileir
needed anyway, exporting only the ``nvPTXCompiler*`` symbols, and keeps it under tileir's
toolchain folder (``TILEIR_TOOLCHAIN_DIR``; atomic rename); without an archive or a C compiler there is no library and
tileir runs the ptxas executable instead.
"""

import os

_FUNCS = ("nvPTXCompilerGetVersion", "nvPTXCompilerCreate", "nvPTXCompilerDestroy", "nvPTXCompilerCompile",
          "nvPTXCompilerGetCompiledProgramSize", "nvPTXCompilerGetCompiledProgram", "nvPTXCompilerGetErrorLogSize",
          "nvPTXCompilerGetErrorLog", "nvPTXCompilerGetInfoLogSize", "nvPTXCompilerGetInfoLog")
RESULTS = {0: "SUCCESS", 1: "INVALID_COMPILER_HANDLE", 2: "INVALID_INPUT", 3: "COMPILATION_FAILURE", 4: "INTERNAL",
           5: "OUT_OF_MEMORY", 6: "COMPILER_INVOCATION_INCOMPLETE", 7: "UNSUPPORTED_PTX_VERSION",
           8: "UNSUPPORTED_DEVSIDE_SYNC", 9: "CANCELLED"}


def shared_path(archive, cache_root):
    """Where the shared object built from ``archive`` lives (named by the archive's identity)."""
    import hashlib

    st = os.stat(archive)
    tag = hashlib.sha256(("%s:%d:%d" % (archive, st.st_size, st.st_mtime_ns)).encode()).hexdigest()[:16]
    return os.path.join(cache_root, "libtileir_nvptxcompiler-%s.so" % tag)


def build_shared(archive, out_path, cc=None):
    """Links ``archive`` into the shared object ``out_path`` (exporting only the
    nvPTXCompiler API); returns ``out_path``. Raises OSError / CalledProcessError."""
    import subprocess
    import tempfile

    if os.path.isfile(out_path):
        return out_path
    cc = cc or os.environ.get("CC") or "cc"
    folder = os.path.dirname(out_path)
    os.makedirs(folder, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".build-") as tmp:
        script = os.path.join(tmp, "exports.map")
        with open(script, "w") as f:
            f.write("{ global: nvPTXCompiler*; local: *; };\n")
        tmp_out = os.path.join(tmp, "lib.so")
        cmd = [cc, "-shared", "-o", tmp_out] + ["-Wl,-u," + name for name in _FUNCS] + \
            ["-Wl,--version-script=" + script, archive, "-lpthread", "-lm", "-ldl", "-lrt", "-lstdc++"]
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                       timeout=600)
        os.replace(tmp_out, out_path)
    return out_path


class PTXCompilerLibrary:
    """A loaded nvPTXCompiler shared object."""

    def __init__(self, path):
        import ctypes

        self.path = path
        lib = ctypes.CDLL(path)
        for name in _FUNCS:
            getattr(lib, name).restype = ctypes.c_int
        self.lib = lib
        major, minor = ctypes.c_uint(), ctypes.c_uint()
        self._check(lib.nvPTXCompilerGetVersion(ctypes.byref(major), ctypes.byref(minor)), "GetVersion")
        self.version = "%d.%d" % (major.value, minor.value)

    @staticmethod
    def _check(rc, what):  # noqa: D401
        if rc != 0:
            raise RuntimeError("nvPTXCompiler%s failed: %s" % (what, RESULTS.get(rc, rc)))

    def compile(self, ptx, options):
        """``(ok, cubin, info_log, error_log, result_name)`` for PTX text and ptxas options."""
        import ctypes

        lib = self.lib
        data = ptx.encode("utf-8") if isinstance(ptx, str) else bytes(ptx)
        handle = ctypes.c_void_p()
        self._check(lib.nvPTXCompilerCreate(ctypes.byref(handle), ctypes.c_size_t(len(data)), data), "Create")
        try:
            argv = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            rc = lib.nvPTXCompilerCompile(handle, ctypes.c_int(len(options)), argv)
            info = self._log(handle, lib.nvPTXCompilerGetInfoLogSize, lib.nvPTXCompilerGetInfoLog)
            error = self._log(handle, lib.nvPTXCompilerGetErrorLogSize, lib.nvPTXCompilerGetErrorLog)
            cubin = b""
            if rc == 0:
                size = ctypes.c_size_t()
                self._check(lib.nvPTXCompilerGetCompiledProgramSize(handle, ctypes.byref(size)), "GetCompiledProgramSize")
                buf = ctypes.create_string_buffer(size.value)
                self._check(lib.nvPTXCompilerGetCompiledProgram(handle, buf), "GetCompiledProgram")
                cubin = buf.raw[:size.value]
            return rc == 0, cubin, info, error, RESULTS.get(rc, str(rc))
        finally:
            lib.nvPTXCompilerDestroy(ctypes.byref(handle))

    @staticmethod
    def _log(handle, size_fn, get_fn):
        import ctypes

        size = ctypes.c_size_t()
        if size_fn(handle, ctypes.byref(size)) != 0 or size.value == 0:
            return ""
        buf = ctypes.create_string_buffer(size.value)
        if get_fn(handle, buf) != 0:
            return ""
        return buf.raw[:size.value].rstrip(b"\0").decode("utf-8", "replace")
