"""Scheduling time against LLVM time on the same kernels: a K loop whose body holds two tile
loads and a chain of N element-wise ops (N = 10 … 10^4), compiled through the default
pipeline plus ``tileas-materialize-schedule{use-AUS=true}`` (which builds the loop's
dependence graph and runs the modulo scheduler, COST_BASED on sm_90). Prints, per N, the
scheduling pass's time, LLVM's time for the same kernel (IR → PTX in the LLVM worker), their
ratio, and the growth of each from the previous N.

    python3 benches/schedule_vs_llvm.py [--sizes 10,100,1000,10000] [--repeats 3]

Not part of the tests (no timed tests): run it by hand; the figures go in the issue notes.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tileir import _native
from tileir._compile import _LLVM_CPU, _LLVM_OPT
from tileir._toolchain import compile_to_ptx

PV = "partition_view<tile=(64x32), padding_value = zero, tensor_view<64x?xf16, strides=[?,1]>>"


def kernel(n_ops: int) -> str:
    """cuda_tile text: acc += f(load(A[i]), load(B[i])) with f a chain of n_ops ops."""
    body = []
    prev = "%fa"
    for k in range(n_ops):
        op = ("addf", "mulf", "subf", "maxf")[k % 4]
        other = "%fb" if k % 2 else "%fa"
        body.append(f"      %v{k} = {op} {prev}, {other} : tile<64x32xf32>")
        prev = f"%v{k}"
    lines = "\n".join(body)
    return f"""cuda_tile.module @kernels {{
  entry @chain(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %k: tile<i32>) {{
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [64, %k], strides = [%k, 1] : tile<i32> -> tensor_view<64x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [64, %k], strides = [%k, 1] : tile<i32> -> tensor_view<64x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf32, strides=[32,1]>
    %pa = make_partition_view %ta : {PV}
    %pb = make_partition_view %tb : {PV}
    %pc = make_partition_view %tc : partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>
    %sp:2 = get_index_space_shape %pa : {PV} -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<64x32xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %acc = for %i in (%c0 to %sp#1, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<64x32xf32>) {{
      %la, %t0 = load_view_tko weak %pa[%c0, %i] : {PV}, tile<i32> -> tile<64x32xf16>, token
      %lb, %t1 = load_view_tko weak %pb[%c0, %i] : {PV}, tile<i32> -> tile<64x32xf16>, token
      %fa = ftof %la : tile<64x32xf16> -> tile<64x32xf32>
      %fb = ftof %lb : tile<64x32xf16> -> tile<64x32xf32>
{lines}
      %s = addf %x, {prev} : tile<64x32xf32>
      continue %s : tile<64x32xf32>
    }}
    %t2 = store_view_tko weak %acc, %pc[%c0, %c0] : tile<64x32xf32>, partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>, tile<i32> -> token
    return
  }}
}}
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10,100,1000,10000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-llvm-above", type=int, default=2000, help="skip LLVM (too slow) above this many ops")
    args = ap.parse_args()
    pipeline = _native.default_pipeline().replace(
        "tileas-unspecialized-pipeline", "tileas-materialize-schedule{use-AUS=true},tileas-unspecialized-pipeline")
    # Start the LLVM worker before timing (its start-up is a per-process cost).
    warm = _native.compile(_native.parse(kernel(1), "<warm>", False, False), target="sm_90a", pipeline=pipeline, debug_info=False)
    compile_to_ptx(dict(warm["stages"])["llvm"], cpu=_LLVM_CPU["sm_90a"], features="+ptx86", opt_level=_LLVM_OPT)
    prev = None
    print(f"{'ops':>6} {'schedule ms':>12} {'LLVM ms':>10} {'sched/LLVM':>11} {'sched growth':>13} {'LLVM growth':>12}")
    for n in [int(s) for s in args.sizes.split(",")]:
        module = _native.parse(kernel(n), "<chain>", False, False)
        sched, llvm = [], []
        for _ in range(args.repeats):
            out = _native.compile(module, target="sm_90a", pipeline=pipeline, debug_info=False)
            t = dict(out["timings"])
            sched.append(t["tileas-materialize-schedule"])
            if n <= args.no_llvm_above:
                stages = dict(out["stages"])
                t0 = time.perf_counter()
                compile_to_ptx(stages["llvm"], cpu=_LLVM_CPU["sm_90a"], features="+ptx86", opt_level=_LLVM_OPT)
                llvm.append(time.perf_counter() - t0)
        s = statistics.median(sched) * 1e3
        l_ms = statistics.median(llvm) * 1e3 if llvm else float("nan")
        ratio = s / l_ms if llvm else float("nan")
        gs = f"x{s / prev[0]:.1f}" if prev else "-"
        gl = f"x{l_ms / prev[1]:.1f}" if prev and llvm and prev[1] == prev[1] else "-"
        print(f"{n:>6} {s:>12.3f} {l_ms:>10.1f} {ratio:>11.4f} {gs:>13} {gl:>12}")
        prev = (s, l_ms)


if __name__ == "__main__":
    main()
