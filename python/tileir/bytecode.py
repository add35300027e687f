"""cuda_tile bytecode (NVIDIA's ``\\x7fTileIR\\x00`` format), versions 13.1 to 13.4.

13.4 support covers what cuTile Python writes at 13.4 (the new ``gdc_*`` ops included);
Two 13.4 fields are not modelled yet: ``inbounds`` promises on view loads/stores are dropped
(they are hints), and a saturating ``ftoi`` is refused with an error naming it.

    >>> import tileir.bytecode
    >>> m = tileir.bytecode.read(open("kernel.tilebc", "rb").read())
    >>> data = m.to_bytecode(version="13.1")   # BytecodeError if 13.1 cannot encode it

The reader checks hostile input (truncation, bad magic, unknown versions or sections,
out-of-range indices) and reports the byte offset; it never trusts sizes from the file.
"""

from __future__ import annotations

from . import _native

__all__ = ["read", "VERSIONS"]

VERSIONS = ("13.1", "13.2", "13.3", "13.4")


def read(data: bytes) -> "_native.Module":
    """Reads bytecode into a module (named ``@kernels``, as NVIDIA's reader names it)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"tileir.bytecode.read expects bytes, got {type(data).__name__}")
    return _native.read_bytecode(bytes(data))
