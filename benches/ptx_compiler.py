"""PTX -> cubin: NVIDIA's PTX compiler library (in the LLVM worker) next to the ptxas
executable of the same CUDA release, on tileir's kernels: time and the cubins, section by
section.

    python3 benches/ptx_compiler.py [--ptxas PATH] [--repeats 5]

Needs ``pip install nvidia-nvptxcompiler`` (or TILEIR_NVPTXCOMPILER_STATIC) and a ptxas of
the library's release (``--ptxas``, default: TILEIR_PTXAS or the NVIDIA wheels'). Each
kernel's PTX is compiled both ways with the same options (``-arch=sm_90a -O3 -v``, then
also ``-lineinfo --warn-on-spills``); the cubins must agree in every ELF section except
``.note.nv.tkinfo`` (the toolkit note recording how the compiler was invoked).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "examples"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptxas", default=os.environ.pop("TILEIR_PTXAS", None))
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    os.environ["TILEIR_CACHE"] = "0"
    os.environ["TILEIR_PTX_COMPILER"] = "library"

    import importlib.util

    import peers
    import tileir as ct
    from tileir._toolchain import compile_ptx, find_ptxas, run_ptxas
    from tileir.errors import ToolchainError

    try:
        exe = find_ptxas(args.ptxas)
    except ToolchainError as e:
        print(f"no ptxas: {e}")
        return 1
    from vector_add import vector_add

    kernels = [("vector_add", vector_add, (np.zeros(1 << 20, np.float32),) * 3 + (1024,))]
    folder = tempfile.mkdtemp(prefix="tileir-ptxc-")
    for name in ("softmax", "matmul"):
        path = os.path.join(folder, f"ptxc_{name}.py")
        with open(path, "w") as f:
            f.write(peers.CUTILE_SOURCES[name].replace("import cuda.tile as ct", "import tileir as ct"))
        spec = importlib.util.spec_from_file_location(f"ptxc_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        kargs = peers.KERNEL_ARGS[name]
        kernels.append((name, getattr(mod, name), tuple(np.zeros(s, d) for s, d in kargs["arrays"]) +
                        tuple(kargs["constants"])))
    print(f"PTX -> cubin, sm_90a, medians of {args.repeats}: the PTX compiler library in tileir's LLVM worker vs "
          f"{exe}")
    ok = True
    for name, kern, kargs in kernels:
        try:
            ptx = ct.compile(kern.replace_hints(), kargs, target="sm_90a").asm["ptx"]
        except Exception as e:
            print(f"  {name}: not compiled yet ({str(e).splitlines()[0][:100]})")
            continue
        for extra in ([], ["-lineinfo", "--warn-on-spills"]):
            try:
                libs = [compile_ptx(ptx, arch="sm_90a", extra_args=extra) for _ in range(args.repeats)]
            except ToolchainError as e:
                print(f"  the PTX compiler library is not usable: {e}")
                return 1
            exes = [run_ptxas(ptx, arch="sm_90a", ptxas=exe, extra_args=extra) for _ in range(args.repeats)]
            a, b = peers.elf_sections(libs[-1].cubin), peers.elf_sections(exes[-1].cubin)
            differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
            same = set(differ) <= {".note.nv.tkinfo"}
            ok = ok and same
            lt = statistics.median(r.seconds for r in libs)
            et = statistics.median(r.seconds for r in exes)
            print(f"  {name:<11} {' '.join(extra) or '(defaults)':<28} library {lt * 1e3:7.2f} ms  ptxas {et * 1e3:7.2f} ms"
                  f"  ({libs[-1].command[0]}; regs {libs[-1].info[name].registers}/{exes[-1].info[name].registers}); "
                  f"cubins {'identical but for the toolkit note' if same else 'DIFFER in ' + ', '.join(differ)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
