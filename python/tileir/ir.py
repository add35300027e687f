"""cuda_tile IR as text: parse it, verify it, print it.

    >>> import tileir.ir
    >>> m = tileir.ir.parse(open("kernel.mlir").read(), file_name="kernel.mlir")
    >>> m.verify()                       # raises tileir.errors.VerificationError
    >>> print(m)                         # custom form
    >>> m.to_text(generic=True)          # MLIR's generic op form

Parsing and verification run in Rust with the GIL released.
"""

from __future__ import annotations

from . import _native

Module = _native.Module

__all__ = ["Module", "parse"]


def parse(text: str, *, file_name: str = "<string>", allow_unregistered_dialect: bool = False,
          keep_names: bool = False) -> Module:
    """Parses cuda_tile IR text (custom or generic form) into a :class:`Module`.

    Like MLIR, printing renames values (``%0``, ``%arg0``) unless ``keep_names`` is set.

    Raises :class:`tileir.errors.ParseError` whose ``.diagnostics`` hold every located problem.
    """
    if not isinstance(text, str):
        raise TypeError(f"tileir.ir.parse expects str, got {type(text).__name__}")
    return _native.parse(text, file_name, allow_unregistered_dialect, keep_names)
