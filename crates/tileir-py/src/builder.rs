//! `ModuleBuilder`: how the Python front end builds cuda_tile straight into the arena
//! (no text round trip). Values, types and locations cross the boundary as integers.

use crate::errors::builder_error;
use crate::{guard, PyModuleIr};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};
use tileir_ir::entity::EntityId;
use tileir_ir::{Attr, BlockId, CtOp, CudaTileOp, LocId, Module, OpKind, Type, TypeId, ValueId};

/// Builds a module op by op.
#[pyclass(name = "ModuleBuilder", module = "tileir._native")]
pub struct PyModuleBuilder {
    module: Option<Module>,
    /// Insertion blocks, innermost last.
    blocks: Vec<BlockId>,
}

impl PyModuleBuilder {
    fn m(&mut self, py: Python<'_>) -> PyResult<&mut Module> {
        self.module.as_mut().ok_or_else(|| builder_error(py, "the builder was already finished".into()))
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
    fn current(&self, py: Python<'_>) -> PyResult<BlockId> {
        self.blocks.last().copied().ok_or_else(|| builder_error(py, "no open region to add ops to".into()))
    }
}

fn to_attr(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Attr> {
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
    Err(builder_error(py, format!("unsupported attribute value {}", value.repr()?)))
}

#[pymethods]
impl PyModuleBuilder {
    #[new]
    fn new() -> Self {
        let module = Module::new();
        let body = module.body;
        PyModuleBuilder { module: Some(module), blocks: vec![body] }
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
        let op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str(name))), vec![], &[], LocId::new(loc as usize));
        m.append_op(block, op);
        let region = m.ops[op].regions[0];
        let inner = m.add_block(region, &[]);
        self.blocks.push(inner);
        Ok(())
    }

    /// Opens `entry @name(args)`; returns the argument value handles.
    fn begin_entry(&mut self, py: Python<'_>, name: String, arg_types: Vec<u32>, arg_names: Vec<String>, loc: u32) -> PyResult<Vec<u32>> {
        let tys: Vec<TypeId> = arg_types.iter().map(|&t| self.ty(py, t)).collect::<PyResult<_>>()?;
        let block = self.current(py)?;
        let m = self.m(py)?;
        let fty = m.types.intern(Type::Function { inputs: tys.clone(), results: vec![] });
        let op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Entry).with("sym_name", Attr::Str(name)).with("function_type", Attr::Type(fty))), vec![], &[], LocId::new(loc as usize));
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
            return Err(builder_error(py, "end_region without an open region".into()));
        }
        self.blocks.pop();
        Ok(())
    }

    /// Appends op `name` (`cuda_tile.addf` or `addf`); returns the result handles.
    #[pyo3(signature = (name, operands, result_types, attrs = None, loc = 0))]
    fn op(&mut self, py: Python<'_>, name: &str, operands: Vec<u32>, result_types: Vec<u32>, attrs: Option<&Bound<'_, PyDict>>, loc: u32) -> PyResult<Vec<u32>> {
        let operands: Vec<ValueId> = operands.iter().map(|&v| self.value(py, v)).collect::<PyResult<_>>()?;
        let tys: Vec<TypeId> = result_types.iter().map(|&t| self.ty(py, t)).collect::<PyResult<_>>()?;
        let block = self.current(py)?;
        let m = self.m(py)?;
        let mut named = Vec::new();
        if let Some(attrs) = attrs {
            for (k, v) in attrs.iter() {
                if v.is_none() {
                    continue;
                }
                named.push((k.extract::<String>()?, to_attr(py, &v)?));
            }
        }
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let kind = guard(py, || format!("// building op {name}"), || Ok(OpKind::from_generic(name, &named)))?
            .map_err(|errs| builder_error(py, errs.join("\n")))?;
        let op = m.create_op(kind, operands, &tys, LocId::new(loc as usize));
        m.append_op(block, op);
        Ok(m.ops[op].results.iter().map(|r| r.index() as u32).collect())
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

    /// Finishes and returns the module (the builder is then empty).
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyModuleIr> {
        let m = self.module.take().ok_or_else(|| builder_error(py, "the builder was already finished".into()))?;
        Ok(PyModuleIr { inner: m })
    }
}
