"""Python AST → cuda_tile ops in the native arena.

The supported subset grows with the front-end issue; anything outside it is rejected
with a :class:`FrontendError` pointing at the construct (file, line, column, caret).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .. import _api
from .._native import ModuleBuilder
from ..errors import FrontendError
from .specialize import ArraySpec, ConstantSpec, ScalarSpec, Specialization


@dataclass
class Tile:
    """A tile value in the kernel: native value handle, shape and dtype."""

    handle: int
    shape: Tuple[int, ...]
    dtype: _api.DType

    def type_text(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        return f"tile<{dims}{self.dtype.ir}>"


@dataclass
class Array:
    """An array parameter: its pointer, shape and stride values and its tensor view."""

    name: str
    spec: ArraySpec
    view: int
    view_type: str
    partitions: Dict[Tuple[Tuple[int, ...], Optional[str]], Tuple[int, str]] = field(default_factory=dict)


class _Source:
    """Maps AST positions of the (dedented) kernel source back to the file."""

    def __init__(self, fn: Any):
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise FrontendError(f"cannot read the source of kernel '{fn.__name__}': {e}") from None
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.first_line = first
        self.lines = lines
        raw = "".join(lines)
        dedented = textwrap.dedent(raw)
        self.indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
        if dedented == raw:
            self.indent = 0
        self.tree = ast.parse(dedented)

    def position(self, node: ast.AST) -> Tuple[str, int, int, str]:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + self.indent + 1
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return self.file, self.first_line + line - 1, col, text


class Translator:
    def __init__(self, fn: Any, spec: Specialization, name: str):
        self.fn = fn
        self.spec = spec
        self.src = _Source(fn)
        self.b = ModuleBuilder()
        self.name = name
        self.env: Dict[str, Any] = {}
        self.token: Optional[int] = None
        self.block_ids: Optional[List[int]] = None
        self.num_blocks_ids: Optional[List[int]] = None
        self._types: Dict[str, int] = {}
        self.func_def: Optional[ast.FunctionDef] = None

    # -- helpers ---------------------------------------------------------------------
    def error(self, node: Optional[ast.AST], message: str) -> FrontendError:
        if node is None:
            return FrontendError(message)
        file, line, col, text = self.src.position(node)
        return FrontendError(message, (file, line, col), text)

    def ty(self, text: str) -> int:
        if text not in self._types:
            self._types[text] = self.b.type_(text)
        return self._types[text]

    def loc(self, node: ast.AST) -> int:
        file, line, col, _ = self.src.position(node)
        return self.b.loc(file, line, col)

    def op(self, node: ast.AST, name: str, operands: List[int], results: List[str], attrs=None) -> List[int]:
        return self.b.op(name, operands, [self.ty(t) for t in results], attrs or {}, self.loc(node))

    # -- entry -----------------------------------------------------------------------
    def run(self):
        fdef = next((n for n in self.src.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
        if fdef is None or isinstance(fdef, ast.AsyncFunctionDef):
            raise self.error(fdef, "a kernel must be a plain 'def' function")
        self.func_def = fdef
        self.b.begin_module("kernels", self.loc(fdef))
        arg_types: List[int] = []
        arg_names: List[str] = []
        for pname, pspec in zip(self.spec.names, self.spec.params):
            if isinstance(pspec, ArraySpec):
                arg_types.append(self.ty(f"tile<ptr<{pspec.dtype.ir}>>"))
                arg_names.append(pname)
                for i in range(pspec.ndim):
                    arg_types.append(self.ty("tile<i32>"))
                    arg_names.append(f"{pname}_shape{i}")
                for i in range(pspec.ndim):
                    arg_types.append(self.ty("tile<i32>"))
                    arg_names.append(f"{pname}_stride{i}")
            elif isinstance(pspec, ScalarSpec):
                arg_types.append(self.ty(f"tile<{pspec.dtype.ir}>"))
                arg_names.append(pname)
        handles = self.b.begin_entry(self.name, arg_types, arg_names, self.loc(fdef))
        it = iter(handles)
        self.token = self.op(fdef, "make_token", [], ["token"])[0]
        for pname, pspec in zip(self.spec.names, self.spec.params):
            if isinstance(pspec, ConstantSpec):
                self.env[pname] = pspec.value
            elif isinstance(pspec, ScalarSpec):
                self.env[pname] = Tile(next(it), (), pspec.dtype)
            else:
                ptr = next(it)
                shapes = [next(it) for _ in range(pspec.ndim)]
                strides = [next(it) for _ in range(pspec.ndim)]
                self.env[pname] = self.make_array(fdef, pname, pspec, ptr, shapes, strides)
        for stmt in fdef.body:
            self.stmt(stmt)
        self.op(fdef, "return", [], [])
        self.b.end_region()
        self.b.end_region()
        return self.b.finish()

    def make_array(self, node, name, spec: ArraySpec, ptr, shapes, strides) -> Array:
        ptr_ty = f"tile<ptr<{spec.dtype.ir}>>"
        if spec.aligned16:
            ptr = self.op(node, "assume", [ptr], [ptr_ty], {"predicate": "div_by<16>"})[0]
        # The innermost stride is specialized to a static 1 when the array is contiguous.
        dyn_strides = strides[:-1] if spec.unit_inner_stride else strides
        stride_text = ",".join(["?"] * (spec.ndim - 1) + ["1" if spec.unit_inner_stride else "?"])
        shape_text = "x".join(["?"] * spec.ndim)
        view_type = f"tensor_view<{shape_text}x{spec.dtype.ir}, strides=[{stride_text}]>"
        view = self.op(node, "make_tensor_view", [ptr] + shapes + dyn_strides, [view_type],
                       {"operandSegmentSizes": [1, len(shapes), len(dyn_strides)]})[0]
        return Array(name, spec, view, view_type)

    def partition(self, node, arr: Array, shape: Tuple[int, ...], padding: Optional[str]) -> Tuple[int, str]:
        key = (shape, padding)
        if key not in arr.partitions:
            pad = f"padding_value = {padding}, " if padding else ""
            tile = "x".join(str(d) for d in shape)
            ty = f"partition_view<tile=({tile}), {pad}{arr.view_type}>"
            handle = self.op(node, "make_partition_view", [arr.view], [ty])[0]
            arr.partitions[key] = (handle, ty)
        return arr.partitions[key]

    # -- statements --------------------------------------------------------------------
    def stmt(self, node: ast.stmt):
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return  # docstring
            self.expr(node.value)
            return
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment is not supported")
            value = self.expr(node.value)
            self.assign(node.targets[0], value)
            return
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            self.assign(node.target, self.expr(node.value))
            return
        if isinstance(node, ast.Pass):
            return
        if isinstance(node, ast.Return):
            if node.value is not None:
                raise self.error(node.value, "kernels cannot return a value")
            return
        raise self.error(node, f"unsupported Python statement '{type(node).__name__}' in a kernel")

    def assign(self, target: ast.expr, value: Any):
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            if isinstance(value, Tile):
                self.b.set_name(value.handle, target.id)
            return
        if isinstance(target, ast.Tuple) and isinstance(value, tuple):
            if len(target.elts) != len(value):
                raise self.error(target, f"cannot unpack {len(value)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.assign(t, v)
            return
        raise self.error(target, "unsupported assignment target; assign to a name or a tuple of names")

    def _closure(self) -> Dict[str, Any]:
        """Variables the kernel captured from enclosing functions."""
        names = self.fn.__code__.co_freevars
        cells = self.fn.__closure__ or ()
        out = {}
        for name, cell in zip(names, cells):
            try:
                out[name] = cell.cell_contents
            except ValueError:  # an empty cell: referenced before assignment
                pass
        return out

    # -- expressions -------------------------------------------------------------------
    def expr(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float)):
                return node.value
            raise self.error(node, f"constant of type {type(node.value).__name__} is not supported here")
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            closure = self._closure()
            if node.id in closure:
                return closure[node.id]
            g = self.fn.__globals__
            if node.id in g:
                return g[node.id]
            import builtins
            if hasattr(builtins, node.id):
                return getattr(builtins, node.id)
            raise self.error(node, f"name '{node.id}' is not defined")
        if isinstance(node, ast.Attribute):
            base = self.expr(node.value)
            if isinstance(base, (Tile, Array)):
                raise self.error(node, f"attribute '{node.attr}' of a {type(base).__name__.lower()} is not supported yet")
            try:
                return getattr(base, node.attr)
            except AttributeError:
                raise self.error(node, f"'{getattr(base, '__name__', base)}' has no attribute '{node.attr}'") from None
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e) for e in node.elts)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.error(node, f"unsupported Python expression '{type(node).__name__}' in a kernel")

    def binop(self, node: ast.BinOp) -> Any:
        lhs, rhs = self.expr(node.left), self.expr(node.right)
        ops = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}
        kind = ops.get(type(node.op))
        if not isinstance(lhs, Tile) and not isinstance(rhs, Tile):
            if isinstance(lhs, (int, float)) and isinstance(rhs, (int, float)):
                import operator
                pyops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                         ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
                if type(node.op) in pyops:
                    return pyops[type(node.op)](lhs, rhs)
            raise self.error(node, f"operator '{type(node.op).__name__}' is not supported on these operands")
        if kind is None:
            raise self.error(node, f"operator '{type(node.op).__name__}' on tiles is not supported yet")
        if not (isinstance(lhs, Tile) and isinstance(rhs, Tile)):
            raise self.error(node, "mixing tiles and Python numbers is not supported yet; both operands must be tiles")
        if lhs.shape != rhs.shape or lhs.dtype != rhs.dtype:
            raise self.error(node, f"operands have different types: {lhs.type_text()} and {rhs.type_text()}")
        if not lhs.dtype.is_float or lhs.dtype.ir not in ("f16", "bf16", "f32", "f64"):
            raise self.error(node, f"'{kind}' on {lhs.dtype.name} tiles is not supported yet")
        handle = self.op(node, f"{kind}f", [lhs.handle, rhs.handle], [lhs.type_text()])[0]
        return Tile(handle, lhs.shape, lhs.dtype)

    def call(self, node: ast.Call) -> Any:
        fn = self.expr(node.func)
        if fn is _api.bid or fn is _api.num_blocks:
            return self.grid_query(node, fn is _api.bid)
        if fn is _api.load:
            return self.load(node)
        if fn is _api.store:
            return self.store(node)
        if fn is _api.cdiv:
            a, b = (self.expr(x) for x in node.args)
            if isinstance(a, int) and isinstance(b, int):
                return _api.cdiv(a, b)
            raise self.error(node, "cdiv on tiles is not supported yet")
        name = getattr(fn, "__name__", type(fn).__name__)
        raise self.error(node.func, f"call to '{name}' is not supported in a kernel")

    def bind(self, node: ast.Call, names: List[str], required: List[str], defaults: Dict[str, Any]) -> Dict[str, Any]:
        fname = ast.unparse(node.func)
        values: Dict[str, Any] = {}
        nodes: Dict[str, ast.AST] = {}
        if len(node.args) > len(names):
            raise self.error(node, f"{fname}() takes at most {len(names)} positional argument(s), got {len(node.args)}")
        for n, a in zip(names, node.args):
            values[n], nodes[n] = a, a
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error(kw, "**kwargs is not supported")
            if kw.arg not in names:
                raise self.error(kw.value, f"{fname}() got an unexpected keyword argument '{kw.arg}'; expected one of: {', '.join(names)}")
            if kw.arg in values:
                raise self.error(kw.value, f"{fname}() got multiple values for argument '{kw.arg}'")
            values[kw.arg], nodes[kw.arg] = kw.value, kw.value
        for r in required:
            if r not in values:
                raise self.error(node, f"{fname}() missing required argument '{r}'")
        out = {n: (self.expr(values[n]) if n in values else defaults.get(n)) for n in names}
        out["_nodes"] = nodes
        return out

    def grid_query(self, node: ast.Call, is_bid: bool) -> Tile:
        args = self.bind(node, ["axis"], ["axis"], {})
        axis = args["axis"]
        if not isinstance(axis, int) or isinstance(axis, bool) or axis not in (0, 1, 2):
            raise self.error(args["_nodes"]["axis"], f"axis must be the constant 0, 1 or 2, got {axis!r}")
        if is_bid:
            if self.block_ids is None:
                self.block_ids = self.op(self.func_def, "get_tile_block_id", [], ["tile<i32>"] * 3)
            return Tile(self.block_ids[axis], (), _api.int32)
        if self.num_blocks_ids is None:
            self.num_blocks_ids = self.op(self.func_def, "get_num_tile_blocks", [], ["tile<i32>"] * 3)
        return Tile(self.num_blocks_ids[axis], (), _api.int32)

    def tile_shape(self, node: ast.AST, shape: Any, arr: Array) -> Tuple[int, ...]:
        if isinstance(shape, int) and not isinstance(shape, bool):
            shape = (shape,)
        if not isinstance(shape, tuple) or not all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
            raise self.error(node, f"shape must be a tuple of constant integers, got {shape!r}")
        for d in shape:
            if d <= 0 or d & (d - 1):
                raise self.error(node, f"tile dimension {d} is not a power of two")
        if len(shape) != arr.spec.ndim:
            raise self.error(node, f"shape has {len(shape)} dimension(s) but array '{arr.name}' has {arr.spec.ndim}")
        total = 1
        for d in shape:
            total *= d
        if total > 1 << 24:
            raise self.error(node, f"tile has {total} elements, more than the maximum 2^24")
        return shape

    def tile_index(self, node: ast.AST, index: Any, arr: Array) -> List[int]:
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) != arr.spec.ndim:
            raise self.error(node, f"index has {len(index)} entries but array '{arr.name}' has {arr.spec.ndim} dimension(s)")
        handles = []
        for i in index:
            if isinstance(i, Tile) and i.shape == () and not i.dtype.is_float:
                handles.append(i.handle)
            elif isinstance(i, int):
                raise self.error(node, "constant tile indices are not supported yet; use values such as ct.bid(0)")
            else:
                raise self.error(node, f"index entries must be integer scalars, got {i!r}")
        return handles

    def load(self, node: ast.Call) -> Tile:
        a = self.bind(node, ["array", "index", "shape", "padding_mode"], ["array", "index", "shape"],
                      {"padding_mode": _api.PaddingMode.UNDETERMINED})
        nodes = a["_nodes"]
        arr = a["array"]
        if not isinstance(arr, Array):
            raise self.error(nodes["array"], "the first argument of load must be an array parameter")
        shape = self.tile_shape(nodes["shape"], a["shape"], arr)
        index = self.tile_index(nodes["index"], a["index"], arr)
        pm = a["padding_mode"]
        if not isinstance(pm, _api.PaddingMode):
            raise self.error(nodes.get("padding_mode", node), f"padding_mode must be a tileir.PaddingMode, got {pm!r}")
        if pm.value not in (None, "zero") and not arr.spec.dtype.is_float:
            raise self.error(nodes["padding_mode"], f"padding {pm.name} needs a floating-point array, '{arr.name}' is {arr.spec.dtype.name}")
        view, view_ty = self.partition(node, arr, shape, pm.value)
        tile = Tile(0, shape, arr.spec.dtype)
        res = self.op(node, "load_view_tko", [view] + index + [self.token], [tile.type_text(), "token"],
                      {"memory_ordering_semantics": "weak", "operandSegmentSizes": [1, len(index), 1]})
        tile.handle = res[0]
        return tile

    def store(self, node: ast.Call) -> None:
        a = self.bind(node, ["array", "index", "tile"], ["array", "index", "tile"], {})
        nodes = a["_nodes"]
        arr, tile = a["array"], a["tile"]
        if not isinstance(arr, Array):
            raise self.error(nodes["array"], "the first argument of store must be an array parameter")
        if not isinstance(tile, Tile) or tile.shape == ():
            raise self.error(nodes["tile"], "tile must be a tile value")
        if tile.dtype != arr.spec.dtype:
            raise self.error(nodes["tile"], f"storing a {tile.dtype.name} tile into {arr.spec.dtype.name} array '{arr.name}'")
        index = self.tile_index(nodes["index"], a["index"], arr)
        if len(tile.shape) != arr.spec.ndim:
            raise self.error(nodes["tile"], f"tile has rank {len(tile.shape)} but array '{arr.name}' has {arr.spec.ndim} dimension(s)")
        view, _ = self.partition(node, arr, tile.shape, None)
        self.op(node, "store_view_tko", [tile.handle, view] + index + [self.token], ["token"],
                {"memory_ordering_semantics": "weak", "operandSegmentSizes": [1, 1, len(index), 1]})
        return None


def translate(fn: Any, spec: Specialization, name: Optional[str] = None):
    """Builds the cuda_tile module of kernel function ``fn`` specialized as ``spec``."""
    return Translator(fn, spec, name or fn.__name__).run()
