"""Host side: ``@kernel``, ``compile`` and ``launch``."""

from __future__ import annotations

import functools
import os
import operator
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _native, cache as _disk, knobs
from ._frontend import (ArraySpec, ConstantSpec, ListSpec, ScalarSpec, Specialization, list_records, specialize,
                        translate)
from ._frontend.specialize import alias_labels, aliases_internally, argument_aliasing, memory_span
from .errors import LaunchError

#: Hint names ``@kernel`` accepts: cuTile's, plus tileir's ``num_stages`` (software
#: pipelining depth of loop loads: 1 turns it off; the default pipeline uses 2) and
#: ``warp_specialize`` (a bool: on sm_90a, whether a K loop's TMA ring may get a producer
#: warpgroup of its own, spec/001's AWS; default True. False keeps AUS, the kernel's warps
#: issuing the copies between their mmas).
_HINTS = ("num_ctas", "occupancy", "opt_level", "num_worker_warps", "num_stages", "warp_specialize")

#: Hints that take a bool rather than an int.
_BOOL_HINTS = ("warp_specialize",)

#: LLVM cpu for each target tileir accepts; sm_90 means sm_90a (wgmma, setmaxnreg).
_LLVM_CPU = {"sm_80": "sm_80", "sm_86": "sm_86", "sm_89": "sm_89", "sm_90": "sm_90a", "sm_90a": "sm_90a"}


class Kernel:
    """A tile kernel: a Python function plus compiler hints, with its own cache of
    compiled specializations. Call it through :func:`launch`, never directly."""

    def __init__(self, fn, hints: Dict[str, Any]):
        for k, v in hints.items():
            if k not in _HINTS:
                raise TypeError(f"unknown kernel hint '{k}'; expected one of: {', '.join(_HINTS)}")
            _check_hint(k, v)
        self.fn = fn
        self.hints = dict(hints)
        self._cache: Dict[Tuple, "CompiledKernel"] = {}
        #: launch plans: (context, argument signature) -> _LaunchPlan (see launch())
        self._plans: Dict[Tuple, "_LaunchPlan"] = {}
        #: the launcher of the latest plan used: tried first by launch()
        self._fast: Any = None
        self._constant_mask: Optional[Tuple[bool, ...]] = None
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    @property
    def name(self) -> str:
        return self.fn.__name__

    def replace_hints(self, **hints) -> "Kernel":
        """A new kernel with some hints changed (and its own cache)."""
        merged = dict(self.hints)
        merged.update(hints)
        return Kernel(self.fn, merged)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"tile kernel '{self.name}' cannot be called directly; use tileir.launch(stream, grid, kernel, args)")

    def __repr__(self) -> str:
        return f"<tileir.Kernel {self.name}>"


def _check_hint(name: str, value: Any) -> None:
    """Validates one hint (cuTile's ranges); a ByTarget is checked per target."""
    from ._api import ByTarget

    if value is None:
        return
    if isinstance(value, ByTarget):
        for _, v in value.items():
            _check_hint(name, v)
        return
    if name in _BOOL_HINTS:
        if not isinstance(value, bool):
            raise TypeError(f"kernel hint '{name}' must be a bool or a tileir.ByTarget, got {type(value).__name__}")
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"kernel hint '{name}' must be an int or a tileir.ByTarget, got {type(value).__name__}")
    ok = {
        "num_ctas": (value > 0 and value & (value - 1) == 0 and value <= 16, "a power of two in [1, 16]"),
        "occupancy": (1 <= value <= 32, "in [1, 32]"),
        "opt_level": (0 <= value <= 3, "in [0, 3]"),
        "num_worker_warps": (value > 0 and value & (value - 1) == 0 and value <= 32, "a power of two in [1, 32]"),
        "num_stages": (1 <= value <= 8, "in [1, 8]"),
    }[name]
    if not ok[0]:
        raise ValueError(f"kernel hint '{name}' must be {ok[1]}, got {value}")


def kernel(fn=None, /, **hints):
    """Marks a tile kernel: ``@tileir.kernel`` or ``@tileir.kernel(num_ctas=…, occupancy=…,
    opt_level=…, num_worker_warps=…, num_stages=…, warp_specialize=…)``."""
    if fn is None:
        return lambda f: Kernel(f, hints)
    return Kernel(fn, hints)


@dataclass
class CompiledKernel:
    """One specialization of a kernel, compiled for one target."""

    name: str
    target: str
    spec: Specialization
    asm: Dict[str, str]
    cubin: bytes
    num_threads: int
    params: List[str]
    pipeline: str
    ptxas_info: Any
    warnings: List[str]
    timings: Dict[str, float]
    #: True when this kernel came from the persistent cache (tileir.cache) unchanged
    from_cache: bool = False
    #: ptxas advisories (C7508, ...) of the compile, replayed as warnings on a cache hit
    advisories: List[str] = field(default_factory=list, repr=False)
    ptxas_arch: str = field(default="", repr=False)
    #: what made the cubin: "nvPTXCompiler 13.5" (the library) or the ptxas executable's path
    ptx_compiler: str = field(default="", repr=False)
    #: bytes of dynamic shared memory each launch provides (0: the kernel's shared memory is
    #: static); above 48 KiB the function is opted in first
    dynamic_smem: int = 0
    #: TMA tensor maps the kernel takes as trailing parameters: which array parameters
    #: (``{"base", "sizes", "strides"}``, each ``("param", index)`` or ``("const", value)``),
    #: the element, box and swizzle; the launcher encodes them per launch
    tensor_maps: List[Dict[str, Any]] = field(default_factory=list)
    _modules: Dict[Any, Any] = field(default_factory=dict, repr=False)
    #: per stream: the device buffers of the list arguments of the latest launch
    _list_records: Dict[int, Any] = field(default_factory=dict, repr=False)

    @property
    def registers(self) -> int:
        return self.ptxas_info.registers if self.ptxas_info else 0

    @property
    def shared_bytes(self) -> int:
        return self.ptxas_info.shared_bytes if self.ptxas_info else 0

    @property
    def spills(self) -> bool:
        return bool(self.ptxas_info and self.ptxas_info.spills)

    def kernel_params(self, args: Sequence[Any]) -> List[Tuple[str, Any]]:
        """The launch parameters for ``args`` (which must match the specialization)."""
        from ._toolchain import cuda

        out: List[Tuple[str, Any]] = []
        for pname, pspec, arg in zip(self.spec.names, self.spec.params, args):
            if isinstance(pspec, ConstantSpec):
                if arg != pspec.value:
                    raise LaunchError(f"Constant '{pname}' was compiled as {pspec.value!r}, got {arg!r}")
                continue
            if isinstance(pspec, ScalarSpec):
                kind = {"i32": "i32", "i64": "i64", "f32": "f32", "f64": "f64", "i1": "i32"}[pspec.dtype.ir]
                out.append((kind, arg))
                continue
            if isinstance(pspec, ListSpec):
                # The records go to a device buffer of their own; the DeviceArray itself is
                # the parameter value so that launch() can keep it alive.
                out.append(("ptr", cuda.to_device(list_arg_records(pname, pspec, arg))))
                out.append(("i32", len(arg)))
                continue
            info = cuda.array_info(arg)
            if not info.is_cuda_accessible:
                raise LaunchError(f"argument '{pname}' lives on the host ({info.device_type_name}); "
                                  "launch needs device arrays (torch/CuPy on CUDA, or tileir.cuda.to_device)")
            out.append(("ptr", info.ptr))
            for s in info.shape:
                if s >= 2**31:
                    raise LaunchError(f"argument '{pname}' has a dimension of {s}, more than int32 indexing allows")
                out.append(("i32", s))
            for s in info.strides_elems:
                out.append(("i32", s))
        for spec in self.tensor_maps:
            out.append(("bytes", encode_tensor_map(spec, [v for _, v in out], cuda.encode_tensor_map)))
        return out


#: bytes per element of the tensor-map element names
_TENSOR_MAP_ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "f8E4M3FN": 1, "f8E5M2": 1}


def encode_tensor_map(spec: Dict[str, Any], values: Sequence[Any], encoder: Any) -> bytes:
    """The 128 bytes of tensor map ``spec`` (a ``CompiledKernel.tensor_maps`` entry) for the
    kernel's other parameter ``values`` (a device array's address is its ``ptr``), by
    ``encoder(elem, address, sizes, strides_bytes, box, swizzle_bytes)``: the driver's
    (``cuda.encode_tensor_map``) or the emulator's (``_native.encode_tensor_map``)."""
    def value(ref):
        kind, v = ref
        return int(v) if kind == "const" else int(values[v])

    base = values[spec["base"]]
    address = int(getattr(base, "ptr", base))
    elem_bytes = _TENSOR_MAP_ELEM_BYTES[spec["elem"]]
    return encoder(spec["elem"], address, [value(r) for r in spec["sizes"]],
                   [value(r) * elem_bytes for r in spec["strides"]], list(spec["box"]), int(spec["swizzle"]))


def list_arg_records(pname: str, pspec: ListSpec, arg: Sequence[Any]):
    """The int64 record rows (device address, shapes, strides in elements) of list argument
    ``arg`` of parameter ``pname``, built on the host; ``launch`` copies them to the device."""
    from ._toolchain import cuda

    if not isinstance(arg, list) or not arg:
        raise LaunchError(f"list parameter '{pname}' needs a non-empty list of arrays, got {type(arg).__name__}")
    rows = []
    for i, x in enumerate(arg):
        info = cuda.array_info(x)
        if not info.is_cuda_accessible:
            raise LaunchError(f"item #{i} of list argument '{pname}' lives on the host ({info.device_type_name}); "
                              "launch needs device arrays (torch/CuPy on CUDA, or tileir.cuda.to_device)")
        if len(info.shape) != pspec.element.ndim:
            raise LaunchError(f"item #{i} of list argument '{pname}' has {len(info.shape)} dimension(s); the kernel "
                              f"was compiled for {pspec.element.ndim}")
        if not pspec.element.index64 and any(abs(v) >= 2**31 for v in tuple(info.shape) + tuple(info.strides_elems)):
            raise LaunchError(f"item #{i} of list argument '{pname}' has a shape or stride beyond int32 indexing; "
                              "annotate the parameter with ListAnnotation(element=IndexedWithInt64)")
        rows.append((info.ptr, info.shape, info.strides_elems))
    return list_records(rows, pspec.element.ndim)


#: The register cap the occupancy hint puts in the kernel's LLVM attributes.
_MAXNREG = __import__("re").compile(r' "nvvm\.maxnreg"="\d+"')


def _spills(result) -> bool:
    """Whether ptxas reported spills for any kernel of ``result``."""
    return any((i.spill_stores_bytes or i.spill_loads_bytes) for i in result.info.values())


def _pipeline_for_hints(kernel: Kernel, target: str) -> Optional[str]:
    """The pass pipeline a kernel's ``num_stages`` hint asks for (None: the default).

    The hint sets the register pipeline's depth and, on sm_90a, the depth of the TMA ring
    that feeds wgmma (``mma-operand-stages``; by default the ring takes as many stages as
    fit in shared memory, up to four).

    The default pipeline bounds the bytes in flight per thread (large tiles then stay
    unpipelined rather than spill); an explicit ``num_stages`` is honoured without that
    bound (a spill is reported as a TileIRPerformanceWarning)."""
    import re

    from ._api import ByTarget

    stages = kernel.hints.get("num_stages")
    if isinstance(stages, ByTarget):
        stages = stages.resolve(target)
    specialize = kernel.hints.get("warp_specialize")
    if isinstance(specialize, ByTarget):
        specialize = specialize.resolve(target)
    if stages is None and specialize in (None, True):
        return None
    pipelined = _native.default_pipeline(target)
    ring = ""
    if stages is not None:
        pipelined, n = re.subn(r"tileas-unspecialized-pipeline\{[^}]*\}",
                               f"tileas-unspecialized-pipeline{{num-stages={stages} peel-epilogue=false}}", pipelined)
        if n != 1:
            raise RuntimeError(f"the default pipeline has no tileas-unspecialized-pipeline to set num_stages in: {pipelined}")
        # On sm_90a the mma operands stay in the loop for the backend's TMA ring: the same
        # depth sets the ring's stages (1: no ring).
        ring += f" mma-operand-stages={stages}"
    if specialize is False:
        ring += " mma-warp-specialize=false"
    return pipelined.replace("keep-mma-operands=true}", f"keep-mma-operands=true{ring}}}")


def compile(kernel: Kernel, args: Sequence[Any], target: str = "sm_90a", *, pipeline: Optional[str] = None,
            opt_level: Optional[int] = None, ptxas: Optional[str] = None, stage: Optional[str] = None) -> CompiledKernel:
    """Compiles ``kernel`` for example arguments ``args`` (in parameter order: arrays give
    dtype and rank, Constant parameters their values) and returns the CompiledKernel.

    ``stage="cuda_tile"`` stops after the front end and returns the verified cuda_tile
    :class:`tileir.ir.Module` (no backend, no cache), like :func:`compile_to_ir`.

    ``pipeline`` overrides the pass pipeline (MLIR-style text; by default the kernel's
    ``num_stages`` hint sets the software-pipelining depth in it); ``ptxas`` names the ptxas
    executable (otherwise TILEIR_PTXAS, the nvidia-cuda-nvcc wheel, CUDA_HOME, PATH).
    """
    if not isinstance(kernel, Kernel):
        raise TypeError(f"compile() expects a @tileir.kernel, got {type(kernel).__name__}")
    if target not in _LLVM_CPU:
        raise ValueError(f"unsupported target '{target}'; expected one of: {', '.join(_LLVM_CPU)}")
    from ._api import ByTarget

    level = opt_level if opt_level is not None else kernel.hints.get("opt_level", 3)
    if isinstance(level, ByTarget):
        level = level.resolve(target)
        level = 3 if level is None else level
    if not isinstance(level, int) or not 0 <= level <= 3:
        raise ValueError(f"opt_level must be an int in [0, 3], got {level!r}")
    if pipeline is None:
        pipeline = _pipeline_for_hints(kernel, target)
    t0 = time.perf_counter()
    spec = specialize(kernel.fn, tuple(args))
    key = (spec, target, pipeline or "", level, ptxas)
    cached = kernel._cache.get(key) if stage != "cuda_tile" else None
    if cached is not None:
        return cached
    ptxas_path = ptxas or knobs.ptxas_override()
    disk_key = None
    if stage != "cuda_tile" and knobs.cache_enabled():
        disk_key = _disk.compile_key(kernel, spec, target=target, pipeline=pipeline or "", opt_level=level,
                                     ptxas=ptxas_path, options=_PTX_OPTIONS)
        entry = _disk.load(disk_key) if disk_key is not None else None
        if entry is not None:
            compiled = _from_cache_entry(entry, spec, t0)
            if compiled is not None:
                _replay_warnings(compiled, stacklevel=2)
                _dump(compiled)
                with kernel._lock:
                    return kernel._cache.setdefault(key, compiled)
    from ._toolchain import compile_ptx, compile_to_ptx, get_worker, warn_advisories

    if stage != "cuda_tile":
        get_worker().prestart()  # the LLVM worker starts while the front end and Rust passes run
    module = translate(kernel.fn, spec, hints=kernel.hints)
    if stage == "cuda_tile":
        module.verify()
        return module
    t1 = time.perf_counter()
    out = _native.compile(module, target=target, pipeline=pipeline or "")
    t2 = time.perf_counter()
    stages = dict(out["stages"])
    ptx, _llvm_times = compile_to_ptx(stages["llvm"], cpu=_LLVM_CPU[target], features="+ptx86",
                                      opt_level=_LLVM_OPT if level else 0)
    t3 = time.perf_counter()
    ptxas_target = "sm_90a" if target == "sm_90" else target
    result = compile_ptx(ptx, arch=ptxas_target, opt_level=level, ptxas=ptxas_path)
    llvm_text = stages["llvm"]
    if _spills(result) and _MAXNREG.search(llvm_text):
        # The occupancy hint caps registers (cuTile's meaning: 65536 / (occupancy x
        # threads)); when that cap makes ptxas spill, the kernel is better off at a lower
        # occupancy than spilling: compile it once more without the cap, keep whichever
        # does not spill.
        uncapped = _MAXNREG.sub("", llvm_text)
        ptx2, _ = compile_to_ptx(uncapped, cpu=_LLVM_CPU[target], features="+ptx86", opt_level=_LLVM_OPT if level else 0)
        result2 = compile_ptx(ptx2, arch=ptxas_target, opt_level=level, ptxas=ptxas_path)
        if not _spills(result2):
            ptx, result, llvm_text = ptx2, result2, uncapped
    warn_advisories(result, stacklevel=2)
    t4 = time.perf_counter()
    abi = out["kernels"][0]
    asm = {name: text for name, text in out["stages"]}
    asm["llvm"] = llvm_text
    asm["ptx"] = ptx
    compiled = CompiledKernel(
        name=abi["name"], target=target, spec=spec, asm=asm, cubin=result.cubin, num_threads=abi["num_threads"],
        dynamic_smem=int(abi.get("dynamic_smem", 0)), tensor_maps=[dict(t) for t in abi.get("tensor_maps", [])],
        params=list(abi["params"]), pipeline=out["canonical_pipeline"], ptxas_info=result.info.get(abi["name"]),
        warnings=list(result.advisories) + list(result.warnings),
        timings={"frontend": t1 - t0, "rust_passes": t2 - t1, "llvm": t3 - t2, "ptxas": t4 - t3, "total": t4 - t0},
    )
    compiled.advisories = list(result.advisories)
    compiled.ptxas_arch = result.arch
    _warn_spills(compiled, stacklevel=2)
    compiled.ptx_compiler = result.command[0] if result.command else ""
    _dump(compiled)
    if disk_key is not None:
        used_library = bool(result.command) and result.command[0].startswith("nvPTXCompiler")
        if used_library != _disk._ptx_compiler_fingerprint(ptxas_path).startswith("nvptxcompiler:"):
            # The PTX compiler the key named could not be used (the library failed to build
            # or load): key the entry by the one that ran.
            _disk._toolchain_memo.clear()
            disk_key = _disk.compile_key(kernel, spec, target=target, pipeline=pipeline or "", opt_level=level,
                                         ptxas=ptxas_path, options=_PTX_OPTIONS)
    if disk_key is not None:
        _to_cache_entry(disk_key, compiled)
    with kernel._lock:
        kernel._cache.setdefault(key, compiled)
    return compiled


_disk._prime()

#: LLVM's IR pipeline, default<O2>: benches/llvm_pipeline.py found it gives SASS identical to
#: or better than O3's (registers, instructions) on every sample (tileir's vector add,
#: softmax and matmul, and the nvptx probes), in no more time; O1 and lighter pipelines of
#: our own lose registers or instructions on some sample.
_LLVM_OPT = 2

#: Compiler options beyond -arch/-O that the cache key records (bump when they change).
_PTX_OPTIONS = ("-v", "llvm features +ptx86", f"llvm default<O{_LLVM_OPT}>")


def _dump(compiled: CompiledKernel) -> None:
    dump = knobs.dump_dir()
    if dump:
        os.makedirs(dump, exist_ok=True)
        for stage, text in compiled.asm.items():
            with open(os.path.join(dump, f"{compiled.name}.{compiled.target}.{stage}"), "w") as f:
                f.write(text)


def _spill_message(compiled: CompiledKernel) -> Optional[str]:
    info = compiled.ptxas_info
    if info is None or not info.spills:
        return None
    return (f"kernel '{compiled.name}' spills registers on {compiled.target}: {info.spill_stores_bytes} bytes stored, "
            f"{info.spill_loads_bytes} bytes loaded ({info.registers} registers); smaller tiles or more warps avoid it")


def _warn_spills(compiled: CompiledKernel, stacklevel: int) -> None:
    """A register spill is a performance warning, kept on the kernel too."""
    message = _spill_message(compiled)
    if message is not None:
        import warnings

        from .errors import TileIRPerformanceWarning

        if message not in compiled.warnings:
            compiled.warnings.append(message)
        warnings.warn(message, TileIRPerformanceWarning, stacklevel=stacklevel + 1)


def _replay_warnings(compiled: CompiledKernel, stacklevel: int) -> None:
    """A kernel from the persistent cache warns as its compile did (ptxas advisories,
    spills)."""
    _warn_spills(compiled, stacklevel + 1)
    advisories = compiled.advisories
    if advisories:
        from ._toolchain import PtxasResult, warn_advisories

        warn_advisories(PtxasResult(cubin=b"", info={}, advisories=list(advisories), log="",
                                    arch=compiled.ptxas_arch), stacklevel=stacklevel + 1)


def _to_cache_entry(disk_key: str, compiled: CompiledKernel) -> None:
    from dataclasses import asdict

    info = asdict(compiled.ptxas_info) if compiled.ptxas_info is not None else None
    meta = {"name": compiled.name, "target": compiled.target, "num_threads": compiled.num_threads,
            "dynamic_smem": compiled.dynamic_smem, "tensor_maps": compiled.tensor_maps,
            "params": list(compiled.params), "pipeline": compiled.pipeline, "ptxas_info": info,
            "warnings": list(compiled.warnings), "advisories": list(compiled.advisories),
            "ptxas_arch": compiled.ptxas_arch, "ptx_compiler": compiled.ptx_compiler, "timings": compiled.timings}
    import marshal
    import zlib

    stages = zlib.compress(marshal.dumps({stage: text for stage, text in compiled.asm.items()}), 1)
    _disk.store(disk_key, meta, {"cubin": compiled.cubin, "stages": stages})


class _LazyStages(dict):
    """``CompiledKernel.asm`` of a cache hit: the stage texts stay compressed until read."""

    __slots__ = ("_blob",)

    def __init__(self, blob: bytes):
        super().__init__()
        self._blob = blob

    def _load(self) -> None:
        blob = self._blob
        if blob is not None:
            import marshal
            import zlib

            self._blob = None
            dict.update(self, marshal.loads(zlib.decompress(blob)))

    def __getitem__(self, k):
        self._load()
        return dict.__getitem__(self, k)

    def __iter__(self):
        self._load()
        return dict.__iter__(self)

    def __len__(self):
        self._load()
        return dict.__len__(self)

    def __contains__(self, k):
        self._load()
        return dict.__contains__(self, k)

    def __eq__(self, other):
        self._load()
        return dict.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self):
        self._load()
        return dict.__repr__(self)

    def get(self, k, default=None):
        self._load()
        return dict.get(self, k, default)

    def keys(self):
        self._load()
        return dict.keys(self)

    def values(self):
        self._load()
        return dict.values(self)

    def items(self):
        self._load()
        return dict.items(self)

    def copy(self):
        self._load()
        return dict(dict.items(self))

    def __reduce__(self):
        return (dict, (self.copy(),))


def _from_cache_entry(entry, spec: Specialization, t0: float) -> Optional[CompiledKernel]:
    """The CompiledKernel of a cache entry (None if the entry lacks something)."""
    from ._toolchain.ptxas import PtxasInfo

    header, blobs = entry
    try:
        info = header["ptxas_info"]
        if info is not None:
            info = dict(info)
            info["cmem"] = {int(k): v for k, v in (info.get("cmem") or {}).items()}
            info = PtxasInfo(**info)
        asm = _LazyStages(blobs["stages"])
        compiled = CompiledKernel(
            name=header["name"], target=header["target"], spec=spec, asm=asm, cubin=blobs["cubin"],
            num_threads=header["num_threads"], params=list(header["params"]), pipeline=header["pipeline"],
            ptxas_info=info, warnings=list(header["warnings"]), timings={}, from_cache=True,
            dynamic_smem=int(header["dynamic_smem"]), tensor_maps=[dict(t) for t in header["tensor_maps"]])
    except (KeyError, TypeError, ValueError):
        return None
    elapsed = time.perf_counter() - t0
    compiled.timings = {"frontend": 0.0, "rust_passes": 0.0, "llvm": 0.0, "ptxas": 0.0, "cache_load": elapsed,
                        "total": elapsed, "compiled_in": float(header.get("timings", {}).get("total", 0.0))}
    compiled.advisories = list(header.get("advisories") or [])
    compiled.ptxas_arch = header.get("ptxas_arch", "")
    compiled.ptx_compiler = header.get("ptx_compiler", "")
    return compiled


def compile_to_ir(kernel: Kernel, args: Sequence[Any], *, verify: bool = True):
    """The cuda_tile module of ``kernel`` specialized for ``args`` (no backend): a
    :class:`tileir.ir.Module`, verified unless ``verify=False``."""
    if not isinstance(kernel, Kernel):
        raise TypeError(f"compile_to_ir() expects a @tileir.kernel, got {type(kernel).__name__}")
    spec = specialize(kernel.fn, tuple(args))
    module = translate(kernel.fn, spec, hints=kernel.hints)
    if verify:
        module.verify()
    return module


def _device_target() -> str:
    from ._toolchain import cuda

    major, minor = cuda.compute_capability(0)
    target = f"sm_{major}{minor}"
    if target == "sm_90":
        return "sm_90a"
    if target not in _LLVM_CPU:
        raise LaunchError(f"this GPU is {target}; tileir generates code for {', '.join(_LLVM_CPU)}")
    return target


def launch(stream: Any, grid: Sequence[int], kernel: Any, args: Sequence[Any]) -> None:
    """Runs ``kernel`` over ``grid`` tile blocks on ``stream`` (cuTile's signature). Arrays
    are device arrays (torch/CuPy via DLPack or ``__cuda_array_interface__``, or
    ``tileir.cuda`` arrays). Compiles for the current GPU on first use (then cached)."""
    if type(kernel) is Kernel:
        run = kernel._fast
        if run is not None and run(stream, grid, args):
            return
        if kernel._plans and _fast_launch(stream, grid, kernel, args):
            return
    _launch(stream, grid, kernel, args)


def _launch(stream: Any, grid: Sequence[int], kernel: Any, args: Sequence[Any]) -> None:
    """The general launch: specialize, compile (or find), check and pack every argument."""
    from ._toolchain import cuda

    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(tuple(grid)))
    if len(grid) != 3 or any(g < 1 for g in grid):
        raise LaunchError(f"grid must be 1 to 3 positive integers, got {grid!r}")
    args = tuple(args)
    if isinstance(kernel, Kernel):
        compiled = compile(kernel, args, target=_device_target())
    elif isinstance(kernel, CompiledKernel):
        compiled = kernel
        if not _matches_spec(compiled, args):
            raise LaunchError(f"arguments do not match the specialization kernel '{compiled.name}' was compiled for")
    else:
        raise TypeError(f"launch() expects a tileir kernel, got {type(kernel).__name__}")
    params = compiled.kernel_params(args)
    ctx = cuda.get_context()
    module = compiled._modules.get(ctx.handle)
    if module is None:
        module = cuda.load_module(compiled.cubin)
        compiled._modules[ctx.handle] = module
    function = module.get_function(compiled.name)
    cuda.launch(function, grid, (compiled.num_threads, 1, 1), compiled.dynamic_smem, stream, params)
    records = [v for _, v in params if isinstance(v, cuda.DeviceArray)]
    if records:
        # The kernel reads the list records while it runs: keep them until the next launch of
        # this kernel on this stream (freeing device memory waits for the device's work).
        compiled._list_records[cuda.stream_handle(stream)] = records
    elif isinstance(kernel, Kernel):
        _make_plan(kernel, args, compiled, function, params, ctx.handle)


# ------------------------------------------------------------------------------------------
# The launch fast path
# ------------------------------------------------------------------------------------------
#
# A launch of a kernel already compiled for these kinds of arguments needs only the
# arguments' values. The first launch of each (context, argument signature) goes the general
# way and leaves a _LaunchPlan: the compiled kernel's CUfunction, one preallocated parameter
# buffer (each kernel parameter at its own aligned offset, with the array of their addresses
# that cuLaunchKernel reads) and a launcher generated for exactly those arguments.
#
# The launcher (kernel._fast holds the latest one) is straight-line code: per argument, the
# checks that it still has the signature the plan was made for (type, dtype, rank, the
# alignment and divisibility facts, the int32/int64 class of ints, Constant values), then
# one struct.pack_into of all parameter values into the buffer (which also rejects shapes
# and strides beyond int32) and the driver call through a ctypes handle without argtypes
# (arguments prepared once). Any failed check returns False and the launch goes on through
# _fast_launch (signature scan and plan lookup: another plan) and then the general path,
# which judges the arguments and reports errors. Nothing here ever launches what the
# general path would not.

_I32_MIN, _I32_LIMIT = -2**31, 2**31

#: struct code and size of each parameter kind the fast path packs
_PACK = {"ptr": ("Q", 8), "i64": ("q", 8), "i32": ("i", 4), "f32": ("f", 4), "f64": ("d", 8)}

#: signature entries of arrays, interned so that launchers compare them by identity
_ENTRIES: Dict[Tuple, Tuple] = {}


class _LaunchPlan:
    __slots__ = ("compiled", "function", "buf", "params", "block", "smem", "lock", "run", "fmt", "map_offsets",
                 "map_cache", "map_keys", "map_last")

    def __init__(self, compiled: CompiledKernel, function: Any, kinds: Sequence[str], guards: Sequence[Tuple],
                 ctx: int):
        import ctypes

        self.compiled = compiled
        if compiled.dynamic_smem > getattr(function, "_dynamic_smem_limit", 0):
            function.set_max_dynamic_shared_memory(compiled.dynamic_smem)
        self.function = function.handle
        self.smem = compiled.dynamic_smem
        fmt = "="
        offsets = []
        off = 0
        for k in kinds:
            code, size = _PACK[k]
            pad = -off % size
            fmt += "x" * pad + code
            off += pad
            offsets.append(off)
            off += size
        # Tensor maps (128 bytes each, 64-byte aligned) after the packed parameters.
        self.map_offsets = []
        for _ in compiled.tensor_maps:
            off += -off % 64
            self.map_offsets.append(off)
            offsets.append(off)
            off += 128
        self.map_cache: Dict[Tuple, bytes] = {}
        self.map_last: List[Any] = [None] * len(compiled.tensor_maps)
        # Per map: the values it is encoded from (the parameters it names, plus its index).
        self.map_keys = [
            operator.itemgetter(spec["base"], *[v for kind, v in spec["sizes"] + spec["strides"] if kind == "param"])
            for spec in compiled.tensor_maps
        ]
        self.fmt = fmt
        self.buf = ctypes.create_string_buffer(max(off, 8))
        base = ctypes.addressof(self.buf)
        self.params = (ctypes.c_void_p * max(len(offsets), 1))(*[base + o for o in offsets])
        self.block = compiled.num_threads
        self.lock = threading.Lock()
        self.run = _make_launcher(self, guards, fmt, ctx)

    def write_maps(self, values: Sequence[Any]) -> None:
        """Puts each tensor map for the packed parameter ``values`` into the parameter
        buffer; a slot already holding the map of the same array is left as it is."""
        import ctypes  # (not at module import: importing ctypes costs milliseconds)

        for j, off in enumerate(self.map_offsets):
            key = self.map_keys[j](values)
            if key != self.map_last[j]:
                ctypes.memmove(ctypes.addressof(self.buf) + off, self.map_bytes(j, values), 128)
                self.map_last[j] = key

    def map_bytes(self, j: int, values: Sequence[Any]) -> bytes:
        """Tensor map ``j`` for the packed parameter ``values``, encoded once per distinct
        array (the parameters holding its address, sizes and strides)."""
        key = (j, self.map_keys[j](values))
        blob = self.map_cache.get(key)
        if blob is None:
            blob = encode_tensor_map(self.compiled.tensor_maps[j], values, _cuda().encode_tensor_map)
            if len(self.map_cache) >= 1024:
                self.map_cache.clear()
            self.map_cache[key] = blob
        return blob


def _torch_tensor_type():
    import sys

    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


_CUDA: Any = None


def _cuda():
    global _CUDA
    if _CUDA is None:
        from ._toolchain import cuda

        _CUDA = cuda
    return _CUDA


def _scan_args(kernel: Kernel, args: Sequence[Any]):
    """(signature, flat parameter values, guards) of ``args``, or None when the general path
    must look at them. The signature determines the specialization (tileir's facts); the
    guards say what a launcher checks of each argument to know it has that signature."""
    DeviceArray = (_CUDA or _cuda()).DeviceArray
    mask = kernel._constant_mask
    if mask is None or type(args) not in (tuple, list) or len(args) != len(mask):
        return None
    sig = []
    vals = []
    guards = []
    spans = []
    tensor_type = None
    for is_const, a in zip(mask, args):
        if is_const:
            sig.append((type(a), a))
            guards.append(("const", type(a), a))
            continue
        t = type(a)
        if t is int:
            sig.append(0 if _I32_MIN <= a < _I32_LIMIT else 1)
            guards.append(("int", sig[-1]))
            vals.append(a)
            continue
        if t is float:
            sig.append(2)
            guards.append(("float",))
            vals.append(a)
            continue
        if t is bool:
            sig.append(3)
            guards.append(("bool",))
            vals.append(int(a))
            continue
        if t is DeviceArray:
            facts = a._launch_facts
            if facts is None:
                facts = a._launch_facts = _array_launch_facts(a.ptr, a.shape, a._strides_elems, a.dtype)
                if facts is None:
                    return None
            sig.append(facts[0])
            guards.append(("device_array", facts[0]))
            vals.extend(facts[1])
            spans.append((facts[2],))
            continue
        else:
            if tensor_type is None:
                tensor_type = _torch_tensor_type() or ()
            if not (tensor_type and isinstance(a, tensor_type) and a.is_cuda):
                return None
            facts = _array_launch_facts(a.data_ptr(), tuple(a.shape), a.stride(), a.dtype)
            if facts is None:
                return None
            sig.append(facts[0])
            guards.append(("tensor", tensor_type, facts[0]))
            vals.extend(facts[1])
            spans.append((facts[2],))
    if len(spans) > 1:
        # Which arrays share memory is part of the specialization (cuTile's disjointness).
        labels = alias_labels(spans)
        sig.append(labels)
        guards.append(("aliasing", labels))
    return tuple(sig), vals, guards


def _array_launch_facts(ptr: int, shape: Tuple[int, ...], strides: Sequence[int], dtype: Any):
    """(signature entry, parameter values) of one array argument; None for what the general
    path must judge (0-d, sizes beyond int32). The entry is interned."""
    if not shape:
        return None
    for v in shape:
        if v >= _I32_LIMIT:
            return None
    for v in strides:
        if not _I32_MIN <= v < _I32_LIMIT:
            return None
    bits = _dtype_bits(dtype)
    if bits is None:
        return None
    entry = (dtype, ptr & 15 == 0, strides[-1] == 1 or shape[-1] == 1, tuple([v & 15 == 0 for v in shape]),
             tuple([v & 15 == 0 for v in strides]), aliases_internally(shape, strides), bits)
    try:
        entry = _ENTRIES.setdefault(entry, entry)
    except TypeError:  # an unhashable dtype: the plan lookup rejects it too
        pass
    return entry, (ptr,) + tuple(shape) + tuple(strides), memory_span(ptr, shape, strides, bits)


_BITS: Dict[Any, Optional[int]] = {}


def _dtype_bits(dtype: Any) -> Optional[int]:
    """Bits per element of a device array's dtype (NumPy, torch or a DLPack name), cached."""
    try:
        return _BITS[dtype]
    except KeyError:
        pass
    except TypeError:
        return None
    from ._api import dtype_of

    d = dtype_of(dtype)
    _BITS[dtype] = bits = d.bits if d is not None else None
    return bits


def _make_launcher(plan: _LaunchPlan, guards: Sequence[Tuple], fmt: str, ctx: int):
    """The launcher of ``plan``: ``run(stream, grid, args) -> bool``, generated for the
    arguments ``guards`` describe (see the comment above _LaunchPlan)."""
    import ctypes
    import struct

    cuda = _cuda()
    ns: Dict[str, Any] = {
        "DA": cuda.DeviceArray, "LOCK": plan.lock, "BUF": plan.buf, "PARAMS": plan.params, "BLOCK": plan.block, "SMEM": plan.smem,
        "FUNC": ctypes.c_void_p(plan.function), "CTX": ctx, "pack_into": struct.Struct(fmt).pack_into,
        "PackError": (struct.error, OverflowError), "c_void_p": ctypes.c_void_p,
        "stream_handle": cuda.stream_handle, "LAUNCH": cuda._raw_function("cuLaunchKernel"),
        "GETCUR": cuda._raw_function("cuCtxGetCurrent"), "tuple": tuple, "list": list, "int": int,
        "float": float, "bool": bool, "type": type, "len": len, "isinstance": isinstance,
        "Exception": Exception, "plan": plan, "_fail": _launch_failed,
    }
    cur = ctypes.c_void_p()
    ns["CUR"], ns["CURP"] = cur, ctypes.pointer(cur)
    # One guard per argument, then the guards of the arguments together (aliasing).
    n = sum(1 for g in guards if g[0] != "aliasing")
    names = ", ".join(f"a{i}" for i in range(n))
    lines = [
        "def run(stream, grid, args):",
        "    if (type(args) is not tuple and type(args) is not list) or len(args) != %d:" % n,
        "        return False",
        (f"    {names}, = args" if n else "    pass"),
    ]
    packed = []
    spans: List[str] = []

    def fail_if(cond: str) -> None:
        lines.append(f"    if {cond}:")
        lines.append(f"        print('FAIL', {cond!r})") if os.environ.get("DBGL") else None
        lines.append("        return False")

    for i, g in enumerate(guards):
        a = f"a{i}"
        kind = g[0]
        if kind == "const":
            ns[f"T{i}"], ns[f"C{i}"] = g[1], g[2]
            fail_if(f"type({a}) is not T{i} or {a} != C{i}")
        elif kind == "int":
            inside = f"-2147483648 <= {a} < 2147483648"
            fail_if(f"type({a}) is not int or " + (f"not {inside}" if g[1] == 0 else inside))
            packed.append(a)
        elif kind == "float":
            fail_if(f"type({a}) is not float")
            packed.append(a)
        elif kind == "bool":
            fail_if(f"type({a}) is not bool")
            packed.append(a)
        elif kind == "device_array":
            ns[f"E{i}"] = g[1]
            fail_if(f"type({a}) is not DA")
            lines.append(f"    f{i} = {a}._launch_facts")
            fail_if(f"f{i} is None or f{i}[0] is not E{i}")
            packed.append(f"*f{i}[1]")
            spans.append(f"(f{i}[2],)")
        elif kind == "aliasing":
            # Two or more arrays: they must share memory as they did when compiled.
            ns["LABELS"], ns["AL"] = alias_labels, g[1]
            fail_if(f"LABELS(({', '.join(spans)},)) != AL")
        else:  # a torch tensor
            tensor_type, (dtype, aligned, unit_inner, shape16, stride16, self_alias, bits) = g[1], g[2]
            rank = len(shape16)
            ns[f"TT{i}"], ns[f"D{i}"] = tensor_type, dtype
            fail_if(f"not isinstance({a}, TT{i}) or not {a}.is_cuda or {a}.dtype is not D{i}")
            lines.append(f"    s{i} = {a}.shape")
            lines.append(f"    t{i} = {a}.stride()")
            fail_if(f"len(s{i}) != {rank} or len(t{i}) != {rank}")
            lines.append(f"    p{i} = {a}.data_ptr()")
            conds = [f"p{i} & 15" if aligned else f"not p{i} & 15"]
            unit = f"(t{i}[{rank - 1}] == 1 or s{i}[{rank - 1}] == 1)"
            conds.append(f"not {unit}" if unit_inner else unit)
            for d in range(rank):
                conds.append(f"s{i}[{d}] & 15" if shape16[d] else f"not s{i}[{d}] & 15")
                conds.append(f"t{i}[{d}] & 15" if stride16[d] else f"not t{i}[{d}] & 15")
            fail_if(" or ".join(conds))
            ns["SELF_ALIAS"], ns["SPAN"] = aliases_internally, memory_span
            fail_if(f"SELF_ALIAS(s{i}, t{i}) is not {self_alias}")
            spans.append(f"(SPAN(p{i}, s{i}, t{i}, {bits}),)")
            packed.extend([f"p{i}", f"*s{i}", f"*t{i}"])
    lines += [
        "    tg = type(grid)",
        "    if tg is tuple or tg is list:",
        "        ng = len(grid)",
        "        if ng == 1:",
        "            gx = grid[0]",
        "            gy = gz = 1",
        "        elif ng == 3:",
        "            gx, gy, gz = grid",
        "        elif ng == 2:",
        "            gx, gy = grid",
        "            gz = 1",
        "        else:",
        "            return False",
        "        if type(gx) is not int or type(gy) is not int or type(gz) is not int:",
        "            return False",
        "        if not (0 < gx < 2147483648 and 0 < gy < 2147483648 and 0 < gz < 2147483648):",
        "            return False",
        "    elif tg is int and 0 < grid < 2147483648:",
        "        gx = grid",
        "        gy = gz = 1",
        "    else:",
        "        return False",
        "    if stream is None:",
        "        hs = None",
        "    else:",
        "        if type(stream) is int:",
        "            hs = stream",
        "        else:",
        "            try:",
        "                hs = stream_handle(stream)",
        "            except Exception:",
        "                return False",
        "        if not 0 <= hs < 18446744073709551616:",
        "            return False",
        "        hs = c_void_p(hs) if hs else None",
        "    with LOCK:",
        "        if GETCUR(CURP) or CUR.value != CTX:",
        "            return False",
        "        try:",
        "            pack_into(BUF, 0, %s)" % ", ".join(packed) if packed else "            pass",
        "        except PackError:",
        "            return False",
    ]
    if plan.map_offsets:
        # Tensor maps from the packed values (cached per array by the plan); a failure
        # leaves the launch to the general path, which reports it.
        ns["UNPACK"], ns["WMAPS"] = struct.Struct(fmt).unpack_from, plan.write_maps
        lines += ["        try:", "            WMAPS(UNPACK(BUF, 0))", "        except Exception:", "            return False"]
    lines += [
        "        rc = LAUNCH(FUNC, gx, gy, gz, BLOCK, 1, 1, SMEM, hs, PARAMS, None)",
        "    if rc:",
        "        _fail(plan, rc, gx, gy, gz)",
        "    return True",
    ]
    import builtins

    code = builtins.compile("\n".join(lines) + "\n", f"<tileir launcher {plan.compiled.name}>", "exec")
    if os.environ.get("DBGL"): print("\n".join(lines))
    exec(code, ns)
    return ns["run"]


def _launch_failed(plan: _LaunchPlan, rc: int, gx: int, gy: int, gz: int) -> None:
    _cuda().check(rc, "cuLaunchKernel(%s, grid=%r, block=%r)" % (plan.compiled.name, (gx, gy, gz),
                                                                 (plan.block, 1, 1)))


def _fast_launch(stream: Any, grid: Any, kernel: Kernel, args: Sequence[Any]) -> bool:
    """The launch through the plan for these arguments' signature, when there is one."""
    scanned = _scan_args(kernel, args)
    if scanned is None:
        return False
    try:
        ctx = (_CUDA or _cuda())._current_context()
        plan = kernel._plans.get((ctx, scanned[0]))
    except Exception:
        return False
    if plan is None or not plan.run(stream, grid, args):
        return False
    kernel._fast = plan.run
    return True


def _make_plan(kernel: Kernel, args: Sequence[Any], compiled: CompiledKernel, function: Any,
               params: Sequence[Tuple[str, Any]], ctx: int) -> None:
    """Leaves a launch plan after a general launch, when the fast path would pack exactly
    the parameters the general path packed."""
    if kernel._constant_mask is None:
        kernel._constant_mask = tuple(isinstance(p, ConstantSpec) for p in compiled.spec.params)
    try:
        scanned = _scan_args(kernel, args)
    except Exception:
        return
    if scanned is None:
        return
    sig, vals, guards = scanned
    # Tensor maps trail the parameters; the launcher encodes them from the packed values.
    n_maps = len(compiled.tensor_maps)
    if n_maps:
        if any(kind != "bytes" for kind, _ in params[len(params) - n_maps:]):
            return
        params = params[:len(params) - n_maps]
    if len(vals) != len(params) or any(kind not in _PACK for kind, _ in params):
        return
    for (kind, value), v in zip(params, vals):
        if kind in ("f32", "f64"):
            if float(value) != float(v):
                return
        elif value != v:
            return
    try:
        plan = kernel._plans.get((ctx, sig))
        if plan is not None and plan.compiled is compiled and plan.function == function.handle:
            kernel._fast = plan.run
            return
        plan = _LaunchPlan(compiled, function, [kind for kind, _ in params], guards, ctx)
    except Exception:
        return
    if len(kernel._plans) > 256:
        kernel._plans.clear()
    kernel._plans[(ctx, sig)] = plan
    kernel._fast = plan.run


def _matches_spec(compiled: CompiledKernel, args: Sequence[Any]) -> bool:
    """True if ``args`` have the specialization ``compiled`` was built for."""
    if len(args) != len(compiled.spec.params):
        return False
    for pspec, a in zip(compiled.spec.params, args):
        if isinstance(pspec, ConstantSpec):
            if a != pspec.value:
                return False
        elif isinstance(pspec, ArraySpec):
            if not _array_fits(pspec, a):
                return False
        elif isinstance(pspec, ListSpec):
            if not isinstance(a, list) or not a or not all(_array_fits(pspec.element, x) for x in a):
                return False
    # Arrays that share memory must have been compiled as sharing it (the reverse is safe).
    actual = argument_aliasing(args)
    have = compiled.spec.aliasing
    if actual and have:
        for i in range(len(actual)):
            for j in range(i):
                if actual[i] >= 0 and actual[i] == actual[j] and have[i] != have[j]:
                    return False
    return True


def _array_fits(pspec: ArraySpec, a: Any) -> bool:
    """True if array ``a`` may run code compiled for ``pspec``."""
    from ._api import dtype_of
    from ._frontend.specialize import array_facts, array_spec

    facts = array_facts(a)
    if facts is None:
        return False
    actual = array_spec(dtype_of(facts.dtype), facts, pspec.index64)
    # An array may run code compiled with fewer facts (alignment, divisibility), not more.
    if (actual.dtype, actual.ndim) != (pspec.dtype, pspec.ndim):
        return False
    if pspec.unit_inner_stride and not actual.unit_inner_stride:
        return False
    if pspec.aligned16 and not actual.aligned16:
        return False
    for have, need in zip(actual.shape_div16 + actual.stride_div16, pspec.shape_div16 + pspec.stride_div16):
        if need and not have:
            return False
    if actual.may_alias_internally and not pspec.may_alias_internally:
        return False
    return True
