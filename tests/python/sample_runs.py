"""Launch settings and random inputs for the sample kernels of ``frontend_samples``, at
sizes small enough for the CPU interpreter, with ragged edges where a kernel allows them.

``RUNS[name](rng)`` gives ``(kernel, grid, args, outputs, tolerance)``: ``args`` are NumPy
arrays and scalars in the kernel's order, ``outputs`` the positions of the arrays the
kernel writes, ``tolerance`` the (rtol, atol) a compiled kernel must meet against
``ct.interpret`` (0, 0 = bit-exact). Float tolerances cover the MUFU approximations the
backend uses for exp/exp2 (docs in ``crates/tileir-llvm/src/lower_ct.rs``) and the
different association of sums and fused multiply-adds.
"""

import numpy as np

import tileir as ct
from arrays import copy_keeping_strides

from frontend_samples import (attention, batch_matmul, fft, layer_norm_bwd_dwdb, layer_norm_fwd, matmul, moe,
                              persistent_matmul, softmax, transpose, vec_add_gather)


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _f16(rng, *shape):
    return (rng.standard_normal(shape) * 0.5).astype(np.float16)


def _vec_add_gather(rng):
    n = 1000
    return vec_add_gather, (ct.cdiv(n, 256),), [_f32(rng, n), _f32(rng, n), np.zeros(n, np.float32), 256], [2], (0, 0)


def _matmul_f16(rng):
    m, n, k = 200, 136, 96
    args = [_f16(rng, m, k), _f16(rng, k, n), np.zeros((m, n), np.float16), 64, 64, 32]
    return matmul, (ct.cdiv(m, 64) * ct.cdiv(n, 64),), args, [2], (2e-2, 2e-2)


def _matmul_f32(rng):
    m, n, k = 130, 70, 40
    args = [_f32(rng, m, k), _f32(rng, k, n), np.zeros((m, n), np.float32), 32, 32, 16]
    # A float32 matmul runs its products in tf32 (10-bit mantissa), as in cuTile.
    return matmul, (ct.cdiv(m, 32) * ct.cdiv(n, 32),), args, [2], (2e-2, 5e-2)


def _persistent_matmul(rng):
    m, n, k = 128, 96, 64
    args = [_f16(rng, m, k), _f16(rng, k, n), np.zeros((m, n), np.float16), 32, 32, 32]
    return persistent_matmul, (5,), args, [2], (2e-2, 2e-2)


def _batch_matmul(rng):
    b, m, n, k = 3, 64, 48, 40
    args = [_f16(rng, b, m, k), _f16(rng, b, k, n), np.zeros((b, m, n), np.float16), 32, 16, 16]
    return batch_matmul, (ct.cdiv(m, 32), ct.cdiv(n, 16), b), args, [2], (2e-2, 2e-2)


def _transpose(rng):
    m, n = 96, 72
    return transpose, (ct.cdiv(m, 32), ct.cdiv(n, 16)), [_f32(rng, m, n), np.zeros((n, m), np.float32), 32, 16], [1], (0, 0)


def _layer_norm_fwd(rng):
    rows, n = 6, 300
    args = [_f32(rng, rows, n), _f32(rng, n), _f32(rng, n), np.zeros((rows, n), np.float32), np.zeros(rows, np.float32),
            np.zeros(rows, np.float32), 1e-5, 128]
    return layer_norm_fwd, (rows,), args, [3, 4, 5], (1e-4, 1e-4)


def _layer_norm_bwd_dwdb(rng):
    n = 512
    args = [_f32(rng, 1, n), _f32(rng, 1, n), np.zeros(n, np.float32), np.zeros(n, np.float32),
            np.zeros(1, np.int32), 128]
    return layer_norm_bwd_dwdb, (n // 128,), args, [2, 3, 4], (0, 0)


def _softmax(rng):
    rows, n = 5, 300
    return softmax, (rows,), [_f32(rng, rows, n), np.zeros((rows, n), np.float32), 512], [1], (1e-5, 1e-6)


def _attention(rng):
    h, s, d = 2, 128, 32
    args = [_f16(rng, h, s, d), _f16(rng, h, s, d), _f16(rng, h, s, d), np.zeros((h, s, d), np.float16), 0.125,
            d, 32, 32, 1]
    return attention, (s // 32, h), args, [3], (2e-2, 2e-2)


def _moe(rng):
    tokens, k, n, experts = 96, 64, 64, 2
    sorted_ids = rng.permutation(tokens).astype(np.int32)
    expert_ids = rng.integers(0, experts, size=tokens // 32, dtype=np.int32)
    args = [_f16(rng, tokens, k), _f16(rng, experts, k, n), np.zeros((tokens, n), np.float16), sorted_ids, expert_ids,
            80, 32, 32, 32]
    return moe, (tokens // 32, n // 32), args, [2], (2e-2, 2e-2)


def _fft(rng):
    n, b = 32, 8
    args = [_f32(rng, 16, n), _f32(rng, 16, n), _f32(rng, n, n), _f32(rng, n, n), np.zeros((16, n), np.float32),
            np.zeros((16, n), np.float32), n, b]
    return fft, (2,), args, [4, 5], (1e-5, 1e-4)


RUNS = {
    "vec_add_gather": _vec_add_gather,
    "matmul_f16": _matmul_f16,
    "matmul_f32": _matmul_f32,
    "persistent_matmul": _persistent_matmul,
    "batch_matmul": _batch_matmul,
    "transpose": _transpose,
    "layer_norm_fwd": _layer_norm_fwd,
    "layer_norm_bwd_dwdb": _layer_norm_bwd_dwdb,
    "softmax": _softmax,
    "attention": _attention,
    "moe": _moe,
    "fft": _fft,
}


def reference(name, seed=0):
    """The run of sample ``name`` on the interpreter: (kernel, grid, inputs, expected)."""
    kern, grid, args, outputs, tol = RUNS[name](np.random.default_rng(seed))
    inputs = [copy_keeping_strides(a) for a in args]
    ref = [copy_keeping_strides(a) for a in args]
    ct.interpret(grid, kern, ref)
    return kern, grid, inputs, {i: ref[i] for i in outputs}, tol


# --- Runs at the specialization of frontend_samples.SAMPLES -----------------------------
#
# ``SAMPLES[name]`` compiles each sample at its own tile sizes for example arguments too
# large to emulate quickly (the attention sample's 64 blocks take ~10 s). A kernel is
# specialized on dtypes, ranks, 16-byte alignment, which sizes and strides are multiples
# of 16, and Constant values -- not on exact sizes -- so the runs below use the samples'
# Constants and smaller arrays with the same divisibility facts: the kernel compiled for
# ``SAMPLES[name]``'s arguments is the very one that runs them (the tests assert it).
# Matmul operands are small integers, so f16 (and tf32) products accumulated in f32 are
# exact and the runs compare bit for bit.


def _ints(rng, dtype, *shape):
    return rng.integers(-2, 3, size=shape).astype(dtype)


def _spec_vec_add_gather(rng):
    n = 600  # like 1000: not a multiple of 16; ragged last tile
    return (ct.cdiv(n, 256),), [_f32(rng, n), _f32(rng, n), np.zeros(n, np.float32), 256], [2], (0, 0)


def _spec_matmul_f16(rng):
    m, n, k = 256, 128, 128
    args = [_ints(rng, np.float16, m, k), _ints(rng, np.float16, k, n), np.zeros((m, n), np.float16), 128, 128, 64]
    return ((m // 128) * (n // 128),), args, [2], (0, 0)


def _spec_matmul_f32(rng):
    m, n, k = 128, 64, 64
    args = [_ints(rng, np.float32, m, k), _ints(rng, np.float32, k, n), np.zeros((m, n), np.float32), 64, 64, 32]
    return ((m // 64) * (n // 64),), args, [2], (0, 0)


def _spec_persistent_matmul(rng):
    m, n, k = 128, 128, 64  # 4 output tiles on 3 blocks: one block takes two
    args = [_ints(rng, np.float16, m, k), _ints(rng, np.float16, k, n), np.zeros((m, n), np.float16), 64, 64, 32]
    return (3,), args, [2], (0, 0)


def _spec_batch_matmul(rng):
    b, m, n, k = 2, 64, 128, 64
    args = [_ints(rng, np.float16, b, m, k), _ints(rng, np.float16, b, k, n), np.zeros((b, m, n), np.float16),
            64, 64, 32]
    return (m // 64, n // 64, b), args, [2], (0, 0)


def _spec_transpose(rng):
    m, n = 64, 128
    return (m // 32, n // 64), [_f32(rng, m, n), np.zeros((n, m), np.float32), 32, 64], [1], (0, 0)


def _spec_layer_norm_fwd(rng):
    rows, n = 16, 300  # like (64, 1000): rows a multiple of 16, n not; two tiles, the last ragged
    args = [_f32(rng, rows, n), _f32(rng, n), _f32(rng, n), np.zeros((rows, n), np.float32),
            np.zeros(rows, np.float32), np.zeros(rows, np.float32), 1e-5, 256]
    return (rows,), args, [3, 4, 5], (1e-4, 1e-4)


def _spec_layer_norm_bwd_dwdb(rng):
    n = 256
    args = [_f32(rng, 1, n), _f32(rng, 1, n), np.zeros(n, np.float32), np.zeros(n, np.float32),
            np.zeros(1, np.int32), 128]
    return (n // 128,), args, [2, 3, 4], (0, 0)


def _spec_softmax(rng):
    rows, n = 16, 1000  # one 1024-wide tile per row, as in the sample
    return (rows,), [_f32(rng, rows, n), np.zeros((rows, n), np.float32), 1024], [1], (1e-5, 1e-6)


def _spec_attention(rng):
    h, s, d = 1, 256, 64  # like 8 heads: not a multiple of 16; two causal row blocks
    args = [_f16(rng, h, s, d), _f16(rng, h, s, d), _f16(rng, h, s, d), np.zeros((h, s, d), np.float16), 0.125,
            64, 128, 64, 1]
    return (s // 128, h), args, [3], (2e-2, 2e-2)


def _spec_moe(rng):
    tokens, k, n, experts = 128, 64, 128, 2  # like 8 experts: not a multiple of 16
    sorted_ids = rng.permutation(tokens).astype(np.int32)
    expert_ids = rng.integers(0, experts, size=16, dtype=np.int32)
    args = [_f16(rng, tokens, k), _f16(rng, experts, k, n), np.zeros((tokens, n), np.float16), sorted_ids, expert_ids,
            100, 64, 64, 32]
    return (tokens // 64, n // 64), args, [2], (2e-2, 2e-2)


def _spec_fft(rng):
    n, b = 64, 16
    args = [_ints(rng, np.float32, 2 * b, n), _ints(rng, np.float32, 2 * b, n), _ints(rng, np.float32, n, n),
            _ints(rng, np.float32, n, n), np.zeros((2 * b, n), np.float32), np.zeros((2 * b, n), np.float32), n, b]
    return (2,), args, [4, 5], (0, 0)


#: ``SPEC_RUNS[name](rng)`` gives ``(grid, args, outputs, tolerance)`` (as in RUNS) for
#: ``SAMPLES[name]``'s kernel at the specialization of ``SAMPLES[name]``'s arguments.
SPEC_RUNS = {
    "vec_add_gather": _spec_vec_add_gather,
    "matmul_f16": _spec_matmul_f16,
    "matmul_f32": _spec_matmul_f32,
    "persistent_matmul": _spec_persistent_matmul,
    "batch_matmul": _spec_batch_matmul,
    "transpose": _spec_transpose,
    "layer_norm_fwd": _spec_layer_norm_fwd,
    "layer_norm_bwd_dwdb": _spec_layer_norm_bwd_dwdb,
    "softmax": _spec_softmax,
    "attention": _spec_attention,
    "moe": _spec_moe,
    "fft": _spec_fft,
}
