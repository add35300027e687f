"""Runs compiled kernels on the CPU with GPU semantics, through the PTX emulator
(the ``tileir-ptx-emu`` crate): the PTX that LLVM's NVPTX backend produced is parsed,
decoded once and executed warp by warp over host copies of the arguments.

* :func:`emulate` — ``ct.launch``'s conventions on NumPy arrays: compiles ``kernel`` for
  ``args`` with :func:`tileir.compile` and runs its PTX over ``grid``; arrays are written
  in place.
* :func:`run_ptx` — any PTX text (or a :class:`tileir.CompiledKernel`) with explicit
  arguments.

Undefined behaviour never yields a silent value: out-of-bounds or misaligned accesses,
deadlocks, divergent warp collectives, traps and (with ``race_check=True``) shared-memory
races, and global-memory races between the threads of one CTA, raise :class:`EmulatorError`
naming the PTX line and the thread.
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import _native
from .errors import LaunchError, TileIRError

__all__ = ["EmulatorError", "EmulationResult", "TensorMap", "emulate", "run_ptx"]


class EmulatorError(TileIRError):
    """A kernel failed under emulation. ``kind`` is the category (``Memory``, ``Deadlock``,
    ``Undefined``, ``Trap``, ``Parse``, ``Decode``, ``Launch``, ``StepLimit``), ``line`` the
    1-based PTX line (0 when there is none)."""

    def __init__(self, kind: str, line: int, message: str):
        super().__init__(message)
        self.kind = kind
        self.line = line
        self.message = message


@dataclass
class EmulationResult:
    """What a run produced besides the arrays it wrote."""

    #: ``printf`` output, CTA by CTA.
    output: str
    #: thread-instructions executed.
    thread_insts: int
    #: wall-clock seconds of the emulation itself.
    seconds: float
    #: successful in-kernel ``malloc`` calls (device heap; zero-byte ones included).
    heap_allocations: int = 0
    #: ``free`` calls that released an allocation (``free(NULL)`` is not counted).
    heap_frees: int = 0
    #: ``malloc`` calls that returned NULL because the heap (``malloc_heap_bytes``) was full.
    heap_failed_allocations: int = 0
    #: most bytes of device heap live at once.
    heap_peak_bytes: int = 0
    #: allocations never freed when the kernel ended (0 when every malloc had its free).
    heap_live_at_exit: int = 0


@dataclass(frozen=True)
class TensorMap:
    """A :func:`run_ptx` argument: the 128-byte TMA tensor map (``CUtensorMap``) of a tiled
    copy over NumPy array ``array``, encoded by the emulator's encoder around the address
    the array gets under emulation (the array is a launch buffer, written back in place).

    ``box`` is the copy's box, outermost dimension first like ``array.shape``; ``swizzle``
    the shared-memory swizzle in bytes (0, 32, 64 or 128); ``elem`` the element type
    (``f16``, ``bf16``, ``f32``, ``i8``, ...), by default from the dtype (``bf16`` needs
    ``elem="bf16"`` on a 16-bit array)."""

    array: np.ndarray
    box: Tuple[int, ...]
    swizzle: int = 0
    elem: Optional[str] = None

    def element(self) -> str:
        if self.elem is not None:
            return self.elem
        kinds = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.int8): "i8",
                 np.dtype(np.uint8): "i8"}
        if self.array.dtype not in kinds:
            raise LaunchError(f"no tensor-map element type for {self.array.dtype}: pass elem=")
        return kinds[self.array.dtype]


def _dims(v: Any, what: str) -> Tuple[int, int, int]:
    if isinstance(v, int):
        v = (v,)
    t = tuple(int(x) for x in v)
    if not 1 <= len(t) <= 3 or any(x < 1 for x in t):
        raise LaunchError(f"{what} must be 1 to 3 positive integers, got {v!r}")
    return t + (1,) * (3 - len(t))


class _RawBytes:
    """Exposes ``n`` bytes at an address as a NumPy array (keeping the owner alive)."""

    def __init__(self, addr: int, n: int, readonly: bool, owner: Any):
        self.__array_interface__ = {"shape": (n,), "typestr": "|u1", "data": (addr, readonly), "version": 3}
        self._owner = owner


def _extent(a: np.ndarray) -> Tuple[int, int, int]:
    """(start, end, first-element) addresses of the bytes array ``a`` may touch."""
    first = a.__array_interface__["data"][0]
    if a.size == 0:
        return first, first, first
    lo = sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides)) + a.itemsize
    return first + lo, first + hi, first


class _Memory:
    """The host arrays of a launch as emulator buffers: arrays whose bytes overlap share one
    buffer (so aliasing arguments alias under emulation too); record buffers follow."""

    def __init__(self):
        self.arrays: List[np.ndarray] = []
        self.records: List[bytes] = []
        self._regions: List[Tuple[int, int, bool, Any]] = []
        self._placed: Optional[List[Tuple[int, int]]] = None

    def add_array(self, a: np.ndarray) -> int:
        self.arrays.append(a)
        return len(self.arrays) - 1

    def add_record(self, data: bytes) -> int:
        self.records.append(data)
        return len(self.records) - 1

    def _layout(self):
        spans = sorted((_extent(a)[:2] + (i,)) for i, a in enumerate(self.arrays))
        merged: List[List[int]] = []
        owner = {}
        for lo, hi, i in spans:
            if merged and lo < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
            owner[i] = len(merged) - 1
        self.regions = [(lo, hi) for lo, hi in merged]
        self.owner = owner

    def finish(self) -> Tuple[List[bytes], List[int]]:
        """Buffer contents and their emulator base addresses."""
        self._layout()
        contents = []
        for lo, hi in self.regions:
            keep = [a for i, a in enumerate(self.arrays) if self.regions[self.owner[i]] == (lo, hi)]
            contents.append(np.asarray(_RawBytes(lo, hi - lo, True, keep)).tobytes())
        sizes = [len(c) for c in contents] + [len(r) for r in self.records]
        self.bases = list(_native.emulator_buffer_bases(sizes))
        return contents + list(self.records), self.bases

    def array_pointer(self, i: int) -> Tuple[int, int]:
        """(buffer index, byte offset) of array ``i``'s first element."""
        lo, _ = self.regions[self.owner[i]]
        return self.owner[i], _extent(self.arrays[i])[2] - lo

    def array_address(self, i: int) -> int:
        b, off = self.array_pointer(i)
        return self.bases[b] + off

    def record_index(self, r: int) -> int:
        return len(self.regions) + r

    def write_back(self, results: Sequence[bytes]) -> None:
        for k, (lo, hi) in enumerate(self.regions):
            data = results[k]
            members = [a for i, a in enumerate(self.arrays) if self.owner[i] == k]
            writable = all(a.flags.writeable for a in members)
            view = np.asarray(_RawBytes(lo, hi - lo, not writable, members))
            new = np.frombuffer(data, dtype=np.uint8)
            if not writable:
                if not np.array_equal(view, new):
                    raise EmulatorError("Memory", 0, "the kernel wrote into a read-only array")
                continue
            # Only changed bytes are stored back, so gaps of a strided view that the kernel
            # did not touch keep whatever the host wrote there meanwhile.
            diff = view != new
            if diff.any():
                view[diff] = new[diff]


def _scalar(kind: str, value: Any) -> Tuple[str, int]:
    if kind == "i32":
        return ("u32", int(value) & 0xFFFFFFFF)
    if kind == "i64":
        return ("u64", int(value) & 0xFFFFFFFFFFFFFFFF)
    if kind == "f32":
        return ("f32", struct.unpack("<I", struct.pack("<f", float(value)))[0])
    if kind == "f64":
        return ("f64", struct.unpack("<Q", struct.pack("<d", float(value)))[0])
    raise LaunchError(f"scalar parameters of type {kind} cannot be emulated")


def _call(ptx: str, name: Optional[str], grid, block, params, mem: _Memory, shared: int, race_check: bool,
          threads: int, max_warp_steps: Optional[int], shared_fill: int = 0xFF, cluster=None,
          malloc_heap_bytes: Optional[int] = None) -> EmulationResult:
    buffers, _ = mem.finish()
    resolved = []
    for p in params:
        if p[0] == "array":
            b, off = mem.array_pointer(p[1])
            resolved.append(("ptr", b, off))
        elif p[0] == "record":
            resolved.append(("ptr", mem.record_index(p[1]), 0))
        elif p[0] == "tensor_map":
            tm: TensorMap = p[2]
            a = mem.arrays[p[1]]
            try:
                data = _native.encode_tensor_map(tm.element(), mem.array_address(p[1]), [int(n) for n in a.shape],
                                                 [int(st) for st in a.strides], [int(b) for b in tm.box],
                                                 int(tm.swizzle))
            except ValueError as e:
                raise LaunchError(f"tensor map argument: {e}") from None
            resolved.append(("bytes", data))
        else:
            resolved.append(p)
    t0 = time.perf_counter()
    # malloc_heap_bytes only when given, so a native module built before it still runs.
    heap = {} if malloc_heap_bytes is None else {"malloc_heap_bytes": int(malloc_heap_bytes)}
    out = _native.emulate_ptx(ptx, name, grid, block, resolved, [bytes(b) for b in buffers], shared, race_check, threads,
                              max_warp_steps, shared_fill, cluster, **heap)
    dt = time.perf_counter() - t0
    if "buffers" in out:  # absent when the PTX did not parse or decode
        mem.write_back(out["buffers"])
    if not out["ok"]:
        kind, line, message = out["error"]
        raise EmulatorError(kind, line, message)
    heap_stats = {k: out.get(k, 0) for k in ("heap_allocations", "heap_frees", "heap_failed_allocations",
                                             "heap_peak_bytes", "heap_live_at_exit")}
    return EmulationResult(output=out["output"], thread_insts=out["thread_insts"], seconds=dt, **heap_stats)


def run_ptx(ptx: Any, kernel_name: Optional[str], grid: Any, block: Any = None, args: Sequence[Any] = (), *,
            shared: int = 0, race_check: bool = False, threads: int = 0,
            max_warp_steps: Optional[int] = None, shared_fill: int = 0xFF, cluster: Any = None,
            malloc_heap_bytes: Optional[int] = None) -> EmulationResult:
    """Runs kernel ``kernel_name`` (None: the first) of ``ptx`` — PTX text or a
    :class:`tileir.CompiledKernel` — over ``grid`` CTAs of ``block`` threads.

    ``args`` are the PTX parameters in order: a NumPy array is a pointer to its first element
    (written back in place), a Python ``int``/``float`` a scalar as wide as the parameter,
    ``(kind, value)`` with kind ``u32``/``u64``/``i32``/``i64``/``f32``/``f64`` an explicit
    scalar, ``bytes`` an array parameter, and a :class:`TensorMap` a 128-byte tensor map over
    an array (which becomes a launch buffer too). ``block`` defaults
    to the kernel's thread count when ``ptx`` is a CompiledKernel.

    Options: ``shared`` bytes of dynamic shared memory; ``race_check`` reports shared-memory
    races, reads of never-written shared bytes, and global bytes two threads of one CTA
    access with nothing ordering them (one writing; atomics never race; other CTAs'
    accesses are not compared); ``threads`` OS threads for CTAs (0: all
    cores); ``max_warp_steps`` per-CTA instruction budget; ``shared_fill`` the byte shared
    memory starts as (default 0xFF, NaN in every float width); ``cluster`` the thread-block
    cluster dimensions of a cluster launch (a kernel's ``.reqnctapercluster`` sets them too,
    and the two must agree); ``malloc_heap_bytes`` the device heap's capacity for in-kernel
    ``malloc`` (default CUDA's ``cudaLimitMallocHeapSize``, 8 MiB: a request that does not
    fit beside the live allocations returns NULL). Heap memory starts filled with 0xCD, and
    the result's ``heap_*`` counters tell whether every ``malloc`` had its ``free``."""
    from ._compile import CompiledKernel

    if isinstance(ptx, CompiledKernel):
        if block is None:
            block = (ptx.num_threads,)
        kernel_name = kernel_name or ptx.name
        shared = max(shared, ptx.dynamic_smem)
        ptx = ptx.asm["ptx"]
    if block is None:
        raise LaunchError("run_ptx needs block= for PTX text")
    mem = _Memory()
    params = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            params.append(("array", mem.add_array(a)))
        elif isinstance(a, TensorMap):
            params.append(("tensor_map", mem.add_array(a.array), a))
        elif isinstance(a, (bytes, bytearray)):
            params.append(("bytes", bytes(a)))
        elif isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], str):
            kind, v = a
            params.append(_scalar({"u32": "i32", "u64": "i64"}.get(kind, kind), v))
        elif isinstance(a, (bool, int, np.integer)):
            params.append(("int", int(a)))
        elif isinstance(a, (float, np.floating)):
            params.append(("float", float(a)))
        else:
            raise LaunchError(f"argument #{i} ({type(a).__name__}) is not an array, scalar, (kind, value) or bytes")
    return _call(ptx, kernel_name, _dims(grid, "grid"), _dims(block, "block"), params, mem, shared, race_check, threads,
                 max_warp_steps, shared_fill, None if cluster is None else _dims(cluster, "cluster"), malloc_heap_bytes)


def emulate(grid: Any, kernel: Any, args: Sequence[Any], *, target: str = "sm_90a", race_check: bool = False,
            threads: int = 0, max_warp_steps: Optional[int] = None, shared_fill: int = 0xFF,
            malloc_heap_bytes: Optional[int] = None) -> EmulationResult:
    """Runs ``kernel`` (a ``@tileir.kernel`` or a CompiledKernel) over ``grid`` tile blocks
    like ``ct.launch``, on NumPy arrays that are written in place: compiles it for ``target``
    and emulates the PTX. The options are :func:`run_ptx`'s."""
    from ._compile import CompiledKernel, Kernel, _matches_spec, compile
    from ._frontend import ArraySpec, ConstantSpec, ListSpec, ScalarSpec, list_records

    args = tuple(args)
    if isinstance(kernel, Kernel):
        compiled = compile(kernel, args, target=target)
    elif isinstance(kernel, CompiledKernel):
        compiled = kernel
        if not _matches_spec(compiled, args):
            raise LaunchError(f"arguments do not match the specialization kernel '{compiled.name}' was compiled for")
    else:
        raise TypeError(f"emulate() expects a tileir kernel, got {type(kernel).__name__}")
    mem = _Memory()
    params: List[Any] = []
    lists = []
    for pname, pspec, arg in zip(compiled.spec.names, compiled.spec.params, args):
        if isinstance(pspec, ConstantSpec):
            continue
        if isinstance(pspec, ScalarSpec):
            kind = {"i32": "i32", "i64": "i64", "f32": "f32", "f64": "f64", "i1": "i32"}.get(pspec.dtype.ir)
            if kind is None:
                raise LaunchError(f"scalar parameter '{pname}' of type {pspec.dtype.ir} cannot be passed")
            params.append(_scalar(kind, int(arg) if pspec.dtype.ir == "i1" else arg))
            continue
        if isinstance(pspec, ListSpec):
            if not isinstance(arg, list) or not arg:
                raise LaunchError(f"list parameter '{pname}' needs a non-empty list of arrays")
            items = [mem.add_array(_host(pname, x)) for x in arg]
            rec = len(lists)
            lists.append((pspec, items))
            params.append(("record", rec))
            params.append(("u32", len(arg)))
            continue
        a = _host(pname, arg)
        params.append(("array", mem.add_array(a)))
        for s in a.shape:
            params.append(("u32", int(s)))
        for s in a.strides:
            params.append(("u32", (s // a.itemsize) & 0xFFFFFFFF))
    if lists:
        # Records hold emulator addresses, known once every array is placed.
        mem._layout()
        sizes = [hi - lo for lo, hi in mem.regions]
        bases = list(_native.emulator_buffer_bases(sizes))
        for pspec, items in lists:
            rows = []
            for i in items:
                b, off = mem.array_pointer(i)
                a = mem.arrays[i]
                rows.append((bases[b] + off, a.shape, tuple(s // a.itemsize for s in a.strides)))
            mem.add_record(list_records(rows, pspec.element.ndim).tobytes())
    if compiled.tensor_maps:
        # TMA tensor maps, encoded by the emulator's own encoder around emulator addresses.
        from ._compile import encode_tensor_map

        mem._layout()
        bases = list(_native.emulator_buffer_bases([hi - lo for lo, hi in mem.regions]))
        values = []
        for p in params:
            if p[0] == "array":
                b, off = mem.array_pointer(p[1])
                values.append(bases[b] + off)
            else:
                values.append(p[1] if p[0] != "u32" else (p[1] - (1 << 32) if p[1] >= 1 << 31 else p[1]))
        for spec in compiled.tensor_maps:
            params.append(("bytes", encode_tensor_map(spec, values, _native.encode_tensor_map)))
    return _call(compiled.asm["ptx"], compiled.name, _dims(grid, "grid"), (compiled.num_threads, 1, 1), params, mem,
                 compiled.dynamic_smem, race_check, threads, max_warp_steps, shared_fill,
                 malloc_heap_bytes=malloc_heap_bytes)


def _host(pname: str, a: Any) -> np.ndarray:
    if not isinstance(a, np.ndarray):
        raise LaunchError(f"argument '{pname}' must be a NumPy array for emulation, got {type(a).__name__}")
    if any(s % a.itemsize for s in a.strides):
        raise LaunchError(f"argument '{pname}' has strides {a.strides} that are not whole elements")
    return a
