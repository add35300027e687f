"""tileir: an open compiler for NVIDIA CUDA Tile IR.

Write kernels with cuTile Python's API::

    import tileir as ct

    @ct.kernel
    def vector_add(a, b, c, TILE: ct.Constant[int]):
        i = ct.bid(0)
        ta = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(c, index=(i,), tile=ta + tb)

    k = ct.compile(vector_add, (x, y, z, 1024), target="sm_90a")   # k.asm, k.cubin
    m = ct.compile_to_ir(vector_add, (x, y, z, 1024))                # verified cuda_tile module
    ct.launch(stream, (ct.cdiv(n, 1024),), vector_add, (x, y, z, 1024))

Every one of cuTile's 99 kernel-side operations is here (``tileir.OP_NAMES``), with the
dtypes, enums, annotations and exception classes.
"""

from . import errors, knobs
from . import _api
from ._api import *  # noqa: F401,F403 - the kernel-side API, cuTile's names
from ._api import OP_NAMES
from ._compile import CompiledKernel, Kernel, compile, compile_to_ir, kernel, launch
from ._interpret import interpret
from .emulator import emulate  # noqa: F401 - ct.emulate: compiled PTX run by the emulator
from ._frontend.values import Array, Scalar, Tile, TiledView

__version__ = "0.1.0"


def __getattr__(name):
    # ``ct.tune`` (cuTile's submodule) without importing it with tileir.
    if name == "tune":
        import importlib

        return importlib.import_module(".tune", __name__)
    raise AttributeError(f"module 'tileir' has no attribute {name!r}")


__all__ = ["errors", "knobs", "interpret", "kernel", "Kernel", "compile", "compile_to_ir", "CompiledKernel", "launch",
           "OP_NAMES", "Array", "Tile", "TiledView", "Scalar"] + list(_api.__all__)
