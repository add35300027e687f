"""GEMM and FMHA throughput on a GPU: tileir next to cuBLAS, Triton and cuTile (issue #14).

    python3 benches/gpu_gemm.py [--sizes 4096,8192] [--dtypes bf16,fp8] [--repeats 20] [--quick]
                                [--json PATH] [--skip-gemm] [--skip-fmha] [--seq 4096] [--head-dims 64,128]
    python3 benches/gpu_gemm.py --emulate-check        # no GPU needed

Measured, in one run on one GPU (TFLOP/s from CUDA events: warm-up, several launches per event
pair, median of --repeats samples; benches/gpu_check.py's ``time_ms``):

1. GEMM C = A @ B at M = N = K in --sizes, for
   * bf16 x bf16 -> f32 accumulate -> bf16 C (every peer writes bf16),
   * fp8 e4m3 x e4m3 -> f32 accumulate -> f32 C (scales 1),
   by
   * tileir: ``gemm`` below, the matmul sample of tests/python/frontend_samples.py (grouped
     tile order, K loop of ``ct.load`` + ``ct.mma``) at tiles 128x128x64 and 64x64x64, each at
     the default ``num_stages`` and ``@ct.kernel(num_stages=1|2|3|4)`` (on sm_90a the depth of
     the TMA ring feeding wgmma; by default as many stages as fit, up to four; 1 = no ring),
     the ring fed by a producer warpgroup (AWS, the default), and each tile once more with
     ``warp_specialize=False`` (AUS: the kernel's own thread 0 issues the copies);
     for fp8 also with B stored K-major (B^T row-major, loaded with ``order=(1, 0)``), the layout
     cuBLAS and Triton get;
   * ``torch.matmul`` (cuBLAS); for fp8 ``torch._scaled_mm`` (cuBLASLt), B column-major;
   * Triton: an autotuned kernel in the style of Triton's matmul tutorial (written here);
     for fp8 B column-major, as the tutorial does;
   * cuTile Python + tileiras: NVIDIA's ``cuda.tile`` running the very source of the
     frontend_samples matmul (``import cuda.tile as ct`` in place of tileir), when installed.
2. FMHA forward, Q/K/V/O of shape (batch, heads, --seq, head dim) bf16, causal and not,
   softmax scale 1/sqrt(head dim); FLOPs 4*B*H*S*S*D, halved when causal, for every
   implementation alike. By
   * tileir: ``fmha`` below, the attention sample of frontend_samples (online softmax with
     exp2), plus one change: with CAUSAL its key loop stops at the diagonal tile instead of
     masking every tile after it; tiles (TILE_M, TILE_N) = (128, 64) and (64, 64) at the
     sample's occupancy=2, and at head dim 128 also 128x64 at occupancy=1 (occupancy 2 caps a
     thread at 128 registers). Causal runs also time the unmodified sample (tiles 128x64), on
     f16 copies of Q/K/V where tileir misreads torch bf16 tensors (see below);
   * ``torch.nn.functional.scaled_dot_product_attention`` restricted to the flash backend;
   * Triton: a flash-attention forward in the style of Triton's fused-attention tutorial
     (written here, autotuned; causal: unmasked tiles below the diagonal, masked on it);
   * cuTile Python + tileiras on the same attention source as tileir, when installed.

Checks: before timing, every tileir kernel runs at a small shape (GEMM 256^3 on exact data;
FMHA 2x256xD) and is compared with ``ct.interpret`` on the same inputs (bit for bit for GEMM,
whose sums are exact; within 2e-2 for FMHA, whose exp2 is the hardware approximation). After
timing, every implementation's large output is compared on sampled tiles (GEMM: 4 tiles of
128x128; FMHA: 2 (batch, head) pairs x 128 query rows) with torch computing in f32 on the GPU.
A failing check marks the cell; a peer that is missing or fails says why in its cell and the
run goes on.

tileir and bf16/fp8 tensors: tileir's front end describes a torch bf16/fp8 tensor through
DLPack. Older tileir builds misread them (bf16 as None through torch's "<V2" typestr; fp8 as a
KeyError from torch's __cuda_array_interface__ property), both fixed. The script still
asks tileir what dtype it sees; where it sees the wrong one, tileir gets int16 / uint8 views of
the same memory and the kernels bit-cast the loaded tiles to the logical dtype (``_as`` below:
a compile-time no-op when tileir sees the right dtype, a free register reinterpretation when
not). The run prints which mode was used.

--emulate-check (no GPU): compiles every tileir kernel configuration for sm_90a (reports
registers, spills, shared memory and the wgmma form in the PTX), runs it on the PTX emulator
(``ct.emulate``) at a small shape and compares with ``ct.interpret`` and with a NumPy reference
(GEMM 256x256x256 bit for bit; FMHA within 2e-2), and compiles the kernels at the benchmark
shapes as well. Exit status 1 on any mismatch.

Carrying cuTile Python + tileiras to the GPU machine (it reaches no package registry). The
brief's recipe, here
    python3 -m pip download "cuda-tile[tileiras]" -d wheels/ --only-binary=:all: \
        --python-version 3.12 --platform manylinux2014_x86_64
and there ``python3 -m pip install --no-deps wheels/*``, works but downloads about 200 MB (nvcc,
nvvm, nvjitlink, ...), over the 64 MiB a run may carry. What is needed:
* cuda-tile itself (a 0.4 MB wheel). It runs the first ``tileiras`` of: the pip packages (only when
  nvidia-cuda-tileiras, -nvcc and -nvvm are all installed at one version), PATH, $CUDA_HOME/bin,
  the default toolkit paths. A CUDA 13.1+ toolkit on the machine ships tileiras: then this wheel
  is all there is to carry.
* otherwise nvidia-cuda-tileiras (42 MB; the binary lands in site-packages/nvidia/cu13/bin, which
  must then be on PATH). tileiras is not self-contained: it loads libnvvm (from
  ../lib/libnvvm.so.4 beside it or $CUDA_HOME/nvvm/lib64/libnvvm.so) and runs ptxas (beside it
  or on PATH), so the machine's CUDA 13 toolkit must provide both (CUDA_HOME pointing at it);
  otherwise libnvvm (21 MB as .xz) has to be carried too, re-packed like llvmlite.
So: here
    python3 -m pip download cuda-tile "nvidia-cuda-tileiras<13.5" --no-deps -d .bench/cutile_wheels \
        --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64
(the GPU machine runs Python 3.12; cuda-tile 1.7 wants tileiras < 13.5; drop the tileiras wheel
when the machine's toolkit has one), carry .bench/cutile_wheels (git-ignored: name it in the
run's carry list); benches/gpu_all.sh then installs them with ``pip install --no-deps``, puts the
wheel's tileiras on PATH and sets CUDA_HOME from ptxas's toolkit when that has libnvvm. The run
prints which tileiras cuTile found. Checked here without a GPU: both cuTile sources used below
export to bytecode and tileiras 13.4 compiles them for sm_90.
Without ``cuda.tile`` the cuTile cells say "not installed".
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import math
import os
import platform
import re
import sys
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))
sys.path.insert(0, HERE)

import tileir as ct  # noqa: E402
from tileir._toolchain import cuda  # noqa: E402

import frontend_samples  # noqa: E402
from frontend_samples import swizzle_2d  # noqa: E402
from gpu_check import time_ms  # noqa: E402  (CUDA-event medians, shared with the other GPU scripts)
from gpu_samples import target_of_device  # noqa: E402
import peers  # noqa: E402  (find_nvidia_tool, _kernel_module, _pkg_version)

# Spills are reported in each cell (registers, spill bytes); no need to repeat them as warnings.
warnings.filterwarnings("ignore", category=ct.errors.TileIRPerformanceWarning)

ConstInt = ct.Constant[int]
ConstDType = ct.Constant[object]

GEMM_TILES = [(128, 128, 64), (64, 64, 64)]
#: num_stages hints timed (None: tileir's default; on sm_90a the TMA ring takes as many stages
#: as fit, up to four; 1: no ring).
STAGES = (None, 1, 2, 3, 4)
FMHA_TILES = [(128, 64), (64, 64)]
#: Config-name suffix of the warp_specialize hint (None: tileir's default, a producer
#: warpgroup feeding the TMA ring where the kernel allows it, spec/001's AWS; False: AUS).
AUS_TAG = {None: "", False: " AUS"}


def gemm_configs(dt, stages):
    """(tile, num_stages, B K-major, warp_specialize) timed for dtype ``dt``: every tile at
    every num_stages hint; each tile at the default depth once more without the producer
    warpgroup (AUS), for the AWS/AUS comparison; for fp8 also B K-major at 2 stages."""
    configs = [(tile, s, 0, None) for tile in GEMM_TILES for s in stages]
    configs += [(tile, None, 0, False) for tile in GEMM_TILES]
    if dt == "fp8":
        configs.append((GEMM_TILES[0], 2, 1, None))
    return configs


def fmha_configs(d):
    """(tile, occupancy) of the tileir FMHA runs. occupancy=2 is the sample's hint; at head dim
    128 it caps a thread at 128 registers and the kernel spills, so that head dim also runs the
    128x64 tiles at occupancy=1."""
    return [(t, 2) for t in FMHA_TILES] + ([(FMHA_TILES[0], 1)] if d >= 128 else [])


# --------------------------------------------------------------------------------------------
# tileir kernels
# --------------------------------------------------------------------------------------------


def _as(t, DT):
    """The tile as dtype DT: itself when it already is (decided at compile time), else its bits
    reinterpreted (the int16/uint8 views of bf16/fp8 arrays)."""
    return t if t.dtype == DT else ct.bitcast(t, DT)


@ct.kernel(num_ctas=ct.ByTarget(sm_100=2), occupancy=1)
def gemm(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt, IN_DT: ConstDType, OUT_DT: ConstDType,
         B_KMAJOR: ConstInt):
    # frontend_samples.matmul, with the operands read as IN_DT and C written as OUT_DT;
    # B_KMAJOR: B is passed transposed (N x K, row-major) and loaded through order=(1, 0).
    GROUP = 8
    M = A.shape[0]
    N = B.shape[0] if B_KMAJOR else B.shape[1]
    bidx, bidy = swizzle_2d(M, N, tm, tn, GROUP)
    num_k = ct.num_tiles(A, axis=1, shape=(tm, tk))
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(num_k):
        a = _as(ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO), IN_DT)
        if B_KMAJOR:
            b = _as(ct.load(B, index=(k, bidy), shape=(tk, tn), order=(1, 0), padding_mode=ct.PaddingMode.ZERO),
                    IN_DT)
        else:
            b = _as(ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO), IN_DT)
        acc = ct.mma(a, b, acc)
    out = acc.astype(OUT_DT)
    ct.store(C, index=(bidx, bidy), tile=_as(out, C.dtype))


@ct.kernel(occupancy=2)
def fmha(Q, K, V, Out, qk_scale: float, TILE_D: ConstInt, TILE_M: ConstInt, TILE_N: ConstInt, CAUSAL: ConstInt,
         DT: ConstDType):
    # frontend_samples.attention, with Q/K/V read as DT and Out written as DT, and the causal
    # key loop ending at the diagonal tile (the tiles after it are entirely masked).
    bid_x = ct.bid(0)
    bid_y = ct.bid(1)
    qk_scale = qk_scale * 1.44269504
    offs_m = bid_x * TILE_M + ct.arange(TILE_M, dtype=np.int32)
    offs_m = offs_m[:, None]
    offs_n_tile = ct.arange(TILE_N, dtype=np.int32)
    offs_n_tile = offs_n_tile[None, :]
    m_i = ct.full((TILE_M, 1), -np.inf, dtype=np.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=np.float32)
    acc = ct.full((TILE_M, TILE_D), 0.0, dtype=np.float32)
    q = _as(ct.load(Q, index=(bid_y, bid_x, 0), shape=(1, TILE_M, TILE_D)).reshape((TILE_M, TILE_D)), DT)
    k_seqlen = K.shape[1]
    Tc = ct.cdiv(ct.minimum((bid_x + 1) * TILE_M, k_seqlen), TILE_N) if CAUSAL else ct.cdiv(k_seqlen, TILE_N)
    for j in range(0, Tc):
        k = _as(ct.load(K, index=(bid_y, 0, j), shape=(1, TILE_D, TILE_N), order=(0, 2, 1)).reshape((TILE_D, TILE_N)),
                DT)
        qk = ct.full((TILE_M, TILE_N), 0.0, dtype=np.float32)
        qk = ct.mma(q, k, qk)
        if CAUSAL:
            offs_n = j * TILE_N + offs_n_tile
            mask = offs_m >= offs_n
            qk = qk + ct.where(mask, 0.0, -np.inf)
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True) * qk_scale)
        qk = qk * qk_scale - m_ij
        p = ct.exp2(qk, flush_to_zero=True)
        l_ij = ct.sum(p, axis=-1, keepdims=True)
        alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha
        v = _as(ct.load(V, index=(bid_y, j, 0), shape=(1, TILE_N, TILE_D)).reshape((TILE_N, TILE_D)), DT)
        p = p.astype(DT)
        acc = ct.mma(p, v, acc)
        m_i = m_ij
    acc = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
    acc = acc.reshape((1, TILE_M, TILE_D)).astype(DT)
    ct.store(Out, index=(bid_y, bid_x, 0), tile=_as(acc, Out.dtype))


_VARIANTS = {}


def variant(kern, **hints):
    """``kern.replace_hints(**hints)``, one Kernel object (so one compile cache) per hint set;
    a hint of None is left at its default."""
    hints = {k: v for k, v in hints.items() if v is not None}
    key = (kern.name, tuple(sorted(hints.items())))
    if key not in _VARIANTS:
        _VARIANTS[key] = kern.replace_hints(**hints)
    return _VARIANTS[key]


def gemm_args(a, b, c, tile, dt, b_kmajor=0):
    return (a, b, c, *tile, DTYPES[dt]["in"], DTYPES[dt]["out"], b_kmajor)


def gemm_grid(m, n, tile):
    return (ct.cdiv(m, tile[0]) * ct.cdiv(n, tile[1]),)


def fmha_args(q, k, v, o, d, tile, causal, dt="bf16"):
    return (q, k, v, o, 1.0 / math.sqrt(d), d, tile[0], tile[1], int(causal), DTYPES[dt]["in"])


def kernel_facts(k) -> dict:
    ptx = k.asm["ptx"]
    forms = sorted(set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(\w+)", ptx)))
    info = k.ptxas_info
    return {"registers": k.registers, "threads": k.num_threads,
            "spill_bytes": (info.spill_stores_bytes + info.spill_loads_bytes) if info else 0,
            "smem_bytes": k.shared_bytes + k.dynamic_smem,
            "mma": ("wgmma " + ",".join(forms)) if forms else ("mma.sync" if "mma.sync" in ptx else "fma")}


def facts_text(f: dict) -> str:
    spill = f", SPILLS {f['spill_bytes']} B" if f["spill_bytes"] else ""
    return f"{f['mma']}, {f['registers']} regs{spill}, {f['threads']} thr, smem {f['smem_bytes'] // 1024} KiB"


# --------------------------------------------------------------------------------------------
# host-side bits of bf16 / fp8 (NumPy has neither without ml_dtypes)
# --------------------------------------------------------------------------------------------


def bf16_bits(x) -> np.ndarray:
    """float values -> bf16 bit patterns (int16), rounded to nearest even."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16).view(np.int16)


def bf16_values(bits) -> np.ndarray:
    return (np.asarray(bits).view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def _e4m3_table() -> np.ndarray:
    t = np.empty(256, np.float32)
    for code in range(256):
        s, e, m = code >> 7, (code >> 3) & 15, code & 7
        v = (m / 8) * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        t[code] = np.nan if (e == 15 and m == 7) else (-v if s else v)
    return t


E4M3 = _e4m3_table()


def e4m3_values(bits) -> np.ndarray:
    return E4M3[np.asarray(bits).view(np.uint8)]


def e4m3_bits(x) -> np.ndarray:
    """float values -> e4m3fn bit patterns (uint8): the nearest code (exact for the values used here)."""
    finite = np.flatnonzero(np.isfinite(E4M3))
    vals = E4M3[finite]
    x = np.asarray(x, np.float32)
    idx = np.abs(x.reshape(-1, 1) - vals.reshape(1, -1)).argmin(axis=1)
    return finite[idx].astype(np.uint8).reshape(x.shape)


DTYPES = {
    "bf16": {"in": ct.bfloat16, "out": ct.bfloat16, "bits": np.int16, "out_bits": np.int16, "torch_in": "bfloat16",
             "torch_out": "bfloat16", "to_bits": bf16_bits, "values": bf16_values, "out_values": bf16_values,
             "label": "bf16, f32 acc, bf16 out", "rtol": 2e-2},
    "fp8": {"in": ct.float8_e4m3fn, "out": ct.float32, "bits": np.uint8, "out_bits": np.float32,
            "torch_in": "float8_e4m3fn", "torch_out": "float32", "to_bits": e4m3_bits, "values": e4m3_values,
            "out_values": lambda x: np.asarray(x, np.float32), "label": "e4m3, f32 acc, f32 out", "rtol": 5e-3},
}


# --------------------------------------------------------------------------------------------
# --emulate-check: no GPU
# --------------------------------------------------------------------------------------------


def exact_gemm_inputs(rng, dt, m, n, k, b_kmajor=0):
    """Small integers (bf16) / halves (e4m3): every product and partial sum is exact in f32, so
    any summation order gives the same bits."""
    d = DTYPES[dt]
    if dt == "bf16":
        a = rng.integers(-4, 5, (m, k)).astype(np.float32)
        b = rng.integers(-4, 5, (k, n)).astype(np.float32)
    else:
        a = (rng.integers(-8, 9, (m, k)) / 2).astype(np.float32)
        b = (rng.integers(-8, 9, (k, n)) / 2).astype(np.float32)
    ab, bb = d["to_bits"](a), d["to_bits"](b if not b_kmajor else np.ascontiguousarray(b.T))
    assert np.array_equal(d["values"](ab), a)
    return a, b, ab, bb


def emulate_check(sizes, head_dims, seq) -> int:
    failures = 0
    rng = np.random.default_rng(0)
    n = 256
    print(f"tileir kernels compiled for sm_90a, run on the PTX emulator (ct.emulate) at small shapes, "
          f"compared with ct.interpret and NumPy")
    print(f"\nGEMM {n}x{n}x{n} (exact data: bit-exact comparisons)")
    for dt in DTYPES:
        d = DTYPES[dt]
        configs = gemm_configs(dt, STAGES)
        for tile, stages, kmaj, ws in configs:
            name = f"{dt:4s} {tile[0]}x{tile[1]}x{tile[2]} num_stages={stages or 'default'}{' B K-major' if kmaj else ''}{AUS_TAG[ws]}"
            try:
                kern = variant(gemm, num_stages=stages, warp_specialize=ws)
                a, b, ab, bb = exact_gemm_inputs(rng, dt, n, n, n, kmaj)
                c_i = np.zeros((n, n), d["out_bits"])
                c_e = np.zeros((n, n), d["out_bits"])
                t0 = time.perf_counter()
                k = ct.compile(kern, gemm_args(ab, bb, c_e, tile, dt, kmaj), target="sm_90a")
                t_compile = time.perf_counter() - t0
                ct.interpret(gemm_grid(n, n, tile), kern, gemm_args(ab, bb, c_i, tile, dt, kmaj))
                t0 = time.perf_counter()
                ct.emulate(gemm_grid(n, n, tile), kern, gemm_args(ab, bb, c_e, tile, dt, kmaj), target="sm_90a")
                t_emu = time.perf_counter() - t0
                ref = a.astype(np.float64) @ b.astype(np.float64)
                want = bf16_bits(ref) if dt == "bf16" else ref.astype(np.float32)
                same_interp = np.array_equal(c_e.view(np.uint8), c_i.view(np.uint8))
                same_ref = np.array_equal(c_e.view(np.uint8), want.view(np.uint8))
                # the same specialization at the benchmark sizes (np.empty: no memory touched)
                for s in sizes:
                    big_b = np.empty((s, s), d["bits"])
                    ct.compile(kern, gemm_args(np.empty((s, s), d["bits"]), big_b, np.empty((s, s), d["out_bits"]),
                                               tile, dt, kmaj), target="sm_90a")
                ok = same_interp and same_ref
                failures += not ok
                print(f"  {name:44s} {'ok' if ok else 'MISMATCH':8s} emulate==interpret {same_interp}, "
                      f"==NumPy {same_ref}; {facts_text(kernel_facts(k))}; compile {t_compile:.1f} s, "
                      f"emulate {t_emu:.1f} s")
            except Exception as e:
                failures += 1
                print(f"  {name:44s} ERROR    {type(e).__name__}: {str(e)[:400]}")
    print(f"\nFMHA bf16, (batch*heads, seq, head dim) = (2, {n}, D), tolerance 2e-2 "
          f"(exp2 is the hardware approximation)")
    for dd in head_dims:
        for causal in (0, 1):
            for tile, occ in fmha_configs(dd):
                name = f"D={dd} causal={causal} tile {tile[0]}x{tile[1]} occupancy={occ}"
                kern = variant(fmha, occupancy=occ)
                try:
                    q, kk, v = (rng.standard_normal((2, n, dd)).astype(np.float32) for _ in range(3))
                    qb, kb, vb = bf16_bits(q), bf16_bits(kk), bf16_bits(v)
                    o_i, o_e = np.zeros((2, n, dd), np.int16), np.zeros((2, n, dd), np.int16)
                    grid = (n // tile[0], 2)
                    t0 = time.perf_counter()
                    k = ct.compile(kern, fmha_args(qb, kb, vb, o_e, dd, tile, causal), target="sm_90a")
                    t_compile = time.perf_counter() - t0
                    ct.interpret(grid, kern, fmha_args(qb, kb, vb, o_i, dd, tile, causal))
                    t0 = time.perf_counter()
                    ct.emulate(grid, kern, fmha_args(qb, kb, vb, o_e, dd, tile, causal), target="sm_90a")
                    t_emu = time.perf_counter() - t0
                    ref = attention_reference(bf16_values(qb), bf16_values(kb), bf16_values(vb), causal)
                    got, interp = bf16_values(o_e), bf16_values(o_i)
                    err_i = float(np.max(np.abs(got - interp)))
                    err_r = float(np.max(np.abs(got - ref)))
                    for_shape = (64, seq, dd)  # batch 4 x heads 16
                    big = [np.empty(for_shape, np.int16) for _ in range(4)]
                    ct.compile(kern, fmha_args(*big, dd, tile, causal), target="sm_90a")
                    ok = err_i <= 2e-2 and err_r <= 2e-2
                    failures += not ok
                    print(f"  {name:44s} {'ok' if ok else 'MISMATCH':8s} max|emulate-interpret| {err_i:.2g}, "
                          f"max|emulate-NumPy| {err_r:.2g}; {facts_text(kernel_facts(k))}; compile {t_compile:.1f} s, "
                          f"emulate {t_emu:.1f} s")
                except Exception as e:
                    failures += 1
                    print(f"  {name:44s} ERROR    {type(e).__name__}: {str(e)[:400]}")
    # The attention sample itself (f16, NumPy-native) at the benchmark shape: does it compile?
    for dd in head_dims:
        for tile in FMHA_TILES:
            try:
                big = [np.empty((64, seq, dd), np.float16) for _ in range(4)]
                k = ct.compile(frontend_samples.attention, (*big, 1.0 / math.sqrt(dd), dd, tile[0], tile[1], 1),
                               target="sm_90a")
                print(f"  frontend_samples.attention f16 (64, {seq}, {dd}) tile {tile[0]}x{tile[1]}: compiles; "
                      f"{facts_text(kernel_facts(k))}")
            except Exception as e:
                failures += 1
                print(f"  frontend_samples.attention f16 (64, {seq}, {dd}) tile {tile[0]}x{tile[1]}: ERROR "
                      f"{type(e).__name__}: {str(e)[:300]}")
    print(f"\nemulate-check: {'all ok' if not failures else f'{failures} failure(s)'}")
    return 1 if failures else 0


def attention_reference(q, k, v, causal):
    """softmax(q k^T / sqrt(d)) v in float64 over (batch, seq, d) NumPy arrays."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((s.shape[-2], n), bool)), s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    return (p / p.sum(axis=-1, keepdims=True)) @ v


# --------------------------------------------------------------------------------------------
# Results and tables
# --------------------------------------------------------------------------------------------


class Results:
    def __init__(self):
        self.rows = []

    def add(self, section, case, impl, config="", *, ms=None, flops=None, check=None, note="", baseline=False,
            peer=False, **extra):
        row = {"section": section, "case": case, "impl": impl, "config": config, "ms": ms,
               "tflops": (flops / ms / 1e9) if (ms and flops) else None, "check": check, "note": note,
               "baseline": baseline, "peer": peer}
        row.update(extra)
        self.rows.append(row)
        tf = f"{row['tflops']:.1f} TFLOP/s" if row["tflops"] else "-"
        print(f"  [{case}] {impl} {config}: {tf}  {check or ''}  {note}".rstrip(), flush=True)
        return row

    def table(self, section, baseline_name):
        rows = [r for r in self.rows if r["section"] == section]
        if not rows:
            return
        print(f"\n== {section} ==")
        head = (f"{'case':30s} {'implementation':16s} {'config':34s} {'ms':>9s} {'TFLOP/s':>8s} "
                f"{'/' + baseline_name:>8s} {'/best peer':>10s}  check / note")
        print(head)
        print("-" * len(head))
        for case in dict.fromkeys(r["case"] for r in rows):
            cr = [r for r in rows if r["case"] == case]
            base = next((r["tflops"] for r in cr if r["baseline"] and r["tflops"]), None)
            peers_tf = [r["tflops"] for r in cr if r["peer"] and r["tflops"] and _check_ok(r)]
            best = max(peers_tf) if peers_tf else None
            for r in cr:
                tf = r["tflops"]
                r["vs_baseline"] = tf / base if (tf and base) else None
                r["vs_best_peer"] = tf / best if (tf and best) else None
                cells = [f"{case:30s}", f"{r['impl']:16s}", f"{r['config'][:34]:34s}",
                         f"{r['ms']:9.3f}" if r["ms"] else f"{'-':>9s}", f"{tf:8.1f}" if tf else f"{'-':>8s}",
                         f"{r['vs_baseline']:8.2f}" if r["vs_baseline"] else f"{'-':>8s}",
                         f"{r['vs_best_peer']:10.2f}" if r["vs_best_peer"] else f"{'-':>10s}"]
                print(" ".join(cells) + "  " + "; ".join(x for x in (r["check"], r["note"]) if x))
            tl = [r for r in cr if r["impl"].startswith("tileir") and r["tflops"] and _check_ok(r)]
            if tl:
                t = max(tl, key=lambda r: r["tflops"])
                print(f"{'':30s} best tileir: {t['config']}, {t['tflops']:.1f} TFLOP/s"
                      + (f" = {t['vs_baseline']:.2f}x {baseline_name}" if t["vs_baseline"] else "")
                      + (f", {t['vs_best_peer']:.2f}x best peer" if t["vs_best_peer"] else ""))


class _Skip(Exception):
    """A cell that is not measured, for the reason given."""


def _check_ok(r) -> bool:
    return r["check"] is None or r["check"].startswith("ok")


def _err(e: BaseException) -> str:
    return f"{type(e).__name__}: {' '.join(str(e).split())[:240]}"


def timed(fn, repeats):
    """time_ms with as many launches per event pair as fit in ~25 ms (1 to 20)."""
    est = time_ms(fn, 1, 1)
    inner = int(min(20, max(1, 25.0 / max(est, 1e-3))))
    return time_ms(fn, repeats, inner)


# --------------------------------------------------------------------------------------------
# GPU side
# --------------------------------------------------------------------------------------------


class Env:
    """torch / triton / cuda.tile, each present or the reason it is not."""

    def __init__(self):
        self.torch = self.triton = self.cutile = None
        self.why = {}
        try:
            import torch
            if not torch.cuda.is_available():
                raise RuntimeError("torch.cuda.is_available() is False")
            self.torch = torch
        except Exception as e:
            self.why["torch"] = _err(e)
        try:
            import triton  # noqa: F401
            import triton.language  # noqa: F401
            self.triton = triton
        except Exception as e:
            self.why["triton"] = f"not installed ({_err(e)})"
        try:
            import cuda.tile as cutile
            self.cutile = cutile
        except Exception as e:
            self.why["cutile"] = f"not installed ({_err(e)})"
        self.tileir_mode = {}

    def versions(self):
        v = {"python": platform.python_version(), "tileir": ct.__version__, "numpy": np.__version__}
        if self.torch:
            v["torch"] = self.torch.__version__
            v["cuda (torch)"] = self.torch.version.cuda
        if self.triton:
            v["triton"] = self.triton.__version__
        if self.cutile:
            v["cuda-tile"] = getattr(self.cutile, "__version__", None) or peers._pkg_version("cuda-tile")
            try:  # private: where cuTile's JIT finds tileiras
                from cuda.tile._compile import _find_compiler_bin
                v["tileiras (cuTile's)"] = _find_compiler_bin().path
            except Exception as e:
                v["tileiras (cuTile's)"] = f"not found: {_err(e)}"
            v["tileiras version"] = peers._tool_version(v["tileiras (cuTile's)"]
                                                        if os.path.isfile(v["tileiras (cuTile's)"]) else None)
            v["CUDA_HOME"] = os.environ.get("CUDA_HOME")
        return v

    def tdt(self, name):
        return getattr(self.torch, name)

    def detect_mode(self, dt):
        """'direct' when tileir reads a torch tensor of dtype ``dt`` as that dtype, else 'views'."""
        from tileir._frontend.specialize import array_facts
        want = DTYPES[dt]["in"]
        try:
            t = self.torch.zeros(16, 16, device="cuda", dtype=self.tdt(DTYPES[dt]["torch_in"]))
            seen = ct.dtype_of(array_facts(t).dtype)
        except Exception as e:
            seen = f"error ({_err(e)})"
        self.tileir_mode[dt] = "direct" if seen is want else "views"
        return seen

    def bits(self, t):
        """``t`` as NumPy can hold it: f32 as is, 2-byte types as int16, 1-byte as uint8."""
        if t.dtype == self.torch.float32:
            return t
        return t.view(self.torch.int16 if t.element_size() == 2 else self.torch.uint8)

    def for_tileir(self, t, dt):
        """What tileir gets for torch tensor ``t`` holding logical dtype ``dt`` data (or f32 output)."""
        if self.tileir_mode.get(dt) == "direct" or t.dtype == self.torch.float32:
            return t
        return self.bits(t)


def gpu_precheck(env, res, dtypes, head_dims, target):
    """Each tileir kernel at a small shape on the GPU against ct.interpret on the same inputs."""
    torch = env.torch
    rng = np.random.default_rng(1)
    n = 256
    for dt in dtypes:
        d = DTYPES[dt]
        configs = [(tile, 0) for tile in GEMM_TILES] + ([(GEMM_TILES[0], 1)] if dt == "fp8" else [])
        for tile, kmaj in configs:
            cfg = f"{tile[0]}x{tile[1]}x{tile[2]}{' B K-major' if kmaj else ''}"
            try:
                a, b, ab, bb = exact_gemm_inputs(rng, dt, n, n, n, kmaj)
                c_i = np.zeros((n, n), d["out_bits"])
                ct.interpret(gemm_grid(n, n, tile), gemm, gemm_args(ab, bb, c_i, tile, dt, kmaj))
                ta = torch.from_numpy(ab).cuda().view(env.tdt(d["torch_in"]))
                tb = torch.from_numpy(bb).cuda().view(env.tdt(d["torch_in"]))
                tc = torch.zeros((n, n), device="cuda", dtype=env.tdt(d["torch_out"]))
                ct.launch(None, gemm_grid(n, n, tile), gemm,
                          gemm_args(env.for_tileir(ta, dt), env.for_tileir(tb, dt), env.for_tileir(tc, dt), tile, dt,
                                    kmaj))
                torch.cuda.synchronize()
                got = env.bits(tc).cpu().numpy()
                same = np.array_equal(got.view(np.uint8), c_i.view(np.uint8))
                res.add("small-shape checks", f"gemm {dt} {n}^3", "tileir", cfg,
                        check="ok (bit-exact vs ct.interpret)" if same else
                        f"MISMATCH vs ct.interpret ({int((got != c_i).sum())} elements)")
            except Exception as e:
                res.add("small-shape checks", f"gemm {dt} {n}^3", "tileir", cfg, check=f"ERROR {_err(e)}")
    for dd in head_dims:
        for causal in (0, 1):
            tile = FMHA_TILES[0]
            cfg = f"D={dd} causal={causal} tile {tile[0]}x{tile[1]}"
            try:
                q, k, v = (bf16_bits(rng.standard_normal((2, n, dd))) for _ in range(3))
                o_i = np.zeros((2, n, dd), np.int16)
                grid = (n // tile[0], 2)
                ct.interpret(grid, fmha, fmha_args(q, k, v, o_i, dd, tile, causal))
                tq, tk, tv = (torch.from_numpy(x).cuda().view(torch.bfloat16) for x in (q, k, v))
                to = torch.zeros((2, n, dd), device="cuda", dtype=torch.bfloat16)
                ct.launch(None, grid, fmha, fmha_args(*(env.for_tileir(x, "bf16") for x in (tq, tk, tv, to)), dd, tile,
                                                      causal))
                torch.cuda.synchronize()
                err = float(np.max(np.abs(bf16_values(to.view(torch.int16).cpu().numpy()) - bf16_values(o_i))))
                res.add("small-shape checks", f"fmha bf16 2x{n}x{dd}", "tileir", cfg,
                        check=(f"ok (max|err| {err:.2g} vs ct.interpret)" if err <= 2e-2 else
                               f"MISMATCH vs ct.interpret (max|err| {err:.2g})"))
            except Exception as e:
                res.add("small-shape checks", f"fmha bf16 2x{n}x{dd}", "tileir", cfg, check=f"ERROR {_err(e)}")


def gemm_check(env, a, b, c, rtol, tiles=4, tile=128):
    """C against torch's f32 product on ``tiles`` random tile x tile blocks: 'ok (...)' or 'MISMATCH (...)'."""
    torch = env.torch
    m, n = c.shape
    g = torch.Generator().manual_seed(7)
    worst = 0.0
    for _ in range(tiles):
        i = int(torch.randint(0, max(1, m // tile), (1,), generator=g)) * tile
        j = int(torch.randint(0, max(1, n // tile), (1,), generator=g)) * tile
        ref = a[i:i + tile].float() @ b[:, j:j + tile].float()
        got = c[i:i + tile, j:j + tile].float()
        scale = float(ref.abs().max()) or 1.0
        worst = max(worst, float((got - ref).abs().max()) / scale)
    ok = worst <= rtol and math.isfinite(worst)
    return (f"ok (max err {worst:.1e} of max|C|)" if ok else f"MISMATCH (max err {worst:.1e} of max|C|)")


def make_triton_matmul(env, dt, quick):
    triton = env.triton
    tl = triton.language

    # (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps): Hopper-sized tiles as in the tutorial.
    if dt == "bf16":
        cfgs = [(128, 256, 64, 3, 8), (128, 128, 64, 4, 4), (128, 128, 64, 3, 8), (64, 256, 64, 4, 4)]
    else:
        cfgs = [(128, 256, 128, 3, 8), (128, 128, 128, 4, 8), (256, 128, 128, 3, 8), (128, 128, 128, 4, 4)]
    configs = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=s, num_warps=w)
               for bm, bn, bk, s, w in cfgs[:2 if quick else None]]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
        pid = tl.program_id(0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        per_group = GROUP_M * num_pid_n
        first_m = (pid // per_group) * GROUP_M
        group_m = min(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + ((pid % per_group) % group_m)
        pid_n = (pid % per_group) // group_m
        rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        rk = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
        b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
                 mask=(cm[:, None] < M) & (cn[None, :] < N))

    def run(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        grid = lambda meta: (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
        matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1))

    return run, matmul_kernel


def _best_config(kernel) -> str:
    cfg = getattr(kernel, "best_config", None)
    if cfg is None:
        return "autotuned"
    kw = getattr(cfg, "kwargs", {})
    tiles = "x".join(str(kw.get(x)) for x in ("BLOCK_M", "BLOCK_N", "BLOCK_K") if x in kw)
    return f"{tiles} s{cfg.num_stages} w{cfg.num_warps}"


def cutile_source(kind: str) -> str:
    """cuTile Python source of the samples tileir runs (``import cuda.tile as ct``)."""
    head = "import numpy as np\nimport cuda.tile as ct\n\nConstInt = ct.Constant[int]\n\n\n"
    if kind == "matmul":
        return head + inspect.getsource(swizzle_2d) + "\n\n" + inspect.getsource(frontend_samples.matmul)
    src = inspect.getsource(frontend_samples.attention)
    old = "    Tc = ct.cdiv(k_seqlen, TILE_N)\n"
    new = ("    Tc = ct.cdiv(ct.minimum((bid_x + 1) * TILE_M, k_seqlen), TILE_N) if CAUSAL else "
           "ct.cdiv(k_seqlen, TILE_N)\n")
    if old not in src:
        raise RuntimeError("frontend_samples.attention changed: its key-loop bound line was not found")
    return head + src.replace(old, new)


@contextlib.contextmanager
def cutile_kernels(env):
    if env.cutile is None:
        yield None
        return
    with peers._kernel_module(cutile_source("matmul"), "cutile_gemm") as mm, \
            peers._kernel_module(cutile_source("attention"), "cutile_fmha") as fa:
        yield {"matmul": mm.matmul, "attention": fa.attention}


#: The autotuner's search space (--tune): tiles x num_stages hints.
TUNE_TILES = [(128, 128, 64), (128, 256, 64), (256, 128, 64), (128, 64, 64), (64, 128, 64), (64, 64, 64)]
TUNE_STAGES = (None, 3, 5)


def tune_gemm(res, section, case, a, b, c, dt, n, flops, check):
    """``ct.tune.exhaustive_search`` over TUNE_TILES x TUNE_STAGES (warp-specialized where the
    kernel allows, the default), plus each tile at the default depth without the producer
    warpgroup (``warp_specialize=False``, AUS); the best as one cell."""
    space = [(tile, s, None) for tile in TUNE_TILES for s in TUNE_STAGES] + [(tile, None, False) for tile in TUNE_TILES]
    t0 = time.perf_counter()
    try:
        result = ct.tune.exhaustive_search(
            space, None, lambda cfg: gemm_grid(n, n, cfg[0]), gemm, lambda cfg: gemm_args(a, b, c, cfg[0], dt),
            lambda cfg: {k: v for k, v in (("num_stages", cfg[1]), ("warp_specialize", cfg[2])) if v is not None},
            quiet=False)
    except Exception as e:
        res.add(section, case, "tileir (ct.tune)", "search", check=f"ERROR {_err(e)}")
        return
    if result.best is None:
        res.add(section, case, "tileir (ct.tune)", "search", check=f"ERROR every configuration failed: {result.failures[:2]}")
        return
    (tile, s, ws) = result.best.config
    c.zero_()
    ct.launch(None, gemm_grid(n, n, tile), variant(gemm, num_stages=s, warp_specialize=ws), gemm_args(a, b, c, tile, dt))
    cfg = f"best {tile[0]}x{tile[1]}x{tile[2]} num_stages={s or 'default'}{AUS_TAG[ws]}"
    res.add(section, case, "tileir (ct.tune)", cfg, ms=result.best.mean_us / 1000.0, flops=flops, check=check(c),
            note=(f"{len(result.successes)} timed, {len(result.failures)} failed, "
                  f"{'cached' if result.cached else f'search {time.perf_counter() - t0:.0f} s'}; "
                  f"ct.tune's own timing (L2 flushed)"))


def bench_gemm(env, res, sizes, dtypes, repeats, stages, quick, target, cutile, tune=False):
    torch = env.torch
    section = "GEMM (TFLOP/s = 2*M*N*K / time)"
    for dt in dtypes:
        d = DTYPES[dt]
        tin, tout = env.tdt(d["torch_in"]), env.tdt(d["torch_out"])
        triton_run = triton_kernel = None
        triton_why = env.why.get("triton")
        if env.triton:
            try:
                triton_run, triton_kernel = make_triton_matmul(env, dt, quick)
            except Exception as e:
                triton_why = f"ERROR {_err(e)}"
        for n in sizes:
            case = f"{n}^3 {d['label']}"
            flops = 2.0 * n ** 3
            g = torch.Generator(device="cuda").manual_seed(n)
            a = torch.randn((n, n), device="cuda", generator=g).to(tin)
            b = torch.randn((n, n), device="cuda", generator=g).to(tin)
            b_cm = b.t().contiguous().t()  # the same matrix, column-major (K-major)
            c = torch.empty((n, n), device="cuda", dtype=tout)

            def check(out):
                return gemm_check(env, a, b, out, d["rtol"])

            # cuBLAS
            cfg = "torch.matmul" if dt == "bf16" else "torch._scaled_mm, B col-major"
            try:
                if dt == "bf16":
                    fn = lambda: torch.matmul(a, b, out=c)  # noqa: E731
                    note = ""
                else:
                    if not hasattr(torch, "_scaled_mm"):
                        raise _Skip("skipped: torch._scaled_mm not available in this torch")
                    one = torch.ones((), device="cuda", dtype=torch.float32)
                    out_dt = torch.float32
                    note = ""

                    def fn(out_dt_=None):
                        r = torch._scaled_mm(a, b_cm, scale_a=one, scale_b=one, out_dtype=out_dt_ or out_dt)
                        return r[0] if isinstance(r, tuple) else r
                    try:
                        fn()
                    except Exception as e:
                        out_dt, note = torch.bfloat16, f"f32 output refused ({_err(e)[:80]}), bf16 output"
                ms = timed(fn, repeats)
                out = fn() if dt == "fp8" else (fn(), c)[1]
                res.add(section, case, "cuBLAS", cfg, ms=ms, flops=flops, check=check(out), note=note,
                        baseline=True, peer=True)
            except _Skip as e:
                res.add(section, case, "cuBLAS", cfg, note=str(e), baseline=True, peer=True)
            except Exception as e:
                res.add(section, case, "cuBLAS", cfg, check=f"ERROR {_err(e)}", baseline=True, peer=True)
            if dt == "fp8" and hasattr(torch, "_scaled_mm"):
                # fp8 wgmma accumulates at reduced precision unless the sum is moved to f32
                # registers now and then; cuBLAS does that unless use_fast_accum=True.
                cfg = "torch._scaled_mm use_fast_accum"
                try:
                    one = torch.ones((), device="cuda", dtype=torch.float32)

                    def fn():
                        r = torch._scaled_mm(a, b_cm, scale_a=one, scale_b=one, out_dtype=torch.float32,
                                             use_fast_accum=True)
                        return r[0] if isinstance(r, tuple) else r
                    ms = timed(fn, repeats)
                    res.add(section, case, "cuBLAS", cfg, ms=ms, flops=flops, check=check(fn()), peer=True)
                except Exception as e:
                    res.add(section, case, "cuBLAS", cfg, check=f"ERROR {_err(e)}", peer=True)
            # Triton
            bt = b_cm if dt == "fp8" else b
            if triton_run is None:
                res.add(section, case, "Triton", "", note=triton_why or "unavailable", peer=True)
            else:
                try:
                    c.zero_()
                    t0 = time.perf_counter()
                    triton_run(a, bt, c)  # autotunes
                    torch.cuda.synchronize()
                    tune_s = time.perf_counter() - t0
                    ms = timed(lambda: triton_run(a, bt, c), repeats)
                    res.add(section, case, "Triton", _best_config(triton_kernel)
                            + (", B col-major" if dt == "fp8" else ""), ms=ms, flops=flops, check=check(c),
                            note=f"autotune+compile {tune_s:.0f} s", peer=True)
                except Exception as e:
                    res.add(section, case, "Triton", "", check=f"ERROR {_err(e)}", peer=True)
            # cuTile
            if cutile is None:
                res.add(section, case, "cuTile+tileiras", "", note=env.why.get("cutile", "not installed"), peer=True)
            else:
                tile = GEMM_TILES[0]
                cfg = f"{tile[0]}x{tile[1]}x{tile[2]} (sample source)"
                try:
                    c.zero_()
                    stream = torch.cuda.current_stream()
                    grid = gemm_grid(n, n, tile)
                    fn = lambda: env.cutile.launch(stream, grid, cutile["matmul"], (a, b, c, *tile))  # noqa: E731
                    t0 = time.perf_counter()
                    fn()
                    torch.cuda.synchronize()
                    first_s = time.perf_counter() - t0
                    ms = timed(fn, repeats)
                    res.add(section, case, "cuTile+tileiras", cfg, ms=ms, flops=flops, check=check(c),
                            note=f"first launch (JIT) {first_s:.1f} s", peer=True)
                except Exception as e:
                    res.add(section, case, "cuTile+tileiras", cfg, check=f"ERROR {_err(e)}", peer=True)
            # tileir
            configs = gemm_configs(dt, stages)
            bt_rm = b.t().contiguous()  # B^T row-major, for the K-major variant
            for tile, s, kmaj, ws in configs:
                cfg = f"{tile[0]}x{tile[1]}x{tile[2]} num_stages={s or 'default'}{' B K-major' if kmaj else ''}{AUS_TAG[ws]}"
                try:
                    kern = variant(gemm, num_stages=s, warp_specialize=ws)
                    c.zero_()
                    args = gemm_args(env.for_tileir(a, dt), env.for_tileir(bt_rm if kmaj else b, dt),
                                     env.for_tileir(c, dt), tile, dt, kmaj)
                    t0 = time.perf_counter()
                    k = ct.compile(kern, args, target=target)
                    compile_s = time.perf_counter() - t0
                    facts = kernel_facts(k)
                    grid = gemm_grid(n, n, tile)
                    ms = timed(lambda: ct.launch(None, grid, kern, args), repeats)
                    res.add(section, case, "tileir", cfg, ms=ms, flops=flops, check=check(c),
                            note=f"{facts_text(facts)}; compile {compile_s:.1f} s", kernel=facts)
                except Exception as e:
                    res.add(section, case, "tileir", cfg, check=f"ERROR {_err(e)}")
            if tune:
                tune_gemm(res, section, case, env.for_tileir(a, dt), env.for_tileir(b, dt), env.for_tileir(c, dt), dt,
                          n, flops, lambda _c: check(c))
            del a, b, b_cm, bt_rm, c
            torch.cuda.empty_cache()


def make_triton_fmha(env, quick):
    triton = env.triton
    tl = triton.language

    @triton.jit
    def fa_inner(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_d, lo, hi, qk_scale,
                 HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, MASK: tl.constexpr):
        offs_n = tl.arange(0, BLOCK_N)
        for start_n in range(lo, hi, BLOCK_N):
            start_n = tl.multiple_of(start_n, BLOCK_N)
            cols = start_n + offs_n
            k = tl.load(k_base + cols[None, :] * HEAD_DIM + offs_d[:, None])
            qk = tl.dot(q, k)
            if MASK:
                qk = qk * qk_scale + tl.where(offs_m[:, None] >= cols[None, :], 0.0, -1.0e6)
                m_ij = tl.maximum(m_i, tl.max(qk, 1))
                qk = qk - m_ij[:, None]
            else:
                m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
                qk = qk * qk_scale - m_ij[:, None]
            p = tl.math.exp2(qk)
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            v = tl.load(v_base + cols[:, None] * HEAD_DIM + offs_d[None, :])
            acc = tl.dot(p.to(v.dtype), v, acc)
            m_i = m_ij
        return acc, l_i, m_i

    cfgs = [(128, 64, 3, 4), (128, 64, 3, 8), (128, 128, 2, 8), (64, 64, 3, 4)]  # BLOCK_M, BLOCK_N, stages, warps
    configs = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
               for bm, bn, s, w in cfgs[:2 if quick else None]]

    @triton.autotune(configs=configs, key=["S", "HEAD_DIM", "CAUSAL"])
    @triton.jit
    def fa_fwd(Q, K, V, O, sm_scale, S, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr,
               BLOCK_N: tl.constexpr):
        start_m = tl.program_id(0)
        base = tl.program_id(1).to(tl.int64) * S * HEAD_DIM
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_d = tl.arange(0, HEAD_DIM)
        q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
        l_i = tl.zeros([BLOCK_M], tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
        qk_scale = sm_scale * 1.44269504
        if CAUSAL:
            acc, l_i, m_i = fa_inner(acc, l_i, m_i, q, K + base, V + base, offs_m, offs_d, 0, start_m * BLOCK_M,
                                     qk_scale, HEAD_DIM, BLOCK_N, False)
            acc, l_i, m_i = fa_inner(acc, l_i, m_i, q, K + base, V + base, offs_m, offs_d, start_m * BLOCK_M,
                                     (start_m + 1) * BLOCK_M, qk_scale, HEAD_DIM, BLOCK_N, True)
        else:
            acc, l_i, m_i = fa_inner(acc, l_i, m_i, q, K + base, V + base, offs_m, offs_d, 0, S, qk_scale, HEAD_DIM,
                                     BLOCK_N, False)
        acc = acc / l_i[:, None]
        tl.store(O + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(O.dtype.element_ty))

    def run(q, k, v, o, causal):
        bsz, h, s, dd = q.shape
        grid = lambda meta: (triton.cdiv(s, meta["BLOCK_M"]), bsz * h)  # noqa: E731
        fa_fwd[grid](q, k, v, o, 1.0 / math.sqrt(dd), s, HEAD_DIM=dd, CAUSAL=bool(causal))

    return run, fa_fwd


def fmha_check(env, q, k, v, o, causal, pairs=2, rows=128):
    """O against torch's f32 attention for ``pairs`` (batch, head) pairs x ``rows`` query rows."""
    torch = env.torch
    bsz, h, s, dd = q.shape
    g = torch.Generator().manual_seed(11)
    worst = 0.0
    for _ in range(pairs):
        bi, hi = int(torch.randint(0, bsz, (1,), generator=g)), int(torch.randint(0, h, (1,), generator=g))
        r0 = int(torch.randint(0, s // rows, (1,), generator=g)) * rows
        qq = q[bi, hi, r0:r0 + rows].float()
        sc = (qq @ k[bi, hi].float().t()) / math.sqrt(dd)
        if causal:
            qi = torch.arange(r0, r0 + rows, device=sc.device)[:, None]
            kj = torch.arange(s, device=sc.device)[None, :]
            sc = sc.masked_fill(kj > qi, float("-inf"))
        ref = torch.softmax(sc, dim=-1) @ v[bi, hi].float()
        worst = max(worst, float((o[bi, hi, r0:r0 + rows].float() - ref).abs().max()))
    ok = worst <= 3e-2 and math.isfinite(worst)
    return f"ok (max|err| {worst:.1e})" if ok else f"MISMATCH (max|err| {worst:.1e})"


def sdpa_flash_context(torch):
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        return sdpa_kernel(SDPBackend.FLASH_ATTENTION)
    except ImportError:
        return torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False)


def bench_fmha(env, res, batch, heads, seq, head_dims, repeats, quick, target, cutile):
    torch = env.torch
    section = "FMHA forward bf16 (TFLOP/s = 4*B*H*S*S*D / time, halved when causal)"
    triton_run = triton_kernel = None
    triton_why = env.why.get("triton")
    if env.triton:
        try:
            triton_run, triton_kernel = make_triton_fmha(env, quick)
        except Exception as e:
            triton_why = f"ERROR {_err(e)}"
    for dd in head_dims:
        g = torch.Generator(device="cuda").manual_seed(dd)
        q, k, v = (torch.randn((batch, heads, seq, dd), device="cuda", generator=g).to(torch.bfloat16)
                   for _ in range(3))
        o = torch.empty_like(q)
        for causal in (False, True):
            case = f"B{batch} H{heads} S{seq} D{dd}{' causal' if causal else ''}"
            flops = 4.0 * batch * heads * seq * seq * dd * (0.5 if causal else 1.0)
            # SDPA flash
            try:
                with sdpa_flash_context(torch):
                    fn = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa
                    out = fn()
                    ms = timed(fn, repeats)
                res.add(section, case, "SDPA flash", "torch flash backend", ms=ms, flops=flops,
                        check=fmha_check(env, q, k, v, out, causal), baseline=True, peer=True)
                del out
            except Exception as e:
                res.add(section, case, "SDPA flash", "torch flash backend", check=f"ERROR {_err(e)}", baseline=True,
                        peer=True)
            # Triton
            if triton_run is None:
                res.add(section, case, "Triton", "", note=triton_why or "unavailable", peer=True)
            else:
                try:
                    o.zero_()
                    t0 = time.perf_counter()
                    triton_run(q, k, v, o, causal)
                    torch.cuda.synchronize()
                    tune_s = time.perf_counter() - t0
                    ms = timed(lambda: triton_run(q, k, v, o, causal), repeats)
                    cfg = getattr(triton_kernel, "best_config", None)
                    cfg = (f"{cfg.kwargs.get('BLOCK_M')}x{cfg.kwargs.get('BLOCK_N')} s{cfg.num_stages} "
                           f"w{cfg.num_warps}") if cfg is not None else "autotuned"
                    res.add(section, case, "Triton", cfg, ms=ms, flops=flops,
                            check=fmha_check(env, q, k, v, o, causal), note=f"autotune+compile {tune_s:.0f} s",
                            peer=True)
                except Exception as e:
                    res.add(section, case, "Triton", "", check=f"ERROR {_err(e)}", peer=True)
            q3, k3, v3, o3 = (x.view(batch * heads, seq, dd) for x in (q, k, v, o))
            # cuTile
            if cutile is None:
                res.add(section, case, "cuTile+tileiras", "", note=env.why.get("cutile", "not installed"), peer=True)
            else:
                tile = FMHA_TILES[0]
                cfg = f"{tile[0]}x{tile[1]} (sample source)"
                try:
                    o.zero_()
                    stream = torch.cuda.current_stream()
                    grid = (seq // tile[0], batch * heads)
                    fn = lambda: env.cutile.launch(stream, grid, cutile["attention"],  # noqa: E731
                                                   (q3, k3, v3, o3, 1.0 / math.sqrt(dd), dd, tile[0], tile[1],
                                                    int(causal)))
                    t0 = time.perf_counter()
                    fn()
                    torch.cuda.synchronize()
                    first_s = time.perf_counter() - t0
                    ms = timed(fn, repeats)
                    res.add(section, case, "cuTile+tileiras", cfg, ms=ms, flops=flops,
                            check=fmha_check(env, q, k, v, o, causal), note=f"first launch (JIT) {first_s:.1f} s",
                            peer=True)
                except Exception as e:
                    res.add(section, case, "cuTile+tileiras", cfg, check=f"ERROR {_err(e)}", peer=True)
            # tileir
            for tile, occ in fmha_configs(dd):
                cfg = f"{tile[0]}x{tile[1]} occupancy={occ}"
                kern = variant(fmha, occupancy=occ)
                try:
                    o.zero_()
                    args = fmha_args(*(env.for_tileir(x, "bf16") for x in (q3, k3, v3, o3)), dd, tile, causal)
                    t0 = time.perf_counter()
                    kc = ct.compile(kern, args, target=target)
                    compile_s = time.perf_counter() - t0
                    facts = kernel_facts(kc)
                    grid = (seq // tile[0], batch * heads)
                    ms = timed(lambda: ct.launch(None, grid, kern, args), repeats)
                    res.add(section, case, "tileir", cfg, ms=ms, flops=flops,
                            check=fmha_check(env, q, k, v, o, causal),
                            note=f"{facts_text(facts)}; compile {compile_s:.1f} s", kernel=facts)
                except Exception as e:
                    res.add(section, case, "tileir", cfg, check=f"ERROR {_err(e)}")
            if causal:
                # The unmodified sample (it masks every key tile after the diagonal instead of
                # skipping them: twice the work), tiles 128x64. Where tileir misreads torch bf16
                # tensors it runs on f16 copies (NumPy-native, the same tensor-core rate).
                tile = FMHA_TILES[0]
                direct = env.tileir_mode.get("bf16") == "direct"
                cfg = f"{tile[0]}x{tile[1]} sample as is{'' if direct else ', f16'}"
                try:
                    xs = (q, k, v) if direct else tuple(x.half() for x in (q, k, v))
                    out = torch.zeros_like(xs[0])
                    args = (*(x.view(batch * heads, seq, dd) for x in (*xs, out)), 1.0 / math.sqrt(dd), dd, tile[0],
                            tile[1], 1)
                    grid = (seq // tile[0], batch * heads)
                    ms = timed(lambda: ct.launch(None, grid, frontend_samples.attention, args), repeats)
                    res.add(section, case, "tileir", cfg, ms=ms, flops=flops,
                            check=fmha_check(env, *xs, out, causal), note="loops over every key tile")
                    del xs, out, args
                except Exception as e:
                    res.add(section, case, "tileir", cfg, check=f"ERROR {_err(e)}")
        del q, k, v, o
        torch.cuda.empty_cache()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="See the module docstring for what is measured and how cuTile is carried.")
    ap.add_argument("--sizes", default=None, help="GEMM M=N=K values, comma separated (default 4096,8192)")
    ap.add_argument("--dtypes", default="bf16,fp8", help="GEMM input dtypes: bf16, fp8 (default both)")
    ap.add_argument("--repeats", type=int, default=None, help="timing samples per cell (default 20; --quick 5)")
    ap.add_argument("--quick", action="store_true",
                    help="4096 only, default num_stages only, FMHA seq 2048, 2 Triton configs, 5 repeats")
    ap.add_argument("--json", metavar="PATH", help="write every cell (and the environment) as JSON to PATH")
    ap.add_argument("--skip-gemm", action="store_true")
    ap.add_argument("--tune", action="store_true",
                    help="also run ct.tune.exhaustive_search over tiles x num_stages and report the best")
    ap.add_argument("--skip-fmha", action="store_true")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--seq", type=int, default=None, help="FMHA sequence length (default 4096; --quick 2048)")
    ap.add_argument("--head-dims", default="64,128")
    ap.add_argument("--emulate-check", action="store_true",
                    help="no GPU: compile the tileir kernels for sm_90a and check them on the PTX emulator "
                         "against ct.interpret and NumPy at small shapes")
    args = ap.parse_args()
    sizes = [int(x) for x in (args.sizes or ("4096" if args.quick else "4096,8192")).split(",") if x]
    dtypes = [x for x in args.dtypes.split(",") if x]
    for dt in dtypes:
        if dt not in DTYPES:
            ap.error(f"unknown dtype {dt!r}; choose from {', '.join(DTYPES)}")
    repeats = args.repeats or (5 if args.quick else 20)
    seq = args.seq or (2048 if args.quick else 4096)
    head_dims = [int(x) for x in args.head_dims.split(",") if x]
    stages = (None,) if args.quick else STAGES

    if args.emulate_check:
        return emulate_check(sizes, head_dims, seq)

    if not cuda.is_available():
        print("no CUDA GPU/driver: nothing measured (--emulate-check runs without one)")
        return 2
    env = Env()
    if env.torch is None:
        print(f"torch with CUDA is needed for inputs, references and cuBLAS: {env.why['torch']}")
        return 2
    target = target_of_device()
    torch = env.torch
    res = Results()
    report = {"device": torch.cuda.get_device_name(0), "target": target, "versions": env.versions(),
              "peers_missing": env.why, "args": vars(args)}
    print(f"device: {report['device']} (sm_{''.join(map(str, cuda.compute_capability(0)))}), tileir compiles for "
          f"{target}")
    for k_, v_ in report["versions"].items():
        print(f"  {k_}: {v_}")
    for dt in sorted(set(dtypes) | {"bf16"}):
        seen = env.detect_mode(dt)
        print(f"  tileir reads a torch {DTYPES[dt]['torch_in']} tensor as {seen}: "
              + ("passed as is" if env.tileir_mode[dt] == "direct" else
                 "passed as an integer view, the kernels bit-cast the tiles"))
    report["tileir_dtype_mode"] = dict(env.tileir_mode)
    status = 0
    try:
        print("\nsmall-shape checks (tileir on the GPU vs ct.interpret)")
        gpu_precheck(env, res, dtypes if not args.skip_gemm else [], head_dims if not args.skip_fmha else [], target)
        with cutile_kernels(env) as cutile:
            if not args.skip_gemm:
                print("\nGEMM")
                bench_gemm(env, res, sizes, dtypes, repeats, stages, args.quick, target, cutile, tune=args.tune)
            if not args.skip_fmha:
                print("\nFMHA")
                bench_fmha(env, res, args.batch, args.heads, seq, head_dims, repeats, args.quick, target, cutile)
    except Exception:
        traceback.print_exc()
        status = 1
    finally:
        res.table("small-shape checks", "-")
        res.table("GEMM (TFLOP/s = 2*M*N*K / time)", "cuBLAS")
        res.table("FMHA forward bf16 (TFLOP/s = 4*B*H*S*S*D / time, halved when causal)", "SDPA")
        bad = [r for r in res.rows if r["impl"].startswith("tileir") and r["check"] and not _check_ok(r)]
        if bad:
            status = 1
            print(f"\n{len(bad)} tileir cell(s) failed their check")
        if args.json:
            report["rows"] = res.rows
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1, default=str)
            print(f"wrote {args.json}")
    return status


if __name__ == "__main__":
    sys.exit(main())
