#!/usr/bin/env bash
# The device check, run from the repository root on a GPU machine with the native module
# built here (python/tileir/_native.abi3.so) and, when its llvmlite is older than 0.50,
# llvmlite 0.50 unpacked and re-packed as .bench/dev/llvmlite050.tar.xz (a wheel is too big to carry).
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
