"""The embedded toolchain: LLVM IR -> PTX (llvmlite, in a worker process), PTX -> cubin
(ptxas), and the CUDA driver (ctypes) for loading and launching.

Importing this package needs neither llvmlite, ptxas, a GPU nor a driver; each is
looked for when first used. ``cuda`` is imported on demand (``from tileir._toolchain
import cuda``).
"""

from .llvm_worker import LLVMWorker, compile_to_ptx, get_worker, shutdown
from .ptxas import (PtxasInfo, PtxasResult, find_ptxas, parse_ptxas_log, ptxas_version,
                    run_ptxas, warn_advisories)

__all__ = [
    "LLVMWorker",
    "compile_to_ptx",
    "get_worker",
    "shutdown",
    "PtxasInfo",
    "PtxasResult",
    "find_ptxas",
    "parse_ptxas_log",
    "ptxas_version",
    "run_ptxas",
    "warn_advisories",
]
