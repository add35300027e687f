"""``ct.interpret(grid, kernel, args)``: runs a tileir kernel with the reference interpreter,
on NumPy arrays, writing outputs in place (the same argument conventions as ``ct.launch``,
with host arrays instead of device arrays)."""

from __future__ import annotations

import ctypes
import sys
from typing import Any, List, Optional, Sequence, TextIO, Tuple

import numpy as np

from . import _native
from ._frontend import ArraySpec, ConstantSpec, ListSpec, ScalarSpec, list_records, specialize
from ._frontend.specialize import list_record_words
from .interpreter import _scalar_bits

__all__ = ["interpret"]


def _span(arr: np.ndarray) -> Tuple[int, int]:
    """Byte range [lo, hi) the array's elements occupy, relative to its data pointer."""
    if arr.size == 0:
        return 0, 0
    lo = hi = 0
    for n, st in zip(arr.shape, arr.strides):
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return lo, hi + arr.itemsize


class _Buffers:
    """Groups the host memory of the arguments into interpreter allocations: overlapping
    arrays (views of one another) share one allocation, so aliasing behaves as on a GPU."""

    def __init__(self):
        self.ranges: List[List[int]] = []   # [start_address, end_address, writable]

    def add(self, arr: np.ndarray) -> Tuple[int, int]:
        ptr = arr.__array_interface__["data"][0]
        lo, hi = _span(arr)
        start, end = ptr + lo, ptr + hi
        for r in self.ranges:
            if start < r[1] and r[0] < end:
                r[0], r[1] = min(r[0], start), max(r[1], end)
                r[2] = r[2] and arr.flags.writeable
                break
        else:
            self.ranges.append([start, end, arr.flags.writeable])
        return start, ptr

    def merge(self) -> None:
        self.ranges.sort()
        merged: List[List[int]] = []
        for r in self.ranges:
            if merged and r[0] < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], r[1])
                merged[-1][2] = merged[-1][2] and r[2]
            else:
                merged.append(list(r))
        self.ranges = merged

    def locate(self, address: int) -> Tuple[int, int]:
        for i, r in enumerate(self.ranges):
            if r[0] <= address < max(r[1], r[0] + 1):
                return i, address - r[0]
        raise AssertionError("argument address outside every buffer")

    def interpreter_bases(self, extra_sizes: Sequence[int] = ()) -> List[int]:
        """The address each buffer (then each of ``extra_sizes`` more, passed after them)
        gets in the interpreter's memory, asked of the native allocator itself: list records
        hold addresses the kernel dereferences, so they must be exactly these."""
        sizes = [max(e - s, 1) for s, e, _ in self.ranges] + list(extra_sizes)
        return list(_native.interpreter_buffer_bases(sizes))

    def views(self) -> List[memoryview]:
        return [memoryview((ctypes.c_char * max(e - s, 1)).from_address(s)).cast("B") for s, e, _ in self.ranges]



def _lives_on_gpu(a) -> bool:
    """Whether ``a`` is a device array (torch's ``__cuda_array_interface__`` raises KeyError
    for float8 tensors: any failure of it still says GPU)."""
    try:
        if hasattr(a, "__cuda_array_interface__"):
            return True
    except Exception:
        return True
    return hasattr(a, "device") and "cuda" in str(getattr(a, "device", ""))

def interpret(grid: Sequence[int], kernel: Any, args: Sequence[Any], *, shuffle: Optional[int] = None,
              parallel: bool = False, detect_races: bool = False, check_assumes: bool = False,
              file: Optional[TextIO] = None, stage: Optional[str] = None, target: str = "sm_90a",
              pipeline: Optional[str] = None) -> str:
    """Runs ``kernel`` over ``grid`` tile blocks on the CPU, exactly as cuda_tile specifies.

    ``args`` follow ``ct.launch``: NumPy arrays (any strides; written in place), Python or
    NumPy scalars, and the values of ``Constant`` parameters. Blocks run x-fastest unless
    ``shuffle=seed`` picks a seeded random order; ``detect_races`` reports data races between
    blocks (one block writing an element another block reads or writes, or accessing
    plainly what another updates atomically; atomics among themselves never race), naming
    both blocks, the array and the element. A shuffled order implies race checking: a result
    that depends on block order is a data race, which the specification leaves undefined.
    ``check_assumes`` checks ``assume`` facts. ``stage`` runs the kernel as the compiler
    has lowered it instead (``"nv_tileaa"``, ``"nv_tileas"``, ``"nv_tileas-registers"``: a
    stage of ``ct.compile(kernel, args, target, pipeline=pipeline).asm``, produced by the
    passes alone, so agent and TMA forms the LLVM writer cannot emit yet run too), so each
    lowering can be checked against the source by execution. What the kernel prints goes
    to ``file`` (default ``sys.stdout``) and is returned. Faults (a failed ``ct.assert_``,
    undefined behaviour, an access outside every array) raise ``InterpreterError`` with the
    kernel source location.
    """
    from ._compile import Kernel, compile_to_ir

    if not isinstance(kernel, Kernel):
        raise TypeError(f"interpret() expects a @tileir.kernel, got {type(kernel).__name__}")
    if isinstance(grid, int):
        grid = (grid,)
    g = tuple(int(x) for x in grid) + (1,) * (3 - len(tuple(grid)))
    if len(g) != 3 or any(x < 1 for x in g):
        raise ValueError(f"grid must be 1 to 3 positive integers, got {tuple(grid)!r}")
    args = tuple(args)
    for i, a in enumerate(args):
        if isinstance(a, list) and a:
            a = a[0]  # a list of arrays: its items share where they live
        if _lives_on_gpu(a):
            raise TypeError(f"argument #{i} lives on a GPU; interpret() runs on host (NumPy) arrays")
    module = compile_to_ir(kernel, args)
    spec = specialize(kernel.fn, args)
    (entry,) = module.entries()
    params = module.entry_params(entry)

    buffers = _Buffers()
    arrays = []
    lists = []
    for name, pspec, arg in zip(spec.names, spec.params, args):
        if isinstance(pspec, ArraySpec):
            arr = np.asarray(arg)
            arrays.append((name, arr, buffers.add(arr)))
        elif isinstance(pspec, ListSpec):
            items = [np.asarray(x) for x in arg]
            lists.append((items, [buffers.add(x) for x in items]))
    buffers.merge()
    views = buffers.views()
    # Each list's records go in a buffer of their own after the arrays' buffers; they hold
    # the interpreter addresses of the list's arrays.
    record_sizes = [len(items) * list_record_words(items[0].ndim) * 8 for items, _ in lists]
    bases = buffers.interpreter_bases(record_sizes)
    records = []
    for items, placed in lists:
        rows = []
        for x, (start, ptr) in zip(items, placed):
            index, _ = buffers.locate(start)
            rows.append((bases[index] + ptr - buffers.ranges[index][0], x.shape,
                         [st // x.itemsize for st in x.strides]))
        records.append(list_records(rows, items[0].ndim).tobytes())

    flat: List[tuple] = []
    # Names of the flattened entry parameters (an array is a pointer, then its shape and
    # strides), so race reports name the Python argument.
    names: List[str] = []
    k = 0
    n_lists = 0
    arr_iter = iter(arrays)
    for name, pspec, arg in zip(spec.names, spec.params, args):
        if isinstance(pspec, ConstantSpec):
            continue
        if isinstance(pspec, ScalarSpec):
            elem = params[k][len("tile<"):-1]
            flat.append(("scalar", elem, _scalar_bits(elem, arg)))
            names.append(name)
            k += 1
            continue
        if isinstance(pspec, ListSpec):
            flat.append(("ptr", len(views) + n_lists, 0))  # its records' buffer
            n_lists += 1
            names.append(name)
            flat.append(("scalar", "i32", _scalar_bits("i32", len(arg))))
            names.append(f"len({name})")
            k += 2
            continue
        _, arr, (start, ptr) = next(arr_iter)
        index, _ = buffers.locate(start)
        flat.append(("ptr", index, ptr - buffers.ranges[index][0]))
        names.append(name)
        k += 1
        for d, v in enumerate(list(arr.shape) + [st // arr.itemsize for st in arr.strides]):
            elem = params[k][len("tile<"):-1]
            flat.append(("scalar", elem, _scalar_bits(elem, v)))
            names.append(f"{name}.{'shape' if d < arr.ndim else 'strides'}[{d % max(arr.ndim, 1)}]")
            k += 1
    if k != len(params):
        raise AssertionError(f"kernel ABI mismatch: {k} values for {len(params)} parameters")
    run = module
    if stage is not None and stage != "cuda_tile":
        from ._compile import _pipeline_for_hints

        if pipeline is None:
            pipeline = _pipeline_for_hints(kernel, target)
        # The passes only: lowered forms the LLVM writer cannot emit yet (agents) still run.
        stages = dict(_native.lower_stages(module, pipeline or ""))
        if stage not in stages:
            raise ValueError(f"no stage '{stage}' in this compile; stages: {', '.join(stages)}")
        run = _native.parse(stages[stage], f"<{stage}>", False, False)
    output, results = _native.interpret(run, entry, g, [bytes(v) for v in views] + records, flat, shuffle,
                                        parallel, detect_races, check_assumes, arg_names=names)
    for view, (_s, _e, writable), data in zip(views, buffers.ranges, results):
        # None: nothing to copy back (the binding wrote in place, or nothing was written).
        if data is not None and writable and bytes(view) != data:
            view[:] = data
    if output:
        print(output, end="", file=file if file is not None else sys.stdout)
    return output
