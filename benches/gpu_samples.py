"""GPU checks of the general backend (run on a machine with a CUDA GPU; exits 2 without one).

    python3 benches/gpu_samples.py [--repeats 30] [--skip-bandwidth]

1. Every sample kernel of tests/python/frontend_samples.py, at the ragged sizes of
   tests/python/sample_runs.py, is compiled for this GPU, launched, and compared with
   ``ct.interpret`` on the same inputs (bit-exact where the run says so, else within its
   tolerance). The maximum absolute and relative errors are printed.
2. Bandwidth of softmax, layer norm and transpose at large sizes, next to a
   device-to-device copy and torch in the same run (CUDA events, medians).
3. Throughput of the f16 matmul sample at 4096^3 (tensor-core and FMA tile shapes) at
   software-pipelining depths 1 (off), 2 (the default) and 3, next to torch's cuBLAS matmul
   in the same run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))
sys.path.insert(0, HERE)

import tileir as ct  # noqa: E402
from tileir._toolchain import cuda  # noqa: E402

import sample_runs  # noqa: E402
from gpu_check import time_ms  # noqa: E402  (CUDA-event medians, shared with the vector-add check)
from frontend_samples import layer_norm_fwd, softmax, transpose  # noqa: E402


def target_of_device() -> str:
    major, minor = cuda.compute_capability(0)
    return "sm_90a" if (major, minor) == (9, 0) else f"sm_{major}{minor}"


def check_samples(target: str, names) -> int:
    failures = 0
    for name in names:
        try:
            kern, grid, inputs, expected, (rtol, atol) = sample_runs.reference(name)
            t0 = time.perf_counter()
            k = ct.compile(kern, inputs, target=target)
            compile_ms = (time.perf_counter() - t0) * 1e3
            dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in inputs]
            ct.launch(None, grid, kern, dev)
            cuda.synchronize()
            worst = []
            ok = True
            for i, want in expected.items():
                got = dev[i].copy_to_host()
                if rtol == 0 and atol == 0:
                    same = np.array_equal(got.view(np.uint8), want.view(np.uint8))
                else:
                    same = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                       equal_nan=True)
                diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
                worst.append(float(np.nanmax(diff)) if diff.size else 0.0)
                ok &= bool(same)
            status = "ok" if ok else "MISMATCH"
            failures += not ok
            print(f"{name:22s} {status:8s} max|err| {max(worst):.3g}  regs {k.registers}  compile {compile_ms:.0f} ms")
        except Exception as e:  # report and go on: one broken sample must not hide the others
            failures += 1
            print(f"{name:22s} ERROR    {type(e).__name__}: {str(e)[:300]}")
            traceback.print_exc(limit=2, file=sys.stdout)
    return failures


def bandwidth(target: str, repeats: int) -> None:
    gb = 1e-9
    rng = np.random.default_rng(1)
    try:
        import torch
    except ImportError:
        torch = None
    # Device-to-device copy as the ceiling.
    n = 1 << 26
    src = cuda.to_device(rng.standard_normal(n).astype(np.float32))
    dst = cuda.empty((n,), np.float32)
    copy_ms = time_ms(lambda: cuda.memcpy_dtod(dst, src, 4 * n), repeats)
    copy_bw = 2 * 4 * n * gb / (copy_ms * 1e-3)
    print(f"device copy: {copy_bw:.0f} GB/s")

    rows, cols = 16384, 1024
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    dx, dy = cuda.to_device(x), cuda.empty((rows, cols), np.float32)
    ms = time_ms(lambda: ct.launch(None, (rows,), softmax, (dx, dy, 1024)), repeats)
    bw = 2 * 4 * rows * cols * gb / (ms * 1e-3)
    line = f"softmax {rows}x{cols}: {ms * 1e3:.0f} us, {bw:.0f} GB/s ({bw / copy_bw:.2f} of copy)"
    if torch is not None:
        tx = torch.from_numpy(x).cuda()
        tms = time_ms(lambda: torch.softmax(tx, dim=1), repeats)
        line += f"; torch {tms * 1e3:.0f} us, tileir/torch time {ms / tms:.2f}"
    print(line)

    w, b = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
    dw, db = cuda.to_device(w), cuda.to_device(b)
    dmean, drstd = cuda.empty((rows,), np.float32), cuda.empty((rows,), np.float32)
    ms = time_ms(lambda: ct.launch(None, (rows,), layer_norm_fwd, (dx, dw, db, dy, dmean, drstd, 1e-5, 1024)), repeats)
    bw = 2 * 4 * rows * cols * gb / (ms * 1e-3)
    line = f"layer_norm {rows}x{cols}: {ms * 1e3:.0f} us, {bw:.0f} GB/s of in+out ({bw / copy_bw:.2f} of copy)"
    if torch is not None:
        tw, tb = torch.from_numpy(w).cuda(), torch.from_numpy(b).cuda()
        tms = time_ms(lambda: torch.nn.functional.layer_norm(tx, (cols,), tw, tb, 1e-5), repeats)
        line += f"; torch {tms * 1e3:.0f} us, tileir/torch time {ms / tms:.2f}"
    print(line)

    m, n2 = 8192, 8192
    a = rng.standard_normal((m, n2)).astype(np.float32)
    da, dt = cuda.to_device(a), cuda.empty((n2, m), np.float32)
    ms = time_ms(lambda: ct.launch(None, (m // 64, n2 // 64), transpose, (da, dt, 64, 64)), repeats)
    bw = 2 * 4 * m * n2 * gb / (ms * 1e-3)
    line = f"transpose {m}x{n2}: {ms * 1e3:.0f} us, {bw:.0f} GB/s ({bw / copy_bw:.2f} of copy)"
    if torch is not None:
        ta = torch.from_numpy(a).cuda()
        tms = time_ms(lambda: ta.t().contiguous(), repeats)
        line += f"; torch {tms * 1e3:.0f} us, tileir/torch time {ms / tms:.2f}"
    print(line)


def matmul_throughput(repeats: int) -> None:
    """f16 x f16 -> f32-accumulated f16 matmul, 4096^3, next to torch (cuBLAS) in the same run."""
    from frontend_samples import matmul

    try:
        import torch
    except ImportError:
        torch = None
    rng = np.random.default_rng(2)
    n = 4096
    a = (rng.standard_normal((n, n)) * 0.1).astype(np.float16)
    b = (rng.standard_normal((n, n)) * 0.1).astype(np.float16)
    da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.empty((n, n), np.float16)
    flops = 2 * n ** 3
    for tm, tn, tk in [(64, 64, 64), (128, 128, 64)]:
        grid = (ct.cdiv(n, tm) * ct.cdiv(n, tn),)
        # The num_stages hint: on sm_90a the depth of the TMA ring (default: as many stages as
        # fit, up to four; 1 = no ring); elsewhere the register pipeline's (default 2).
        for stages in (None, 1, 2, 4):
            kern = matmul if stages is None else matmul.replace_hints(num_stages=stages)
            k = ct.compile(kern, (da, db, dc, tm, tn, tk), target=target_of_device())
            ptx = k.asm["ptx"]
            variant = ("wgmma" + (" + TMA ring" if "mbarrier.try_wait.parity" in ptx else
                                  " + TMA" if "cp.async.bulk.tensor" in ptx else "")
                       if "wgmma.mma_async" in ptx else "mma.sync" if "mma.sync" in ptx else "fma")
            ms = time_ms(lambda: ct.launch(None, grid, kern, (da, db, dc, tm, tn, tk)), repeats)
            print(f"matmul {n}^3 f16 tiles {tm}x{tn}x{tk} ({variant}, num_stages={stages or 'default'}, "
                  f"{k.registers} regs, {k.dynamic_smem // 1024} KiB dynamic smem): "
                  f"{ms:.2f} ms, {flops / ms / 1e9:.1f} TFLOP/s")
    if torch is not None:
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        tms = time_ms(lambda: ta @ tb, repeats)
        print(f"torch (cuBLAS) f16 matmul: {tms:.2f} ms, {flops / tms / 1e9:.1f} TFLOP/s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--skip-bandwidth", action="store_true")
    ap.add_argument("--only", help="check this one sample (in this process) and exit")
    args = ap.parse_args()
    if not cuda.is_available():
        print("no CUDA GPU/driver: nothing checked")
        return 2
    target = target_of_device()
    if args.only:
        return 1 if check_samples(target, [args.only]) else 0
    print(f"device: sm_{''.join(map(str, cuda.compute_capability(0)))}, compiling for {target}")
    # One process per sample: a fault leaves the CUDA context unusable for the rest.
    failures = 0
    for name in sample_runs.RUNS:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--only", name], capture_output=True, text=True,
                           timeout=300)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            failures += 1
            sys.stdout.write("\n".join(r.stderr.splitlines()[-6:]) + "\n")
    print(f"samples: {len(sample_runs.RUNS) - failures}/{len(sample_runs.RUNS)} match ct.interpret")
    if not args.skip_bandwidth:
        try:
            bandwidth(target, args.repeats)
        except Exception as e:
            print(f"bandwidth: ERROR {type(e).__name__}: {e}")
        try:
            matmul_throughput(max(3, args.repeats // 3))
        except Exception as e:
            print(f"matmul: ERROR {type(e).__name__}: {e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
