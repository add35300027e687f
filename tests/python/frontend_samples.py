"""Our own versions of the kernels cuTile ships as samples, written against tileir."""

from dataclasses import dataclass

import numpy as np

import tileir as ct

ConstInt = ct.Constant[int]


@ct.kernel
def vec_add_gather(a, b, c, TILE: ConstInt):
    idx = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    x = ct.gather(a, (idx,))
    y = ct.gather(b, (idx,))
    ct.scatter(c, (idx,), x + y)


def swizzle_2d(M, N, tm, tn, GROUP):
    bid = ct.bid(0)
    num_bid_m = ct.cdiv(M, tm)
    num_bid_n = ct.cdiv(N, tn)
    num_bid_in_group = GROUP * num_bid_n
    group_id = bid // num_bid_in_group
    first_bid_m = group_id * GROUP
    group_size_m = ct.minimum(num_bid_m - first_bid_m, GROUP)
    bid_m = first_bid_m + (bid % group_size_m)
    bid_n = (bid % num_bid_in_group) // group_size_m
    return bid_m, bid_n


@ct.kernel(num_ctas=ct.ByTarget(sm_100=2), occupancy=1)
def matmul(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    GROUP = 8
    M = A.shape[0]
    N = B.shape[1]
    bidx, bidy = swizzle_2d(M, N, tm, tn, GROUP)
    num_k = ct.num_tiles(A, axis=1, shape=(tm, tk))
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for k in range(num_k):
        a = ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO).astype(dtype)
        b = ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO).astype(dtype)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bidx, bidy), tile=acc.astype(C.dtype))


@ct.kernel
def persistent_matmul(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    M = A.shape[0]
    N = B.shape[1]
    tiles_n = ct.cdiv(N, tn)
    total = ct.cdiv(M, tm) * tiles_n
    for t in range(ct.bid(0), total, ct.num_blocks(0)):
        bm = t // tiles_n
        bn = t % tiles_n
        acc = ct.zeros((tm, tn), ct.float32)
        for k in range(ct.num_tiles(A, 1, (tm, tk))):
            a = ct.load(A, (bm, k), (tm, tk), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(B, (k, bn), (tk, tn), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b, acc)
        ct.store(C, (bm, bn), acc.astype(C.dtype))


@ct.kernel
def batch_matmul(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    pid_b = ct.bid(2)
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    acc = ct.zeros((tm, tn), ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, (pid_b, pid_m, k), (1, tm, tk), padding_mode=ct.PaddingMode.ZERO).reshape((tm, tk))
        b = ct.load(B, (pid_b, k, pid_n), (1, tk, tn), padding_mode=ct.PaddingMode.ZERO).reshape((tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, (pid_b, pid_m, pid_n), ct.reshape(acc.astype(C.dtype), (1, tm, tn)))


@ct.kernel
def transpose(x, y, tm: ConstInt, tn: ConstInt):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn))
    ct.store(y, index=(j, i), tile=ct.transpose(t))


@ct.kernel
def layer_norm_fwd(X, W, B, Y, Mean, Rstd, eps: float, TILE_N: ConstInt):
    row = ct.bid(0)
    N = X.shape[1]
    num_tiles = ct.num_tiles(X, axis=1, shape=(1, TILE_N))
    mean = ct.full((1, TILE_N), 0, dtype=ct.float32)
    for j in range(num_tiles):
        tx = ct.load(X, (row, j), (1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        mean += tx
    mean = ct.sum(mean, axis=1) / N
    ct.store(Mean, index=(row,), tile=mean)
    var = ct.full((1, TILE_N), 0, dtype=ct.float32)
    for j in range(num_tiles):
        tx = ct.load(X, (row, j), (1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        mask = (j * TILE_N + ct.arange(TILE_N, dtype=ct.int32)) < N
        centered = ct.where(mask, tx - mean, 0)
        var += centered ** 2
    var = ct.sum(var, axis=1) / N
    rstd = 1 / ct.sqrt(var + eps)
    ct.store(Rstd, index=(row,), tile=rstd)
    for j in range(num_tiles):
        tx = ct.load(X, (row, j), (1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        tw = ct.load(W, (j,), (TILE_N,), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(B, (j,), (TILE_N,), padding_mode=ct.PaddingMode.ZERO)
        ty = (tx - mean) * rstd * tw + tb
        ct.store(Y, (row, j), ty.astype(Y.dtype))


@ct.kernel
def layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, Locks, TILE_N: ConstInt):
    # Spin lock around a partial accumulation, like cuTile's LayerNorm sample.
    col = ct.bid(0)
    while ct.atomic_cas(Locks, (0,), 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    dw = ct.load(DW, (0, col), (1, TILE_N))
    db = ct.load(DB, (0, col), (1, TILE_N))
    ct.store(FINAL_DW, (col,), ct.sum(dw, axis=0))
    ct.store(FINAL_DB, (col,), ct.sum(db, axis=0))
    ct.atomic_xchg(Locks, (0,), 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def softmax(X, Y, TILE: ConstInt):
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.NEG_INF)
    x = x - ct.max(x, axis=1, keepdims=True)
    num = ct.exp(x)
    den = ct.sum(num, axis=1, keepdims=True)
    ct.store(Y, index=(row, 0), tile=num / den)


@ct.kernel(occupancy=2)
def attention(Q, K, V, Out, qk_scale: float, TILE_D: ConstInt, TILE_M: ConstInt, TILE_N: ConstInt,
              CAUSAL: ConstInt):
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
    q = ct.load(Q, index=(bid_y, bid_x, 0), shape=(1, TILE_M, TILE_D)).reshape((TILE_M, TILE_D))
    k_seqlen = K.shape[1]
    Tc = ct.cdiv(k_seqlen, TILE_N)
    for j in range(0, Tc):
        k = ct.load(K, index=(bid_y, 0, j), shape=(1, TILE_D, TILE_N), order=(0, 2, 1)).reshape((TILE_D, TILE_N))
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
        v = ct.load(V, index=(bid_y, j, 0), shape=(1, TILE_N, TILE_D)).reshape((TILE_N, TILE_D))
        p = p.astype(Q.dtype)
        acc = ct.mma(p, v, acc)
        m_i = m_ij
    acc = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
    acc = acc.reshape((1, TILE_M, TILE_D)).astype(Out.dtype)
    ct.store(Out, index=(bid_y, bid_x, 0), tile=acc)


@ct.kernel
def moe(A, B, C, sorted_token_ids, expert_ids, num_valid: int, TILE_M: ConstInt, TILE_N: ConstInt,
        TILE_K: ConstInt):
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    offs = pid_m * TILE_M + ct.arange(TILE_M, dtype=ct.int32)
    token_ids = ct.gather(sorted_token_ids, (offs,), mask=offs < num_valid, padding_value=0)
    expert = ct.gather(expert_ids, (pid_m,))
    acc = ct.zeros((TILE_M, TILE_N), ct.float32)
    for k in range(ct.cdiv(A.shape[1], TILE_K)):
        cols = k * TILE_K + ct.arange(TILE_K, dtype=ct.int32)
        a = ct.gather(A, (token_ids[:, None], cols[None, :]))
        b = ct.load(B, (expert, k, pid_n), (1, TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO).reshape((TILE_K, TILE_N))
        acc = ct.mma(a, b, acc)
    silu = acc * (1.0 / (1.0 + ct.exp(-acc, rounding_mode=ct.RoundingMode.APPROX)))
    ncols = pid_n * TILE_N + ct.arange(TILE_N, dtype=ct.int32)
    ct.scatter(C, (token_ids[:, None], ncols[None, :]), silu.astype(C.dtype), mask=(offs < num_valid)[:, None])


@dataclass(frozen=True)
class Complex:
    re: object
    im: object

    def mul(self, other):
        return Complex(self.re @ other.re - self.im @ other.im, self.re @ other.im + self.im @ other.re)


@ct.kernel
def fft(Xr, Xi, Wr, Wi, Yr, Yi, N: ConstInt, B: ConstInt):
    # One DFT stage as a complex matmul (the sample's building block), then a
    # radix-2 recombination with extract/cat/permute.
    b = ct.bid(0)
    x = Complex(ct.load(Xr, (b, 0), (B, N)), ct.load(Xi, (b, 0), (B, N)))
    w = Complex(ct.load(Wr, (0, 0), (N, N)), ct.load(Wi, (0, 0), (N, N)))
    y = x.mul(w)
    lo = ct.extract(y.re, (0, 0), (B, N // 2))
    hi = ct.extract(y.re, (0, 1), (B, N // 2))
    re = ct.cat((hi, lo), axis=1)
    im = ct.permute(ct.reshape(y.im, (B, 2, N // 2)), (0, 2, 1)).reshape((B, N))
    ct.store(Yr, (b, 0), re)
    ct.store(Yi, (b, 0), im)


def f32(*shape):
    return np.zeros(shape, np.float32)


def f16(*shape):
    return np.zeros(shape, np.float16)


def i32(*shape):
    return np.zeros(shape, np.int32)


SAMPLES = {
    "vec_add_gather": (vec_add_gather, lambda: (f32(1000), f32(1000), f32(1000), 256)),
    "matmul_f16": (matmul, lambda: (f16(512, 256), f16(256, 512), f16(512, 512), 128, 128, 64)),
    "matmul_f32": (matmul, lambda: (f32(512, 256), f32(256, 512), f32(512, 512), 64, 64, 32)),
    "persistent_matmul": (persistent_matmul, lambda: (f16(512, 256), f16(256, 512), f16(512, 512), 64, 64, 32)),
    "batch_matmul": (batch_matmul, lambda: (f16(4, 256, 128), f16(4, 128, 256), f16(4, 256, 256), 64, 64, 32)),
    "transpose": (transpose, lambda: (f32(256, 512), f32(512, 256), 32, 64)),
    "layer_norm_fwd": (layer_norm_fwd, lambda: (f32(64, 1000), f32(1000), f32(1000), f32(64, 1000), f32(64), f32(64),
                                                1e-5, 256)),
    "layer_norm_bwd_dwdb": (layer_norm_bwd_dwdb, lambda: (f32(1, 1024), f32(1, 1024), f32(1024), f32(1024), i32(1), 128)),
    "softmax": (softmax, lambda: (f32(64, 1000), f32(64, 1000), 1024)),
    "attention": (attention, lambda: (f16(8, 1024, 64), f16(8, 1024, 64), f16(8, 1024, 64), f16(8, 1024, 64), 0.125,
                                      64, 128, 64, 1)),
    "moe": (moe, lambda: (f16(512, 256), f16(8, 256, 512), f16(512, 512), i32(1024), i32(64), 700, 64, 64, 32)),
    "fft": (fft, lambda: (f32(64, 64), f32(64, 64), f32(64, 64), f32(64, 64), f32(64, 64), f32(64, 64), 64, 16)),
}
