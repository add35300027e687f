"""``tileir-tileiras``: a drop-in for NVIDIA's ``tileiras`` command line.

    tileir-tileiras kernel.bytecode -o kernel.cubin --gpu-name sm_90 -O3 [--lineinfo] [-g]

It reads cuda_tile bytecode, compiles it with tileir (Rust passes, llvmlite, ptxas) and
writes a cubin. What tileir's pipeline cannot compile yet fails with a message naming the
op, never with a wrong cubin. cuTile Python looks for a program named ``tileiras`` (after
NVIDIA's pip package): put a link named ``tileiras`` to this command first on ``PATH`` (with
``nvidia-cuda-tileiras`` uninstalled) to have cuTile compile through tileir.

Errors are printed as ``error: <message>`` (cuTile parses that form).
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from . import _native, errors, knobs

__all__ = ["main", "run", "compile_bytecode"]

#: GPU names tileir can generate code for (tileiras's spelling), mapped to tileir targets.
_GPU_TARGETS = {"sm_80": "sm_80", "sm_86": "sm_86", "sm_89": "sm_89", "sm_90": "sm_90a", "sm_90a": "sm_90a"}
#: GPU names tileiras knows but tileir does not generate code for yet.
_KNOWN_GPUS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103", "sm_107", "sm_110",
               "sm_120", "sm_121")

_USAGE = """OVERVIEW: tileir-tileiras: tileir's drop-in for NVIDIA's tileiras (cuda_tile bytecode to cubin)

USAGE: tileir-tileiras [options] <tile bytecode file>

OPTIONS:
  --gpu-name=<sm_XX> (--arch)    GPU to generate code for (sm_80, sm_86, sm_89, sm_90)
  -o, --output-file=<file>       Output cubin
  -O<N>, --opt-level=<N>         Optimization level (default 3)
  --lineinfo                     Generate line-number information
  -g, --device-debug             Generate debug information
  --list-versions                List the supported bytecode versions
  --version                      Print the version
  --remark-format=, --remarks*=  Accepted; tileir emits no remarks (an empty YAML file is written)
"""


class _UsageError(Exception):
    pass


def _parse(argv: List[str]) -> dict:
    opts = {"input": None, "output": None, "gpu": None, "opt": 3, "lineinfo": False, "debug": False,
            "remarks_file": None}
    i = 0

    def value(flag: str) -> str:
        nonlocal i
        if "=" in argv[i]:
            return argv[i].split("=", 1)[1]
        if i + 1 >= len(argv):
            raise _UsageError(f"for the {flag} option: requires a value!")
        i += 1
        return argv[i]

    while i < len(argv):
        a = argv[i]
        name = a.split("=", 1)[0]
        if name in ("--gpu-name", "-gpu-name", "--arch", "-arch"):
            opts["gpu"] = value(name)
        elif name in ("-o", "--output-file", "-output-file"):
            opts["output"] = value(name)
        elif name in ("--opt-level", "-opt-level", "-O") or (a.startswith("-O") and a[2:].isdigit()):
            text = a[2:] if a.startswith("-O") and a[2:].isdigit() else value(name)
            if not text.isdigit() or int(text) > 3:
                raise _UsageError(f"for the --opt-level option: '{text}' is not an optimization level in [0, 3]")
            opts["opt"] = int(text)
        elif name in ("--lineinfo", "-lineinfo"):
            opts["lineinfo"] = True
        elif name in ("-g", "--device-debug", "-device-debug"):
            opts["debug"] = True
        elif name in ("--remarks-output-file", "-remarks-output-file"):
            opts["remarks_file"] = value(name)
        elif name.startswith("--remark") or name.startswith("-remark"):
            if "=" not in a:
                value(name)
        elif name in ("--host-arch", "--host-os", "-host-arch", "-host-os"):
            value(name)
        elif name in ("--preview", "-l", "--sanitize"):
            raise _UsageError(f"option '{name}' is not supported by tileir (it has no {name.lstrip('-')} support yet)")
        elif a.startswith("-") and a != "-":
            raise _UsageError(f"Unknown command line argument '{a}'.  Try: 'tileir-tileiras --help'")
        elif opts["input"] is None:
            opts["input"] = a
        else:
            raise _UsageError("Too many positional arguments specified! Can specify at most 1 positional argument")
        i += 1
    return opts


def compile_bytecode(data: bytes, gpu_name: str, opt_level: int = 3, ptxas: Optional[str] = None) -> bytes:
    """Compiles cuda_tile bytecode for ``gpu_name`` (tileiras's spelling) and returns the cubin.

    Raises :class:`tileir.errors.BytecodeError` for unreadable input, ``VerificationError`` for
    invalid IR, ``CompilationError`` naming the first op tileir cannot compile yet.
    """
    from ._toolchain import compile_to_ptx, run_ptxas

    if gpu_name not in _GPU_TARGETS:
        known = ", ".join(_GPU_TARGETS)
        if gpu_name in _KNOWN_GPUS:
            raise errors.CompilationError(f"tileir cannot generate code for {gpu_name} yet (supported: {known})")
        raise errors.CompilationError(f"unknown GPU name '{gpu_name}'; expected one of: {known}")
    target = _GPU_TARGETS[gpu_name]
    module = _native.read_bytecode(bytes(data))
    module.verify()
    out = _native.compile(module, target=target)
    stages = dict(out["stages"])
    ptx, _ = compile_to_ptx(stages["llvm"], cpu=target, features="+ptx86", opt_level=3 if opt_level else 0)
    result = run_ptxas(ptx, arch=target, opt_level=opt_level, ptxas=ptxas or knobs.ptxas_override())
    return result.cubin


def main(argv: Optional[List[str]] = None) -> None:
    """Entry point of the console script: exits with the status code of :func:`run`."""
    sys.exit(run(list(sys.argv[1:] if argv is None else argv)))


def run(argv: List[str]) -> int:
    """Runs the command line ``argv`` (without the program name); returns the exit code."""
    if "--help" in argv or "-help" in argv:
        print(_USAGE, end="")
        return 0
    if "--version" in argv:
        from . import __version__
        print(f"tileir-tileiras (tileir {__version__}): drop-in for NVIDIA tileiras\nCuda compilation tools, tileir")
        return 0
    if "--list-versions" in argv:
        print("Supported bytecode versions:\n  13.1\n  13.2\n  13.3")
        return 0
    try:
        opts = _parse(argv)
        if opts["input"] is None:
            raise _UsageError("no input file; usage: tileir-tileiras [options] <tile bytecode file>")
        if opts["gpu"] is None:
            raise _UsageError("--gpu-name is required (for example --gpu-name sm_90)")
        with open(opts["input"], "rb") as f:
            data = f.read()
        cubin = compile_bytecode(data, opts["gpu"], opts["opt"])
        output = opts["output"] or os.path.splitext(opts["input"])[0] + ".cubin"
        with open(output, "wb") as f:
            f.write(cubin)
        if opts["remarks_file"]:
            with open(opts["remarks_file"], "w") as f:
                f.write("")
        return 0
    except _UsageError as e:
        print(f"tileir-tileiras: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except errors.TileIRError as e:
        # One `error:` line per diagnostic so cuTile's stderr parser finds the message.
        diags = getattr(e, "diagnostics", ()) or ()
        if diags:
            for d in diags:
                print(f"error: {d}", file=sys.stderr)
        else:
            print(f"error: {e}", file=sys.stderr)
        return 1
