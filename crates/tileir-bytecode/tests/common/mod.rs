//! Shared helpers: building modules with the IR API, and a canonical structural dump
//! used to compare a module with its bytecode round trip.

#![allow(dead_code)]

pub mod kernels;

use std::collections::HashMap;
use std::fmt::Write;
use tileir_ir::*;

/// A module under construction: `cuda_tile.module @kernels` with a body block.
pub struct Build {
    pub m: Module,
    pub body: BlockId,
    pub loc: LocId,
}

impl Build {
    pub fn new() -> Build {
        let mut m = Module::new();
        let loc = m.locs.unknown();
        let module = CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("kernels".into()));
        let mop = m.create_op(OpKind::CudaTile(module), vec![], &[], loc);
        let top = m.body;
        m.append_op(top, mop);
        let region = m.ops[mop].regions[0];
        let body = m.add_block(region, &[]);
        Build { m, body, loc }
    }

    pub fn module_op(&self) -> OpId {
        self.m.blocks[self.m.body].ops[0]
    }

    pub fn ty(&mut self, t: Type) -> TypeId {
        self.m.types.intern(t)
    }
    pub fn tile(&mut self, shape: &[i64], n: NumType) -> TypeId {
        self.m.types.tile(shape, TileElem::Num(n))
    }
    pub fn ptr_tile(&mut self, shape: &[i64], n: NumType) -> TypeId {
        self.m.types.tile(shape, TileElem::Ptr(n))
    }

    /// Adds `entry @name(args)`; returns its body block and arguments.
    pub fn entry(
        &mut self,
        name: &str,
        args: &[TypeId],
        hints: Option<Attr>,
    ) -> (BlockId, Vec<ValueId>) {
        let fty = self.m.types.intern(Type::Function {
            inputs: args.to_vec(),
            results: vec![],
        });
        let mut e = CudaTileOp::new(CtOp::Entry)
            .with("sym_name", Attr::Str(name.into()))
            .with("function_type", Attr::Type(fty));
        if let Some(h) = hints {
            e = e.with("optimization_hints", h);
        }
        let op = self.m.create_op(OpKind::CudaTile(e), vec![], &[], self.loc);
        self.m.append_op(self.body, op);
        let region = self.m.ops[op].regions[0];
        let b = self.m.add_block(region, args);
        let a = self.m.blocks[b].args.clone();
        (b, a)
    }

    /// Appends an op to `block`; returns it.
    pub fn op(
        &mut self,
        block: BlockId,
        op: CudaTileOp,
        operands: &[ValueId],
        results: &[TypeId],
    ) -> OpId {
        let id = self
            .m
            .create_op(OpKind::CudaTile(op), operands.to_vec(), results, self.loc);
        self.m.append_op(block, id);
        id
    }

    /// Appends a single-result op; returns the result.
    pub fn val(
        &mut self,
        block: BlockId,
        op: CudaTileOp,
        operands: &[ValueId],
        result: TypeId,
    ) -> ValueId {
        let id = self.op(block, op, operands, &[result]);
        self.m.ops[id].results[0]
    }

    /// Adds a block with `args` to region `index` of `op`.
    pub fn block(&mut self, op: OpId, index: usize, args: &[TypeId]) -> (BlockId, Vec<ValueId>) {
        let region = self.m.ops[op].regions[index];
        let b = self.m.add_block(region, args);
        let a = self.m.blocks[b].args.clone();
        (b, a)
    }

    pub fn ret(&mut self, block: BlockId) {
        self.op(block, CudaTileOp::new(CtOp::Return), &[], &[]);
    }

    pub fn global(&mut self, name: &str, dense: DenseElements, extra: &[(&str, Attr)]) {
        let mut g = CudaTileOp::new(CtOp::Global)
            .with("sym_name", Attr::Str(name.into()))
            .with("value", Attr::Dense(dense));
        for (k, v) in extra {
            g = g.with(k, v.clone());
        }
        let op = self.m.create_op(OpKind::CudaTile(g), vec![], &[], self.loc);
        self.m.append_op(self.body, op);
    }
}

pub fn en(kind: &'static str, kw: &'static str) -> Attr {
    Attr::Enum(kind, kw)
}

pub fn dense(elem: NumType, shape: &[i64], bits: &[u64]) -> DenseElements {
    DenseElements {
        elem,
        shape: shape.to_vec(),
        bits: bits.to_vec(),
    }
}

/// A canonical text of everything the bytecode keeps: ops, attributes (types rendered
/// as text), operands as definition-order numbers, result and argument types, regions,
/// and locations.
pub fn dump(m: &Module) -> String {
    let mut out = String::new();
    let mut names: HashMap<ValueId, usize> = HashMap::new();
    for &op in &m.blocks[m.body].ops {
        dump_op(m, op, 0, &mut names, &mut out);
    }
    out
}

fn attr_text(m: &Module, a: &Attr) -> String {
    match a {
        Attr::Type(t) => format!("type({})", m.types.display(*t, true)),
        Attr::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|x| attr_text(m, x))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Attr::Dict(d) => format!(
            "{{{}}}",
            d.iter()
                .map(|(k, v)| format!("{k}={}", attr_text(m, v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => format!("{other:?}"),
    }
}

fn dump_op(
    m: &Module,
    op: OpId,
    depth: usize,
    names: &mut HashMap<ValueId, usize>,
    out: &mut String,
) {
    let d = &m.ops[op];
    let pad = "  ".repeat(depth);
    let operands: Vec<String> = d
        .operands
        .iter()
        .map(|v| {
            names
                .get(v)
                .map(|n| format!("%{n}"))
                .unwrap_or_else(|| format!("?{v}"))
        })
        .collect();
    let attrs: Vec<String> = d
        .kind
        .attributes()
        .iter()
        .map(|(k, v)| format!("{k}={}", attr_text(m, v)))
        .collect();
    let results: Vec<String> = d
        .results
        .iter()
        .map(|&r| m.types.display(m.value_type(r), true))
        .collect();
    let _ = writeln!(
        out,
        "{pad}{}({}) {{{}}} -> ({}) @ {}",
        d.kind.name(),
        operands.join(", "),
        attrs.join(", "),
        results.join(", "),
        m.locs.get(d.loc)
    );
    for &r in &d.regions {
        let _ = writeln!(out, "{pad}  region");
        for &b in &m.regions[r].blocks {
            let args: Vec<String> = m.blocks[b]
                .args
                .iter()
                .map(|&a| {
                    let n = names.len();
                    names.insert(a, n);
                    format!("%{n}: {}", m.types.display(m.value_type(a), true))
                })
                .collect();
            let _ = writeln!(out, "{pad}  block({})", args.join(", "));
            for &inner in &m.blocks[b].ops {
                dump_op(m, inner, depth + 2, names, out);
            }
        }
    }
    for &r in &d.results {
        let n = names.len();
        names.insert(r, n);
    }
}

/// A small deterministic PRNG (xorshift64*), so fuzz runs are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// [`dump`] without locations (the writer stores none; see the crate docs).
pub fn dump_without_locations(m: &Module) -> String {
    dump(m)
        .lines()
        .map(|l| l.split(" @ loc(").next().unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}
