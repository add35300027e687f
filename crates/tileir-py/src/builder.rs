//! `ModuleBuilder`: how the Python front end builds cuda_tile straight into the arena
//! (no text round trip). Values, types and locations cross the boundary as integers.

use crate::errors::builder_error;
use crate::{guard, PyModuleIr};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyTuple};
use tileir_ir::entity::EntityId;
use tileir_ir::module::ValueData;
use tileir_ir::{
    Attr, BlockId, CtOp, CudaTileOp, DenseElements, LocId, Module, NumType, OpId, OpKind, Type,
    TypeId, ValueDef, ValueId,
};

/// Builds a module op by op.
#[pyclass(name = "ModuleBuilder", module = "tileir._native")]
pub struct PyModuleBuilder {
    module: Option<Module>,
    /// Insertion blocks, innermost last.
    blocks: Vec<BlockId>,
}

impl PyModuleBuilder {
    fn m(&mut self, py: Python<'_>) -> PyResult<&mut Module> {
        self.module
            .as_mut()
            .ok_or_else(|| builder_error(py, "the builder was already finished".into()))
    }
    fn ty(&mut self, py: Python<'_>, id: u32) -> PyResult<TypeId> {
        let m = self.m(py)?;
        let t = TypeId::new(id as usize);
        if m.types.try_get(t).is_none() {
            return Err(builder_error(py, format!("invalid type handle {id}")));
        }
        Ok(t)
    }
    fn value(&mut self, py: Python<'_>, id: u32) -> PyResult<ValueId> {
        let m = self.m(py)?;
        let v = ValueId::new(id as usize);
        if !m.values.contains(v) {
            return Err(builder_error(py, format!("invalid value handle {id}")));
        }
        Ok(v)
    }
    fn op_id(&mut self, py: Python<'_>, id: u32) -> PyResult<OpId> {
        let m = self.m(py)?;
        let op = OpId::new(id as usize);
        if !m.ops.contains(op) {
            return Err(builder_error(py, format!("invalid op handle {id}")));
        }
        Ok(op)
    }
    fn create(
        &mut self,
        py: Python<'_>,
        name: &str,
        operands: Vec<u32>,
        result_types: Vec<u32>,
        attrs: Option<&Bound<'_, PyDict>>,
        loc: u32,
    ) -> PyResult<OpId> {
        let operands: Vec<ValueId> = operands
            .iter()
            .map(|&v| self.value(py, v))
            .collect::<PyResult<_>>()?;
        let tys: Vec<TypeId> = result_types
            .iter()
            .map(|&t| self.ty(py, t))
            .collect::<PyResult<_>>()?;
        let block = self.current(py)?;
        let m = self.m(py)?;
        let mut named = Vec::new();
        if let Some(attrs) = attrs {
            for (k, v) in attrs.iter() {
                if v.is_none() {
                    continue;
                }
                named.push((k.extract::<String>()?, to_attr(py, m, &v)?));
            }
        }
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let kind = guard(
            py,
            || format!("// building op {name}"),
            || Ok(OpKind::from_generic(name, &named)),
        )?
        .map_err(|errs| builder_error(py, errs.join("\n")))?;
        let op = m.create_op(kind, operands, &tys, LocId::new(loc as usize));
        m.append_op(block, op);
        Ok(op)
    }
    fn current(&self, py: Python<'_>) -> PyResult<BlockId> {
        self.blocks
            .last()
            .copied()
            .ok_or_else(|| builder_error(py, "no open region to add ops to".into()))
    }
}

/// Converts a Python attribute value. Plain values: bool, int, str (enum keywords,
/// strings, assume predicates), list of ints, dict (optimization hints: nested dicts).
/// Tagged tuples carry what plain Python values cannot say: `("unit",)`, `("text", s)`
/// (generic MLIR attribute syntax), `("dense", elem, shape, bits)` (bits: one per element,
/// or one for a splat), `("scalars", [(elem, bits), ...])` (reduce/scan identities).
fn to_attr(py: Python<'_>, m: &mut Module, value: &Bound<'_, PyAny>) -> PyResult<Attr> {
    if value.is_instance_of::<PyBool>() {
        return Ok(Attr::Bool(value.extract()?));
    }
    if let Ok(i) = value.extract::<i64>() {
        return Ok(Attr::Int(i));
    }
    if let Ok(s) = value.extract::<String>() {
        return Ok(Attr::Str(s));
    }
    if let Ok(list) = value.cast::<PyList>() {
        let v: Vec<i64> = list.extract()?;
        return Ok(Attr::IntArray(v));
    }
    if let Ok(d) = value.cast::<PyDict>() {
        let mut items = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            items.push((k.extract::<String>()?, to_attr(py, m, &v)?));
        }
        return Ok(Attr::Dict(items));
    }
    if let Ok(t) = value.cast::<PyTuple>() {
        let tag: String = t.get_item(0)?.extract()?;
        let elem = |text: String| -> PyResult<NumType> {
            NumType::from_keyword(&text)
                .ok_or_else(|| builder_error(py, format!("unknown element type '{text}'")))
        };
        match (tag.as_str(), t.len()) {
            ("unit", 1) => return Ok(Attr::Unit),
            ("text", 2) => {
                let text: String = t.get_item(1)?.extract()?;
                return tileir_syntax::parse_attribute(&text, m).map_err(|d| {
                    builder_error(py, format!("invalid attribute '{text}': {}", d.message))
                });
            }
            ("dense", 4) => {
                let elem = elem(t.get_item(1)?.extract()?)?;
                let shape: Vec<i64> = t.get_item(2)?.extract()?;
                let bits: Vec<u64> = t.get_item(3)?.extract()?;
                let n: i64 = shape.iter().product();
                if bits.len() != 1 && bits.len() as i64 != n {
                    return Err(builder_error(
                        py,
                        format!("dense attribute has {} values for {n} elements", bits.len()),
                    ));
                }
                return Ok(Attr::Dense(DenseElements { elem, shape, bits }));
            }
            ("scalars", 2) => {
                let items: Vec<(String, u64)> = t.get_item(1)?.extract()?;
                let mut out = Vec::with_capacity(items.len());
                for (e, bits) in items {
                    out.push(Attr::Scalar(elem(e)?, bits));
                }
                return Ok(Attr::Array(out));
            }
            _ => {}
        }
    }
    Err(builder_error(
        py,
        format!("unsupported attribute value {}", value.repr()?),
    ))
}

#[pymethods]
impl PyModuleBuilder {
    #[new]
    fn new() -> Self {
        let module = Module::new();
        let body = module.body;
        PyModuleBuilder {
            module: Some(module),
            blocks: vec![body],
        }
    }

    /// Interns a type given as text (`tile<128xf32>`); returns its handle.
    fn type_(&mut self, py: Python<'_>, text: &str) -> PyResult<u32> {
        let m = self.m(py)?;
        tileir_ir::parse_type::parse_type(text, &mut m.types)
            .map(|t| t.index() as u32)
            .map_err(|e| builder_error(py, format!("invalid type '{text}': {e}")))
    }

    /// Text of a type handle.
    fn type_text(&mut self, py: Python<'_>, ty: u32) -> PyResult<String> {
        let t = self.ty(py, ty)?;
        Ok(self.m(py)?.types.display(t, true))
    }

    /// Interns `file:line:col`; returns its handle.
    fn loc(&mut self, py: Python<'_>, file: &str, line: u32, col: u32) -> PyResult<u32> {
        Ok(self.m(py)?.locs.file_line_col(file, line, col).index() as u32)
    }

    /// Opens `cuda_tile.module @name`; later ops go inside it.
    fn begin_module(&mut self, py: Python<'_>, name: String, loc: u32) -> PyResult<()> {
        let block = self.current(py)?;
        let m = self.m(py)?;
        let op = m.create_op(
            OpKind::CudaTile(CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str(name))),
            vec![],
            &[],
            LocId::new(loc as usize),
        );
        m.append_op(block, op);
        let region = m.ops[op].regions[0];
        let inner = m.add_block(region, &[]);
        self.blocks.push(inner);
        Ok(())
    }

    /// Opens `entry @name(args)`; returns the argument value handles. `attrs` adds
    /// attributes such as `optimization_hints` (a dict of per-target dicts).
    #[pyo3(signature = (name, arg_types, arg_names, loc, attrs = None))]
    fn begin_entry(
        &mut self,
        py: Python<'_>,
        name: String,
        arg_types: Vec<u32>,
        arg_names: Vec<String>,
        loc: u32,
        attrs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Vec<u32>> {
        let tys: Vec<TypeId> = arg_types
            .iter()
            .map(|&t| self.ty(py, t))
            .collect::<PyResult<_>>()?;
        let block = self.current(py)?;
        let m = self.m(py)?;
        let fty = m.types.intern(Type::Function {
            inputs: tys.clone(),
            results: vec![],
        });
        let mut op_kind = CudaTileOp::new(CtOp::Entry)
            .with("sym_name", Attr::Str(name))
            .with("function_type", Attr::Type(fty));
        if let Some(attrs) = attrs {
            for (k, v) in attrs.iter() {
                if v.is_none() {
                    continue;
                }
                let key: String = k.extract()?;
                let value = to_attr(py, m, &v)?;
                op_kind = op_kind.with(&key, value);
            }
        }
        let op = m.create_op(
            OpKind::CudaTile(op_kind),
            vec![],
            &[],
            LocId::new(loc as usize),
        );
        m.append_op(block, op);
        let region = m.ops[op].regions[0];
        let inner = m.add_block(region, &tys);
        let args = m.blocks[inner].args.clone();
        for (a, n) in args.iter().zip(arg_names.iter()) {
            m.set_name(*a, n);
        }
        self.blocks.push(inner);
        Ok(args.iter().map(|a| a.index() as u32).collect())
    }

    /// Closes the innermost open region.
    fn end_region(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.blocks.len() <= 1 {
            return Err(builder_error(
                py,
                "end_region without an open region".into(),
            ));
        }
        self.blocks.pop();
        Ok(())
    }

    /// Appends op `name` (`cuda_tile.addf` or `addf`); returns the result handles.
    #[pyo3(signature = (name, operands, result_types, attrs = None, loc = 0))]
    fn op(
        &mut self,
        py: Python<'_>,
        name: &str,
        operands: Vec<u32>,
        result_types: Vec<u32>,
        attrs: Option<&Bound<'_, PyDict>>,
        loc: u32,
    ) -> PyResult<Vec<u32>> {
        let op = self.create(py, name, operands, result_types, attrs, loc)?;
        let m = self.m(py)?;
        Ok(m.ops[op].results.iter().map(|r| r.index() as u32).collect())
    }

    /// Appends op `name` like [`op`] and returns `(op handle, result handles)`: for ops
    /// with regions (`if`, `for`, `loop`, `reduce`, `scan`), whose blocks are then opened
    /// with `begin_block` and whose results may be added later with `add_results`.
    #[pyo3(signature = (name, operands, result_types, attrs = None, loc = 0))]
    fn begin_op(
        &mut self,
        py: Python<'_>,
        name: &str,
        operands: Vec<u32>,
        result_types: Vec<u32>,
        attrs: Option<&Bound<'_, PyDict>>,
        loc: u32,
    ) -> PyResult<(u32, Vec<u32>)> {
        let op = self.create(py, name, operands, result_types, attrs, loc)?;
        let m = self.m(py)?;
        Ok((
            op.index() as u32,
            m.ops[op].results.iter().map(|r| r.index() as u32).collect(),
        ))
    }

    /// Adds a block with arguments of `arg_types` to region `region` of `op` and makes it
    /// the insertion block (closed with `end_region`); returns the argument handles.
    fn begin_block(
        &mut self,
        py: Python<'_>,
        op: u32,
        region: usize,
        arg_types: Vec<u32>,
    ) -> PyResult<Vec<u32>> {
        let tys: Vec<TypeId> = arg_types
            .iter()
            .map(|&t| self.ty(py, t))
            .collect::<PyResult<_>>()?;
        let op = self.op_id(py, op)?;
        let m = self.m(py)?;
        let Some(&r) = m.ops[op].regions.get(region) else {
            return Err(builder_error(
                py,
                format!(
                    "op has {} region(s), no region {region}",
                    m.ops[op].regions.len()
                ),
            ));
        };
        let block = m.add_block(r, &tys);
        let args = m.blocks[block]
            .args
            .iter()
            .map(|a| a.index() as u32)
            .collect();
        self.blocks.push(block);
        Ok(args)
    }

    /// Makes the last block of region `region` of `op` the insertion block again (to add
    /// a branch's terminator once the other branch is known); closed with `end_region`.
    fn enter_block(&mut self, py: Python<'_>, op: u32, region: usize) -> PyResult<()> {
        let op = self.op_id(py, op)?;
        let m = self.m(py)?;
        let block = m.ops[op]
            .regions
            .get(region)
            .and_then(|&r| m.regions[r].blocks.last().copied());
        let Some(block) = block else {
            return Err(builder_error(
                py,
                format!("region {region} of the op has no block to enter"),
            ));
        };
        self.blocks.push(block);
        Ok(())
    }

    /// Appends results of `result_types` to `op` (an `if` learns its result types only
    /// after its branches are built); returns their handles.
    fn add_results(
        &mut self,
        py: Python<'_>,
        op: u32,
        result_types: Vec<u32>,
    ) -> PyResult<Vec<u32>> {
        let tys: Vec<TypeId> = result_types
            .iter()
            .map(|&t| self.ty(py, t))
            .collect::<PyResult<_>>()?;
        let op = self.op_id(py, op)?;
        let m = self.m(py)?;
        let mut out = Vec::with_capacity(tys.len());
        for ty in tys {
            let index = m.ops[op].results.len() as u32;
            let v = m.values.push(ValueData {
                ty,
                def: ValueDef::OpResult { op, index },
                name: None,
            });
            m.ops[op].results.push(v);
            out.push(v.index() as u32);
        }
        Ok(out)
    }

    /// Removes `op` from its block (an op built speculatively and not needed).
    fn erase_op(&mut self, py: Python<'_>, op: u32) -> PyResult<()> {
        let op = self.op_id(py, op)?;
        self.m(py)?.detach_op(op);
        Ok(())
    }

    /// Gives a value a printing name.
    fn set_name(&mut self, py: Python<'_>, value: u32, name: &str) -> PyResult<()> {
        let v = self.value(py, value)?;
        self.m(py)?.set_name(v, name);
        Ok(())
    }

    /// Type handle of a value.
    fn value_type(&mut self, py: Python<'_>, value: u32) -> PyResult<u32> {
        let v = self.value(py, value)?;
        Ok(self.m(py)?.value_type(v).index() as u32)
    }

    /// Threads the memory-ordering tokens of every entry (the `token-order` pass), with
    /// `aliasing[i] = (set, loaded, may_alias_internally)` describing entry argument `i`:
    /// the alias-set bits of the memory it addresses, of the memory that pointers loaded
    /// from it address (a list's arrays), and whether one array's elements may overlap.
    fn order_tokens(&mut self, py: Python<'_>, aliasing: Vec<(u64, u64, bool)>) -> PyResult<()> {
        let aliasing: Vec<tileir_transforms::token_order::ArgAliasing> = aliasing
            .into_iter()
            .map(|(set, loaded, may_alias_internally)| tileir_transforms::token_order::ArgAliasing {
                set,
                loaded,
                may_alias_internally,
            })
            .collect();
        self.m(py)?;
        // The module leaves the builder while the pass runs, so that a crash report can still
        // print it (a panic releases the mutable borrow as it unwinds).
        let cell = std::cell::RefCell::new(self.module.take().expect("checked above"));
        let result = guard(py, || crate::reproducer_of(&cell.borrow(), "token-order"), || {
            tileir_transforms::token_order::order_tokens(&mut cell.borrow_mut(), &aliasing);
            Ok(())
        });
        self.module = Some(cell.into_inner());
        result
    }

    /// Finishes and returns the module (the builder is then empty).
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyModuleIr> {
        let m = self
            .module
            .take()
            .ok_or_else(|| builder_error(py, "the builder was already finished".into()))?;
        Ok(PyModuleIr { inner: m })
    }
}
