"""Which of LLVM's IR passes pay for themselves on our kernels: ``default<O3>`` next to
lighter pipelines, by LLVM time and by the SASS they lead to (registers, instructions).

    python3 benches/llvm_pipeline.py [--repeats 5] [--probes DIR]

Samples: the kernels tileir compiles today (vector add in several dtypes and tile sizes),
plus the LLVM IR probes of ../shared/nvptx_probe/tests (hand-written NVPTX IR covering TMA,
wgmma, mbarriers, warp specialization, atomics and math; the ones both LLVM and ptxas
accept). Each pipeline's PTX goes through the same PTX compiler with ``-O3 -v``; the SASS
instruction count is the entry's ``.text`` section size / 16 bytes (sm_70+ instructions are
128 bits), trailing NOP padding left out. A pipeline qualifies when, on every sample, its
registers and instruction count are at most O3's; the cheapest qualifying one is reported.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

#: name -> passes (None: default<O{n}> with the given level)
PIPELINES = {
    "O3": (None, 3),
    "O2": (None, 2),
    "O1": (None, 1),
    "none": ([], 3),
    "ic+cfg": (["instruction_combine", "simplify_cfg"], 3),
    "sroa+ic+gvn+cfg+dce": (["sroa", "instruction_combine", "new_gvn", "simplify_cfg", "aggressive_dce"], 3),
}


def sass_stats(cubin: bytes):
    """{function: instruction count} from the .text.<name> sections of a cubin."""
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    strtab = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        name = cubin[strtab + h[0]:cubin.index(b"\0", strtab + h[0])].decode()
        if not name.startswith(".text."):
            continue
        data = cubin[h[4]:h[4] + h[5]]
        words = [data[i:i + 16] for i in range(0, len(data), 16)]
        while words and (struct.unpack_from("<Q", words[-1])[0] & 0xFFF) == 0x918:  # NOP padding
            words.pop()
        out[name[6:]] = len(words)
    return out


def samples(probes_dir: str):
    import tileir as ct

    sys.path.insert(0, os.path.join(REPO, "examples"))
    from vector_add import vector_add

    import importlib.util
    import tempfile

    sys.path.insert(0, HERE)
    import peers

    os.environ["TILEIR_CACHE"] = "0"
    out = []
    for dtype, tile in ((np.float32, 1024), (np.float16, 1024), (np.float32, 256)):
        x = np.zeros(1 << 20, dtype)
        k = ct.compile(vector_add.replace_hints(), (x, x, x, tile))
        out.append((f"tileir vector_add {np.dtype(dtype).name} TILE={tile}", k.asm["llvm"]))
    folder = tempfile.mkdtemp(prefix="tileir-pipeline-")
    for name in ("softmax", "matmul"):  # the compile benchmark's kernels, when the backend takes them
        path = os.path.join(folder, f"pipeline_{name}.py")
        with open(path, "w") as f:
            f.write(peers.CUTILE_SOURCES[name].replace("import cuda.tile as ct", "import tileir as ct"))
        spec = importlib.util.spec_from_file_location(f"pipeline_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        kargs = peers.KERNEL_ARGS[name]
        args = tuple(np.zeros(shape, dtype) for shape, dtype in kargs["arrays"]) + tuple(kargs["constants"])
        try:
            out.append((f"tileir {name}", ct.compile(getattr(mod, name), args).asm["llvm"]))
        except Exception as e:  # the backend cannot lower it yet
            print(f"(tileir {name}: not compiled yet: {str(e).splitlines()[0][:100]})")
    for path in sorted(glob.glob(os.path.join(probes_dir, "*.ll")) if probes_dir else []):
        with open(path) as f:
            out.append(("probe " + os.path.basename(path)[:-3], f.read()))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--probes", default=os.path.join(REPO, "..", "shared", "nvptx_probe", "tests"),
                    help="folder of .ll probes to add to the samples ('' for tileir's kernels only)")
    args = ap.parse_args()

    from tileir._toolchain import compile_ptx, compile_to_ptx
    from tileir.errors import ToolchainError

    table = {}
    skipped = []
    for name, ir in samples(args.probes):
        row = {}
        for pname, (passes, level) in PIPELINES.items():
            times = []
            try:
                for _ in range(args.repeats):
                    ptx, t = compile_to_ptx(ir, cpu="sm_90a", opt_level=level, passes=passes)
                    times.append(t["opt"] + t["codegen"] + t["parse"] + t["verify"])
                res = compile_ptx(ptx, arch="sm_90a", opt_level=3)
            except ToolchainError as e:
                row = None
                skipped.append(f"{name} ({pname}: {str(e).splitlines()[0][:90]})")
                break
            regs = sum(i.registers for i in res.info.values() if i.is_entry)
            instrs = sum(sass_stats(res.cubin).values())
            row[pname] = (statistics.median(times), regs, instrs)
        if row:
            table[name] = row
    names = list(PIPELINES)
    print(f"LLVM IR pipelines, sm_90a, PTX compiled with -O3; LLVM time (parse+verify+opt+codegen, median of "
          f"{args.repeats}) / registers / SASS instructions")
    print(f"{'sample':<44}" + "".join(f"{n:>24}" for n in names))
    for sample, row in table.items():
        print(f"{sample[:44]:<44}" + "".join(
            f"{row[n][0] * 1e3:9.2f}ms {row[n][1]:4d}r {row[n][2]:5d}i" for n in names))
    totals = {n: sum(row[n][0] for row in table.values()) for n in names}
    print(f"{'total LLVM time':<44}" + "".join(f"{totals[n] * 1e3:20.1f} ms " for n in names))
    ok = []
    for n in names:
        worse = [s for s, row in table.items() if row[n][1] > row["O3"][1] or row[n][2] > row["O3"][2]]
        better = [s for s, row in table.items() if row[n][1] < row["O3"][1] or row[n][2] < row["O3"][2]]
        status = "qualifies" if not worse else f"worse than O3 on {len(worse)}: {', '.join(w[:30] for w in worse[:4])}"
        print(f"  {n:<30} {totals[n] * 1e3:8.1f} ms  {status}" + (f"; better on {len(better)}" if better else ""))
        if not worse:
            ok.append(n)
    if ok:
        best = min(ok, key=lambda n: totals[n])
        print(f"cheapest pipeline with identical or better SASS on every sample: {best} "
              f"({totals[best] * 1e3:.1f} ms vs O3 {totals['O3'] * 1e3:.1f} ms)")
    if skipped:
        print("skipped (LLVM or ptxas rejects them at some level):")
        for s in skipped:
            print("  " + s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
