#!/usr/bin/env bash
# The short device check (about 90 s on an H200, plus the machine's start), for a session with a
# 15-minute device budget:
# the GPU-marked tests, every compiled sample launched against ct.interpret with the
# softmax / layer-norm / transpose bandwidth next to torch, then GEMM (bf16 and fp8, 4096^3)
# and FMHA (seq 2048, head dims 64 and 128) throughput next to cuBLAS, torch's flash SDPA,
# Triton and, when its wheel is carried and the machine's toolkit has tileiras, cuTile.
# Run from the repository root with the native module built here
# (python/tileir/_native.abi3.so, from `cargo build --release -p tileir-py --features
# pyo3/extension-module` or maturin: without that feature it links this machine's libpython)
# and .bench/dev/llvmlite050.tar.xz carried, optionally
# .bench/cutile_min (the cuda-tile wheel, and the nvidia-cuda-tileiras one unless the machine's
# toolkit has tileiras: about 41 MB, which fits beside the native module); every step's output is also kept in
# $OUT. benches/gpu_all.sh is the long version. Set GPU_QUICK_TUNE=1 to add ct.tune's pick.
set -x
OUT=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import llvmlite, numpy, torch, triton; print('llvmlite', llvmlite.__version__, 'numpy', numpy.__version__, 'torch', torch.__version__, 'triton', triton.__version__)"
LLVMLITE_PATH=
python3 - <<'PY' || { mkdir -p /tmp/llvml && tar xJf .bench/dev/llvmlite050.tar.xz -C /tmp/llvml && LLVMLITE_PATH=/tmp/llvml; }
import llvmlite, sys
v = tuple(int(x) for x in llvmlite.__version__.split('.')[:2])
sys.exit(0 if v >= (0, 50) else 1)
PY
which ptxas; ptxas --version | tail -1
if ls .bench/cutile_min/*.whl >/dev/null 2>&1; then
    python3 -m pip install --no-deps --quiet .bench/cutile_min/*.whl
    CU13_BIN=$(python3 -c "import nvidia.cu13, os; print(os.path.join(list(nvidia.cu13.__path__)[0], 'bin'))" 2>/dev/null)
    [ -x "$CU13_BIN/tileiras" ] && export PATH=$PATH:$CU13_BIN
    PTXAS_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v ptxas)")")")
    [ -x "$PTXAS_HOME/bin/tileiras" ] && export PATH=$PATH:$PTXAS_HOME/bin
    [ -z "$CUDA_HOME" ] && [ -e "$PTXAS_HOME/nvvm/lib64/libnvvm.so" ] && export CUDA_HOME=$PTXAS_HOME
    command -v tileiras && tileiras --version | tail -1 || echo "no tileiras on this machine: the cuTile cells say why"
    ls "$CUDA_HOME/nvvm/lib64/" 2>&1 | head -3
fi
export PYTHONPATH=$PWD/python${LLVMLITE_PATH:+:$LLVMLITE_PATH} TILEIR_CACHE_DIR=$OUT/cache
timeout 100 python3 -m pytest -q -m gpu tests/python -p no:cacheprovider 2>&1 | tee $OUT/pytest_gpu.log | tail -8
timeout 140 python3 benches/gpu_samples.py --repeats 5 2>&1 | tee $OUT/gpu_samples.log | tail -40
TUNE=${GPU_QUICK_TUNE:+--tune}
timeout 280 python3 benches/gpu_gemm.py --quick --dtypes bf16,fp8 --head-dims 64,128 $TUNE \
    --json $OUT/gpu_gemm.json 2>&1 | tee $OUT/gpu_gemm.log | tail -70
# FMHA compile variants (fragments off, Q read from registers) against the interpreter.
timeout 80 python3 benches/gpu_fmha_check.py 2>&1 | tee $OUT/gpu_fmha_check.log | tail -14
