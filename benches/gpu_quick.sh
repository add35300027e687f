#!/usr/bin/env bash
# The short device check (about 8 minutes), for a session with a 15-minute device budget:
# correctness of the compiled samples and of the GPU-marked tests on the device, then GEMM
# throughput next to cuBLAS and Triton (bf16 and fp8, 4096^3, the default TMA ring and
# ct.tune's pick). Run from the repository root with the native module built here
# (python/tileir/_native.abi3.so) and .bench/dev/llvmlite050.tar.xz carried; benches/gpu_all.sh
# is the long version.
set -x
OUT=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
LLVMLITE_PATH=
python3 - <<'PY' || { mkdir -p /tmp/llvml && tar xJf .bench/dev/llvmlite050.tar.xz -C /tmp/llvml && LLVMLITE_PATH=/tmp/llvml; }
import llvmlite, sys
v = tuple(int(x) for x in llvmlite.__version__.split('.')[:2])
sys.exit(0 if v >= (0, 50) else 1)
PY
export PYTHONPATH=$PWD/python${LLVMLITE_PATH:+:$LLVMLITE_PATH} TILEIR_CACHE_DIR=$OUT/cache
timeout 150 python3 -m pytest -q -m gpu tests/python -p no:cacheprovider 2>&1 | tail -5
timeout 200 python3 benches/gpu_samples.py --repeats 5 2>&1 | tail -30
timeout 300 python3 benches/gpu_gemm.py --quick --skip-fmha --dtypes bf16,fp8 --tune --json $OUT/gpu_gemm.json 2>&1 | tail -60
