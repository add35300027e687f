"""The one exception hierarchy of tileir.

Every error tileir raises is a :class:`TileIRError`. The native module looks these
classes up by name, so errors raised from Rust and from Python share one hierarchy::

    TileIRError
    ├── FrontendError          unsupported Python construct or bad types in a kernel; has .location
    ├── CompilationError       diagnostics from the Rust core; .diagnostics is a tuple of Diagnostic
    │   ├── ParseError         IR text that does not parse
    │   ├── BytecodeError      bytecode that does not read, or IR a bytecode version cannot encode
    │   ├── VerificationError  IR that breaks a dialect rule
    │   └── PipelineError      unknown pass/option or bad option value (also a ValueError)
    ├── ToolchainError         LLVM or ptxas missing or failing
    │   ├── LLVMError
    │   └── PtxasError
    ├── LaunchError            CUDA driver missing or failing
    ├── InterpreterError       the reference interpreter found a fault (assert, UB, race, bad access)
    └── InternalCompilerError  a bug in tileir (a Rust panic); carries a reproducer
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

__all__ = [
    "Diagnostic",
    "TileIRError",
    "FrontendError",
    "CompilationError",
    "ParseError",
    "BytecodeError",
    "VerificationError",
    "PipelineError",
    "ToolchainError",
    "LLVMError",
    "PtxasError",
    "LaunchError",
    "InterpreterError",
    "InternalCompilerError",
    "TileIRPerformanceWarning",
]


@dataclass(frozen=True)
class Diagnostic:
    """One located message from the compiler (MLIR style)."""

    severity: str  # "error" | "warning" | "note" | "remark"
    message: str
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    notes: Tuple["Diagnostic", ...] = ()

    def __str__(self) -> str:
        where = ""
        if self.file is not None or self.line is not None:
            where = f"{self.file or '<unknown>'}:{self.line or 0}:{self.column or 0}: "
        text = f"{where}{self.severity}: {self.message}"
        for note in self.notes:
            text += "\n" + str(note)
        return text


class TileIRError(Exception):
    """Base class of every tileir error."""


class FrontendError(TileIRError):
    """A kernel uses Python tileir cannot compile, or types that do not fit.

    ``location`` is ``(file, line, column)`` (1-based line and column) and the
    message shows the offending source line with a caret under the column.
    """

    def __init__(self, message: str, location: Optional[Tuple[str, int, int]] = None,
                 source_line: Optional[str] = None):
        self.message = message
        self.location = location
        self.source_line = source_line
        super().__init__(self._render())

    def _render(self) -> str:
        if self.location is None:
            return self.message
        file, line, col = self.location
        text = f"{file}:{line}:{col}: error: {self.message}"
        if self.source_line is not None:
            stripped = self.source_line.rstrip("\n")
            text += "\n" + stripped + "\n" + " " * max(col - 1, 0) + "^"
        return text


class CompilationError(TileIRError):
    """The Rust core rejected the input; ``diagnostics`` says where and why."""

    def __init__(self, message: str, diagnostics: Tuple[Diagnostic, ...] = ()):
        self.diagnostics = tuple(diagnostics)
        super().__init__(message)


class ParseError(CompilationError):
    """IR text that does not parse (custom or generic MLIR syntax)."""


class BytecodeError(CompilationError, ValueError):
    """cuda_tile bytecode that does not read (the message names the byte offset), or IR that
    the requested bytecode version cannot encode (the message names the op or attribute)."""


class VerificationError(CompilationError):
    """IR that breaks a rule of its dialect."""


class PipelineError(CompilationError, ValueError):
    """A pass pipeline string names an unknown pass or option, or a bad value."""


class ToolchainError(TileIRError):
    """The embedded toolchain (llvmlite, ptxas) is missing or failed."""


class LLVMError(ToolchainError):
    """LLVM rejected the generated IR or aborted (the worker process died)."""


class PtxasError(ToolchainError):
    """ptxas rejected the generated PTX or crashed."""


class LaunchError(TileIRError):
    """The CUDA driver is missing, or loading or launching a kernel failed."""


class InterpreterError(TileIRError):
    """The reference interpreter stopped: a failed ``assert``, undefined behaviour the
    specification names (an entirely out-of-bounds tile, division by zero), a write race
    between blocks, a memory access outside every array, or an unsupported op.

    ``.kind`` names the class (``AssertionFailed``, ``UndefinedBehavior``, ``Race``, ...),
    ``.location`` is ``(file, line, column)`` of the failing op in the kernel source (or None),
    ``.block`` the tile block ``(x, y, z)`` and ``.op`` the op name.
    """

    def __init__(self, message, kind=None, location=None, block=None, op=None):
        super().__init__(message)
        self.kind = kind
        self.location = location
        self.block = block
        self.op = op


class InternalCompilerError(TileIRError):
    """A bug in tileir. ``reproducer`` holds the input IR and pipeline that triggered it;
    ``reproducer_path`` is a file with the same text, for a bug report."""

    def __init__(self, message: str, reproducer: str = "", reproducer_path: Optional[str] = None):
        self.reproducer = reproducer
        self.reproducer_path = reproducer_path
        text = message
        if reproducer_path:
            text += f"\n(reproducer written to {reproducer_path})"
        super().__init__(text)


class TileIRPerformanceWarning(UserWarning):
    """ptxas advisories (C7508 setmaxnreg ignored, C7509/C7517 wgmma serialization, ...)."""
