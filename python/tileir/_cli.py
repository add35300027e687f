"""Console scripts installed with the wheel: thin wrappers over the Rust tools."""

from __future__ import annotations

import sys

from . import _native


def _run(tool: str) -> None:
    # Python's own buffered streams must be empty before Rust writes to the same descriptors.
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_native.tool_main(tool, sys.argv[1:]))


def opt() -> None:
    """`tileir-opt`: parse, verify, transform and print cuda_tile IR (like cuda-tile-opt)."""
    _run("tileir-opt")


def translate() -> None:
    """`tileir-translate`: convert between cuda_tile text and bytecode (like cuda-tile-translate)."""
    _run("tileir-translate")
