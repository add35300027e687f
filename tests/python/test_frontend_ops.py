"""Every kernel-side operation of cuTile's API compiles to cuda_tile IR that verifies.

Each case is a small kernel body; the kernels are written to a module file (the front end
reads kernel source) and compiled with ``tileir.compile_to_ir``, which runs the verifier.
"""

import importlib.util
import textwrap

import numpy as np
import pytest

import tileir as ct

PRELUDE = """
import tileir as ct
import numpy as np
import operator

@ct.kernel
def k(X, Y, I, U, O, n: int, f: float):
    x = ct.load(X, index=(ct.bid(0), 0), shape=(16, 16))
    y = ct.load(Y, index=(ct.bid(0), 0), shape=(16, 16))
    i = ct.load(I, index=(ct.bid(0), 0), shape=(16, 16))
    u = ct.load(U, index=(0,), shape=(64,))
    BODY
"""

# op name -> kernel body (uses x, y: 16x16 f32; i: 16x16 i32; u: 64 i32; X/Y/O arrays)
CASES = {
    "bid": "r = ct.bid(1) + ct.bid(2)",
    "num_blocks": "r = ct.num_blocks(0) * ct.num_blocks(2)",
    "num_tiles": "r = ct.num_tiles(X, axis=1, shape=(16, 32))\nr2 = ct.num_tiles(X, 0, (16, 16), order='F')",
    "load": "r = ct.load(X, index=(1, 1), shape=(8, 32), padding_mode=ct.PaddingMode.NEG_INF, latency=3, allow_tma=True)\n"
            "r2 = ct.load(X, (0, 0), (32, 8), order='F', memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.DEVICE)",
    "store": "ct.store(O, index=(ct.bid(0), 1), tile=x)\nct.store(O, (0, 0), x.transpose(), order='F', latency=2)\n"
             "ct.store(O, (0, 0), 1.5)",
    "load_advanced_indexing": "r = ct.load_advanced_indexing(X, (u, ct.Slice(0, 16)), padding_mode=ct.PaddingMode.ZERO)",
    "store_advanced_indexing": "ct.store_advanced_indexing(O, (ct.Slice(n, 64), ct.extract(u, (0,), (16,))), ct.zeros((64, 16), ct.float32))",
    "gather": "r = ct.gather(X, (u[:, None], ct.arange(16, dtype=ct.int32)), mask=u[:, None] > 0, padding_value=-1.0)",
    "scatter": "ct.scatter(O, (ct.arange(16, dtype=ct.int32), 3), ct.sum(x, axis=1))",
    "arange": "r = ct.arange(64, dtype=ct.float32, start=2, step=3)\nr2 = ct.arange(8, dtype=np.int64, start=n)",
    "full": "r = ct.full((4, 8), 2.5, dtype=ct.bfloat16)\nr2 = ct.full((2,), n, ct.int64)",
    "zeros": "r = ct.zeros((16, 16), dtype=ct.float16)",
    "ones": "r = ct.ones((4,), dtype=ct.uint8)",
    "astile": "r = ct.astile(((1, 2), (3, 4)), dtype=ct.float32)\nr2 = ct.astile((n, n + 1))",
    "cat": "r = ct.cat((x, y), axis=0)\nr2 = ct.cat((x, y), 1)",
    "broadcast_to": "r = ct.broadcast_to(ct.sum(x, axis=0), (8, 16))",
    "expand_dims": "r = ct.expand_dims(u, 0)\nr2 = u[:, None]",
    "reshape": "r = ct.reshape(x, (4, 64))\nr2 = x.reshape((256,))\nr3 = x.reshape(-1, 8)",
    "permute": "r = ct.permute(ct.reshape(x, (4, 4, 16)), (2, 0, 1))",
    "transpose": "r = ct.transpose(x)\nr2 = ct.transpose(ct.reshape(x, (2, 8, 16)), 0, 2)\nr3 = x.T",
    "astype": "r = x.astype(ct.float16, rounding_mode=ct.RoundingMode.RN)\nr2 = ct.astype(i, ct.float32)\n"
              "r3 = ct.astype(x, np.int8)\nr4 = ct.astype(i, ct.bool_)\nr5 = ct.astype(u, ct.uint64)\nr6 = x.astype(ct.float8_e4m3fn)",
    "bitcast": "r = ct.bitcast(x, ct.int32)\nr2 = ct.bitcast(i, ct.uint32)",
    "pack_to_bytes": "r = ct.pack_to_bytes(x)\nr2 = ct.pack_to_bytes(ct.astype(u, ct.uint8))",
    "unpack_from_bytes": "r = ct.unpack_from_bytes(ct.pack_to_bytes(x), ct.float16)",
    "sum": "r = ct.sum(x)\nr2 = ct.sum(x, axis=1, keepdims=True, rounding_mode=ct.RoundingMode.RZ, flush_to_zero=True)\nr3 = ct.sum(i, axis=(0, 1))",
    "prod": "r = ct.prod(x, axis=0)\nr2 = ct.prod(u)",
    "max": "r = ct.max(x, axis=1, propagate_nan=True)\nr2 = ct.max(i)",
    "min": "r = ct.min(x, axis=0, keepdims=True, flush_to_zero=True)\nr2 = ct.min(ct.astype(u, ct.uint32))",
    "argmax": "r = ct.argmax(x, axis=1)\nr2 = ct.argmax(x, propagate_nan=True)",
    "argmin": "r = ct.argmin(i, axis=0, keepdims=True)",
    "reduce": "r = ct.reduce(x, 1, lambda a, b: a * b + 1.0, 0.0)\n"
              "r2, r3 = ct.reduce((x, i), 0, lambda a, b: (a[0] + b[0], ct.maximum(a[1], b[1])), (0.0, 0))\n"
              "r4 = ct.reduce(x, axis=0, func=operator.add, identity=0.0, keepdims=True)",
    "cumsum": "r = ct.cumsum(x, axis=1)\nr2 = ct.cumsum(u, reverse=True)",
    "cumprod": "r = ct.cumprod(x, axis=0, flush_to_zero=True)",
    "scan": "r = ct.scan(x, 0, lambda a, b: ct.maximum(a, b), -1e30)\nr2 = ct.scan(u, 0, operator.add, 0, reverse=True)",
    "mma": "acc = ct.zeros((16, 16), ct.float32)\nr = ct.mma(x.astype(ct.float16), y.astype(ct.float16), acc)\n"
           "r2 = ct.mma(x.astype(ct.tfloat32), y.astype(ct.tfloat32), acc)\n"
           "r3 = ct.mma(i.astype(ct.int8), i.astype(ct.int8), ct.zeros((16, 16), ct.int32))\n"
           "r4 = ct.mma(x.astype(ct.float8_e4m3fn), y.astype(ct.float8_e4m3fn), acc, use_fast_acc=True)",
    "mma_scaled": "a = ct.zeros((16, 64), ct.float8_e4m3fn)\nb = ct.zeros((64, 16), ct.float8_e4m3fn)\n"
                  "sa = ct.zeros((16, 2), ct.float8_e8m0fnu)\nsb = ct.zeros((2, 16), ct.float8_e8m0fnu)\n"
                  "r = ct.mma_scaled(a, sa, b, sb, ct.zeros((16, 16), ct.float32))",
    "matmul": "r = ct.matmul(x, y)\nr2 = x @ y\nr3 = ct.matmul(ct.sum(x, axis=0), y)\nr4 = ct.reshape(x, (1, 16, 16)) @ y",
    "where": "r = ct.where(x > 0, x, 0.0)\nr2 = ct.where(i == 3, 1, i)",
    "extract": "r = ct.extract(x, index=(1, 0), shape=(8, 16))\nr2 = ct.extract(u, (ct.bid(0),), (16,))",
    "insert": "r = ct.insert(x, index=(1, ct.bid(0)), value=ct.zeros((8, 4), ct.float32))",
    "add": "r = ct.add(x, y, rounding_mode=ct.RoundingMode.RP, flush_to_zero=True)\nr2 = x + 1\nr3 = i + 1\nr4 = 2 + u",
    "sub": "r = ct.sub(x, y)\nr2 = 1.5 - x\nr3 = i - 1",
    "mul": "r = ct.mul(x, y, rounding_mode=ct.RoundingMode.RZ)\nr2 = i * i",
    "truediv": "r = ct.truediv(x, y, rounding_mode=ct.RoundingMode.APPROX)\nr2 = x / 3\nr3 = i / 2",
    "floordiv": "r = ct.floordiv(i, 3)\nr2 = x // y\nr3 = u // n",
    "cdiv": "r = ct.cdiv(i, 4)\nr2 = ct.cdiv(n, 16)\nr3 = ct.cdiv(64, 16)",
    "pow": "r = ct.pow(x, y)\nr2 = x ** 2.0",
    "atan2": "r = ct.atan2(x, y)",
    "mod": "r = ct.mod(i, 7)\nr2 = x % y\nr3 = ct.astype(u, ct.uint32) % 3",
    "divmod": "q, m = ct.divmod(i, 5)\nq2, m2 = divmod(u, n)",
    "minimum": "r = ct.minimum(x, y, propagate_nan=True)\nr2 = ct.minimum(i, 3)\nr3 = min(x, 0.0)",
    "maximum": "r = ct.maximum(x, y, flush_to_zero=True)\nr2 = max(u, n)",
    "negative": "r = ct.negative(x)\nr2 = -i",
    "abs": "r = ct.abs(x)\nr2 = abs(i)",
    "isnan": "r = ct.isnan(x)",
    "exp": "r = ct.exp(x)\nr2 = ct.exp(x, rounding_mode=ct.RoundingMode.APPROX)\nr3 = ct.exp(i)",
    "exp2": "r = ct.exp2(x, flush_to_zero=True)",
    "log": "r = ct.log(x)",
    "log2": "r = ct.log2(x.astype(ct.float16))",
    "sqrt": "r = ct.sqrt(x, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)\nr2 = ct.sqrt(x)",
    "rsqrt": "r = ct.rsqrt(x, flush_to_zero=True)",
    "sin": "r = ct.sin(x)", "cos": "r = ct.cos(x)", "tan": "r = ct.tan(x)", "sinh": "r = ct.sinh(x)",
    "cosh": "r = ct.cosh(x)", "tanh": "r = ct.tanh(x, rounding_mode=ct.RoundingMode.APPROX)",
    "floor": "r = ct.floor(x)", "ceil": "r = ct.ceil(x)",
    "bitwise_and": "r = ct.bitwise_and(i, 3)\nr2 = (x > 0) & (y > 0)",
    "bitwise_or": "r = ct.bitwise_or(i, i)\nr2 = i | 1",
    "bitwise_xor": "r = ct.bitwise_xor(i, 5)\nr2 = i ^ i",
    "bitwise_lshift": "r = ct.bitwise_lshift(i, 2)\nr2 = i << i",
    "bitwise_rshift": "r = ct.bitwise_rshift(i, 1)\nr2 = ct.astype(i, ct.uint32) >> 3",
    "bitwise_not": "r = ct.bitwise_not(i)\nr2 = ~(x > 0)",
    "greater": "r = ct.greater(x, y)\nr2 = x > 0", "greater_equal": "r = ct.greater_equal(i, 2)\nr2 = u >= n",
    "less": "r = ct.less(x, 1.0)\nr2 = ct.astype(u, ct.uint16) < 3", "less_equal": "r = ct.less_equal(x, y)",
    "equal": "r = ct.equal(i, i)\nr2 = x == y", "not_equal": "r = ct.not_equal(x, y)\nr2 = i != 0",
    "atomic_cas": "old = ct.atomic_cas(I, (0, 0), 0, 1, memory_order=ct.MemoryOrder.ACQUIRE)",
    "atomic_xchg": "old = ct.atomic_xchg(I, (0, 0), 0, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.SYS)",
    "atomic_add": "old = ct.atomic_add(I, (ct.arange(16, dtype=ct.int32), 0), 1)\nold2 = ct.atomic_add(O, (0, 0), 1.0)",
    "atomic_max": "old = ct.atomic_max(I, (0, ct.arange(16, dtype=ct.int32)), ct.sum(i, axis=0))",
    "atomic_min": "old = ct.atomic_min(U, (u,), u, memory_scope=ct.MemoryScope.BLOCK)",
    "atomic_and": "old = ct.atomic_and(I, (1, 1), 7)", "atomic_or": "old = ct.atomic_or(I, (1, 1), 7)",
    "atomic_xor": "old = ct.atomic_xor(I, (1, 1), 7, check_bounds=False)",
    "printf": "ct.printf('x=%f i=%d\\n', ct.sum(x), i)",
    "print": "ct.print('hello', n)\nct.print(f'sum={ct.sum(x):.2f} n={n} const={3}', sep='', end='!\\n')",
    "assert_": "ct.assert_(x >= 0, 'negative input')\nct.assert_(n > 0)",
    "assume_divisible_by": "r = ct.assume_divisible_by(n, 16)",
    "static_eval": "r = ct.static_eval(x.shape[0] * 2)\nct.static_assert(r == 32)",
    "static_assert": "ct.static_assert(x.ndim == 2, 'rank')",
    "static_iter": "acc = x\nfor s in ct.static_iter((1.0, 2.0, 3.0)):\n    acc = acc * s",
    "ensure_constant": "r = ct.ensure_constant(x.shape[1]) + 1",
    "grid_dependency_control_wait": "ct.grid_dependency_control_wait()\nr = ct.load(X, (0, 0), (16, 16))",
    "grid_dependency_control_launch_dependents": "ct.store(O, (0, 0), x)\nct.grid_dependency_control_launch_dependents()",
}


def _module_for(tmp_path_factory, name, body):
    d = tmp_path_factory.mktemp("ops")
    src = textwrap.dedent(PRELUDE).replace("BODY", textwrap.indent(body, "    ").lstrip())
    path = d / f"op_{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"op_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ARGS = (np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32), np.zeros((64, 64), np.int32),
        np.zeros(64, np.int32), np.zeros((64, 64), np.float32), 7, 0.5)


def test_all_99_operations_are_covered():
    assert len(ct.OP_NAMES) == 99
    assert set(CASES) == set(ct.OP_NAMES)
    for name in ct.OP_NAMES:
        assert callable(getattr(ct, name))


@pytest.mark.parametrize("name", sorted(CASES))
def test_operation_compiles_to_verified_ir(tmp_path_factory, name):
    mod = _module_for(tmp_path_factory, name, CASES[name])
    m = ct.compile_to_ir(mod.k, ARGS)
    text = str(m)
    assert "cuda_tile.module" in text
    m.verify()


def test_expected_ops_appear():
    import tempfile  # noqa: F401
    checks = {"atomic_add": "atomic_rmw_tko", "cumsum": "scan", "argmax": "reduce", "gather": "load_ptr_tko",
              "scatter": "store_ptr_tko", "mma": "mmai", "insert": "select", "print": "print_tko", "assert_": "assert",
              "grid_dependency_control_wait": "gdc_wait_tko",
              "grid_dependency_control_launch_dependents": "gdc_launch_dependents_tko"}
    import pathlib
    tmp = pathlib.Path(tempfile.mkdtemp())

    class F:
        def mktemp(self, n):
            p = tmp / n
            p.mkdir(exist_ok=True)
            return p
    for name, opname in checks.items():
        mod = _module_for(F(), name, CASES[name])
        assert opname in str(ct.compile_to_ir(mod.k, ARGS)), name
