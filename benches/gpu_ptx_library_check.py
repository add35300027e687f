"""GPU check of the in-process PTX compiler: does this driver load and run the cubins that
NVIDIA's PTX compiler library (CUDA 13, new cubin ELF ABI) makes, and the ptxas executable's?

    python3 benches/gpu_ptx_library_check.py

Needs a GPU, the driver, and ``pip install nvidia-nvptxcompiler`` (plus a C compiler to link
it once). Prints the driver version, then for each PTX compiler available: whether
``cuModuleLoadData`` accepts its vector-add cubin and whether the kernel computes a + b.
The answer decides whether ``TILEIR_PTX_COMPILER=auto`` may pair a CUDA 13 library with a
CUDA 12 ptxas (today it does not: it uses the library only with a ptxas of its release).
"""

from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))


def main() -> int:
    import tileir as ct
    from tileir._toolchain import cuda, ptxas
    from vector_add import vector_add

    if not cuda.is_available():
        print("no CUDA driver / GPU: nothing to check")
        return 0
    print(f"driver version {cuda.driver_version()}, device sm_{''.join(map(str, cuda.compute_capability(0)))}")
    os.environ["TILEIR_CACHE"] = "0"
    n = (1 << 20) + 7
    a = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    b = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    target = ct._compile._device_target()
    for mode in ("process", "library"):
        os.environ["TILEIR_PTX_COMPILER"] = mode
        try:
            k = ct.compile(vector_add.replace_hints(), (a, b, a, 1024), target=target)
        except Exception as e:
            print(f"  {mode:<8} compile failed: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
            continue
        da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.empty(n, "float32")
        try:
            ct.launch(None, (ct.cdiv(n, 1024),), k, (da, db, dc, 1024))
            cuda.synchronize()
            ok = np.array_equal(dc.copy_to_host(), a + b)
            print(f"  {mode:<8} {k.ptx_compiler}: cubin ELF ABI {k.cubin[7]:#x}/{k.cubin[8]}, loads and runs, "
                  f"result {'correct' if ok else 'WRONG'}")
        except Exception as e:
            print(f"  {mode:<8} {k.ptx_compiler}: cubin ELF ABI {k.cubin[7]:#x}/{k.cubin[8]}: "
                  f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
    print("library archive:", ptxas.find_ptx_archive())
    return 0


if __name__ == "__main__":
    sys.exit(main())
