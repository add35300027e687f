"""Launch overhead: host time of one ``ct.launch`` of an already compiled kernel, next to a
Triton launch of the same vector add, measured in the same run.

    python3 benches/launch_overhead.py [--n 20000]

With a CUDA GPU and driver: tileir with ``tileir.cuda`` arrays and (when torch with CUDA is
importable) torch tensors, and Triton with torch tensors; each figure is the mean host
time per launch over ``--n`` back-to-back launches of a 1-block grid (the queue is drained
every 1000 launches, outside the timed region), median of 5 rounds.

Without a GPU: the host side alone, against a stand-in libcuda (the C file the toolchain
tests build; cuLaunchKernel records its parameters and returns): argument scanning,
packing and the driver call through ctypes. Triton cannot launch without a GPU, so only
tileir is measured then, with the general path (what every launch cost before the fast
path) for comparison, and, when torch is importable, with stand-in "CUDA" tensors: CPU
torch tensors of a subclass that says ``is_cuda`` and offers ``__cuda_array_interface__``
(torch's own attribute reads, a Python property for ``is_cuda``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))


def _rounds(fn, n, sync=None, rounds=5):
    out = []
    for _ in range(rounds):
        total = 0.0
        done = 0
        while done < n:
            k = min(1000, n - done)
            t = time.perf_counter()
            for _ in range(k):
                fn()
            total += time.perf_counter() - t
            done += k
            if sync is not None:
                sync()
        out.append(total / n)
    return statistics.median(out)


def _fake_driver() -> str:
    src = open(os.path.join(HERE, "..", "tests", "python", "test_toolchain.py")).read()
    start = src.index('FAKE_LIBCUDA_C = r"""') + len('FAKE_LIBCUDA_C = r"""')
    code = src[start:src.index('"""', start)]
    tmp = tempfile.mkdtemp(prefix="tileir-fakecuda-")
    with open(os.path.join(tmp, "fake.c"), "w") as f:
        f.write(code)
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        raise SystemExit("no GPU and no C compiler for the stand-in driver")
    lib = os.path.join(tmp, "libfakecuda.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", lib, os.path.join(tmp, "fake.c")], check=True)
    return lib


def _stand_in_cuda_tensor(torch, n):
    """A CPU float32 torch tensor that passes for a CUDA one (no-GPU host-side measurement)."""

    class StandInCudaTensor(torch.Tensor):
        __torch_function__ = torch._C._disabled_torch_function_impl

        @property
        def is_cuda(self):
            return True

        @property
        def __cuda_array_interface__(self):
            return {"shape": tuple(self.shape), "typestr": "<f4", "data": (self.data_ptr(), False),
                    "strides": None, "version": 2}

    return torch.ones(n).as_subclass(StandInCudaTensor)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    args = ap.parse_args()

    import tileir as ct
    from tileir import _compile
    from tileir._toolchain import cuda
    from vector_add import vector_add

    gpu = cuda.is_available()
    if not gpu:
        cuda._reset_for_tests(_fake_driver())
    n = 1 << 20
    a, b, c = (cuda.to_device(np.ones(n, np.float32)) for _ in range(3))
    sync = cuda.synchronize if gpu else None
    ct.launch(None, (1,), vector_add, (a, b, c, 1024))  # compile + plan
    if sync:
        sync()
    results = {}
    results["tileir ct.launch (tileir.cuda arrays)"] = _rounds(
        lambda: ct.launch(None, (1,), vector_add, (a, b, c, 1024)), args.n, sync)
    results["tileir general path (no launch plan)"] = _rounds(
        lambda: _compile._launch(None, (1,), vector_add, (a, b, c, 1024)), max(args.n // 10, 200), sync)
    triton_s = None
    try:
        import torch
        have_torch_cuda = gpu and torch.cuda.is_available()
    except ImportError:
        have_torch_cuda = False
    if not gpu and "torch" in sys.modules:
        x, y, z = (_stand_in_cuda_tensor(sys.modules["torch"], n) for _ in range(3))
        ct.launch(None, (1,), vector_add, (x, y, z, 1024))
        results["tileir ct.launch (stand-in torch tensors)"] = _rounds(
            lambda: ct.launch(None, (1,), vector_add, (x, y, z, 1024)), args.n)
    if have_torch_cuda:
        x, y, z = (torch.ones(n, device="cuda") for _ in range(3))
        ct.launch(None, (1,), vector_add, (x, y, z, 1024))
        torch.cuda.synchronize()
        results["tileir ct.launch (torch tensors)"] = _rounds(
            lambda: ct.launch(None, (1,), vector_add, (x, y, z, 1024)), args.n, torch.cuda.synchronize)
        try:
            import triton
            import triton.language as tl

            @triton.jit
            def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
                pid = tl.program_id(0)
                offs = pid * BLOCK + tl.arange(0, BLOCK)
                mask = offs < n_elements
                tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                         mask=mask)

            add_kernel[(1,)](x, y, z, n, BLOCK=1024)
            torch.cuda.synchronize()
            triton_s = _rounds(lambda: add_kernel[(1,)](x, y, z, n, BLOCK=1024), args.n, torch.cuda.synchronize)
            results[f"Triton {triton.__version__} launch (torch tensors)"] = triton_s
        except ImportError as e:
            results["Triton: not installed (%s)" % e] = None
    where = "GPU: " + cuda.device_name(0) if gpu and hasattr(cuda, "device_name") else \
        ("GPU" if gpu else "no GPU: stand-in libcuda, host side only")
    print(f"launch overhead, vector add (1 block), host time per launch; {where}")
    for name, s in results.items():
        print(f"  {name:<45} " + (f"{s * 1e6:8.2f} us" if s is not None else "      -"))
    if triton_s:
        ours = results.get("tileir ct.launch (torch tensors)")
        print(f"  ratio tileir/Triton (torch tensors) = {ours / triton_s:.2f}  (target <= 1.00)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
