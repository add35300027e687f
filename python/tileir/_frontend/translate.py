"""Python AST → cuda_tile ops in the native arena.

The :class:`Translator` walks a kernel's AST once, evaluating compile-time Python as it
goes (constants, tuples, helper calls, ``static_*``) and emitting cuda_tile ops for what
happens at run time. Helpers are inlined; runtime ``if``/``for``/``while`` become
``if``/``for``/``loop`` ops with loop-carried and branch-merged variables as results.
Everything outside the accepted subset is a :class:`tileir.errors.FrontendError` (one of
cuTile's ``Tile*Error`` classes) at the construct: file, line, column, caret.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import inspect
import linecache
import operator
import textwrap
import types
from typing import Any, Dict, List, Optional, Tuple

from .. import _api
from .._native import ModuleBuilder
from ..errors import FrontendError
from .lower import Lowering
from .specialize import ArraySpec, ConstantSpec, ListSpec, ScalarSpec, Specialization
from .values import Array, ArrayList, BoundMember, FString, RawMemory, Tile, TiledView, Undefined

E = _api  # exception classes live in _api

_SOURCES: Dict[Any, "_Source"] = {}


class _Source:
    """A function's parsed source, mapping AST positions back to the file (cached per
    code object: parsing is a large part of a warm compile)."""

    def __init__(self, fn: Any):
        lines, first = _fast_source(fn)
        if lines is None:
            try:
                lines, first = inspect.getsourcelines(fn)
            except (OSError, TypeError) as e:
                raise FrontendError(f"cannot read the source of '{getattr(fn, '__name__', fn)}': {e}") from None
        #: per loop node of this source: what the translation asks of its body
        self.loop_facts: Dict[ast.AST, "_LoopFacts"] = {}
        self.file = fn.__code__.co_filename if hasattr(fn, "__code__") else (inspect.getsourcefile(fn) or "<unknown>")
        self.first_line = first
        self.lines = lines
        raw = "".join(lines)
        dedented = textwrap.dedent(raw)
        self.indent = len(lines[0]) - len(lines[0].lstrip()) if lines and dedented != raw else 0
        tree = ast.parse(dedented)
        self.fdef = None
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                self.fdef = n
                break
        if isinstance(fn, types.FunctionType) and fn.__name__ == "<lambda>":
            # Several lambdas may share a line: pick the one whose code matches by position.
            lams = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
            col = getattr(fn.__code__, "co_positions", None)
            self.fdef = lams[0] if lams else self.fdef
            if col is not None and len(lams) > 1:
                try:
                    pos = next(p for p in fn.__code__.co_positions() if p[2] is not None)
                    for lam in lams:
                        if lam.body.col_offset + self.indent <= pos[2] < (lam.body.end_col_offset or 10**9) + self.indent:
                            self.fdef = lam
                            break
                except StopIteration:
                    pass

    @staticmethod
    def of(fn: Any) -> "_Source":
        key = getattr(fn, "__code__", fn)
        src = _SOURCES.get(key)
        if src is None:
            src = _SOURCES[key] = _Source(fn)
        return src

    def position(self, node: ast.AST) -> Tuple[str, int, int, str]:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + self.indent + 1
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return self.file, self.first_line + line - 1, col, text


def _fast_source(fn):
    """The source lines of a module-level ``def`` (with its decorators) read straight from
    linecache, ending where the indentation does: ``inspect.getsourcelines`` tokenizes the
    whole block and dominates a warm compile. None for lambdas and anything unusual."""
    code = getattr(fn, "__code__", None)
    if code is None or fn.__name__ == "<lambda>":
        return None, 0
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if not lines or first > len(lines):
        return None, 0
    head = lines[first - 1]
    indent = len(head) - len(head.lstrip())
    stripped = head.lstrip()
    if not (stripped.startswith("def ") or stripped.startswith("@")):
        return None, 0
    end = first
    seen_def = stripped.startswith("def ")
    while end < len(lines):
        line = lines[end]
        text = line.strip()
        if not text or text.startswith("#"):
            end += 1
            continue
        ind = len(line) - len(line.lstrip())
        if not seen_def:
            if ind == indent and text.startswith(("def ", "@")):
                seen_def = seen_def or text.startswith("def ")
                end += 1
                continue
        if ind <= indent and seen_def and not line.lstrip().startswith((")", "]", "}")):
            break
        if text.startswith("def ") and ind == indent:
            seen_def = True
        end += 1
    block = lines[first - 1:end]
    while block and not block[-1].strip():
        block.pop()
    return block, first


class Frame:
    """One function being translated (the kernel or an inlined helper)."""

    __slots__ = ("fn", "src", "env", "closure", "globals", "retval", "depth")

    def __init__(self, fn: Any, src: _Source, depth: int):
        self.fn = fn
        self.src = src
        self.env: Dict[str, Any] = {}
        self.closure: Dict[str, Any] = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                self.closure[name] = cell.cell_contents
            except ValueError:  # an empty cell: referenced before assignment
                pass
        self.globals = fn.__globals__
        self.retval: Any = None
        self.depth = depth


class LoopCtx:
    """The innermost runtime loop: what `break`/`continue` must carry."""

    def __init__(self, kind: str, names: List[str], types_: List[Tuple[Tuple[int, ...], _api.DType]],
                 iv: Optional[Tile] = None, step: Optional[Tile] = None):
        self.kind = kind          # "for" | "loop"
        self.names = names
        self.types = types_
        self.iv = iv              # a `for` lowered to `loop` carries its induction variable first
        self.step = step
        self.mismatch: Dict[str, _api.DType] = {}


class _Retry(Exception):
    """A loop body showed that a loosely typed initial value needs another dtype."""


_STOP = "stop"  # a statement list ended in a terminator (return, break, continue)
_RETURN = "return"  # ... in a helper's `return`: the helper's value is in `frame.retval`


class Translator(Lowering):
    """Translates one kernel specialization into a cuda_tile module."""

    def __init__(self, fn: Any, spec: Specialization, name: str, hints: Optional[Dict[str, Any]] = None):
        self.fn = fn
        self.spec = spec
        self.name = name
        self.hints = hints or {}
        self.b = ModuleBuilder()
        self._types: Dict[str, int] = {}
        self._locs: Dict[Tuple[int, int, int], int] = {}
        self.frame = Frame(fn, _Source.of(fn), 0)
        self.loops: List[LoopCtx] = []
        self.if_depth = 0
        self.const_cache: List[Dict[Any, Tile]] = [{}]
        self.token: int = 0
        self.token_stack: List[int] = []
        self.rest: List[list] = []
        self.unrolled = 0
        self.block_ids: Optional[List[int]] = None
        self.num_blocks_ids: Optional[List[int]] = None
        self.cur_node: ast.AST = self.frame.src.fdef

    # -- helpers -----------------------------------------------------------------------
    def error(self, node: Optional[ast.AST], message: str, cls=None) -> FrontendError:
        cls = cls or E.TileTypeError
        node = node if node is not None else self.cur_node
        if node is None:
            return cls(message)
        file, line, col, text = self.frame.src.position(node)
        return cls(message, (file, line, col), text)

    def ty(self, text: str) -> int:
        t = self._types.get(text)
        if t is None:
            t = self._types[text] = self.b.type_(text)
        return t

    def loc(self, node: Optional[ast.AST] = None) -> int:
        node = node if node is not None else self.cur_node
        key = (id(self.frame.src), getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
        h = self._locs.get(key)
        if h is None:
            file, line, col, _ = self.frame.src.position(node)
            h = self._locs[key] = self.b.loc(file, line, col)
        return h

    def op(self, name: str, operands: List[int], results: List[str], attrs=None, node=None) -> List[int]:
        return self.b.op(name, operands, [self.ty(t) for t in results], attrs, self.loc(node))

    def op1(self, name: str, operands: List[int], shape, dtype, attrs=None, node=None) -> Tile:
        t = Tile(0, shape, dtype)
        t.handle = self.b.op(name, operands, [self.ty(t.type_text())], attrs, self.loc(node))[0]
        return t

    def begin_block(self, op: int, region: int, arg_types: List[int]) -> List[int]:
        self.const_cache.append({})
        self.token_stack.append(self.token)
        return self.b.begin_block(op, region, arg_types)

    def enter_block(self, op: int, region: int) -> None:
        self.const_cache.append({})
        self.token_stack.append(self.token)
        self.b.enter_block(op, region)

    def end_block(self) -> None:
        self.const_cache.pop()
        # A token made inside the block (grid_dependency_control_wait) is not visible after it.
        self.token = self.token_stack.pop()
        self.b.end_region()

    # -- entry -------------------------------------------------------------------------
    def run(self):
        fdef = self.frame.src.fdef
        if not isinstance(fdef, ast.FunctionDef):
            raise self.error(fdef, "a kernel must be a plain 'def' function", E.TileSyntaxError)
        self.cur_node = fdef
        self.b.begin_module("kernels", self.loc(fdef))
        arg_types: List[int] = []
        arg_names: List[str] = []
        for pname, pspec in zip(self.spec.names, self.spec.params):
            if isinstance(pspec, ArraySpec):
                itype = "i64" if pspec.index64 else "i32"
                arg_types.append(self.ty(f"tile<ptr<{pspec.dtype.ir}>>"))
                arg_names.append(pname)
                for i in range(pspec.ndim):
                    arg_types.append(self.ty(f"tile<{itype}>"))
                    arg_names.append(f"{pname}_shape{i}")
                for i in range(pspec.ndim):
                    arg_types.append(self.ty(f"tile<{itype}>"))
                    arg_names.append(f"{pname}_stride{i}")
            elif isinstance(pspec, ScalarSpec):
                arg_types.append(self.ty(f"tile<{pspec.dtype.ir}>"))
                arg_names.append(pname)
            elif isinstance(pspec, ListSpec):
                # cuTile's ABI for a list: the address of its records, then its length.
                arg_types.append(self.ty("tile<ptr<i64>>"))
                arg_names.append(pname)
                arg_types.append(self.ty("tile<i32>"))
                arg_names.append(f"{pname}_len")
        attrs = self.entry_hints()
        handles = self.b.begin_entry(self.name, arg_types, arg_names, self.loc(fdef), attrs)
        it = iter(handles)
        self.token = self.op("make_token", [], ["token"], node=fdef)[0]
        env = self.frame.env
        for pname, pspec in zip(self.spec.names, self.spec.params):
            if isinstance(pspec, ConstantSpec):
                env[pname] = pspec.value
            elif isinstance(pspec, ScalarSpec):
                env[pname] = Tile(next(it), (), pspec.dtype)
            elif isinstance(pspec, ListSpec):
                ptr = next(it)
                env[pname] = self.make_array_list(fdef, pname, pspec, ptr, next(it))
            else:
                ptr = next(it)
                shapes = [next(it) for _ in range(pspec.ndim)]
                strides = [next(it) for _ in range(pspec.ndim)]
                env[pname] = self.make_array(fdef, pname, pspec, ptr, shapes, strides)
        for pname, p in inspect.signature(self.fn).parameters.items():
            if pname not in env and p.default is not inspect.Parameter.empty:
                env[pname] = p.default
        end = self.stmts(fdef.body)
        if end is None:
            self.op("return", [], [], node=fdef)
        self.b.end_region()
        self.b.end_region()
        self.b.order_tokens(self.argument_aliasing())
        return self.b.finish()

    def argument_aliasing(self) -> List[Tuple[int, int, bool]]:
        """Per entry argument, what the token-order pass needs: the alias-set bits of the
        memory it addresses, of the memory pointers loaded from it address (a list's arrays),
        and whether an array's elements may overlap. Parameters the specialization found to
        share memory share a bit; a list's records (written by the launcher, never by a
        kernel) get their own."""
        labels = self.spec.aliasing or tuple(range(len(self.spec.params)))
        bits: Dict[Any, int] = {}

        def bit(label: int) -> int:
            if label not in bits:
                bits[label] = 1 << min(len(bits), 63)
            return bits[label]

        out: List[Tuple[int, int, bool]] = []
        none = (0, 0, False)
        for label, pspec in zip(labels, self.spec.params):
            if isinstance(pspec, ArraySpec):
                out.append((bit(label), 0, pspec.may_alias_internally))
                out.extend([none] * (2 * pspec.ndim))
            elif isinstance(pspec, ScalarSpec):
                out.append(none)
            elif isinstance(pspec, ListSpec):
                out.append((bit(("records", label)), bit(label), True))
                out.append(none)
        return out

    def entry_hints(self) -> Optional[Dict[str, Any]]:
        names = {"num_ctas": "num_cta_in_cga", "occupancy": "occupancy", "num_worker_warps": "num_worker_warps_per_cta"}
        per: Dict[str, Dict[str, int]] = {}
        for hint, key in names.items():
            v = self.hints.get(hint)
            if v is None:
                continue
            items = v.items() if isinstance(v, _api.ByTarget) else [("default", v)]
            for target, value in items:
                if value is not None:
                    per.setdefault(target, {})[key] = int(value)
        if not per:
            return None
        return {"optimization_hints": dict(sorted(per.items(), key=lambda kv: (kv[0] != "default", kv[0])))}

    # -- statements --------------------------------------------------------------------
    def stmts(self, body: List[ast.stmt]) -> Optional[str]:
        if self.frame.depth == 0:  # the kernel's own returns need no continuation
            for s in body:
                end = self.stmt(s)
                if end is not None:
                    return end
            return None
        # `rest` records where each enclosing statement list of the current helper is, so
        # that a return under a run-time `if` can translate what follows the `if` (its
        # continuation) inside the branch that does not return.
        pos = [body, 0]
        rest = self.rest
        rest.append(pos)
        try:
            for i, s in enumerate(body):
                pos[1] = i
                end = self.stmt(s)
                if end is not None:
                    return end
            return None
        finally:
            rest.pop()

    def continuation(self) -> List[ast.stmt]:
        """The statements of the current function that run after the current one."""
        out: List[ast.stmt] = []
        for body, i in reversed(self.rest):
            out.extend(body[i + 1:])
        return out

    def stmt(self, node: ast.stmt) -> Optional[str]:
        self.cur_node = node
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return None  # docstring
            self.expr(node.value)
            return None
        if isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for t in node.targets:
                self.assign(t, value)
            return None
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value))
            return None
        if isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise self.error(node.target, "augmented assignment needs a plain name", E.TileSyntaxError)
            cur = self.lookup(node.target)
            value = self.binary_op(node, type(node.op), cur, self.expr(node.value))
            self.assign(node.target, value)
            return None
        if isinstance(node, ast.Pass):
            return None
        if isinstance(node, ast.If):
            return self.if_stmt(node)
        if isinstance(node, ast.For):
            return self.for_stmt(node)
        if isinstance(node, ast.While):
            return self.while_stmt(node)
        if isinstance(node, ast.Break):
            return self.break_continue(node, "break")
        if isinstance(node, ast.Continue):
            return self.break_continue(node, "continue")
        if isinstance(node, ast.Return):
            return self.return_stmt(node)
        if isinstance(node, ast.Assert):
            cond = self.expr(node.test)
            if isinstance(cond, Tile):
                raise self.error(node, "'assert' needs a compile-time condition; use ct.assert_ for run-time checks")
            if not cond:
                msg = self.expr(node.msg) if node.msg is not None else "assertion failed"
                raise self.error(node, f"static assertion failed: {msg}", E.TileStaticAssertionError)
            return None
        if isinstance(node, ast.FunctionDef):
            raise self.error(node, "functions defined inside a kernel are not supported; define helpers at module level "
                             "or use a lambda", E.TileSyntaxError)
        raise self.error(node, f"unsupported Python statement '{type(node).__name__}' in a kernel", E.TileSyntaxError)

    def assign(self, target: ast.expr, value: Any):
        if isinstance(target, ast.Name):
            if value is None and isinstance(self.frame.env.get(target.id), Tile):
                pass
            self.frame.env[target.id] = value
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, tuple):
                raise self.error(target, f"cannot unpack a non-tuple value ({self.describe(value)})")
            stars = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
            if stars:
                s = stars[0]
                after = len(target.elts) - s - 1
                if len(value) < len(target.elts) - 1:
                    raise self.error(target, f"not enough values to unpack (expected at least {len(target.elts) - 1}, "
                                     f"got {len(value)})", E.TileValueError)
                for t, v in zip(target.elts[:s], value[:s]):
                    self.assign(t, v)
                self.assign(target.elts[s].value, tuple(value[s:len(value) - after]))
                for t, v in zip(target.elts[s + 1:], value[len(value) - after:]):
                    self.assign(t, v)
                return
            if len(target.elts) != len(value):
                raise self.error(target, f"cannot unpack {len(value)} values into {len(target.elts)} names", E.TileValueError)
            for t, v in zip(target.elts, value):
                self.assign(t, v)
            return
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            raise self.error(target, "tiles, tuples and dataclasses are immutable: assign to a name instead",
                             E.TileSyntaxError)
        raise self.error(target, "unsupported assignment target; assign to a name or a tuple of names", E.TileSyntaxError)

    def return_stmt(self, node: ast.Return) -> str:
        value = self.expr(node.value) if node.value is not None else None
        if self.frame.depth == 0:
            if value is not None:
                raise self.error(node.value, "a kernel cannot return a value")
            if self.loops:
                # cuda_tile has no `return` inside loops: leave the loop with a flag set and
                # return after it (see return_after_loop), as cuTile does.
                self.frame.env[_RETURNED] = True
                return self.break_continue(node, "break")
            self.op("return", [], [], node=node)
            return _STOP
        if self.loops:
            # As in the kernel: leave the helper's loops with a flag set, carrying the value,
            # and return after the outermost one (return_after_loop).
            self.frame.env[_RETURNED] = True
            if value is not None:
                spec = self.returned_spec(node, value)
                ctx = self.loops[-1]
                if _RETVAL not in ctx.names:
                    ctx.add_retval = spec
                    raise _Retry()
                self.frame.env[_RETVAL] = value
            elif _RETVAL in self.loops[-1].names:
                raise self.error(node, "the helper returns nothing here and a value elsewhere in this loop")
            return self.break_continue(node, "break")
        if self.if_depth > self.frame_if_base:
            if self.unrolled:
                raise self.error(node, "'return' under a run-time condition inside a compile-time unrolled loop is "
                                 "not supported", E.TileUnsupportedFeatureError)
        self.frame.retval = value
        return _RETURN

    frame_if_base = 0

    def returned_spec(self, node, value):
        """The (shape, dtype) a helper's loops carry for ``value``, returned inside them."""
        try:
            spec = self.unify_types([value])
        except _NotRuntime:
            spec = None
        if spec is None:
            raise self.error(node, f"a helper can only return tiles, numbers or tuples of them from inside a run-time "
                             f"loop, not {self.describe(value)}", E.TileUnsupportedFeatureError)
        return spec

    def zero_of(self, spec, node):
        """A value of type ``spec`` ((shape, dtype), or a tuple spec) that is never read: the
        initial value of a loop-carried return value."""
        shape, dtype = spec
        if isinstance(shape, tuple) and shape and shape[0] == "tuple":
            return tuple(self.zero_of(s, node) for s in shape[1])
        return self.constant(False if dtype.is_bool else 0.0 if dtype.is_float else 0, dtype, shape, node)

    # -- control flow ------------------------------------------------------------------
    def cond_value(self, node: ast.expr) -> Any:
        c = self.expr(node)
        if isinstance(c, Tile):
            if c.shape != ():
                raise self.error(node, f"a condition must be a scalar, got a tile of shape {c.shape}")
            if not c.dtype.is_bool:
                c = self.compare("not_equal", c, 0, node)
            return c
        if isinstance(c, Undefined):
            raise self.error(node, f"'{c.name}' {c.why}", E.TileValueError)
        return bool(c)

    def if_stmt(self, node: ast.If) -> Optional[str]:
        cond = self.cond_value(node.test)
        if not isinstance(cond, Tile):
            return self.stmts(node.body if cond else node.orelse)
        env0 = dict(self.frame.env)
        op, _ = self.b.begin_op("if", [cond.handle], [], None, self.loc(node))
        self.if_depth += 1
        branches = []
        rets = []
        for region, body in ((0, node.body), (1, node.orelse)):
            self.begin_block(op, region, [])
            self.frame.env = dict(env0)
            self.frame.retval = None
            end = self.stmts(body)
            branches.append((self.frame.env, end))
            rets.append(self.frame.retval)
            self.end_block()
        self.if_depth -= 1
        if self.frame.depth > 0 and _RETURN in (branches[0][1], branches[1][1]):
            return self.if_with_return(node, op, branches, rets)
        live = [(i, env) for i, (env, end) in enumerate(branches) if end is None]
        if not live:
            self.frame.env = env0
            self.cur_node = node
            return _STOP  # both branches left the block: what follows is unreachable
        merged: Dict[str, Any] = dict(env0)
        yields: List[Tuple[str, Tuple[Tuple[int, ...], _api.DType]]] = []
        names: List[str] = []
        for _, env in live:
            for k, v in env.items():
                if env0.get(k, _MISSING) is not v and k not in names:
                    names.append(k)
        per_branch_values: Dict[int, List[Any]] = {i: [] for i, _ in live}
        for k in names:
            vals = [env.get(k, _MISSING) for _, env in live]
            if any(v is _MISSING or isinstance(v, Undefined) for v in vals):
                merged[k] = Undefined(k, "is assigned in only one branch of a run-time 'if'")
                continue
            # Values made inside a branch are not visible after the `if`: tiles are always
            # yielded; equal compile-time values need nothing.
            if (all(v is vals[0] for v in vals) and not _has_tile(vals[0])) or (
                    all(_is_num(v) for v in vals) and all(type(v) is type(vals[0]) and v == vals[0] for v in vals)):
                merged[k] = vals[0]
                continue
            try:
                t = self.unify_types(vals)
            except FrontendError:
                raise
            except _NotRuntime:
                if len(live) == 1:
                    merged[k] = vals[0]
                    continue
                raise self.error(node, f"variable '{k}' holds different compile-time values in the two branches of a "
                                 f"run-time 'if' ({self.describe(vals[0])} and {self.describe(vals[1])})")
            if t is None:
                raise self.error(node, f"variable '{k}' has type {self.describe(vals[0])} in one branch and "
                                 f"{self.describe(vals[1])} in the other")
            yields.append((k, t))
            for (i, _), v in zip(live, vals):
                per_branch_values[i].append(v)
        # Branches that fell through yield the merged variables; a branch that ended in a
        # terminator (return/break/continue) already has one.
        for i, env in live:
            self.enter_block(op, i)
            handles = []
            for (k, (shape, dtype)), v in zip(yields, per_branch_values[i]):
                handles.extend(self.flat_as(v, shape, dtype, node))
            self.op("yield", handles, [], node=node)
            self.end_block()
        flat_types = []
        for _, (shape, dtype) in yields:
            flat_types.extend(self.flat_types(shape, dtype))
        results = self.b.add_results(op, [self.ty(t) for t in flat_types])
        it = iter(results)
        for k, (shape, dtype) in yields:
            merged[k] = self.unflatten(it, shape, dtype)
        self.frame.env = merged
        self.cur_node = node
        if len(live) == 1 and branches[1 - live[0][0]][1] is not None:
            pass  # the other branch always leaves: the merged values are that branch's
        return None

    def if_with_return(self, node: ast.If, op: int, branches, rets) -> str:
        """A run-time ``if`` in a helper where a branch returns: the rest of the helper (the
        continuation) is translated inside each branch that falls through, so that every
        branch ends by returning, and the ``if`` yields the returned value: it is the
        helper's value. (cuTile wraps such helpers in a loop and breaks out of it; this
        keeps the IR free of loops, at the cost of repeating the continuation per path.)"""
        cont = self.continuation()
        values = list(rets)
        for i, (env, end) in enumerate(branches):
            if end == _RETURN:
                continue
            if end is not None:  # break/continue cannot happen: returns in loops are refused
                raise self.error(node, "a helper's branch leaves a loop while the other returns",
                                 E.TileUnsupportedFeatureError)
            self.enter_block(op, i)
            self.frame.env = env
            self.frame.retval = None
            saved_rest, self.rest = self.rest, []
            self.if_depth += 1
            try:
                self.stmts(cont)
            finally:
                self.rest = saved_rest
                self.if_depth -= 1
            values[i] = self.frame.retval
            self.end_block()
        self.cur_node = node
        if all(v is None for v in values):
            self.frame.retval = None
            spec = None
        elif all(v is values[0] for v in values) and not _has_tile(values[0]):
            self.frame.retval = values[0]
            spec = None
        else:
            if any(v is None for v in values):
                raise self.error(node, "the helper returns a value on one path of this run-time 'if' and nothing on "
                                 "the other")
            try:
                spec = self.unify_types(values)
            except _NotRuntime:
                raise self.error(node, f"the helper returns different compile-time values on the two paths of a "
                                 f"run-time 'if' ({self.describe(values[0])} and {self.describe(values[1])})") from None
            if spec is None:
                raise self.error(node, f"the helper returns {self.describe(values[0])} on one path of this run-time "
                                 f"'if' and {self.describe(values[1])} on the other")
        for i, v in enumerate(values):
            self.enter_block(op, i)
            handles = self.flat_as(v, spec[0], spec[1], node) if spec is not None else []
            self.op("yield", handles, [], node=node)
            self.end_block()
        if spec is not None:
            results = self.b.add_results(op, [self.ty(t) for t in self.flat_types(spec[0], spec[1])])
            self.frame.retval = self.unflatten(iter(results), spec[0], spec[1])
        return _RETURN

    def unify_types(self, vals: List[Any]):
        """The common (shape, dtype) of runtime values merged from branches or carried by a
        loop; tuples merge element-wise. Loosely typed numbers adopt the tiles' dtype."""
        if any(isinstance(v, tuple) for v in vals):
            if not all(isinstance(v, tuple) and len(v) == len(vals[0]) for v in vals):
                return None
            parts = [self.unify_types([v[i] for v in vals]) for i in range(len(vals[0]))]
            if any(p is None for p in parts):
                return None
            return ("tuple", tuple(parts)), None
        tiles = [v for v in vals if isinstance(v, Tile)]
        if not tiles:
            if all(_is_num(v) for v in vals):
                return (), _default_dtype(vals)
            raise _NotRuntime()
        first = tiles[0]
        for t in tiles[1:]:
            if not t.same_type(first):
                return None
        for v in vals:
            if not isinstance(v, Tile) and not _is_num(v):
                return None
        return first.shape, first.dtype

    def flat_types(self, shape, dtype) -> List[str]:
        if isinstance(shape, tuple) and shape and shape[0] == "tuple":
            out = []
            for s, d in shape[1]:
                out.extend(self.flat_types(s, d))
            return out
        return [_tile_text(shape, dtype)]

    def flat_as(self, v: Any, shape, dtype, node) -> List[int]:
        if isinstance(shape, tuple) and shape and shape[0] == "tuple":
            out = []
            for x, (s, d) in zip(v, shape[1]):
                out.extend(self.flat_as(x, s, d, node))
            return out
        if isinstance(v, Tile):
            if v.shape != shape or v.dtype != dtype:
                raise self.error(node, f"value of type {v.type_text()} where {_tile_text(shape, dtype)} is expected")
            return [v.handle]
        return [self.constant(v, dtype, shape, node).handle]

    def unflatten(self, it, shape, dtype):
        if isinstance(shape, tuple) and shape and shape[0] == "tuple":
            return tuple(self.unflatten(it, s, d) for s, d in shape[1])
        return Tile(next(it), shape, dtype)

    def carried_names(self, node: ast.stmt, extra: List[str] = ()) -> List[str]:
        """The variables loop ``node`` carries: those its body assigns (and ``extra``) that
        hold run-time values before it."""
        names = []
        for n in self.facts(node).assigned + list(extra):
            if n in names:
                continue
            v = self.frame.env.get(n, _MISSING)
            if v is _MISSING or isinstance(v, Undefined):
                continue
            if _is_runtime_candidate(v):
                names.append(n)
        return names

    def loop_inits(self, names: List[str], overrides: Dict[str, Any], node) -> Tuple[List[Any], List[int]]:
        specs, handles = [], []
        for n in names:
            v = self.frame.env[n]
            if n in overrides:
                spec = overrides[n]
            else:
                spec = self.unify_types([v])
                if spec is None:
                    raise self.error(node, f"variable '{n}' ({self.describe(v)}) cannot be carried by a loop")
            specs.append(spec)
            handles.extend(self.flat_as(v, spec[0], spec[1], node))
        return specs, handles

    def loop_end_values(self, ctx: LoopCtx, specs, node) -> List[int]:
        """Handles of the carried variables at a `continue`/`break`/end of body, converting
        loosely typed numbers; a tile of another type forces a retry or an error."""
        out = []
        for n, (shape, dtype) in zip(ctx.names, specs):
            v = self.frame.env.get(n, _MISSING)
            if v is _MISSING or isinstance(v, Undefined):
                raise self.error(node, f"loop-carried variable '{n}' is not defined at the end of the loop body")
            if isinstance(shape, tuple) and shape and shape[0] == "tuple":
                got = self.unify_types([v])
                if got != (shape, dtype):
                    raise self.error(node, f"loop-carried variable '{n}' changes type in the loop body")
                out.extend(self.flat_as(v, shape, dtype, node))
                continue
            if isinstance(v, Tile) and (v.shape != shape or v.dtype != dtype):
                if ctx.loose.get(n) and v.shape == shape and n not in ctx.mismatch:
                    ctx.mismatch[n] = (v.shape, v.dtype)
                    raise _Retry()
                if ctx.loose.get(n) and n not in ctx.mismatch:
                    ctx.mismatch[n] = (v.shape, v.dtype)
                    raise _Retry()
                if n == _RETVAL:
                    raise self.error(node, f"the helper returns {_tile_text(shape, dtype)} from this loop in one place "
                                     f"and {v.type_text()} in another; convert one with astype()")
                raise self.error(node, f"loop-carried variable '{n}' has type {_tile_text(shape, dtype)} before the loop "
                                 f"and {v.type_text()} at the end of the loop body; convert it with astype() or "
                                 f"initialize it with the final type")
            if not isinstance(v, Tile) and not _is_num(v):
                raise self.error(node, f"loop-carried variable '{n}' becomes {self.describe(v)} in the loop body")
            out.extend(self.flat_as(v, shape, dtype, node))
        return out

    def build_loop(self, node, names: List[str], emit):
        """Builds a loop op via ``emit(ctx, specs, inits) -> (op, results)``, retrying when a
        loosely typed initial value turns out to need the dtype the body gives it."""
        overrides: Dict[str, Any] = {}
        env0 = dict(self.frame.env)
        n_loops, if_depth = len(self.loops), self.if_depth
        for _attempt in range(len(names) + 3):
            specs, inits = self.loop_inits(names, overrides, node)
            ctx = LoopCtx("", names, specs)
            ctx.loose = {n: not isinstance(env0[n], (Tile, tuple)) and n not in overrides for n in names}
            try:
                op, results, specs = emit(ctx, specs, inits)
            except _Retry:
                # Unwind the partially built loop: close its open blocks, drop it.
                while self.b_depth() > ctx.depth:
                    self.end_block()
                self.b.erase_op(ctx.op)
                del self.loops[n_loops:]
                self.if_depth = if_depth
                self.frame.env = dict(env0)
                for n, spec in ctx.mismatch.items():
                    overrides[n] = spec
                add = getattr(ctx, "add_retval", None)
                if add is not None:
                    # A helper's `return value` inside the loop: carry the value too (its
                    # initial value is never read: the flag is false until it is set).
                    env0[_RETVAL] = self.zero_of(add, node)
                    self.frame.env[_RETVAL] = env0[_RETVAL]
                    if _RETVAL not in names:
                        names.append(_RETVAL)
                continue
            self.frame.env = dict(env0)
            it = iter(results)
            for n, (shape, dtype) in zip(names, specs):
                self.frame.env[n] = self.unflatten(it, shape, dtype)
            for n in self.facts(node).assigned:
                if n not in names:
                    self.frame.env[n] = Undefined(n, "is assigned inside a loop body and undefined after the loop")
            return
        raise self.error(node, "could not determine the types of the loop-carried variables")

    def facts(self, node) -> "_LoopFacts":
        """Loop ``node``'s body facts, computed once per parsed source."""
        cache = self.frame.src.loop_facts
        f = cache.get(node)
        if f is None:
            f = cache[node] = _LoopFacts(node.body)
        return f

    def returning_loop(self, node) -> List[str]:
        """For a loop whose body returns: the flag it carries (initially False) and, in a
        helper whose returns there give a value, that value (added by a retry once the
        first such return shows its type, or already known from an inner loop)."""
        if not self.facts(node).has_return:
            return []
        if not isinstance(self.frame.env.get(_RETURNED), Tile):
            self.frame.env[_RETURNED] = False
        if self.frame.depth and _RETVAL in self.frame.env:
            return [_RETURNED, _RETVAL]
        return [_RETURNED]

    def return_after_loop(self, node, names: List[str]) -> Optional[str]:
        """After a loop whose body returned (the flag is set): return, or leave the
        enclosing loop too when there is one. In a helper's outermost loop, the helper's
        value is the carried one if the flag is set, else what the rest of the helper
        returns (see helper_return_after_loop)."""
        if _RETURNED not in names:
            return None
        flag = self.frame.env[_RETURNED]
        if self.frame.depth and not self.loops:
            return self.helper_return_after_loop(node, flag)
        if self.frame.depth and _RETVAL in names and _RETVAL not in self.loops[-1].names:
            # The enclosing loop must carry the value out too: rebuild it knowing its type.
            self.loops[-1].add_retval = self.returned_spec(node, self.frame.env[_RETVAL])
            raise _Retry()
        op, _ = self.b.begin_op("if", [flag.handle], [], None, self.loc(node))
        self.begin_block(op, 0, [])
        if self.loops:
            env = dict(self.frame.env)
            self.frame.env[_RETURNED] = True
            self.break_continue(node, "break")
            self.frame.env = env
        else:
            self.op("return", [], [], node=node)
        self.end_block()
        self.begin_block(op, 1, [])
        self.op("yield", [], [], node=node)
        self.end_block()
        return None

    def helper_return_after_loop(self, node, flag: Tile) -> str:
        """``if flag: <return the carried value> else: <the rest of the helper>``, built as
        a run-time ``if`` whose first branch returns (if_with_return translates the rest of
        the helper in the other branch and yields the helper's value from both)."""
        if self.unrolled:
            raise self.error(node, "a run-time loop that returns from the helper inside a compile-time unrolled loop "
                             "is not supported", E.TileUnsupportedFeatureError)
        env = dict(self.frame.env)
        retval = env.pop(_RETVAL, None)
        env.pop(_RETURNED, None)  # the rest of the helper starts a fresh flag if it needs one
        op, _ = self.b.begin_op("if", [flag.handle], [], None, self.loc(node))
        for region in (0, 1):
            self.begin_block(op, region, [])
            self.end_block()
        self.cur_node = node
        return self.if_with_return(node, op, [(dict(env), _RETURN), (env, None)], [retval, None])

    def b_depth(self) -> int:
        return len(self.const_cache)

    def for_stmt(self, node: ast.For) -> Optional[str]:
        if node.orelse:
            raise self.error(node.orelse[0], "'for ... else' is not supported", E.TileSyntaxError)
        it_node = node.iter
        if isinstance(it_node, ast.Call):
            fn = self.expr(it_node.func)
            if fn is range or fn is builtins.range:
                if it_node.keywords:
                    raise self.error(it_node.keywords[0], "range() takes no keyword arguments")
                args = [self.expr(a) for a in it_node.args]
                if not 1 <= len(args) <= 3:
                    raise self.error(it_node, f"range expected 1 to 3 arguments, got {len(args)}")
                start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
                return self.for_range(node, start, stop, step)
            if fn is _api.static_iter:
                if len(it_node.args) != 1:
                    raise self.error(it_node, "static_iter() takes exactly one argument")
                return self.unrolled_for(node, self.expr(it_node.args[0]))
        seq = self.expr(it_node)
        if isinstance(seq, (tuple, list)):
            return self.unrolled_for(node, seq)
        raise self.error(it_node, f"a kernel 'for' loop iterates over range(...), static_iter(...) or a tuple, got "
                         f"{self.describe(seq)}", E.TileSyntaxError)

    def unrolled_for(self, node: ast.For, seq) -> Optional[str]:
        try:
            items = list(seq)
        except TypeError:
            raise self.error(node.iter, f"{self.describe(seq)} is not iterable at compile time", E.TileValueError) from None
        if self.facts(node).has_loop_exit:
            raise self.error(node, "'break'/'continue' in a compile-time unrolled loop are not supported",
                             E.TileUnsupportedFeatureError)
        self.unrolled += 1
        try:
            for item in items:
                self.assign(node.target, item)
                end = self.stmts(node.body)
                if end is not None:
                    return end
        finally:
            self.unrolled -= 1
        return None

    def for_range(self, node: ast.For, start, stop, step) -> Optional[str]:
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable of a range loop must be a name", E.TileSyntaxError)
        for v, what in ((start, "start"), (stop, "stop"), (step, "step")):
            if isinstance(v, Tile):
                if v.shape != () or not v.dtype.is_int:
                    raise self.error(node.iter, f"range {what} must be an integer scalar, got {v.type_text()}")
            elif not (isinstance(v, int) and not isinstance(v, bool)):
                raise self.error(node.iter, f"range {what} must be an integer, got {self.describe(v)}")
        if isinstance(step, int) and step <= 0:
            raise self.error(node.iter, f"range step must be positive, got {step}", E.TileValueError)
        itype = _api.int64 if any(isinstance(v, Tile) and v.dtype.bits == 64 for v in (start, stop, step)) else _api.int32
        lb, ub, st = (self.convert(self.to_tile(v, itype, node), itype, node) for v in (start, stop, step))
        ret = self.returning_loop(node)
        names = self.carried_names(node, ret)
        iv_name = node.target.id
        names = [n for n in names if n != iv_name]
        if self.facts(node).has_break or ret:
            return self.for_as_loop(node, lb, ub, st, names)

        def emit(ctx: LoopCtx, specs, inits):
            flat = []
            for shape, dtype in specs:
                flat.extend(self.flat_types(shape, dtype))
            ctx.depth = self.b_depth()
            op, results = self.b.begin_op("for", [lb.handle, ub.handle, st.handle] + inits, [self.ty(t) for t in flat],
                                          None, self.loc(node))
            ctx.op = op
            ctx.kind = "for"
            self.loops.append(ctx)
            args = self.begin_block(op, 0, [self.ty(lb.type_text())] + [self.ty(t) for t in flat])
            self.frame.env[iv_name] = Tile(args[0], (), itype)
            it = iter(args[1:])
            for n, (shape, dtype) in zip(names, specs):
                self.frame.env[n] = self.unflatten(it, shape, dtype)
            end = self.stmts(node.body)
            if end is None:
                self.op("continue", self.loop_end_values(ctx, specs, node), [], node=node)
            self.end_block()
            self.loops.pop()
            return op, results, specs

        self.build_loop(node, names, emit)
        self.frame.env[iv_name] = Undefined(iv_name, "is the variable of a run-time loop and undefined after it")
        self.cur_node = node
        return None

    def for_as_loop(self, node: ast.For, lb: Tile, ub: Tile, st: Tile, names: List[str]) -> Optional[str]:
        """A range loop with `break`: cuda_tile `for` cannot exit early, so it becomes a
        `loop` carrying the induction variable."""
        iv_name = node.target.id
        itype = lb.dtype

        def emit(ctx: LoopCtx, specs, inits):
            flat = []
            for shape, dtype in specs:
                flat.extend(self.flat_types(shape, dtype))
            ctx.depth = self.b_depth()
            op, _ = self.b.begin_op("loop", [lb.handle] + inits, [], None, self.loc(node))
            ctx.op = op
            ctx.kind = "loop"
            ctx.step = st
            self.loops.append(ctx)
            args = self.begin_block(op, 0, [self.ty(lb.type_text())] + [self.ty(t) for t in flat])
            iv = Tile(args[0], (), itype)
            ctx.iv = iv
            it = iter(args[1:])
            for n, (shape, dtype) in zip(names, specs):
                self.frame.env[n] = self.unflatten(it, shape, dtype)
            # if iv < ub: body else: break
            inb = self.compare("less", iv, ub, node)
            cop, _ = self.b.begin_op("if", [inb.handle], [], None, self.loc(node))
            self.begin_block(cop, 0, [])
            self.op("yield", [], [], node=node)
            self.end_block()
            self.begin_block(cop, 1, [])
            self.op("break", self.loop_end_values(ctx, specs, node), [], node=node)
            self.end_block()
            self.frame.env[iv_name] = iv
            end = self.stmts(node.body)
            if end is None:
                nxt = self.arith("add", iv, st, node)
                self.op("continue", [nxt.handle] + self.loop_end_values(ctx, specs, node), [], node=node)
            self.end_block()
            self.loops.pop()
            results = self.b.add_results(op, [self.ty(t) for t in flat])
            return op, results, specs

        self.build_loop(node, names, emit)
        self.frame.env[iv_name] = Undefined(iv_name, "is the variable of a run-time loop and undefined after it")
        self.cur_node = node
        return self.return_after_loop(node, names)

    def while_stmt(self, node: ast.While) -> Optional[str]:
        if node.orelse:
            raise self.error(node.orelse[0], "'while ... else' is not supported", E.TileSyntaxError)
        ret = self.returning_loop(node)
        names = self.carried_names(node, _names_in(node.test) + ret)

        def emit(ctx: LoopCtx, specs, inits):
            flat = []
            for shape, dtype in specs:
                flat.extend(self.flat_types(shape, dtype))
            ctx.depth = self.b_depth()
            op, _ = self.b.begin_op("loop", inits, [], None, self.loc(node))
            ctx.op = op
            ctx.kind = "loop"
            self.loops.append(ctx)
            args = self.begin_block(op, 0, [self.ty(t) for t in flat])
            it = iter(args)
            for n, (shape, dtype) in zip(names, specs):
                self.frame.env[n] = self.unflatten(it, shape, dtype)
            cond = self.cond_value(node.test)
            if isinstance(cond, Tile):
                cop, _ = self.b.begin_op("if", [cond.handle], [], None, self.loc(node.test))
                self.begin_block(cop, 0, [])
                self.op("yield", [], [], node=node)
                self.end_block()
                self.begin_block(cop, 1, [])
                self.op("break", self.loop_end_values(ctx, specs, node), [], node=node)
                self.end_block()
                end = self.stmts(node.body)
            elif cond:
                end = self.stmts(node.body)
            else:
                self.op("break", self.loop_end_values(ctx, specs, node), [], node=node)
                end = _STOP
            if end is None:
                self.op("continue", self.loop_end_values(ctx, specs, node), [], node=node)
            self.end_block()
            self.loops.pop()
            results = self.b.add_results(op, [self.ty(t) for t in flat])
            return op, results, specs

        self.build_loop(node, names, emit)
        self.cur_node = node
        return self.return_after_loop(node, names)

    def break_continue(self, node: ast.stmt, kind: str) -> str:
        if not self.loops:
            raise self.error(node, f"'{kind}' outside a run-time loop", E.TileSyntaxError)
        ctx = self.loops[-1]
        vals = self.loop_end_values(ctx, ctx.types, node)
        if kind == "break":
            self.op("break", vals, [], node=node)
        elif ctx.iv is not None:
            nxt = self.arith("add", ctx.iv, ctx.step, node)
            self.op("continue", [nxt.handle] + vals, [], node=node)
        else:
            self.op("continue", vals, [], node=node)
        return _STOP

    # -- expressions -------------------------------------------------------------------
    def lookup(self, node: ast.Name) -> Any:
        name = node.id
        f = self.frame
        if name in f.env:
            v = f.env[name]
            if isinstance(v, Undefined):
                raise self.error(node, f"'{name}' {v.why}", E.TileValueError)
            return v
        if name in f.closure:
            return f.closure[name]
        if name in f.globals:
            return f.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(node, f"name '{name}' is not defined", E.TileValueError)

    def expr(self, node: ast.expr) -> Any:
        m = getattr(self, "e_" + type(node).__name__, None)
        if m is None:
            raise self.error(node, f"unsupported Python expression '{type(node).__name__}' in a kernel", E.TileSyntaxError)
        return m(node)

    def e_Constant(self, node: ast.Constant):
        v = node.value
        if v is None or isinstance(v, (bool, int, float, str)) or v is Ellipsis:
            return v
        raise self.error(node, f"constant of type {type(v).__name__} is not supported here", E.TileTypeError)

    def e_Name(self, node: ast.Name):
        return self.lookup(node)

    def e_Tuple(self, node: ast.Tuple):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                v = self.expr(e.value)
                if not isinstance(v, (tuple, list)):
                    raise self.error(e, f"cannot unpack {self.describe(v)} with '*'")
                out.extend(v)
            else:
                out.append(self.expr(e))
        return tuple(out)

    e_List = e_Tuple

    def e_Dict(self, node: ast.Dict):
        return {self.expr(k): self.expr(v) for k, v in zip(node.keys, node.values)}

    def e_JoinedStr(self, node: ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = self.expr(v.value)
                if isinstance(val, (Tile, Array)):
                    raise self.error(v, "f-strings with run-time values are only supported as arguments of print()")
                spec = self.expr(v.format_spec) if v.format_spec is not None else ""
                parts.append(format(val, spec))
        return "".join(parts)

    def e_Attribute(self, node: ast.Attribute):
        base = self.expr(node.value)
        return self.attribute(node, base, node.attr)

    def attribute(self, node, base, attr: str):
        if isinstance(base, Tile):
            if attr == "shape":
                return base.shape
            if attr == "dtype":
                return base.dtype
            if attr == "ndim":
                return base.ndim
            if attr in _TILE_METHODS:
                return BoundMember(base, attr)
            if attr == "T":
                return self.transpose_tile(base, None, None, node)
            raise self.error(node, f"a tile has no attribute '{attr}'", E.TileTypeError)
        if isinstance(base, Array):
            if attr == "dtype":
                return base.dtype
            if attr == "shape":
                return tuple(base.shape)
            if attr == "strides":
                return tuple(base.strides)
            if attr == "ndim":
                return base.ndim
            if attr in ("slice", "tiled_view", "get_raw_memory"):
                return BoundMember(base, attr)
            raise self.error(node, f"an array has no attribute '{attr}'", E.TileTypeError)
        if isinstance(base, RawMemory):
            if attr == "dtype":
                return base.dtype
            if attr in _api.RAW_MEMORY_METHODS:
                return BoundMember(base, attr)
            raise self.error(node, f"a RawArrayMemory has no attribute '{attr}'", E.TileTypeError)
        if isinstance(base, TiledView):
            if attr == "dtype":
                return base.dtype
            if attr == "tile_shape":
                return base.tile_shape
            if attr == "traversal_steps":
                return base.traversal_steps if base.traversal_steps is not None else base.tile_shape
            if attr in ("num_tiles", "load", "store") or attr.startswith("atomic_store_"):
                return BoundMember(base, attr)
            raise self.error(node, f"a tiled view has no attribute '{attr}'", E.TileTypeError)
        if isinstance(base, Undefined):
            raise self.error(node, f"'{base.name}' {base.why}", E.TileValueError)
        if isinstance(base, ArrayList):
            raise self.error(node, f"a list of arrays has no attribute '{attr}'; index it (lst[i]) or take len(lst)",
                             E.TileTypeError)
        try:
            return getattr(base, attr)
        except AttributeError:
            raise self.error(node, f"'{getattr(base, '__name__', type(base).__name__)}' has no attribute '{attr}'",
                             E.TileTypeError) from None

    def e_Subscript(self, node: ast.Subscript):
        base = self.expr(node.value)
        idx = self.expr(node.slice)
        if isinstance(base, Tile):
            return self.tile_subscript(node, base, idx)
        if isinstance(base, ArrayList):
            return self.list_item(node, base, idx, node.slice)
        if isinstance(idx, Tile):
            raise self.error(node.slice, "indexing a compile-time sequence needs a compile-time index")
        try:
            return base[idx]
        except (IndexError, KeyError, TypeError) as e:
            raise self.error(node, f"cannot index {self.describe(base)} with {idx!r}: {e}", E.TileValueError) from None

    def e_Slice(self, node: ast.Slice):
        lo = self.expr(node.lower) if node.lower is not None else None
        hi = self.expr(node.upper) if node.upper is not None else None
        st = self.expr(node.step) if node.step is not None else None
        return slice(lo, hi, st)

    def e_BinOp(self, node: ast.BinOp):
        return self.binary_op(node, type(node.op), self.expr(node.left), self.expr(node.right))

    def e_UnaryOp(self, node: ast.UnaryOp):
        v = self.expr(node.operand)
        if isinstance(v, Tile):
            if isinstance(node.op, ast.USub):
                return self.negative(v, node)
            if isinstance(node.op, ast.UAdd):
                return v
            if isinstance(node.op, ast.Invert):
                return self.bitwise_not(v, node)
            if isinstance(node.op, ast.Not):
                if v.shape != ():
                    raise self.error(node, "'not' needs a scalar; use ~ on boolean tiles")
                b = v if v.dtype.is_bool else self.compare("not_equal", v, 0, node)
                return self.bitwise_not(b, node)
        pyop = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}
        try:
            return pyop[type(node.op)](v)
        except TypeError as e:
            raise self.error(node, str(e)) from None

    def e_BoolOp(self, node: ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        acc = None
        for vnode in node.values:
            v = self.expr(vnode)
            if not isinstance(v, Tile):
                if acc is None or not isinstance(acc, Tile):
                    # Python short-circuit on compile-time values.
                    if is_and and not v:
                        return v
                    if not is_and and v:
                        return v
                    acc = v
                    continue
                if is_and and not v:
                    return False
                if not is_and and v:
                    return True
                continue
            if v.shape != ():
                raise self.error(vnode, "'and'/'or' need scalars; use & and | on boolean tiles")
            if not v.dtype.is_bool:
                v = self.compare("not_equal", v, 0, vnode)
            if isinstance(acc, Tile):
                acc = self.bitwise("and" if is_and else "or", acc, v, node)
            else:
                acc = v
        return acc

    def e_Compare(self, node: ast.Compare):
        left = self.expr(node.left)
        result = None
        for opnode, rnode in zip(node.ops, node.comparators):
            right = self.expr(rnode)
            r = self.compare_op(node, type(opnode), left, right)
            if result is None:
                result = r
            elif isinstance(result, Tile) or isinstance(r, Tile):
                result = self.bitwise("and", result, r, node)
            else:
                result = result and r
            left = right
        return result

    def compare_op(self, node, op, a, b):
        names = {ast.Lt: "less", ast.LtE: "less_equal", ast.Gt: "greater", ast.GtE: "greater_equal",
                 ast.Eq: "equal", ast.NotEq: "not_equal"}
        if isinstance(a, Tile) or isinstance(b, Tile):
            if op in (ast.Is, ast.IsNot, ast.In, ast.NotIn):
                raise self.error(node, "'is'/'in' are not supported on tiles")
            return self.compare(names[op], a, b, node)
        pyops = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
                 ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not,
                 ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y}
        try:
            return pyops[op](a, b)
        except TypeError as e:
            raise self.error(node, str(e)) from None

    def e_IfExp(self, node: ast.IfExp):
        cond = self.cond_value(node.test)
        if not isinstance(cond, Tile):
            return self.expr(node.body if cond else node.orelse)
        return self.where(cond, self.expr(node.body), self.expr(node.orelse), node)

    def e_Lambda(self, node: ast.Lambda):
        return _KernelLambda(node, self.frame)

    def e_GeneratorExp(self, node):
        return self.comprehension(node)

    e_ListComp = e_GeneratorExp

    def comprehension(self, node):
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise self.error(node, "only single 'for' comprehensions are supported", E.TileSyntaxError)
        gen = node.generators[0]
        seq = self.expr(gen.iter)
        if seq is range:
            raise self.error(gen.iter, "comprehension over range() needs constant bounds")
        try:
            items = list(seq)
        except TypeError:
            raise self.error(gen.iter, f"{self.describe(seq)} is not iterable at compile time") from None
        saved = dict(self.frame.env)
        out = []
        try:
            for item in items:
                self.assign(gen.target, item)
                if all(self.cond_static(c) for c in gen.ifs):
                    out.append(self.expr(node.elt))
        finally:
            self.frame.env = saved
        return tuple(out)

    def cond_static(self, node):
        c = self.expr(node)
        if isinstance(c, Tile):
            raise self.error(node, "comprehension conditions must be compile-time values")
        return bool(c)

    def e_NamedExpr(self, node: ast.NamedExpr):
        v = self.expr(node.value)
        self.assign(node.target, v)
        return v

    def e_Starred(self, node):
        raise self.error(node, "'*' is only supported in tuples and calls", E.TileSyntaxError)

    # -- calls -------------------------------------------------------------------------
    def e_Call(self, node: ast.Call):
        fn = self.expr(node.func)
        if fn is _api.static_eval:
            return self.static_eval(node)
        if fn is _api.static_assert:
            return self.static_assert(node)
        args: List[Any] = []
        is_print = fn is _api.print or fn is builtins.print
        for a in node.args:
            if is_print and isinstance(a, ast.JoinedStr):
                args.append(FString(a))
            elif isinstance(a, ast.Starred):
                v = self.expr(a.value)
                if not isinstance(v, (tuple, list)):
                    raise self.error(a, f"cannot unpack {self.describe(v)} with '*'")
                args.extend(v)
            else:
                args.append(self.expr(a))
        kwargs: Dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                v = self.expr(kw.value)
                if not isinstance(v, dict):
                    raise self.error(kw, "'**' needs a compile-time dict")
                kwargs.update(v)
            else:
                kwargs[kw.arg] = self.expr(kw.value)
        self.cur_node = node
        return self.call(node, fn, args, kwargs)

    def call(self, node, fn, args, kwargs):
        name = _OP_BY_ID.get(id(fn))
        if name is not None:
            return self.call_op(node, name, _api.OPS[name] if name != "cdiv" else _api.KERNEL_CDIV, args, kwargs)
        if isinstance(fn, BoundMember):
            return self.call_member(node, fn, args, kwargs)
        if isinstance(fn, _api.DType):
            if len(args) != 1 or kwargs:
                raise self.error(node, f"{fn.name}() takes exactly one value")
            return self.typed_constant(args[0], fn, node)
        if isinstance(fn, _KernelLambda):
            return self.inline_lambda(node, fn, args, kwargs)
        if fn in _BUILTIN_MAP and any(isinstance(a, Tile) for a in args):
            return self.call_op(node, _BUILTIN_MAP[fn], _api.OPS[_BUILTIN_MAP[fn]], args, kwargs)
        if fn is builtins.print:
            return self.call_op(node, "print", _api.OPS["print"], args, kwargs)
        if fn in _OPERATOR_MAP:
            opname = _OPERATOR_MAP[fn]
            if any(isinstance(a, Tile) for a in args):
                return self.call_op(node, opname, _api.OPS[opname], args, kwargs)
        if fn is builtins.len:
            if len(args) == 1 and isinstance(args[0], Tile):
                if not args[0].shape:
                    raise self.error(node, "len() of a 0-d tile")
                return args[0].shape[0]
            if len(args) == 1 and isinstance(args[0], Array):
                return args[0].shape[0]
            if len(args) == 1 and isinstance(args[0], ArrayList):
                return args[0].length
        if fn is builtins.range:
            if any(isinstance(a, Tile) for a in args):
                raise self.error(node, "range() with run-time bounds is only supported as a for-loop iterable")
            return range(*args)
        from .._compile import Kernel
        if isinstance(fn, Kernel):
            raise self.error(node, f"kernel '{fn.name}' cannot be called from a kernel; call a plain helper function")
        if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
            return self.inline(node, fn.__func__, (fn.__self__,) + tuple(args), kwargs)
        if isinstance(fn, types.FunctionType) and not _is_library(fn):
            return self.inline(node, fn, tuple(args), kwargs)
        if any(isinstance(a, (Tile, Array, TiledView)) for a in list(args) + list(kwargs.values())):
            if isinstance(fn, type) and dataclasses.is_dataclass(fn):
                return fn(*args, **kwargs)
            if isinstance(fn, type) and fn in (tuple, list):
                return tuple(*args)
            if fn is _api.Slice or fn is isinstance or fn is type or fn is getattr or fn is hasattr:
                return fn(*args, **kwargs)
            raise self.error(node, f"'{getattr(fn, '__name__', fn)}' cannot take run-time tile values")
        try:
            out = fn(*args, **kwargs)
        except FrontendError:
            raise
        except Exception as e:
            raise self.error(node, f"calling '{getattr(fn, '__name__', fn)}' at compile time raised "
                             f"{type(e).__name__}: {e}", E.TileValueError) from None
        if isinstance(out, list):
            out = tuple(out)
        return out

    def bind(self, node, name: str, stub, args, kwargs) -> Dict[str, Any]:
        sig = stub.__signature__
        try:
            ba = sig.bind(*args, **kwargs)
        except TypeError as e:
            msg = str(e)
            params = list(sig.parameters)
            for kw in kwargs:
                if kw not in params:
                    kwnode = next((k.value for k in node.keywords if k.arg == kw), node)
                    raise self.error(kwnode, f"{name}() got an unexpected keyword argument '{kw}'; expected one of: "
                                     f"{', '.join(p for p in params if sig.parameters[p].kind != inspect.Parameter.VAR_POSITIONAL)}")
            raise self.error(node, f"{name}(): {msg}") from None
        ba.apply_defaults()
        return ba.arguments

    def arg_node(self, node, stub, pname: str):
        """The AST node of argument ``pname`` of call ``node`` (for error carets)."""
        if not isinstance(node, ast.Call):
            return node
        for kw in node.keywords:
            if kw.arg == pname:
                return kw.value
        params = [p for p in stub.__signature__.parameters.values()
                  if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        offset = 0
        if isinstance(node.func, ast.Attribute) and getattr(self, "_member_call", False):
            offset = 1
        for i, p in enumerate(params):
            if p.name == pname and 0 <= i - offset < len(node.args):
                return node.args[i - offset]
        return node

    def call_op(self, node, name: str, stub, args, kwargs):
        a = self.bind(node, name, stub, args, kwargs)
        impl = getattr(self, "op_" + name)
        self._stub = stub
        return impl(node, **a)

    def call_member(self, node, m: BoundMember, args, kwargs):
        obj, name = m.obj, m.name
        self._member_call = True
        try:
            if isinstance(obj, Tile):
                if name == "item":
                    if args or kwargs:
                        raise self.error(node, "item() takes no arguments")
                    if obj.size != 1:
                        raise self.error(node, f"item() needs a tile with one element, got shape {obj.shape}",
                                         E.TileValueError)
                    return self.reshape_tile(obj, (), node)
                if name == "reshape" and args and all(isinstance(x, int) for x in args) and len(args) > 1:
                    args = [tuple(args)]
                if name == "permute" and args and all(isinstance(x, int) for x in args) and len(args) > 1:
                    args = [tuple(args)]
                return self.call_op(node, name, _api.OPS[name], [obj] + list(args), kwargs)
            if isinstance(obj, Array):
                return getattr(self, "array_" + name)(node, obj, *args, **kwargs)
            if isinstance(obj, RawMemory):
                stub = _api.RAW_MEMORY_METHODS[name]
                a = self.bind(node, name, stub, [obj] + list(args), kwargs)
                del a["self"]
                self._stub = stub
                return getattr(self, "raw_" + name)(node, obj, **a)
            if isinstance(obj, TiledView):
                if name.startswith("atomic_store_"):
                    return self.view_atomic(node, obj, name[len("atomic_store_"):], *args, **kwargs)
                return getattr(self, "view_" + name)(node, obj, *args, **kwargs)
        except TypeError as e:
            raise self.error(node, f"{name}(): {e}") from None
        finally:
            self._member_call = False
        raise self.error(node, f"unknown method '{name}'")

    _member_call = False

    def inline(self, node, fn: types.FunctionType, args, kwargs):
        if self.frame.depth > 64:
            raise self.error(node, f"helper '{fn.__name__}' nests too deeply (recursion is not supported)",
                             E.TileRecursionError)
        try:
            sig = inspect.signature(fn)
            ba = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(node, f"{fn.__name__}(): {e}") from None
        ba.apply_defaults()
        src = _Source.of(fn)
        if not isinstance(src.fdef, (ast.FunctionDef, ast.Lambda)):
            raise self.error(node, f"cannot inline '{fn.__name__}'")
        frame = Frame(fn, src, self.frame.depth + 1)
        for k, v in ba.arguments.items():
            p = sig.parameters[k]
            frame.env[k] = tuple(v) if p.kind == inspect.Parameter.VAR_POSITIONAL else v
        saved, saved_base, saved_node = self.frame, self.frame_if_base, self.cur_node
        self.frame, self.frame_if_base = frame, self.if_depth
        try:
            if isinstance(src.fdef, ast.Lambda):
                return self.expr(src.fdef.body)
            saved_loops, saved_rest, saved_unrolled = self.loops, self.rest, self.unrolled
            self.loops, self.rest, self.unrolled = [], [], 0
            try:
                self.stmts(src.fdef.body)
            finally:
                self.loops, self.rest, self.unrolled = saved_loops, saved_rest, saved_unrolled
            return frame.retval
        finally:
            self.frame, self.frame_if_base, self.cur_node = saved, saved_base, saved_node

    def inline_lambda(self, node, lam: "_KernelLambda", args, kwargs):
        a = lam.node.args
        names = [x.arg for x in a.posonlyargs + a.args]
        if kwargs or len(args) != len(names):
            raise self.error(node, f"lambda takes {len(names)} argument(s), got {len(args) + len(kwargs)}")
        saved_env = lam.frame.env
        env = dict(saved_env)
        env.update(zip(names, args))
        frame = Frame.__new__(Frame)
        frame.fn, frame.src, frame.env = lam.frame.fn, lam.frame.src, env
        frame.closure, frame.globals, frame.retval, frame.depth = lam.frame.closure, lam.frame.globals, None, lam.frame.depth
        saved = self.frame
        self.frame = frame
        try:
            return self.expr(lam.node.body)
        finally:
            self.frame = saved

    def call_function(self, node, fn, args):
        """Calls a combiner (lambda, helper, operator.add or a ct op) on tile arguments."""
        if isinstance(fn, _KernelLambda):
            return self.inline_lambda(node, fn, list(args), {})
        return self.call(node, fn, list(args), {})

    # -- metaprogramming -----------------------------------------------------------------
    def static_eval(self, node: ast.Call):
        if len(node.args) != 1 or node.keywords:
            raise self.error(node, "static_eval() takes exactly one expression")
        expr = node.args[0]
        env = dict(self.frame.globals)
        env.update(self.frame.closure)
        env.update({k: v for k, v in self.frame.env.items() if not isinstance(v, Undefined)})
        code = compile(ast.Expression(body=expr), self.frame.src.file, "eval")
        try:
            out = eval(code, env)  # noqa: S307 - the user's own compile-time expression
        except FrontendError:
            raise
        except Exception as e:
            raise self.error(expr, f"static_eval raised {type(e).__name__}: {e}", E.TileStaticEvalError) from None
        return tuple(out) if isinstance(out, list) else out

    def static_assert(self, node: ast.Call):
        if not 1 <= len(node.args) <= 2 or node.keywords:
            raise self.error(node, "static_assert(cond, msg=None) takes one or two positional arguments")
        cond = self.expr(node.args[0])
        if isinstance(cond, Tile):
            raise self.error(node.args[0], "static_assert needs a compile-time condition", E.TileStaticAssertionError)
        if not cond:
            msg = self.expr(node.args[1]) if len(node.args) > 1 else None
            text = f"static assertion failed: {msg}" if msg else f"static assertion failed: {ast.unparse(node.args[0])}"
            raise self.error(node, text, E.TileStaticAssertionError)
        return None

    def describe(self, v: Any) -> str:
        if isinstance(v, Tile):
            return v.type_text()
        if isinstance(v, Array):
            return f"array of {v.dtype.name} (ndim {v.ndim})"
        if isinstance(v, RawMemory):
            return f"raw memory of an array of {v.dtype.name}"
        if isinstance(v, ArrayList):
            return f"list of arrays of {v.dtype.name} (ndim {v.ndim})"
        if isinstance(v, bool):
            return f"bool {v}"
        if isinstance(v, (int, float)):
            return f"{type(v).__name__} {v!r}"
        if isinstance(v, tuple):
            return "tuple (" + ", ".join(self.describe(x) for x in v) + ")"
        return type(v).__name__


class _NotRuntime(Exception):
    """Values that are compile-time only (functions, arrays…) cannot be merged at run time."""


class _KernelLambda:
    """A lambda written in the kernel: inlined where called."""

    def __init__(self, node: ast.Lambda, frame: Frame):
        self.node = node
        self.frame = frame


_MISSING = object()

_TILE_METHODS = {"item", "extract", "insert", "reshape", "permute", "transpose", "astype", "bitcast", "broadcast_to",
                 "expand_dims", "sum", "prod", "max", "min", "argmax", "argmin", "cumsum", "cumprod"}

_OP_BY_ID = {id(f): n for n, f in _api.OPS.items()}
_OP_BY_ID[id(_api.KERNEL_CDIV)] = "cdiv"

_BUILTIN_MAP = {builtins.min: "minimum", builtins.max: "maximum", builtins.abs: "abs", builtins.pow: "pow",
                builtins.divmod: "divmod"}

_OPERATOR_MAP = {operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "truediv",
                 operator.floordiv: "floordiv", operator.mod: "mod", operator.pow: "pow", operator.and_: "bitwise_and",
                 operator.or_: "bitwise_or", operator.xor: "bitwise_xor", operator.lshift: "bitwise_lshift",
                 operator.rshift: "bitwise_rshift", operator.neg: "negative", operator.invert: "bitwise_not",
                 operator.lt: "less", operator.le: "less_equal", operator.gt: "greater", operator.ge: "greater_equal",
                 operator.eq: "equal", operator.ne: "not_equal", operator.matmul: "matmul", operator.abs: "abs"}


def _has_tile(v) -> bool:
    return isinstance(v, Tile) or (isinstance(v, tuple) and any(_has_tile(x) for x in v))


def _is_num(v) -> bool:
    return isinstance(v, (bool, int, float))


def _default_dtype(vals) -> _api.DType:
    if any(isinstance(v, float) for v in vals):
        return _api.float32
    if all(isinstance(v, bool) for v in vals):
        return _api.bool_
    return _api.int32


def _tile_text(shape, dtype) -> str:
    return "tile<" + "".join(f"{d}x" for d in shape) + dtype.ir + ">"


def _is_runtime_candidate(v) -> bool:
    if isinstance(v, Tile) or _is_num(v):
        return True
    if isinstance(v, tuple):
        return all(_is_runtime_candidate(x) for x in v) and any(isinstance(x, (Tile, tuple)) for x in v)
    return False


def _is_library(fn) -> bool:
    mod = getattr(fn, "__module__", "") or ""
    return mod.split(".")[0] in ("math", "operator", "functools", "itertools", "numpy", "builtins", "typing",
                                 "dataclasses", "enum")


def _walk_no_nested(body):
    stack = list(body)
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if isinstance(c, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            stack.append(c)


def _assigned_names(body) -> List[str]:
    out: List[str] = []
    for n in _walk_no_nested(body):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in out:
            out.append(n.id)
    return out


def _names_in(expr) -> List[str]:
    return [n.id for n in ast.walk(expr) if isinstance(n, ast.Name)]


def _loop_exits(body, kinds):
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        for c in ast.iter_child_nodes(n):
            if isinstance(c, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
                continue
            stack.append(c)
    return False


class _LoopFacts:
    """What the translation asks of a loop's body, computed once per AST node (the parsed
    source is cached, and walking the body again on every compile shows in a warm compile)."""

    __slots__ = ("assigned", "has_return", "has_break", "has_loop_exit")

    def __init__(self, body):
        self.assigned = _assigned_names(body)
        self.has_return = _has_return(body)
        self.has_break = _has_break(body)
        self.has_loop_exit = _has_loop_exit(body)


def _has_return(body) -> bool:
    """A `return` anywhere in ``body``, nested loops included (not in nested functions)."""
    return any(isinstance(n, ast.Return) for n in _walk_no_nested(body))


_RETURNED = "$returned"  # the flag a loop carries when its body returns
_RETVAL = "$retval"  # the value a helper's loop carries when its body returns one


def _has_break(body) -> bool:
    return _loop_exits(body, (ast.Break,))


def _has_loop_exit(body) -> bool:
    return _loop_exits(body, (ast.Break, ast.Continue))


def translate(fn: Any, spec: Specialization, name: Optional[str] = None, hints: Optional[Dict[str, Any]] = None):
    """Builds the cuda_tile module of kernel function ``fn`` specialized as ``spec``."""
    return Translator(fn, spec, name or fn.__name__, hints).run()
