"""Measured accuracy of the backend's f32 math on a GPU (exits 2 without one).

    python3 benches/gpu_math_ulp.py [--n 4194304] [--emulate]

Each op runs over n random inputs drawn from the range given below; the result is compared
with NumPy's float64 result rounded to float32, in units in the last place of that
reference. Printed per op: the maximum error, the 99.99th percentile, and, for results near
zero (where the MUFU sin/cos are specified by an absolute bound), the maximum absolute error.
These are the figures the README's "The GPU backend" section quotes.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import tileir as ct
from tileir._toolchain import cuda

TILE = 1024


def make_unary(fn):
    @ct.kernel
    def k(X, Y):
        x = ct.load(X, (ct.bid(0),), (TILE,))
        ct.store(Y, (ct.bid(0),), fn(x))

    return k


def make_binary(fn):
    @ct.kernel
    def k(X, Z, Y):
        x = ct.load(X, (ct.bid(0),), (TILE,))
        z = ct.load(Z, (ct.bid(0),), (TILE,))
        ct.store(Y, (ct.bid(0),), fn(x, z))

    return k


# name -> (kernel, numpy reference, input sampler)
def cases(rng):
    u = lambda lo, hi: (lambda n: rng.uniform(lo, hi, n).astype(np.float32))  # noqa: E731
    logu = lambda lo, hi: (lambda n: np.exp(rng.uniform(np.log(lo), np.log(hi), n)).astype(np.float32))  # noqa: E731
    return {
        "exp [-80, 80]": (make_unary(ct.exp), np.exp, u(-80, 80)),
        "exp2 [-120, 120]": (make_unary(ct.exp2), np.exp2, u(-120, 120)),
        "log (1e-30, 1e30)": (make_unary(ct.log), np.log, logu(1e-30, 1e30)),
        "log2 (1e-30, 1e30)": (make_unary(ct.log2), np.log2, logu(1e-30, 1e30)),
        "sin [-pi, pi]": (make_unary(ct.sin), np.sin, u(-np.pi, np.pi)),
        "cos [-pi, pi]": (make_unary(ct.cos), np.cos, u(-np.pi, np.pi)),
        "sin [-100, 100]": (make_unary(ct.sin), np.sin, u(-100, 100)),
        "tan [-1.5, 1.5]": (make_unary(ct.tan), np.tan, u(-1.5, 1.5)),
        "tanh [-10, 10]": (make_unary(ct.tanh), np.tanh, u(-10, 10)),
        "sinh [-80, 80]": (make_unary(ct.sinh), np.sinh, u(-80, 80)),
        "cosh [-80, 80]": (make_unary(ct.cosh), np.cosh, u(-80, 80)),
        "rsqrt (1e-30, 1e30)": (make_unary(ct.rsqrt), lambda x: 1 / np.sqrt(x), logu(1e-30, 1e30)),
        "sqrt (1e-30, 1e30)": (make_unary(ct.sqrt), np.sqrt, logu(1e-30, 1e30)),
        "pow (0.01, 10) ^ [-8, 8]": (make_binary(ct.pow), np.power, (logu(0.01, 10), u(-8, 8))),
        "atan2 normal": (make_binary(ct.atan2), np.arctan2,
                         (lambda n: rng.standard_normal(n).astype(np.float32),
                          lambda n: rng.standard_normal(n).astype(np.float32))),
    }


def ulp_error(got: np.ndarray, ref64: np.ndarray) -> np.ndarray:
    ref32 = ref64.astype(np.float32)
    ulp = np.spacing(np.abs(ref32)).astype(np.float64)
    ulp[ulp == 0] = np.finfo(np.float32).smallest_subnormal
    err = np.abs(got.astype(np.float64) - ref64) / ulp
    return err[np.isfinite(ref64) & np.isfinite(ref32)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 22)
    ap.add_argument("--emulate", action="store_true", help="run on the PTX emulator instead (use a small --n)")
    args = ap.parse_args()
    if not args.emulate and not cuda.is_available():
        print("no CUDA GPU/driver: nothing measured")
        return 2
    n = args.n - args.n % TILE
    rng = np.random.default_rng(0)
    print(f"{'op and input range':28s} {'max ulp':>10s} {'99.99% ulp':>11s} {'max abs (|ref|<1e-3)':>21s}")
    for name, (kern, ref, sampler) in cases(rng).items():
        if isinstance(sampler, tuple):
            xs = [s(n) for s in sampler]
        else:
            xs = [sampler(n)]
        if args.emulate:
            host = xs + [np.zeros(n, np.float32)]
            ct.emulate((n // TILE,), kern, host)
            got = host[-1]
        else:
            dev = [cuda.to_device(x) for x in xs] + [cuda.empty((n,), np.float32)]
            ct.launch(None, (n // TILE,), kern, dev)
            cuda.synchronize()
            got = dev[-1].copy_to_host()
        with np.errstate(all="ignore"):
            r64 = ref(*[x.astype(np.float64) for x in xs])
        e = ulp_error(got, r64)
        small = np.abs(r64) < 1e-3
        abs_small = float(np.max(np.abs(got[small] - r64[small]))) if small.any() else 0.0
        print(f"{name:28s} {e.max():10.2f} {np.percentile(e, 99.99):11.2f} {abs_small:21.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
