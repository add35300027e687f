"""The persistent compile cache: compiled kernels kept on disk across processes.

An entry is found by a key that hashes everything the cubin depends on:

* the kernel: its source text (with file and first line: line info and error locations
  come from them), its default arguments, its hints, and every global and closure value
  its code names (recursively for the helpers it calls, and the attributes of user modules
  it reads), so that changing a constant the kernel reads is a miss;
* the specialization (dtypes, ranks, alignment and divisibility facts, Constant values);
* the target, the pass pipeline, the optimization level and the PTX compiler options;
* the toolchain: tileir's version, its native module and Python sources (size and
  modification time, so that a development rebuild invalidates), the Python version,
  llvmlite's LLVM library, libdevice, and the PTX compiler (ptxas executable or library).

A value the key cannot describe faithfully (an object whose ``repr`` shows an address)
makes the kernel uncacheable: it is compiled, never stored.

Entries live in ``TILEIR_CACHE_DIR`` (default ``~/.cache/tileir`` or the platform's cache
folder), one file per key: a magic tag, the CRC-32 and length of the body, and the body (a
marshal header, the cubin, and the stage texts, compressed and inflated only when read). A
writer writes a temporary file in the same folder and renames it over the entry (atomic),
so concurrent processes never see half an entry; a reader that finds a bad tag, length,
checksum or body counts the entry as corrupt, recompiles and replaces it. A hit touches the
entry's modification time (at most once a minute); when the folder grows past ``TILEIR_CACHE_MAX_BYTES`` (default 1 GiB) the least recently
used entries are removed. A folder that cannot be written warns once
(:class:`CacheWarning`) and compiling carries on without storing.

Command line: ``python -m tileir.cache show`` / ``clear`` / ``path`` (also the
``tileir-cache`` script).
"""

from __future__ import annotations

import enum
import marshal
import os
import struct
import sys
import threading
import time
import types
import warnings
import zlib
from typing import Any, Dict, List, Optional, Tuple

from .. import knobs
from .._toolchain import ptxas as _ptxas

try:  # the builtin module: hashlib's import loads OpenSSL, which a cache hit need not pay for
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover - Python 3.12+ names it _sha2
    try:
        from _sha2 import sha256 as _sha256
    except ImportError:
        from hashlib import sha256 as _sha256

__all__ = ["CacheWarning", "cache_dir", "entries", "clear", "stats", "main"]

#: Bump when the entry layout or the key's recipe changes.
FORMAT = 3
_MAGIC = b"TILEIRC3"
_SUFFIX = ".tlc"
_CHECK = struct.Struct("<IQ")  # crc32 and length of the body
_HEADER_LEN = struct.Struct("<I")

#: Counters for this process (tests and benchmarks read them).
stats: Dict[str, int] = {"hits": 0, "misses": 0, "corrupt": 0, "writes": 0, "write_errors": 0,
                         "uncacheable": 0, "evicted": 0}

_lock = threading.Lock()
_warned_dirs: set = set()
_unwritable_dirs: set = set()


class CacheWarning(UserWarning):
    """The persistent compile cache cannot be used as configured (for example its folder
    is read-only); compiling goes on without it."""


def cache_dir() -> str:
    """The cache folder in use (``TILEIR_CACHE_DIR`` or the default)."""
    return knobs.cache_dir()


# ------------------------------------------------------------------------------------------
# The key
# ------------------------------------------------------------------------------------------

class _Uncacheable(Exception):
    pass


def _stat_id(path: Optional[str]) -> str:
    if not path:
        return "-"
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}:missing"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


_toolchain_memo: Dict[Any, str] = {}


def _package_fingerprint() -> str:
    """Python's version, tileir's native module and tileir's own Python sources."""
    hit = _toolchain_memo.get("package")
    if hit is not None:
        return hit
    from .. import _native

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the tileir package
    parts = [f"python {sys.version}", f"native {_stat_id(_native.__file__)}"]
    # An installed wheel is identified by its version and native module; a source tree
    # (editable install) also by its Python sources, which change without a version bump.
    if os.path.basename(os.path.dirname(root)) not in ("site-packages", "dist-packages"):
        stack = [root]
        files = []
        while stack:
            d = stack.pop()
            try:
                with os.scandir(d) as it:
                    for e in it:
                        if e.name.endswith(".py"):
                            st = e.stat()
                            files.append(f"{e.path}:{st.st_size}:{st.st_mtime_ns}")
                        elif e.name != "__pycache__" and "." not in e.name and e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
            except OSError:
                continue
        parts.extend(sorted(files))
    hit = _toolchain_memo["package"] = _sha256("\n".join(parts).encode()).hexdigest()
    return hit


def _tileir_version() -> str:
    mod = sys.modules.get("tileir")
    return getattr(mod, "__version__", "?")


def _llvm_fingerprint() -> str:
    """llvmlite's version and LLVM shared library, found without importing llvmlite's
    binding (a cache hit must not load LLVM)."""
    hit = _toolchain_memo.get("llvm")
    if hit is not None:
        return hit
    import importlib.util

    desc = "llvmlite:none"
    try:
        spec = importlib.util.find_spec("llvmlite")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        base = list(spec.submodule_search_locations)[0]
        binding = os.path.join(base, "binding")
        libs = []
        try:
            libs = sorted(n for n in os.listdir(binding) if n.startswith(("libllvmlite", "llvmlite")) and
                          n.endswith((".so", ".dylib", ".dll")))
        except OSError:
            pass
        desc = "llvmlite " + " ".join([_stat_id(os.path.join(base, "_version.py"))] +
                                      [_stat_id(os.path.join(binding, n)) for n in libs])
    # libdevice is linked into kernels that call accurate math (`__nv_*`): its identity is
    # part of what an entry means.
    from .._toolchain.llvm_worker import find_libdevice

    ld = find_libdevice()
    desc += " libdevice " + (_stat_id(ld) if ld else "none")
    _toolchain_memo["llvm"] = desc
    return desc


def _ptx_compiler_fingerprint(ptxas: Optional[str]) -> str:
    key = ("ptx", ptxas, knobs.ptx_compiler(), os.environ.get("TILEIR_NVPTXCOMPILER_STATIC"))
    hit = _toolchain_memo.get(key)
    if hit is not None:
        return hit
    hit = _toolchain_memo[key] = _ptxas.ptx_compiler_fingerprint(ptxas)
    return hit


def _prime() -> None:
    """Looks up the toolchain's identity once, when tileir is imported (a fraction of a
    millisecond next to the import itself), so that a cache hit pays only for its kernel."""
    if not knobs.cache_enabled():
        return
    try:
        _package_fingerprint()
        _llvm_fingerprint()
        _ptx_compiler_fingerprint(knobs.ptxas_override())
    except Exception:  # never fail the import: compile() looks again and reports
        _toolchain_memo.clear()


_SIMPLE = (type(None), bool, int, float, complex, str, bytes)
_MAX_ITEMS = 4096


def _is_tileir_object(value: Any) -> bool:
    mod = getattr(value, "__module__", None) or getattr(type(value), "__module__", "") or ""
    return mod == "tileir" or mod.startswith("tileir.")


class _Describer:
    """Turns the values a kernel reads into text, recursively and deterministically."""

    def __init__(self) -> None:
        self.out: List[str] = []
        self.seen: Dict[int, int] = {}

    def value(self, v: Any, depth: int = 0) -> None:
        out = self.out
        if depth > 12:
            raise _Uncacheable("nested too deep")
        if isinstance(v, _SIMPLE):
            out.append(f"{type(v).__name__}:{v!r}")
            return
        if isinstance(v, enum.Enum):
            out.append(f"enum:{type(v).__module__}.{type(v).__qualname__}.{v.name}")
            return
        if isinstance(v, types.ModuleType):
            out.append(f"module:{v.__name__}")
            return
        from .._compile import Kernel

        if isinstance(v, Kernel):
            out.append("kernel:" + repr(sorted(v.hints.items())))
            self.function(v.fn, depth + 1)
            return
        if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)):
            if _is_tileir_object(v) or isinstance(v, (types.BuiltinFunctionType, type)) or \
                    getattr(v, "__module__", None) in ("builtins", "math", "operator", "functools", "itertools"):
                out.append(f"ref:{getattr(v, '__module__', '?')}.{getattr(v, '__qualname__', repr(v))}")
                return
            if isinstance(v, types.MethodType):
                self.value(v.__self__, depth + 1)
                v = v.__func__
            self.function(v, depth + 1)
            return
        if isinstance(v, (tuple, list, set, frozenset)):
            if len(v) > _MAX_ITEMS:
                raise _Uncacheable("a large container")
            items = sorted(v, key=repr) if isinstance(v, (set, frozenset)) else v
            out.append(f"{type(v).__name__}[{len(v)}](")
            for x in items:
                self.value(x, depth + 1)
            out.append(")")
            return
        if isinstance(v, dict):
            if len(v) > _MAX_ITEMS:
                raise _Uncacheable("a large dict")
            out.append(f"dict[{len(v)}](")
            for k in sorted(v, key=repr):
                self.value(k, depth + 1)
                self.value(v[k], depth + 1)
            out.append(")")
            return
        np = sys.modules.get("numpy")
        if np is not None and isinstance(v, np.ndarray):
            if v.size > (1 << 16) or v.dtype.hasobject:
                raise _Uncacheable("a large or object array")
            out.append(f"ndarray:{v.dtype.str}:{v.shape}:{_sha256(np.ascontiguousarray(v).tobytes()).hexdigest()}")
            return
        text = repr(v)
        if " at 0x" in text or (text.startswith("<") and text.endswith(">")):
            raise _Uncacheable(f"a {type(v).__qualname__} value")
        out.append(f"{type(v).__module__}.{type(v).__qualname__}:{text}")

    def function(self, fn: Any, depth: int) -> None:
        out = self.out
        code = getattr(fn, "__code__", None)
        if code is None:
            raise _Uncacheable(f"callable {fn!r}")
        if id(code) in self.seen:
            out.append(f"fn#{self.seen[id(code)]}")
            return
        self.seen[id(code)] = len(self.seen)
        out.append(f"fn:{getattr(fn, '__module__', '?')}.{fn.__qualname__}:{code.co_filename}:{code.co_firstlineno}")
        out.append(_source_text(fn))
        # The compiled code too: linecache may hold an older text of a file edited and
        # imported again in this process.
        out.append("code:" + _code_digest(code))
        defaults = getattr(fn, "__defaults__", None)
        kwdefaults = getattr(fn, "__kwdefaults__", None)
        if defaults:
            out.append("defaults(")
            self.value(tuple(defaults), depth + 1)
            out.append(")")
        if kwdefaults:
            out.append("kwdefaults(")
            self.value(dict(kwdefaults), depth + 1)
            out.append(")")
        annotations = getattr(fn, "__annotations__", None)
        if annotations:
            out.append("annotations:" + repr(sorted((k, _annotation_text(a)) for k, a in annotations.items())))
        names = _code_names(code)
        closure = {}
        for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
        glb = getattr(fn, "__globals__", {}) or {}
        user_modules = []
        for name in sorted(names | set(closure)):
            if name in closure:
                v = closure[name]
                where = "closure"
            elif name in glb:
                v = glb[name]
                where = "global"
            else:
                continue
            out.append(f"{where} {name}=")
            self.value(v, depth + 1)
            if isinstance(v, types.ModuleType) and not _is_library_module(v):
                user_modules.append(v)
        # Attributes the code reads from the user's own modules (``cfg.TILE``).
        for mod in user_modules:
            for attr in sorted(names):
                if attr in mod.__dict__:
                    av = mod.__dict__[attr]
                    if isinstance(av, types.ModuleType):
                        continue
                    out.append(f"attr {mod.__name__}.{attr}=")
                    self.value(av, depth + 1)


def _annotation_text(a: Any) -> str:
    text = a if isinstance(a, str) else repr(a)
    return text


_LIBRARY_PREFIXES = ("tileir", "numpy", "math", "builtins", "typing", "operator", "functools", "itertools",
                     "torch", "cupy", "cuda", "triton", "enum", "dataclasses", "collections")


def _is_library_module(mod: types.ModuleType) -> bool:
    name = mod.__name__
    return name.split(".")[0] in _LIBRARY_PREFIXES or name in sys.builtin_module_names


def _code_digest(code: types.CodeType) -> str:
    """A digest of a code object's bytecode, names and constants that is the same in every
    process (``marshal`` output is not: it depends on reference counts)."""
    h = _sha256()

    def feed(c: types.CodeType) -> None:
        h.update(c.co_code)
        h.update(repr((c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars)).encode())
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                feed(k)
            elif isinstance(k, frozenset):
                h.update(repr(sorted(k, key=repr)).encode())
            else:
                h.update(repr(k).encode("utf-8", "surrogatepass"))

    feed(code)
    return h.hexdigest()


def _code_names(code: types.CodeType) -> set:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
            names |= set(c.co_freevars)
    return names


def _source_text(fn: Any) -> str:
    """The function's source as the front end reads it (``nosource`` when there is none:
    the front end then fails anyway)."""
    from .._frontend.translate import _fast_source

    try:
        lines, _ = _fast_source(fn)
    except Exception:
        lines = None
    if lines is None:
        import inspect

        try:
            lines, _ = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            code = getattr(fn, "__code__", None)
            return "nosource"
    return "".join(lines)


def compile_key(kernel: Any, spec: Any, *, target: str, pipeline: str, opt_level: int, ptxas: Optional[str],
                options: Any = ()) -> Optional[str]:
    """The hex key of one compile, or None when the kernel reads a value the key cannot
    describe (it is then not cached)."""
    d = _Describer()
    try:
        d.out.append(f"format {FORMAT}")
        d.out.append(f"hints {sorted(kernel.hints.items())!r}")
        d.function(kernel.fn, 0)
        d.out.append("spec")
        d.value(spec.names)
        for p in spec.params:
            text = repr(p)
            if " at 0x" in text:
                raise _Uncacheable("a Constant argument without a stable repr")
            d.out.append(text)
        d.out.append(f"aliasing {spec.aliasing!r}")
    except _Uncacheable:
        stats["uncacheable"] += 1
        return None
    d.out.append(f"target {target} pipeline {pipeline!r} opt {opt_level} options {options!r}")
    d.out.append(f"tileir {_tileir_version()}")  # not in the memo: set after tileir's imports
    d.out.append(_package_fingerprint())
    d.out.append(_llvm_fingerprint())
    d.out.append(_ptx_compiler_fingerprint(ptxas))
    return _sha256("\n".join(d.out).encode("utf-8", "surrogatepass")).hexdigest()


# ------------------------------------------------------------------------------------------
# Entries
# ------------------------------------------------------------------------------------------

def _entry_path(root: str, key: str) -> str:
    return os.path.join(root, key[:2], key + _SUFFIX)


def _encode(key: str, meta: Dict[str, Any], blobs: Dict[str, bytes]) -> bytes:
    """MAGIC, CRC-32 and length of the body, body = header length, header (marshal), the blobs. Blobs
    are stored as given: callers compress what is worth it (stage texts), so that a hit
    reads the cubin without inflating texts nobody may look at."""
    names = sorted(blobs)
    header = dict(meta, key=key, format=FORMAT, blobs=[[n, len(blobs[n])] for n in names])
    hbytes = marshal.dumps(header)
    body = _HEADER_LEN.pack(len(hbytes)) + hbytes + b"".join(blobs[n] for n in names)
    return _MAGIC + _CHECK.pack(zlib.crc32(body), len(body)) + body


class _Corrupt(Exception):
    pass


def _decode(data: bytes, key: Optional[str]) -> Tuple[Dict[str, Any], Dict[str, bytes]]:
    start = len(_MAGIC) + _CHECK.size
    if len(data) < start or not data.startswith(_MAGIC):
        raise _Corrupt("bad tag")
    crc, length = _CHECK.unpack_from(data, len(_MAGIC))
    body = data[start:]
    if len(body) != length:
        raise _Corrupt("truncated or extended")
    if zlib.crc32(body) != crc:
        raise _Corrupt("checksum mismatch")
    raw = body
    try:
        (hlen,) = _HEADER_LEN.unpack_from(raw, 0)
        # marshal only ever sees bytes this module wrote: the checksum matched above.
        header = marshal.loads(raw[4:4 + hlen])
    except (struct.error, ValueError, EOFError, TypeError) as e:
        raise _Corrupt(str(e)) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT or (key is not None and header.get("key") != key):
        raise _Corrupt("another key or format")
    blobs: Dict[str, bytes] = {}
    pos = 4 + hlen
    for name, n in header["blobs"]:
        blobs[name] = raw[pos:pos + n]
        pos += n
    if pos != len(raw):
        raise _Corrupt("length mismatch")
    return header, blobs


_TOUCH_AFTER = 60.0


def load(key: str) -> Optional[Tuple[Dict[str, Any], Dict[str, bytes]]]:
    """The entry for ``key`` as ``(header, blobs)``, or None (absent or corrupt)."""
    path = _entry_path(knobs.cache_dir(), key)
    try:
        with open(path, "rb") as f:
            data = f.read()
            mtime = os.fstat(f.fileno()).st_mtime
    except OSError:
        stats["misses"] += 1
        return None
    try:
        entry = _decode(data, key)
    except _Corrupt:
        stats["corrupt"] += 1
        stats["misses"] += 1
        return None
    if time.time() - mtime > _TOUCH_AFTER:
        try:
            os.utime(path)  # the LRU clock (to the minute: a hit need not write every time)
        except OSError:
            pass
    stats["hits"] += 1
    return entry


def store(key: str, meta: Dict[str, Any], blobs: Dict[str, bytes]) -> bool:
    """Writes the entry for ``key`` (atomically); False when the folder cannot be written
    (a CacheWarning the first time for that folder)."""
    root = knobs.cache_dir()
    if root in _unwritable_dirs:
        return False
    data = _encode(key, meta, blobs)
    path = _entry_path(root, key)
    tmp = None
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=_SUFFIX)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        stats["write_errors"] += 1
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        with _lock:
            _unwritable_dirs.add(root)
            first = root not in _warned_dirs
            _warned_dirs.add(root)
        if first:
            warnings.warn(f"tileir's compile cache folder {root} cannot be written ({e.strerror or e}); kernels "
                          f"compile without being stored (set TILEIR_CACHE_DIR to a writable folder, or "
                          f"TILEIR_CACHE=0)", CacheWarning, stacklevel=3)
        return False
    stats["writes"] += 1
    _after_write(root, len(data))
    return True


# ------------------------------------------------------------------------------------------
# Size bound
# ------------------------------------------------------------------------------------------

_USAGE = "usage.txt"


def _after_write(root: str, size: int) -> None:
    """Adds ``size`` to the folder's running total; past the bound (or now and then, to
    correct for racing writers) scans the folder and evicts."""
    import random

    limit = knobs.cache_max_bytes()
    usage_path = os.path.join(root, _USAGE)
    try:
        with open(usage_path, "r") as f:
            total = int(f.read().strip() or 0)
    except (OSError, ValueError):
        total = None
    if total is None or random.random() < 1 / 64:
        total = None
    else:
        total += size
    if total is None or total > limit:
        total = evict(limit, root=root)
    _write_text(usage_path, str(total))


def _write_text(path: str, text: str) -> None:
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        pass


def _scan(root: str) -> List[Tuple[float, int, str]]:
    """(mtime, size, path) of every entry (and of stale temporary files, as old)."""
    found = []
    now = time.time()
    try:
        subdirs = [e.path for e in os.scandir(root) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return found
    for d in subdirs:
        try:
            with os.scandir(d) as it:
                for e in it:
                    if not e.name.endswith(_SUFFIX):
                        continue
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if e.name.startswith(".tmp-"):
                        if now - st.st_mtime > 3600:  # left by a killed writer
                            found.append((0.0, st.st_size, e.path))
                        continue
                    found.append((st.st_mtime, st.st_size, e.path))
        except OSError:
            continue
    return found


def evict(limit: Optional[int] = None, root: Optional[str] = None) -> int:
    """Removes least recently used entries until the folder holds at most 80% of
    ``limit`` (when it is over ``limit``); returns the bytes left."""
    root = root or knobs.cache_dir()
    limit = knobs.cache_max_bytes() if limit is None else limit
    found = _scan(root)
    total = sum(s for _, s, _ in found)
    if total <= limit:
        return total
    goal = int(limit * 0.8)
    for _, size, path in sorted(found):
        if total <= goal:
            break
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError:
            continue
        total -= size
        stats["evicted"] += 1
    return total


# ------------------------------------------------------------------------------------------
# Listing and clearing
# ------------------------------------------------------------------------------------------

def entries(root: Optional[str] = None) -> List[Dict[str, Any]]:
    """One dict per entry: key, kernel name, target, size, last use, whether it reads."""
    root = root or knobs.cache_dir()
    out = []
    for mtime, size, path in _scan(root):
        if os.path.basename(path).startswith(".tmp-"):
            continue
        key = os.path.basename(path)[:-len(_SUFFIX)]
        item: Dict[str, Any] = {"key": key, "path": path, "bytes": size, "last_used": mtime}
        try:
            with open(path, "rb") as f:
                header, _ = _decode(f.read(), key)
            item.update(name=header.get("name"), target=header.get("target"), ok=True)
        except (OSError, _Corrupt):
            item.update(name=None, target=None, ok=False)
        out.append(item)
    out.sort(key=lambda e: -e["last_used"])
    return out


def clear(root: Optional[str] = None) -> int:
    """Removes every entry; returns how many were removed."""
    root = root or knobs.cache_dir()
    n = 0
    for _, _, path in _scan(root):
        try:
            os.unlink(path)
            n += 1
        except OSError:
            pass
    try:
        os.unlink(os.path.join(root, _USAGE))
    except OSError:
        pass
    return n


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def main(argv: Optional[List[str]] = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="tileir-cache", description="Show or clear tileir's persistent compile cache.")
    sub = p.add_subparsers(dest="cmd")
    s = sub.add_parser("show", help="list the entries (newest first) and the totals")
    s.add_argument("--limit", type=int, default=20, help="entries to list (0: all)")
    sub.add_parser("clear", help="remove every entry")
    sub.add_parser("path", help="print the cache folder")
    args = p.parse_args(argv)
    root = knobs.cache_dir()
    if args.cmd == "path":
        print(root)
        return 0
    if args.cmd == "clear":
        n = clear(root)
        print(f"removed {n} entr{'y' if n == 1 else 'ies'} from {root}")
        return 0
    items = entries(root)
    total = sum(e["bytes"] for e in items)
    state = "on" if knobs.cache_enabled() else "off (TILEIR_CACHE=0)"
    print(f"tileir compile cache: {root}")
    print(f"  PTX -> cubin: {_ptxas.ptx_compiler_status()}")
    print(f"  {len(items)} entr{'y' if len(items) == 1 else 'ies'}, {_human(total)} of {_human(knobs.cache_max_bytes())}"
          f" (least recently used go first); cache {state}")
    limit = getattr(args, "limit", 20) or len(items)
    for e in items[:limit]:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e["last_used"]))
        what = f"{e['name']} {e['target']}" if e["ok"] else "(corrupt: recompiled on next use)"
        print(f"  {e['key'][:16]}  {_human(e['bytes']):>10}  {when}  {what}")
    if len(items) > limit:
        print(f"  ... {len(items) - limit} more")
    return 0

