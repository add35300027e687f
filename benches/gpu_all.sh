#!/usr/bin/env bash
# The device check, run from the repository root on a GPU machine with the native module
# built here (python/tileir/_native.abi3.so) and, when its llvmlite is older than 0.50,
# llvmlite 0.50 unpacked and re-packed as .bench/dev/llvmlite050.tar.xz (a wheel is too big to carry);
# optionally .bench/cutile_wheels for benches/gpu_gemm.py's cuTile column.
set -x
OUT=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import llvmlite, numpy; print('llvmlite', llvmlite.__version__, 'numpy', numpy.__version__)"
LLVMLITE_PATH=
python3 - <<'PY' || { mkdir -p /tmp/llvml && tar xJf .bench/dev/llvmlite050.tar.xz -C /tmp/llvml && LLVMLITE_PATH=/tmp/llvml; }
import llvmlite, sys
v = tuple(int(x) for x in llvmlite.__version__.split('.')[:2])
sys.exit(0 if v >= (0, 50) else 1)
PY
which ptxas; ptxas --version | tail -1
export PYTHONPATH=$PWD/python${LLVMLITE_PATH:+:$LLVMLITE_PATH} TILEIR_CACHE_DIR=$OUT/cache
python3 benches/gpu_check.py --repeats 20 2>&1 | tail -8
timeout 400 python3 benches/gpu_samples.py --repeats 20 2>&1 | tail -40
timeout 200 python3 benches/gpu_math_ulp.py 2>&1 | tail -20
timeout 200 python3 benches/launch_overhead.py --n 20000 2>&1 | tail -8
timeout 200 python3 benches/gpu_ptx_library_check.py 2>&1 | tail -6
# GEMM / FMHA throughput next to cuBLAS, Triton and (when carried) cuTile + tileiras: issue #14.
# cuTile: carry .bench/cutile_wheels (see benches/gpu_gemm.py's docstring); its tileiras wheel's
# binary goes on PATH, and tileiras finds libnvvm through CUDA_HOME (ptxas's toolkit).
if ls .bench/cutile_wheels/*.whl >/dev/null 2>&1; then
    python3 -m pip install --no-deps --quiet .bench/cutile_wheels/*.whl
    CU13_BIN=$(python3 -c "import nvidia.cu13, os; print(os.path.join(list(nvidia.cu13.__path__)[0], 'bin'))" 2>/dev/null)
    [ -x "$CU13_BIN/tileiras" ] && export PATH=$PATH:$CU13_BIN
    PTXAS_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v ptxas)")")")
    [ -z "$CUDA_HOME" ] && [ -e "$PTXAS_HOME/nvvm/lib64/libnvvm.so" ] && export CUDA_HOME=$PTXAS_HOME
fi
timeout 600 python3 benches/gpu_gemm.py --json $OUT/gpu_gemm.json 2>&1 | tail -120
timeout 120 python3 benches/gpu_fmha_check.py 2>&1 | tail -14
