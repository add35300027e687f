"""Specialization: what of each argument a compiled kernel depends on.

A kernel compiles once per distinct key: each array's dtype and rank, whether its base
address is 16-byte aligned, whether its innermost stride is 1, which shapes and strides
are divisible by 16, and its index width (cuTile's facts); each scalar's type; each
``Constant`` parameter's value; and which array arguments share memory (cuTile's
element-disjointness): accesses of arrays that may overlap are ordered with each other,
those of disjoint arrays are not.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Dict, Sequence, Tuple, Union

import numpy as np

from .. import _api
from ..errors import FrontendError


@dataclass(frozen=True)
class ArraySpec:
    """An array parameter: passed as (pointer, shape[i] as i32…, stride[i] as i32…)."""

    dtype: _api.DType
    ndim: int
    aligned16: bool
    unit_inner_stride: bool
    #: per dimension: the size is a multiple of 16 (cuTile's divisibility fact)
    shape_div16: Tuple[bool, ...] = ()
    #: per dimension: the stride is a multiple of 16 elements
    stride_div16: Tuple[bool, ...] = ()
    #: shapes and strides are passed as int64 (``IndexedWithInt64``)
    index64: bool = False
    #: two distinct in-bounds indices may address the same element (a zero stride)
    may_alias_internally: bool = False


@dataclass(frozen=True)
class ScalarSpec:
    """A runtime scalar parameter."""

    dtype: _api.DType


@dataclass(frozen=True)
class ConstantSpec:
    """A ``Constant[...]`` parameter: its value is baked into the kernel."""

    value: Any


@dataclass(frozen=True)
class ListSpec:
    """A list-of-arrays parameter (cuTile's ``List[Array]``): passed as (pointer to the
    records, length as i32). The records are ``length`` rows of ``1 + 2 * ndim`` int64
    words each (base address, shape…, strides… in elements) that the kernel loads when it
    indexes the list. The length is a run-time value; ``element`` holds the facts every
    array of the list shares (cuTile's element constraint)."""

    element: ArraySpec

    @property
    def words(self) -> int:
        """Int64 words per record."""
        return list_record_words(self.element.ndim)


ParamSpec = Union[ArraySpec, ScalarSpec, ConstantSpec, ListSpec]


def list_record_words(ndim: int) -> int:
    """Int64 words of one list record: base address, ``ndim`` shapes, ``ndim`` strides."""
    return 1 + 2 * ndim


def list_records(items: Sequence[Tuple[int, Sequence[int], Sequence[int]]], ndim: int) -> np.ndarray:
    """The record buffer of a list-of-arrays argument: one row of int64 words per array,
    ``(address, shape[0..ndim], strides[0..ndim] in elements)``, C-contiguous, in list order.
    ``items`` are ``(address, shape, strides)`` triples; the address is whatever the kernel
    will dereference (a device address for a launch, an interpreter address for
    ``interpret``)."""
    words = list_record_words(ndim)
    out = np.zeros((len(items), words), dtype=np.int64)
    for i, (ptr, shape, strides) in enumerate(items):
        if len(shape) != ndim or len(strides) != ndim:
            raise ValueError(f"list item #{i} has {len(shape)} dimension(s), expected {ndim}")
        # Addresses are unsigned; the kernel reinterprets the word's bits as a pointer.
        out[i, 0] = np.uint64(ptr).astype(np.int64)
        out[i, 1:1 + ndim] = shape
        out[i, 1 + ndim:] = strides
    return out


@dataclass(frozen=True)
class Specialization:
    """Per-parameter specs, in parameter order; hashable (the cache key)."""

    names: Tuple[str, ...]
    params: Tuple[ParamSpec, ...]
    #: per parameter, the first parameter whose memory it may share (itself when it shares
    #: none; -1 for scalars and constants): arrays and lists with one label may alias
    aliasing: Tuple[int, ...] = ()


def memory_span(ptr: int, shape: Sequence[int], strides: Sequence[int], bits: int) -> Tuple[int, int]:
    """The bytes ``[lo, hi)`` an array's elements lie in (an empty span for no elements)."""
    lo = hi = 0
    for n, st in zip(shape, strides):
        if n == 0:
            return (ptr, ptr)
        ext = (n - 1) * st
        if ext < 0:
            lo += ext
        else:
            hi += ext
    return (ptr + (lo * bits) // 8, ptr + ((hi + 1) * bits + 7) // 8)


def aliases_internally(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether two distinct in-bounds indices may address one element: some dimension's
    stride, taken from the smallest, does not clear the reach of the smaller ones (a zero
    stride, as ``broadcast_to``/``expand`` make, or overlapping windows)."""
    reach = 1
    for st, n in sorted((abs(st), n) for n, st in zip(shape, strides) if n > 1):
        if st < reach:
            return True
        reach += st * (n - 1)
    return False


def alias_labels(spans: Sequence[Sequence[Tuple[int, int]]]) -> Tuple[int, ...]:
    """Per parameter (each a list of byte spans; none for scalars), the smallest index of
    a parameter whose memory overlaps its own, transitively; -1 without spans."""
    parent = list(range(len(spans)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    intervals = sorted((lo, hi, i) for i, ss in enumerate(spans) for lo, hi in ss if hi > lo)
    top_hi, top = None, -1
    for lo, hi, i in intervals:
        if top_hi is not None and lo < top_hi:
            a, b = find(i), find(top)
            parent[max(a, b)] = min(a, b)
        if top_hi is None or hi > top_hi:
            top_hi, top = hi, i
    return tuple(find(i) if spans[i] else -1 for i in range(len(spans)))


def _annotation_parts(ann: Any) -> tuple:
    """``Annotated[T, meta…]`` → (T, meta…); anything else → (ann,)."""
    meta = getattr(ann, "__metadata__", None)
    if meta is not None:
        return (ann.__origin__,) + tuple(meta)
    return (ann,)


_HINTS: Dict[Any, Tuple[Any, ...]] = {}


def _eval_annotation(text: str, fn: Any) -> Any:
    """A string annotation evaluated where the function was defined (its globals, then
    its closure), or the string itself when it names nothing there."""
    scope = dict(getattr(fn, "__globals__", {}))
    code = getattr(fn, "__code__", None)
    for name, cell in zip(code.co_freevars if code else (), getattr(fn, "__closure__", None) or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    try:
        return eval(text, scope)  # noqa: S307 - the user's own annotation, as typing.get_type_hints does
    except Exception:
        return text


def parameter_annotations(fn: Any) -> Tuple[Any, ...]:
    """Each parameter's annotation with string annotations (``from __future__ import
    annotations``, or quoted ones) resolved the way cuTile resolves them
    (``typing.get_type_hints``), so ``T: C`` with ``C = ct.Constant[int]`` is a Constant in
    either spelling. Cached per function: resolution costs more than a warm compile step."""
    hit = _HINTS.get(fn)
    if hit is not None:
        return hit
    params = inspect.signature(fn).parameters.values()
    out = []
    for p in params:
        ann = p.annotation
        if isinstance(ann, str):
            ann = _eval_annotation(ann, fn)
        out.append(ann)
    hit = _HINTS[fn] = tuple(out)
    return hit


def _is_constant_annotation(ann: Any) -> bool:
    for part in _annotation_parts(ann):
        if part is _api.Constant or isinstance(part, _api.ConstantAnnotation):
            return True
        if getattr(part, "__origin__", None) is _api.Constant:
            return True
        if isinstance(part, str) and (part.startswith("ct.Constant") or part.startswith("Constant")
                                      or "Constant[" in part):
            return True
    return False


def _is_int64_annotation(ann: Any) -> bool:
    for part in _annotation_parts(ann):
        if isinstance(part, _api.ListAnnotation):
            # ``Annotated[list, ListAnnotation(element=IndexedWithInt64)]``: the elements'.
            part = part.element
            if part is None:
                continue
        if part is _api.ScalarInt64 or (isinstance(part, _api.ArrayAnnotation) and part.index_dtype is _api.int64):
            return True
        if isinstance(part, str) and ("IndexedWithInt64" in part or "ScalarInt64" in part):
            return True
    return False


@dataclass(frozen=True)
class ArrayFacts:
    """What the front end needs of an array argument."""

    dtype: Any
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # in elements
    ptr: int


def array_facts(obj: Any) -> ArrayFacts | None:
    """Facts of a NumPy array or a device array (``__cuda_array_interface__`` / DLPack)."""
    if isinstance(obj, np.ndarray):
        itemsize = obj.dtype.itemsize
        strides = tuple(s // itemsize for s in obj.strides)
        # __array_interface__, not .ctypes: the first .ctypes imports ctypes (milliseconds).
        return ArrayFacts(obj.dtype, tuple(obj.shape), strides, obj.__array_interface__["data"][0])
    from .._toolchain import cuda

    if cuda.has_array_interface(obj):

        info = cuda.array_info(obj)
        # NumPy cannot spell bfloat16 / float8 without ml_dtypes: then the DLPack name.
        dtype = info.dtype if info.dtype is not None else (info.dtype_name or None)
        return ArrayFacts(dtype, tuple(info.shape), tuple(info.strides_elems), info.ptr)
    return None


def array_spec(dtype: _api.DType, facts: ArrayFacts, index64: bool = False) -> ArraySpec:
    """The specialization facts of one array argument."""
    return ArraySpec(dtype, len(facts.shape), facts.ptr % 16 == 0, facts.strides[-1] == 1 or facts.shape[-1] == 1,
                     tuple(s % 16 == 0 for s in facts.shape), tuple(s % 16 == 0 for s in facts.strides), index64,
                     aliases_internally(facts.shape, facts.strides))


def _span(dtype: _api.DType, facts: ArrayFacts) -> Tuple[int, int]:
    return memory_span(facts.ptr, facts.shape, facts.strides, dtype.bits)


def argument_aliasing(args: Sequence[Any]) -> Tuple[int, ...]:
    """The aliasing labels (as in :class:`Specialization`) of kernel arguments: arrays and
    lists of arrays by their memory, -1 for anything else."""
    spans = []
    for a in args:
        items = a if isinstance(a, list) else [a]
        ss = []
        for x in items:
            facts = array_facts(x) if not isinstance(x, (bool, int, float)) else None
            dtype = _api.dtype_of(facts.dtype) if facts is not None else None
            if dtype is not None:
                ss.append(_span(dtype, facts))
        spans.append(tuple(ss))
    return alias_labels(spans)


def _parameter_error(fn: Any, name: str, message: str, cls) -> FrontendError:
    """An error located at parameter ``name`` of kernel ``fn``'s ``def`` (file, line, column,
    caret), or unlocated when the source cannot be read."""
    from .translate import _Source  # translate imports this module

    try:
        src = _Source.of(fn)
        args = src.fdef.args
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            if a.arg == name:
                file, line, col, text = src.position(a)
                return cls(message, (file, line, col), text)
    except FrontendError:
        pass
    return cls(message)


def specialize(fn: Any, args: tuple) -> Specialization:
    """The specialization of kernel function ``fn`` for example arguments ``args``."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    where = f"kernel '{fn.__name__}'"
    if len(args) != len(params):
        raise FrontendError(
            f"{where} takes {len(params)} argument(s) ({', '.join(p.name for p in params)}), got {len(args)}")
    specs = []
    spans: list = []
    anns = parameter_annotations(fn)
    for p, ann, a in zip(params, anns, args):
        # Each branch appends the parameter's spec; array branches also its memory spans.
        spans.extend(() for _ in range(len(specs) - len(spans)))
        if _is_constant_annotation(ann):
            try:
                hash(a)
            except TypeError:
                raise FrontendError(f"{where}: Constant parameter '{p.name}' must be a hashable compile-time value "
                                    f"(bool, int, float, str, dtype, tuple…), got {type(a).__name__}") from None
            specs.append(ConstantSpec(a))
            continue
        if isinstance(a, bool):
            specs.append(ScalarSpec(_api.bool_))
            continue
        if isinstance(a, (int, np.integer)):
            wide = _is_int64_annotation(ann) or not -2**31 <= int(a) < 2**31
            specs.append(ScalarSpec(_api.int64 if wide else _api.int32))
            continue
        if isinstance(a, (float, np.floating)):
            specs.append(ScalarSpec(_api.float32))
            continue
        if isinstance(a, list):
            specs.append(_list_spec(fn, p.name, a, _is_int64_annotation(ann)))
            spans.append(tuple(_span(specs[-1].element.dtype, array_facts(x)) for x in a))
            continue
        if isinstance(a, tuple) and a and all(array_facts(x) is not None for x in a):
            raise _parameter_error(
                fn, p.name, f"{where}: parameter '{p.name}' is a tuple of arrays; tileir does not support tuple "
                "parameters yet; pass a list of arrays of one dtype and rank (indexed at run time), or the arrays "
                "as separate parameters", _api.TileUnsupportedFeatureError)
        facts = array_facts(a)
        if facts is None:
            raise FrontendError(
                f"{where}: argument '{p.name}' of type {type(a).__name__} is not supported; "
                "expected an array (NumPy, or a device array with __cuda_array_interface__ or __dlpack__), "
                "an int, a float, or a Constant")
        dtype = _api.dtype_of(facts.dtype)
        if dtype is None:
            raise FrontendError(f"{where}: argument '{p.name}' has unsupported dtype {facts.dtype}")
        if len(facts.shape) == 0:
            raise FrontendError(f"{where}: argument '{p.name}' is a 0-d array; pass a scalar instead")
        specs.append(array_spec(dtype, facts, _is_int64_annotation(ann)))
        spans.append((_span(dtype, facts),))
    spans.extend(() for _ in range(len(specs) - len(spans)))
    return Specialization(tuple(p.name for p in params), tuple(specs), alias_labels(spans))


def _list_spec(fn: Any, name: str, items: list, index64: bool) -> ListSpec:
    """The spec of list argument ``items`` of parameter ``name``: every item an array of one
    dtype and rank (cuTile's rules); the facts are those all items share."""
    where = f"kernel '{fn.__name__}'"
    if not items:
        raise _parameter_error(fn, name, f"{where}: parameter '{name}' is an empty list; empty lists are not "
                               "supported as kernel arguments", _api.TileTypeError)
    first = None
    specs = []
    for i, x in enumerate(items):
        facts = array_facts(x)
        if facts is None:
            raise _parameter_error(fn, name, f"{where}: item #{i} of list parameter '{name}' is a "
                                   f"{type(x).__name__}; expected list items to be arrays", _api.TileTypeError)
        dtype = _api.dtype_of(facts.dtype)
        if dtype is None:
            raise _parameter_error(fn, name, f"{where}: item #{i} of list parameter '{name}' has unsupported dtype "
                                   f"{facts.dtype}", _api.TileTypeError)
        if len(facts.shape) == 0:
            raise _parameter_error(fn, name, f"{where}: item #{i} of list parameter '{name}' is a 0-d array",
                                   _api.TileTypeError)
        spec = array_spec(dtype, facts, index64)
        if first is None:
            first = spec
        elif spec.dtype != first.dtype:
            raise _parameter_error(fn, name, f"{where}: arrays in list parameter '{name}' vary in data type: item #0 "
                                   f"is {first.dtype.name}, item #{i} is {spec.dtype.name}", _api.TileTypeError)
        elif spec.ndim != first.ndim:
            raise _parameter_error(fn, name, f"{where}: arrays in list parameter '{name}' vary in rank: item #0 has "
                                   f"{first.ndim} dimension(s), item #{i} has {spec.ndim}", _api.TileTypeError)
        specs.append(spec)
    # The kernel may only assume what holds for every item.
    elem = ArraySpec(first.dtype, first.ndim, all(s.aligned16 for s in specs),
                     all(s.unit_inner_stride for s in specs),
                     tuple(all(s.shape_div16[d] for s in specs) for d in range(first.ndim)),
                     tuple(all(s.stride_div16[d] for s in specs) for d in range(first.ndim)), index64,
                     any(s.may_alias_internally for s in specs))
    return ListSpec(elem)
