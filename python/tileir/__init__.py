"""tileir: an open compiler for NVIDIA CUDA Tile IR.

Write kernels with the cuTile-style API::

    import tileir as ct

    @ct.kernel
    def vector_add(a, b, c, TILE: ct.Constant[int]):
        i = ct.bid(0)
        ta = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(c, index=(i,), tile=ta + tb)

    k = ct.compile(vector_add, (x, y, z, 1024), target="sm_90a")   # k.asm, k.cubin
    ct.launch(stream, (ct.cdiv(n, 1024),), vector_add, (x, y, z, 1024))
"""

from . import errors, knobs
from ._api import (DType, PaddingMode, Constant, bid, num_blocks, load, store, cdiv, bool_, int8, int16, int32,
                   int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64, tfloat32,
                   float8_e4m3fn, float8_e5m2)
from ._compile import CompiledKernel, Kernel, compile, kernel, launch

__version__ = "0.1.0"

__all__ = [
    "errors", "knobs", "kernel", "Kernel", "compile", "CompiledKernel", "launch",
    "DType", "PaddingMode", "Constant", "bid", "num_blocks", "load", "store", "cdiv",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "tfloat32", "float8_e4m3fn", "float8_e5m2",
]
