"""The embedded toolchain: LLVM IR -> PTX (llvmlite, in a worker process), PTX -> cubin
(ptxas), and the CUDA driver (ctypes) for loading and launching.

Importing this package needs neither llvmlite, ptxas, a GPU nor a driver; each is
looked for when first used. The submodules load on first access (a persistent-cache hit
imports only ``ptxas``'s parser and finder); ``cuda`` is imported on demand
(``from tileir._toolchain import cuda``).
"""

import importlib

_EXPORTS = {
    "LLVMWorker": "llvm_worker",
    "compile_to_ptx": "llvm_worker",
    "get_worker": "llvm_worker",
    "shutdown": "llvm_worker",
    "PtxasInfo": "ptxas",
    "PtxasResult": "ptxas",
    "find_ptxas": "ptxas",
    "find_ptx_archive": "ptxas",
    "parse_ptxas_log": "ptxas",
    "ptx_compiler_fingerprint": "ptxas",
    "ptxas_version": "ptxas",
    "run_ptxas": "ptxas",
    "compile_ptx": "ptxas",
    "ptx_library": "ptxas",
    "warn_advisories": "ptxas",
}

__all__ = list(_EXPORTS)


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
