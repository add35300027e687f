#!/usr/bin/env python3
"""Compatibility of tileir-bytecode with NVIDIA's tools.

1. `--make-reference DIR`: compiles our own small cuTile Python kernels (a vector add and
   a row reduction) to TileIR bytecode with `cuda.tile.compilation.export_kernel` (no GPU
   needed) at versions 13.1 and 13.3, writing `DIR/<kernel>-<version>.tileirbc`. The
   checked-in files under tests/data/ were produced this way; `tests/nvidia_data.rs`
   checks that our reader reads them.
2. `--check DIR`: runs `tileirdisasm` and `tileiras --gpu-name sm_90` on every
   `DIR/*.tileirbc` (files our writer produced: see the ignored test
   `writes_files_for_nvidia_tools` in tests/nvidia_data.rs, run with
   TILEIR_BC_OUT=DIR) and reports which ones NVIDIA's tools accept.

Without cuTile or the tools the script exits 0 after printing why it skipped.
Usage (from the repository root):
  python crates/tileir-bytecode/tests/nvidia_compat.py --make-reference crates/tileir-bytecode/tests/data
  TILEIR_BC_OUT=/tmp/ours cargo test -p tileir-bytecode --test nvidia_data -- --ignored
  python crates/tileir-bytecode/tests/nvidia_compat.py --check /tmp/ours
"""

import glob
import os
import shutil
import subprocess
import sys


def find_tool(name):
    found = shutil.which(name)
    if found:
        return found
    try:
        import nvidia  # noqa: F401  (the cuda-tile[tileiras] wheel ships the tools here)

        for base in nvidia.__path__:
            cand = os.path.join(base, "cu13", "bin", name)
            if os.path.exists(cand):
                return cand
    except ImportError:
        pass
    return None


def make_reference(out_dir):
    try:
        import cuda.tile as ct
        from cuda.tile import compilation as comp
    except ImportError as e:
        print(f"SKIP: cuTile Python is not installed ({e})")
        return 0

    TILE = 128

    @ct.kernel
    def vadd(a, b, c):
        bid = ct.bid(0)
        x = ct.load(a, index=(bid,), shape=(TILE,))
        y = ct.load(b, index=(bid,), shape=(TILE,))
        ct.store(c, index=(bid,), tile=x + y)

    @ct.kernel
    def rowsum(a, out):
        bid = ct.bid(0)
        x = ct.load(a, index=(bid, 0), shape=(1, 64))
        s = ct.sum(x, axis=1)
        ct.store(out, index=(bid,), tile=s)

    def arr(ndim):
        return comp.ArrayConstraint(
            ct.float32,
            ndim,
            index_dtype=ct.int32,
            stride_lower_bound_incl=0,
            alias_groups=(),
            may_alias_internally=False,
        )

    os.makedirs(out_dir, exist_ok=True)
    conv = comp.CallingConvention.cutile_python_v1()
    kernels = [("vadd", vadd, [arr(1), arr(1), arr(1)]), ("rowsum", rowsum, [arr(2), arr(1)])]
    for name, k, params in kernels:
        for version in ("13.1", "13.3", "13.4"):
            path = os.path.join(out_dir, f"{name}-{version}.tileirbc")
            sig = comp.KernelSignature(params, conv, symbol=name)
            kwargs = {"output_format": "tileir_bytecode", "bytecode_version": version}
            if version == "13.1":
                kwargs["gpu_code"] = "sm_90"
            comp.export_kernel(k, [sig], path, **kwargs)
            print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    return 0


def check(in_dir):
    disasm = find_tool("tileirdisasm")
    tileiras = find_tool("tileiras")
    if not disasm and not tileiras:
        print("SKIP: neither tileirdisasm nor tileiras is available")
        return 0
    files = sorted(glob.glob(os.path.join(in_dir, "*.tileirbc")))
    if not files:
        print(f"SKIP: no *.tileirbc files in {in_dir}")
        return 0
    failures = 0
    for f in files:
        for tool, args in ((disasm, []), (tileiras, ["--gpu-name", "sm_90", "-o", f + ".cubin"])):
            if not tool:
                continue
            r = subprocess.run([tool, *args, f], capture_output=True, text=True)
            if r.returncode != 0 and "Incompatibility with architecture" in r.stderr:
                # A valid file using types sm_90 lacks (e.g. f8E8M0FNU): try sm_100.
                r = subprocess.run([tool, "--gpu-name", "sm_100", *args[2:], f], capture_output=True, text=True)
            ok = r.returncode == 0
            failures += not ok
            msg = "" if ok else (r.stderr or r.stdout).strip().splitlines()[:3]
            print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(tool)} {os.path.basename(f)} {msg}")
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("--make-reference", "--check"):
        print(__doc__)
        sys.exit(2)
    sys.exit(make_reference(sys.argv[2]) if sys.argv[1] == "--make-reference" else check(sys.argv[2]))
