//! Execution of one tile block: the environment of SSA values, op dispatch and control flow.

use crate::arith::{self, FBin, IntOp, Math};
use crate::launch::{BlockOutcome, ErrorKind, InterpError, Launch, MemCtx};
use crate::memory::MemError;
use crate::value::{
    canon, is_sub_byte, unsigned, Data, SubBytePtr, TensorView, Tile, TileView, Value, ViewKind,
};
use crate::{mma, printf, shape};
use tileir_ir::entity::EntityId;
use tileir_ir::{
    AssumePredicate, AtomicRmwMode, Attr, BlockId, ComparisonOrdering, ComparisonPredicate, CtOp,
    CudaTileOp, Dim, IntegerOverflow, NumType, OpId, OpKind, RoundingMode, Signedness, TileAaOp,
    TileElem, Type, ValueId,
};

// nv_tileaa / nv_tileas ops (everything but the async pipeline family).
#[path = "lowered.rs"]
mod lowered;
// The async pipeline / queue / TMA ops: `exec_async_op`, the one place they are run. Child
// modules of this one, so that they see `BlockExec`'s private state and helpers.
#[path = "pipeline.rs"]
mod pipeline;
// The layout-conversion ops (`convert_layout`, `view`, `copy`, `shuffle`) and `alloc_tensor`.
#[path = "layout_ops.rs"]
mod layout_ops;
// The tile-structure, pointer-tile memory and dot ops (`reinterpret`, `extract_slice`, …).
#[path = "tile_structure.rs"]
mod tile_structure;

/// How a block's execution ended.
#[derive(Debug)]
pub(crate) enum Flow {
    /// `yield` (or the end of a block without terminator).
    Yield(Vec<Value>),
    /// `continue`.
    Continue(Vec<Value>),
    /// `break`.
    Break(Vec<Value>),
    /// `return`.
    Return(Vec<Value>),
}

pub(crate) type R<T> = Result<T, InterpError>;

/// The state of one running tile block.
pub(crate) struct BlockExec<'l, 'm, 'a> {
    launch: &'l Launch<'m>,
    env: Vec<Option<Value>>,
    block: [u32; 3],
    mem: MemCtx<'a>,
    output: String,
    allocas: Vec<u64>,
    loop_iterations: u64,
    /// Pipelines and agents, created at the first pipeline op (shared with agent threads).
    async_world: Option<std::sync::Arc<crate::agents::AsyncWorld<Value>>>,
    /// Which agent this is ([`crate::agents::MAIN`] outside `agent_switch`).
    agent: usize,
    /// Implicit positions of nv_tileaa queue producers and consumers in this agent.
    queue_positions: std::collections::HashMap<(usize, Option<u32>), u64>,
}

fn mem_err(e: MemError) -> (ErrorKind, String) {
    (ErrorKind::MemoryFault, e.to_string())
}

impl<'l, 'm, 'a> BlockExec<'l, 'm, 'a> {
    pub fn new(launch: &'l Launch<'m>, block: [u32; 3], mem: MemCtx<'a>) -> Self {
        BlockExec {
            launch,
            env: vec![None; launch.module.values.len()],
            block,
            mem,
            output: String::new(),
            allocas: Vec::new(),
            loop_iterations: 0,
            async_world: None,
            agent: crate::agents::MAIN,
            queue_positions: std::collections::HashMap::new(),
        }
    }

    pub fn finish(mut self) -> BlockOutcome {
        for base in std::mem::take(&mut self.allocas) {
            self.mem.free(base);
        }
        BlockOutcome::from_mem(self.mem, self.output)
    }

    fn m(&self) -> &'m tileir_ir::Module {
        self.launch.module
    }

    fn error(&self, op: OpId, kind: ErrorKind, message: impl Into<String>) -> InterpError {
        let m = self.m();
        InterpError {
            kind,
            message: message.into(),
            location: Some(m.op_location(op)),
            op: Some(m.ops[op].kind.name()),
            block: Some(self.block),
        }
    }

    fn get(&self, op: OpId, v: ValueId) -> R<&Value> {
        self.env[v.index()].as_ref().ok_or_else(|| {
            self.error(
                op,
                ErrorKind::InvalidIr,
                format!("uses {v} before it is defined"),
            )
        })
    }

    fn tile(&self, op: OpId, v: ValueId) -> R<&Tile> {
        match self.get(op, v)? {
            Value::Tile(t) => Ok(t),
            other => Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!("expected a tile operand, got {}", kind_name(other)),
            )),
        }
    }

    fn operand_tile(&self, op: OpId, i: usize) -> R<&Tile> {
        let v = *self.m().ops[op]
            .operands
            .get(i)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, format!("missing operand #{i}")))?;
        self.tile(op, v)
    }

    /// Operand `i`, which must be a non-empty integer tile (or scalar).
    fn operand_int(&self, op: OpId, i: usize) -> R<&Tile> {
        let t = self.operand_tile(op, i)?;
        if !matches!(t.data, Data::Int(_)) || t.is_empty() {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!("operand #{i} must be an integer, got a {:?} tile", t.elem),
            ));
        }
        Ok(t)
    }

    fn set(&mut self, v: ValueId, value: Value) {
        self.env[v.index()] = Some(value);
    }

    fn set_result(&mut self, op: OpId, i: usize, value: Value) -> R<()> {
        let v = *self.m().ops[op]
            .results
            .get(i)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, format!("missing result #{i}")))?;
        self.set(v, value);
        Ok(())
    }

    fn result_type(&self, op: OpId, i: usize) -> R<&'m Type> {
        let m = self.m();
        let v = *m.ops[op]
            .results
            .get(i)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, format!("missing result #{i}")))?;
        Ok(m.types.get(m.value_type(v)))
    }

    /// Shape and element of tile result `i`. In nv_tileaa / nv_tileas functions rank-0 tiles
    /// are bare scalars (`i32`) and pointers (`!nv_tileaa.ptr<f32, 1>`): shape `[]`. Layouts
    /// (nv_tileas) do not change values and are ignored.
    fn result_tile_type(&self, op: OpId, i: usize) -> R<(Vec<usize>, TileElem)> {
        match self.result_type(op, i)? {
            Type::Tile { shape, elem, .. } => {
                Ok((shape.iter().map(|&d| d.max(0) as usize).collect(), *elem))
            }
            Type::Scalar(n) => Ok((Vec::new(), TileElem::Num(*n))),
            Type::AaPtr { pointee, .. } => Ok((Vec::new(), TileElem::Ptr(*pointee))),
            _ => Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!("result #{i} is not a tile"),
            )),
        }
    }

    fn result_num(&self, op: OpId) -> R<NumType> {
        match self.result_tile_type(op, 0)?.1 {
            TileElem::Num(t) => Ok(t),
            TileElem::Ptr(_) => {
                Err(self.error(op, ErrorKind::InvalidIr, "result is a pointer tile"))
            }
        }
    }

    fn lift<T>(&self, op: OpId, r: Result<T, String>) -> R<T> {
        r.map_err(|msg| {
            let kind = if msg.contains("undefined behavior") {
                ErrorKind::UndefinedBehavior
            } else {
                ErrorKind::InvalidIr
            };
            self.error(op, kind, msg)
        })
    }

    /// Runs `block` with `args` bound to its arguments.
    pub fn run_block(&mut self, block: BlockId, args: Vec<Value>) -> R<Flow> {
        let m = self.m();
        let params = &m.blocks[block].args;
        if params.len() != args.len() {
            let msg = format!(
                "block expects {} argument(s), got {}",
                params.len(),
                args.len()
            );
            return Err(match m.parent_op_of_block(block) {
                Some(op) => self.error(op, ErrorKind::InvalidIr, msg),
                None => InterpError::new(ErrorKind::InvalidIr, msg),
            });
        }
        for (&p, a) in params.iter().zip(args) {
            self.set(p, a);
        }
        for &op in &m.blocks[block].ops {
            if let Some(flow) = self.exec_op(op)? {
                return Ok(flow);
            }
        }
        Ok(Flow::Yield(Vec::new()))
    }

    fn operand_values(&self, op: OpId) -> R<Vec<Value>> {
        self.m().ops[op]
            .operands
            .iter()
            .map(|&v| self.get(op, v).cloned())
            .collect()
    }

    fn count_iteration(&mut self, op: OpId) -> R<()> {
        self.loop_iterations += 1;
        if let Some(limit) = self.launch.options.max_loop_iterations {
            if self.loop_iterations > limit {
                return Err(self.error(
                    op,
                    ErrorKind::LoopLimit,
                    format!("loop iteration limit of {limit} reached"),
                ));
            }
        }
        Ok(())
    }

    fn ct(&self, op: OpId) -> R<&'m CudaTileOp> {
        self.m().ops[op].kind.cuda_tile().ok_or_else(|| {
            self.error(
                op,
                ErrorKind::Unsupported,
                format!(
                    "expected a cuda_tile op, not '{}'",
                    self.m().ops[op].kind.name()
                ),
            )
        })
    }

    fn enum_attr<E: tileir_ir::KeywordEnum>(&self, op: OpId, name: &str) -> R<E> {
        self.ct(op)?.enum_attr::<E>(name).ok_or_else(|| {
            self.error(
                op,
                ErrorKind::InvalidIr,
                format!("missing or invalid attribute '{name}'"),
            )
        })
    }

    fn rounding(&self, op: OpId) -> RoundingMode {
        self.ct(op)
            .ok()
            .and_then(|c| c.enum_attr::<RoundingMode>("rounding_mode"))
            .unwrap_or(RoundingMode::NearestEven)
    }

    /// Executes one op; returns `Some` for terminators.
    fn exec_op(&mut self, op: OpId) -> R<Option<Flow>> {
        let m = self.m();
        match &m.ops[op].kind {
            OpKind::CudaTile(_) => self.exec_ct(op),
            // ---- THE dispatch point of the async pipeline / queue / TMA ops ----
            // (`nv_tileas.async.*`, `create_none`, `make_tiled_tma_desc`,
            // `nv_tileaa.create_queue` / `queue.*` / `execute`): see pipeline.rs.
            kind if lowered::is_async_op(kind) => self.exec_async_op(op),
            OpKind::TileAa(k) => self.exec_tileaa(op, k),
            OpKind::TileAs(k) => self.exec_tileas(op, k),
            OpKind::Unregistered(u) => Err(self.error(
                op,
                ErrorKind::Unsupported,
                format!(
                    "the interpreter cannot run the unregistered op '{}'",
                    u.name
                ),
            )),
        }
    }

    /// Executes one cuda_tile op (also the residual cuda_tile ops of nv_tileaa / nv_tileas
    /// functions).
    fn exec_ct(&mut self, op: OpId) -> R<Option<Flow>> {
        let c = self.ct(op)?;
        let m = self.m();
        let data = &m.ops[op];
        let one = |r: R<Tile>| -> R<Value> { r.map(Value::Tile) };
        let value: Value = match c.op {
            // ---- terminators ----
            CtOp::Yield => return Ok(Some(Flow::Yield(self.operand_values(op)?))),
            CtOp::Continue => return Ok(Some(Flow::Continue(self.operand_values(op)?))),
            CtOp::Break => return Ok(Some(Flow::Break(self.operand_values(op)?))),
            CtOp::Return => return Ok(Some(Flow::Return(self.operand_values(op)?))),

            // ---- control flow ----
            CtOp::If => return self.exec_if(op),
            CtOp::For => return self.exec_for(op),
            CtOp::Loop => return self.exec_loop(op),

            // ---- integer arithmetic ----
            CtOp::AddI
            | CtOp::SubI
            | CtOp::MulI
            | CtOp::MulHiI
            | CtOp::AndI
            | CtOp::OrI
            | CtOp::XOrI
            | CtOp::ShlI
            | CtOp::ShrI
            | CtOp::MaxI
            | CtOp::MinI
            | CtOp::RemI
            | CtOp::DivI => {
                let sign = || self.enum_attr::<Signedness>(op, "signedness");
                let iop = match c.op {
                    CtOp::AddI => IntOp::Add,
                    CtOp::SubI => IntOp::Sub,
                    CtOp::MulI => IntOp::Mul,
                    CtOp::MulHiI => IntOp::MulHi,
                    CtOp::AndI => IntOp::And,
                    CtOp::OrI => IntOp::Or,
                    CtOp::XOrI => IntOp::Xor,
                    CtOp::ShlI => IntOp::Shl,
                    CtOp::ShrI => IntOp::Shr(sign()?),
                    CtOp::MaxI => IntOp::Max(sign()?),
                    CtOp::MinI => IntOp::Min(sign()?),
                    CtOp::RemI => IntOp::Rem(sign()?),
                    _ => IntOp::Div(
                        sign()?,
                        c.enum_attr::<RoundingMode>("rounding")
                            .unwrap_or(RoundingMode::Zero),
                    ),
                };
                let ov = c
                    .enum_attr::<IntegerOverflow>("overflow")
                    .unwrap_or(IntegerOverflow::None);
                let r = arith::int_op(
                    iop,
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    ov,
                );
                Value::Tile(self.lift(op, r)?)
            }
            CtOp::NegI => Value::Tile(self.lift(
                op,
                arith::int_unary(self.operand_tile(op, 0)?, |x, _| x.wrapping_neg()),
            )?),
            CtOp::AbsI => Value::Tile(self.lift(
                op,
                arith::int_unary(self.operand_tile(op, 0)?, |x, _| x.wrapping_abs()),
            )?),
            CtOp::CmpI => {
                let pred = self.enum_attr::<ComparisonPredicate>(op, "comparison_predicate")?;
                let s = self.enum_attr::<Signedness>(op, "signedness")?;
                let r = arith::cmpi(
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    pred,
                    s,
                );
                Value::Tile(self.lift(op, r)?)
            }

            // ---- float arithmetic ----
            CtOp::AddF | CtOp::SubF | CtOp::MulF | CtOp::DivF => {
                let f = match c.op {
                    CtOp::AddF => FBin::Add,
                    CtOp::SubF => FBin::Sub,
                    CtOp::MulF => FBin::Mul,
                    _ => FBin::Div,
                };
                let r = arith::float_binary(
                    f,
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    self.rounding(op),
                    c.flag("flush_to_zero"),
                );
                Value::Tile(self.lift(op, r)?)
            }
            CtOp::Fma => {
                let r = arith::fma(
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    self.operand_tile(op, 2)?,
                    self.rounding(op),
                    c.flag("flush_to_zero"),
                );
                Value::Tile(self.lift(op, r)?)
            }
            CtOp::MaxF | CtOp::MinF => {
                let r = arith::max_min_f(
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    c.op == CtOp::MaxF,
                    c.flag("propagate_nan"),
                    c.flag("flush_to_zero"),
                );
                Value::Tile(self.lift(op, r)?)
            }
            CtOp::RemF => Value::Tile(self.lift(
                op,
                arith::remf(self.operand_tile(op, 0)?, self.operand_tile(op, 1)?),
            )?),
            CtOp::CmpF => {
                let pred = self.enum_attr::<ComparisonPredicate>(op, "comparison_predicate")?;
                let ord = self.enum_attr::<ComparisonOrdering>(op, "comparison_ordering")?;
                Value::Tile(self.lift(
                    op,
                    arith::cmpf(
                        self.operand_tile(op, 0)?,
                        self.operand_tile(op, 1)?,
                        pred,
                        ord,
                    ),
                )?)
            }
            CtOp::AbsF
            | CtOp::NegF
            | CtOp::Ceil
            | CtOp::Floor
            | CtOp::Cos
            | CtOp::CosH
            | CtOp::Sin
            | CtOp::SinH
            | CtOp::Tan
            | CtOp::TanH
            | CtOp::Exp
            | CtOp::Exp2
            | CtOp::Log
            | CtOp::Log2
            | CtOp::Rsqrt => {
                let f = match c.op {
                    CtOp::AbsF => Math::Abs,
                    CtOp::NegF => Math::Neg,
                    CtOp::Ceil => Math::Ceil,
                    CtOp::Floor => Math::Floor,
                    CtOp::Cos => Math::Cos,
                    CtOp::CosH => Math::CosH,
                    CtOp::Sin => Math::Sin,
                    CtOp::SinH => Math::SinH,
                    CtOp::Tan => Math::Tan,
                    CtOp::TanH => Math::TanH,
                    CtOp::Exp => Math::Exp,
                    CtOp::Exp2 => Math::Exp2,
                    CtOp::Log => Math::Log,
                    CtOp::Log2 => Math::Log2,
                    _ => Math::Rsqrt,
                };
                let x = self.operand_tile(op, 0)?;
                let approx = match (f, &x.data) {
                    (Math::Exp | Math::TanH, Data::F32(v))
                        if x.num() == NumType::F32 && self.rounding(op) == RoundingMode::Approx =>
                    {
                        let g = if f == Math::Exp {
                            crate::approx::exp_approx
                        } else {
                            crate::approx::tanh_approx
                        };
                        Some(Tile {
                            shape: x.shape.clone(),
                            elem: x.elem,
                            data: Data::F32(v.iter().map(|&p| g(p)).collect()),
                        })
                    }
                    _ => None,
                };
                match approx {
                    Some(t) => Value::Tile(t),
                    None => Value::Tile(self.lift(op, arith::math(f, x, c.flag("flush_to_zero")))?),
                }
            }
            CtOp::Sqrt => Value::Tile(self.lift(
                op,
                arith::sqrt(
                    self.operand_tile(op, 0)?,
                    self.rounding(op),
                    c.flag("flush_to_zero"),
                ),
            )?),
            CtOp::Pow => Value::Tile(self.lift(
                op,
                arith::math2(
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    f64::powf,
                ),
            )?),
            // atan2(x, y): the operands are named x and y; the result is the angle of the point
            // (x = second coordinate, y = first), i.e. C's atan2(x, y).
            CtOp::Atan2 => Value::Tile(self.lift(
                op,
                arith::math2(
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    f64::atan2,
                ),
            )?),

            // ---- conversions ----
            CtOp::FToF => {
                let to = self.result_num(op)?;
                Value::Tile(self.lift(
                    op,
                    arith::ftof(self.operand_tile(op, 0)?, to, self.rounding(op)),
                )?)
            }
            CtOp::FToI => {
                let to = self.result_num(op)?;
                let s = self.enum_attr::<Signedness>(op, "signedness")?;
                Value::Tile(self.lift(op, arith::ftoi(self.operand_tile(op, 0)?, to, s))?)
            }
            CtOp::IToF => {
                let to = self.result_num(op)?;
                let s = self.enum_attr::<Signedness>(op, "signedness")?;
                Value::Tile(self.lift(
                    op,
                    arith::itof(self.operand_tile(op, 0)?, to, s, self.rounding(op)),
                )?)
            }
            CtOp::ExtI => {
                let to = self.result_num(op)?;
                Value::Tile(arith::exti(
                    self.operand_tile(op, 0)?,
                    to,
                    self.enum_attr::<Signedness>(op, "signedness")?,
                ))
            }
            CtOp::TruncI => Value::Tile(arith::trunci(
                self.operand_tile(op, 0)?,
                self.result_num(op)?,
            )),
            CtOp::Bitcast => Value::Tile(arith::bitcast(
                self.operand_tile(op, 0)?,
                self.result_num(op)?,
            )),
            CtOp::IntToPtr => {
                let (shape, elem) = self.result_tile_type(op, 0)?;
                let a = self.operand_tile(op, 0)?;
                if matches!(elem, TileElem::Ptr(t) if is_sub_byte(t)) {
                    self.check_byte_addresses(op, a.ints().iter().map(|&x| x as u64))?;
                }
                Value::Tile(Tile {
                    shape,
                    elem,
                    data: Data::Ptr(a.ints().iter().map(|&x| x as u64).collect()),
                })
            }
            CtOp::PtrToInt => {
                let a = self.operand_tile(op, 0)?;
                let Data::Ptr(p) = &a.data else {
                    return Err(self.error(
                        op,
                        ErrorKind::InvalidIr,
                        "operand is not a pointer tile",
                    ));
                };
                if is_sub_byte(a.num()) {
                    self.check_whole_bytes(op, a, "has no integer address")?;
                }
                Value::Tile(Tile {
                    shape: a.shape.clone(),
                    elem: TileElem::Num(NumType::I64),
                    data: Data::Int(p.iter().map(|&x| x as i64).collect()),
                })
            }
            CtOp::PtrToPtr => {
                let (_, elem) = self.result_tile_type(op, 0)?;
                let a = self.operand_tile(op, 0)?;
                let to_sub_byte = matches!(elem, TileElem::Ptr(t) if is_sub_byte(t));
                if is_sub_byte(a.num()) && !to_sub_byte {
                    self.check_whole_bytes(op, a, "cannot become a pointer to a wider type")?;
                }
                if to_sub_byte && !is_sub_byte(a.num()) {
                    if let Data::Ptr(p) = &a.data {
                        self.check_byte_addresses(op, p.iter().copied())?;
                    }
                }
                Value::Tile(Tile {
                    shape: a.shape.clone(),
                    elem,
                    data: a.data.clone(),
                })
            }

            // ---- construction and shape ----
            CtOp::Constant => {
                let (shape, elem) = self.result_tile_type(op, 0)?;
                let Some(Attr::Dense(d)) = c.get("value") else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "missing dense 'value'"));
                };
                let n: usize = shape.iter().product();
                if !d.is_splat() && d.bits.len() != n {
                    return Err(self.error(
                        op,
                        ErrorKind::InvalidIr,
                        format!("value has {} elements, type needs {n}", d.bits.len()),
                    ));
                }
                Value::Tile(Tile::from_bits(shape, elem, (0..n).map(|i| d.get(i))))
            }
            CtOp::Iota => {
                let (shape, _) = self.result_tile_type(op, 0)?;
                Value::Tile(shape::iota(&shape, self.result_num(op)?))
            }
            CtOp::Broadcast => {
                let (shape, _) = self.result_tile_type(op, 0)?;
                Value::Tile(self.lift(op, shape::broadcast(self.operand_tile(op, 0)?, &shape))?)
            }
            CtOp::Reshape => {
                let (shape, _) = self.result_tile_type(op, 0)?;
                Value::Tile(self.lift(op, shape::reshape(self.operand_tile(op, 0)?, &shape))?)
            }
            CtOp::Permute => {
                let Some(Attr::IntArray(perm)) = c.get("permutation") else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "missing 'permutation'"));
                };
                Value::Tile(self.lift(op, shape::permute(self.operand_tile(op, 0)?, perm))?)
            }
            CtOp::Cat => {
                let dim = c.int("dim").unwrap_or(-1);
                if dim < 0 {
                    return Err(self.error(op, ErrorKind::InvalidIr, format!("invalid dim {dim}")));
                }
                Value::Tile(self.lift(
                    op,
                    shape::cat(
                        self.operand_tile(op, 0)?,
                        self.operand_tile(op, 1)?,
                        dim as usize,
                    ),
                )?)
            }
            CtOp::Extract => {
                let (shape, _) = self.result_tile_type(op, 0)?;
                let mut idx = Vec::new();
                for i in 1..data.operands.len() {
                    let t = self.operand_int(op, i)?;
                    idx.push(unsigned(t.num().bit_width(), t.ints()[0]));
                }
                Value::Tile(self.lift(op, shape::extract(self.operand_tile(op, 0)?, &idx, &shape))?)
            }
            CtOp::Select => {
                let r = arith::select(
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    self.operand_tile(op, 2)?,
                );
                Value::Tile(self.lift(op, r)?)
            }
            CtOp::Offset => Value::Tile(self.lift(
                op,
                shape::offset(self.operand_tile(op, 0)?, self.operand_tile(op, 1)?),
            )?),
            CtOp::Pack => {
                let (shape, _) = self.result_tile_type(op, 0)?;
                Value::Tile(self.lift(
                    op,
                    shape::pack(self.operand_tile(op, 0)?, shape.iter().product()),
                )?)
            }
            CtOp::Unpack => {
                let (shape, _) = self.result_tile_type(op, 0)?;
                let to = self.result_num(op)?;
                Value::Tile(self.lift(
                    op,
                    shape::unpack(self.operand_tile(op, 0)?, to, shape.iter().product()),
                )?)
            }

            // ---- mma ----
            CtOp::MmaF => one(self.lift(
                op,
                mma::mmaf(
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    self.operand_tile(op, 2)?,
                ),
            ))?,
            CtOp::MmaI => {
                let sa = self.enum_attr::<Signedness>(op, "signedness_lhs")?;
                let sb = self.enum_attr::<Signedness>(op, "signedness_rhs")?;
                one(self.lift(
                    op,
                    mma::mmai(
                        self.operand_tile(op, 0)?,
                        self.operand_tile(op, 1)?,
                        self.operand_tile(op, 2)?,
                        sa,
                        sb,
                    ),
                ))?
            }
            CtOp::MmaFScaled => one(self.lift(
                op,
                mma::mmaf_scaled(
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    self.operand_tile(op, 2)?,
                    self.operand_tile(op, 3)?,
                    self.operand_tile(op, 4)?,
                ),
            ))?,

            // ---- reductions ----
            CtOp::Reduce | CtOp::Scan => {
                let results = self.exec_reduce_scan(op, c)?;
                for (i, r) in results.into_iter().enumerate() {
                    self.set_result(op, i, Value::Tile(r))?;
                }
                return Ok(None);
            }

            // ---- grid ----
            CtOp::GetTileBlockId | CtOp::GetNumTileBlocks => {
                let v = if c.op == CtOp::GetTileBlockId {
                    self.block
                } else {
                    self.launch.grid
                };
                for (i, x) in v.iter().enumerate() {
                    self.set_result(
                        op,
                        i,
                        Value::Tile(Tile::scalar_int(NumType::I32, *x as i64)),
                    )?;
                }
                return Ok(None);
            }

            // ---- tokens ----
            CtOp::MakeToken | CtOp::JoinTokens => Value::Token,
            // Programmatic dependent launch only lets launches overlap; the interpreter runs
            // one launch at a time, so waiting and releasing dependents are no-ops.
            CtOp::GdcLaunchDependentsTko | CtOp::GdcWaitTko => Value::Token,

            // ---- misc ----
            CtOp::Assume => {
                let v = self.get(op, data.operands[0])?.clone();
                if self.launch.options.check_assumes {
                    if let (Some(p), Value::Tile(t)) = (c.predicate(), &v) {
                        if let Some(msg) = check_assume(p, t) {
                            return Err(self.error(
                                op,
                                ErrorKind::AssumptionViolated,
                                format!("assumption {} does not hold: {msg}", p.text()),
                            ));
                        }
                    }
                }
                v
            }
            CtOp::Assert => {
                let t = self.operand_tile(op, 0)?;
                if let Some(i) = t.ints().iter().position(|&x| x == 0) {
                    let idx = unravel(i, &t.shape);
                    let msg = c.str("message").unwrap_or("");
                    return Err(self.error(
                        op,
                        ErrorKind::AssertionFailed,
                        format!("assertion failed: \"{msg}\" at index {idx:?}"),
                    ));
                }
                return Ok(None);
            }
            CtOp::PrintTko => {
                let args = c
                    .group("args", data.operands.len())
                    .unwrap_or(0..data.operands.len());
                let mut tiles = Vec::new();
                for i in args {
                    tiles.push(self.operand_tile(op, i)?);
                }
                let text = self.lift(op, printf::format(c.str("str").unwrap_or(""), &tiles))?;
                self.output.push_str(&text);
                if data.results.is_empty() {
                    return Ok(None);
                }
                Value::Token
            }
            CtOp::GetGlobal => {
                let name = c.str("name").unwrap_or("");
                let addr = *self.launch.globals.get(name).ok_or_else(|| {
                    self.error(op, ErrorKind::InvalidIr, format!("no global named @{name}"))
                })?;
                let (shape, elem) = self.result_tile_type(op, 0)?;
                Value::Tile(Tile {
                    shape,
                    elem,
                    data: Data::Ptr(vec![addr]),
                })
            }
            CtOp::Alloca => {
                let (shape, elem) = self.result_tile_type(op, 0)?;
                let n = c.int("num_elem").unwrap_or(0).max(0) as usize;
                let align = c.int("alignment").unwrap_or(1).max(1) as u64;
                let size = match elem {
                    TileElem::Ptr(t) => t.storage_bytes() as usize,
                    TileElem::Num(_) => {
                        return Err(self.error(
                            op,
                            ErrorKind::InvalidIr,
                            "alloca result must be a pointer",
                        ))
                    }
                };
                let base = self.mem.alloc(n * size, align).ok_or_else(|| {
                    self.error(
                        op,
                        ErrorKind::Unsupported,
                        "alloca is not available in parallel mode",
                    )
                })?;
                self.allocas.push(base);
                Value::Tile(Tile {
                    shape,
                    elem,
                    data: Data::Ptr(vec![base]),
                })
            }

            // ---- views and memory ----
            CtOp::MakeTensorView => self.make_tensor_view(op, c)?,
            CtOp::MakePartitionView | CtOp::MakeStridedView | CtOp::MakeGatherScatterView => {
                self.make_tile_view(op)?
            }
            CtOp::GetTensorShape => {
                let Value::TensorView(tv) = self.get(op, data.operands[0])?.clone() else {
                    return Err(self.error(
                        op,
                        ErrorKind::InvalidIr,
                        "operand is not a tensor_view",
                    ));
                };
                for (i, &d) in tv.shape.iter().enumerate() {
                    let t = self.result_num(op)?;
                    self.set_result(op, i, Value::Tile(Tile::scalar_int(t, d as i64)))?;
                }
                return Ok(None);
            }
            CtOp::GetIndexSpaceShape => {
                let Value::View(v) = self.get(op, data.operands[0])?.clone() else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand is not a tile view"));
                };
                for (i, d) in v.index_space().into_iter().enumerate() {
                    let t = self.result_num(op)?;
                    self.set_result(op, i, Value::Tile(Tile::scalar_int(t, d as i64)))?;
                }
                return Ok(None);
            }
            CtOp::LoadViewTko => {
                let tile = self.load_view(op, c)?;
                self.set_result(op, 0, Value::Tile(tile))?;
                self.set_result(op, 1, Value::Token)?;
                return Ok(None);
            }
            CtOp::StoreViewTko => {
                self.store_view(op, c)?;
                Value::Token
            }
            CtOp::LoadPtrTko => {
                let tile = self.load_ptr(op, c)?;
                self.set_result(op, 0, Value::Tile(tile))?;
                self.set_result(op, 1, Value::Token)?;
                return Ok(None);
            }
            CtOp::StorePtrTko => {
                self.store_ptr(op, c)?;
                Value::Token
            }
            CtOp::AtomicCasTko | CtOp::AtomicRmwTko => {
                let tile = self.atomic_ptr(op, c)?;
                self.set_result(op, 0, Value::Tile(tile))?;
                self.set_result(op, 1, Value::Token)?;
                return Ok(None);
            }
            CtOp::AtomicRedViewTko => {
                self.atomic_red_view(op, c)?;
                Value::Token
            }

            // NVIDIA's test-only ops exist to exercise bytecode versioning; they have no
            // semantics to execute.
            CtOp::TestingBytecodeNewAttribute | CtOp::TestingBytecodeEvolution => {
                return Err(self.error(
                    op,
                    ErrorKind::Unsupported,
                    format!(
                        "'cuda_tile.{}' is a test-only op of bytecode versioning and cannot be executed",
                        c.op.mnemonic()
                    ),
                ));
            }
            CtOp::Module | CtOp::Entry | CtOp::Global | CtOp::TestingFunc => {
                return Err(self.error(
                    op,
                    ErrorKind::InvalidIr,
                    "module-level op inside a kernel body",
                ));
            }
        };
        self.set_result(op, 0, value)?;
        Ok(None)
    }

    fn bind_results(&mut self, op: OpId, values: Vec<Value>) -> R<()> {
        let n = self.m().ops[op].results.len();
        if values.len() != n {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!(
                    "region produced {} value(s), op has {n} result(s)",
                    values.len()
                ),
            ));
        }
        for (i, v) in values.into_iter().enumerate() {
            self.set_result(op, i, v)?;
        }
        Ok(())
    }

    fn exec_if(&mut self, op: OpId) -> R<Option<Flow>> {
        let cond = self.operand_int(op, 0)?.ints()[0] != 0;
        let region = if cond { 0 } else { 1 };
        let flow = match self.m().entry_block(op, region) {
            Some(b) => self.run_block(b, Vec::new())?,
            None => Flow::Yield(Vec::new()),
        };
        match flow {
            Flow::Yield(v) => {
                self.bind_results(op, v)?;
                Ok(None)
            }
            other => Ok(Some(other)),
        }
    }

    fn exec_for(&mut self, op: OpId) -> R<Option<Flow>> {
        let c = self.ct(op)?;
        let lb_t = self.operand_int(op, 0)?.clone();
        let w = lb_t.num().bit_width();
        let unsigned_cmp = c.flag("unsignedCmp");
        let read = |t: &Tile| -> i128 {
            let x = t.ints()[0];
            if unsigned_cmp {
                unsigned(w, x) as i128
            } else {
                x as i128
            }
        };
        let mut iv = read(&lb_t);
        let ub = read(self.operand_int(op, 1)?);
        let step = read(self.operand_int(op, 2)?);
        if step <= 0 {
            return Err(self.error(
                op,
                ErrorKind::UndefinedBehavior,
                format!("loop step must be positive, got {step}"),
            ));
        }
        let n = self.m().ops[op].operands.len();
        let mut iter: Vec<Value> = (3..n)
            .map(|i| self.get(op, self.m().ops[op].operands[i]).cloned())
            .collect::<R<_>>()?;
        let body = self
            .m()
            .entry_block(op, 0)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, "for has no body"))?;
        while iv < ub {
            self.count_iteration(op)?;
            let mut args = Vec::with_capacity(iter.len() + 1);
            args.push(Value::Tile(Tile {
                shape: vec![],
                elem: lb_t.elem,
                data: Data::Int(vec![canon(w, iv as i64)]),
            }));
            args.append(&mut iter);
            match self.run_block(body, args)? {
                Flow::Continue(v) | Flow::Yield(v) => iter = v,
                Flow::Return(v) => return Ok(Some(Flow::Return(v))),
                Flow::Break(_) => {
                    return Err(self.error(
                        op,
                        ErrorKind::InvalidIr,
                        "'break' cannot exit a 'for' loop",
                    ))
                }
            }
            iv += step;
        }
        self.bind_results(op, iter)?;
        Ok(None)
    }

    fn exec_loop(&mut self, op: OpId) -> R<Option<Flow>> {
        let mut iter = self.operand_values(op)?;
        let body = self
            .m()
            .entry_block(op, 0)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, "loop has no body"))?;
        loop {
            self.count_iteration(op)?;
            match self.run_block(body, iter)? {
                Flow::Continue(v) | Flow::Yield(v) => iter = v,
                Flow::Break(v) => {
                    self.bind_results(op, v)?;
                    return Ok(None);
                }
                Flow::Return(v) => return Ok(Some(Flow::Return(v))),
            }
        }
    }

    /// `reduce` / `scan`. Order: sequential along `dim` (index 0 upward; downward for a reverse
    /// scan), the accumulator starting at the identity, the body called as (element, acc).
    /// When the body holds only element-wise ops and constants, it runs once per step over all
    /// lanes (every position of the other dimensions) at once; otherwise once per lane and step.
    fn exec_reduce_scan(&mut self, op: OpId, c: &CudaTileOp) -> R<Vec<Tile>> {
        let m = self.m();
        let is_scan = c.op == CtOp::Scan;
        let inputs: Vec<Tile> = (0..m.ops[op].operands.len())
            .map(|i| self.operand_tile(op, i).cloned())
            .collect::<R<_>>()?;
        let Some(first) = inputs.first() else {
            return Err(self.error(op, ErrorKind::InvalidIr, "no operands"));
        };
        let shape = first.shape.clone();
        let dim = c.int("dim").unwrap_or(-1);
        if dim < 0 || dim as usize >= shape.len() {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!("dim {dim} out of range for rank {}", shape.len()),
            ));
        }
        let dim = dim as usize;
        let reverse = c.flag("reverse");
        let Some(Attr::Array(ids)) = c.get("identities") else {
            return Err(self.error(op, ErrorKind::InvalidIr, "missing identities"));
        };
        if ids.len() != inputs.len() {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!("{} identities for {} operands", ids.len(), inputs.len()),
            ));
        }
        let body = m
            .entry_block(op, 0)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, "missing body"))?;
        let outer: usize = shape[..dim].iter().product();
        let d = shape[dim];
        let inner: usize = shape[dim + 1..].iter().product();
        let lanes = outer * inner;
        let lane_src = |k: usize| -> Vec<usize> {
            (0..lanes)
                .map(|l| (l / inner) * d * inner + k * inner + l % inner)
                .collect()
        };
        // Identity per operand, converted to the operand's element type if it differs (the
        // verifier tolerates an f16 identity on bf16 and vice versa).
        let mut acc0 = Vec::new();
        for (t, id) in inputs.iter().zip(ids) {
            let Attr::Scalar(it, bits) = id else {
                return Err(self.error(op, ErrorKind::InvalidIr, "identity is not a typed scalar"));
            };
            let mut v = Tile::from_bits(vec![], TileElem::Num(*it), [*bits]);
            if v.elem != t.elem {
                v = self.lift(op, arith::ftof(&v, t.num(), RoundingMode::NearestEven))?;
            }
            acc0.push(v);
        }
        let vectorized = m.blocks[body].ops.iter().all(|&o| match &m.ops[o].kind {
            // The element-wise float arithmetic of nv_tileaa / nv_tileas reduce bodies.
            OpKind::TileAa(TileAaOp::AddF(_) | TileAaOp::SubF(_) | TileAaOp::MulF(_)) => true,
            kind => kind.ct().is_some_and(|k| {
                k == CtOp::Constant
                    || k == CtOp::Yield
                    || k.schema()
                        .has(tileir_ir::dialect::cuda_tile::schema::traits::ELEMENTWISE)
            }),
        });
        let order: Vec<usize> = if is_scan && reverse {
            (0..d).rev().collect()
        } else {
            (0..d).collect()
        };
        let mut scan_out: Vec<Tile> = if is_scan { inputs.clone() } else { Vec::new() };
        let finish_lanes = |accs: Vec<Tile>, this: &Self| -> R<Vec<Tile>> {
            let mut out_shape = shape.clone();
            out_shape.remove(dim);
            accs.into_iter()
                .zip(&inputs)
                .map(|(a, t)| {
                    let data = if a.len() == lanes {
                        a.data
                    } else {
                        a.data.gather(&vec![0; lanes])
                    };
                    if data.len() != lanes {
                        return Err(this.error(
                            op,
                            ErrorKind::InvalidIr,
                            "reduction body changed the element count",
                        ));
                    }
                    Ok(Tile {
                        shape: out_shape.clone(),
                        elem: t.elem,
                        data,
                    })
                })
                .collect()
        };
        if vectorized {
            let mut accs = acc0;
            for &k in &order {
                let src = lane_src(k);
                let mut args = Vec::with_capacity(2 * inputs.len());
                for (t, a) in inputs.iter().zip(&accs) {
                    args.push(Value::Tile(Tile {
                        shape: vec![lanes],
                        elem: t.elem,
                        data: t.data.gather(&src),
                    }));
                    args.push(Value::Tile(a.clone()));
                }
                accs = self.run_body_yield(op, body, args, inputs.len())?;
                if is_scan {
                    for (o, a) in scan_out.iter_mut().zip(&accs) {
                        for (l, &s) in src.iter().enumerate() {
                            o.data
                                .set_from(s, &a.data, if a.len() == 1 { 0 } else { l });
                        }
                    }
                }
            }
            return if is_scan {
                Ok(scan_out)
            } else {
                finish_lanes(accs, self)
            };
        }
        // Per-lane execution with rank-0 tiles.
        let mut results: Vec<Tile> = inputs
            .iter()
            .map(|t| Tile {
                shape: vec![lanes],
                elem: t.elem,
                data: t.data.gather(&vec![0; lanes]),
            })
            .collect();
        for l in 0..lanes {
            let mut accs = acc0.clone();
            for &k in &order {
                let s = (l / inner) * d * inner + k * inner + l % inner;
                let mut args = Vec::with_capacity(2 * inputs.len());
                for (t, a) in inputs.iter().zip(&accs) {
                    args.push(Value::Tile(Tile {
                        shape: vec![],
                        elem: t.elem,
                        data: t.data.gather(&[s]),
                    }));
                    args.push(Value::Tile(a.clone()));
                }
                accs = self.run_body_yield(op, body, args, inputs.len())?;
                if is_scan {
                    for (o, a) in scan_out.iter_mut().zip(&accs) {
                        o.data.set_from(s, &a.data, 0);
                    }
                }
            }
            for (r, a) in results.iter_mut().zip(&accs) {
                r.data.set_from(l, &a.data, 0);
            }
        }
        if is_scan {
            Ok(scan_out)
        } else {
            finish_lanes(results, self)
        }
    }

    fn run_body_yield(
        &mut self,
        op: OpId,
        body: BlockId,
        args: Vec<Value>,
        n: usize,
    ) -> R<Vec<Tile>> {
        match self.run_block(body, args)? {
            Flow::Yield(v) if v.len() == n => v
                .into_iter()
                .map(|x| match x {
                    Value::Tile(t) => Ok(t),
                    _ => Err(self.error(op, ErrorKind::InvalidIr, "body yielded a non-tile")),
                })
                .collect(),
            _ => Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!("body must yield {n} value(s)"),
            )),
        }
    }

    // ---- views ----

    fn make_tensor_view(&mut self, op: OpId, c: &CudaTileOp) -> R<Value> {
        let m = self.m();
        let Type::TensorView(tvt) = self.result_type(op, 0)? else {
            return Err(self.error(op, ErrorKind::InvalidIr, "result is not a tensor_view"));
        };
        let n = m.ops[op].operands.len();
        let shape_r = c.group("dynamicShape", n).unwrap_or(1..1);
        let strides_r = c.group("dynamicStrides", n).unwrap_or(n..n);
        let base = self.operand_tile(op, 0)?;
        let Data::Ptr(p) = &base.data else {
            return Err(self.error(op, ErrorKind::InvalidIr, "base is not a pointer"));
        };
        let base = p[0];
        let dyn_vals = |r: std::ops::Range<usize>, dims: &[Dim], what: &str| -> R<Vec<u64>> {
            let mut it = r.into_iter();
            dims.iter()
                .map(|d| match d {
                    Dim::Static(v) => Ok(*v as u64),
                    Dim::Dynamic => {
                        let i = it.next().ok_or_else(|| {
                            self.error(
                                op,
                                ErrorKind::InvalidIr,
                                format!("too few dynamic {what} operands"),
                            )
                        })?;
                        let t = self.operand_int(op, i)?;
                        Ok(unsigned(t.num().bit_width(), t.ints()[0]))
                    }
                })
                .collect()
        };
        let shape = dyn_vals(shape_r, &tvt.shape, "shape")?;
        let strides = dyn_vals(strides_r, &tvt.strides, "stride")?;
        if is_sub_byte(tvt.elem) {
            self.check_sub_byte_view(op, tvt.elem, base, &shape, &strides)?;
        }
        Ok(Value::TensorView(TensorView {
            base,
            elem: tvt.elem,
            shape,
            strides,
        }))
    }

    fn make_tile_view(&mut self, op: OpId) -> R<Value> {
        let m = self.m();
        let Value::TensorView(tv) = self.get(op, m.ops[op].operands[0])?.clone() else {
            return Err(self.error(op, ErrorKind::InvalidIr, "operand is not a tensor_view"));
        };
        let rank = tv.shape.len();
        let dim_map_of = |dm: &[i64]| -> Vec<usize> {
            if dm.is_empty() {
                (0..rank).collect()
            } else {
                dm.iter().map(|&d| d as usize).collect()
            }
        };
        let (tile_shape, dim_map, padding, kind) = match self.result_type(op, 0)? {
            Type::PartitionView(pv) => (
                pv.tile_shape.clone(),
                dim_map_of(&pv.dim_map),
                pv.padding,
                ViewKind::Partition,
            ),
            Type::StridedView(sv) => {
                let dm = dim_map_of(&sv.dim_map);
                // traversal_strides are given per tensor dimension; store them per tile dimension.
                let st = dm
                    .iter()
                    .map(|&d| sv.traversal_strides.get(d).copied().unwrap_or(1).max(1) as u64)
                    .collect();
                (sv.tile_shape.clone(), dm, sv.padding, ViewKind::Strided(st))
            }
            Type::GatherScatterView(gv) => (
                (gv.tile_shape.clone()),
                (0..rank).collect(),
                gv.padding,
                ViewKind::GatherScatter(gv.sparse_dim.max(0) as usize),
            ),
            _ => return Err(self.error(op, ErrorKind::InvalidIr, "result is not a tile view")),
        };
        if tile_shape.len() != rank || dim_map.len() != rank || dim_map.iter().any(|&d| d >= rank) {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!(
                    "view of rank {} over a rank-{rank} tensor",
                    tile_shape.len()
                ),
            ));
        }
        Ok(Value::View(TileView {
            tensor: tv,
            tile_shape: tile_shape.iter().map(|&d| d.max(1) as u64).collect(),
            dim_map,
            padding,
            kind,
        }))
    }

    /// For each tile dimension, the tensor coordinate (None when out of bounds) of each
    /// position along it, plus the tensor dimension it runs along.
    /// `masked_outside`: a tile index past the index space is a fully masked tile (the
    /// lowered memref accesses, whose code masks every element) rather than undefined
    /// behaviour (cuda_tile views).
    fn view_coords(&self, op: OpId, view: &TileView, index: &[&Tile], masked_outside: bool) -> R<Vec<Coords>> {
        let rank = view.tile_shape.len();
        if index.len() != rank {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!("view needs {rank} indices, got {}", index.len()),
            ));
        }
        let space = view.index_space();
        let mut coords = Vec::with_capacity(rank);
        for i in 0..rank {
            let tdim = view.dim_map[i];
            let size = view.tensor.shape[tdim];
            let n = view.tile_shape[i];
            let idx = index[i];
            if !matches!(idx.data, Data::Int(_)) || idx.is_empty() {
                return Err(self.error(
                    op,
                    ErrorKind::InvalidIr,
                    format!("index #{i} is not an integer tile"),
                ));
            }
            let w = idx.num().bit_width();
            let c: Coords = match &view.kind {
                ViewKind::GatherScatter(sd) if *sd == i => {
                    if idx.len() as u64 != n {
                        return Err(self.error(
                            op,
                            ErrorKind::InvalidIr,
                            format!(
                                "gather index tile has {} entries, tile dimension is {n}",
                                idx.len()
                            ),
                        ));
                    }
                    Coords::List(
                        idx.ints()
                            .iter()
                            .map(|&x| Some(unsigned(w, x)).filter(|&r| r < size))
                            .collect(),
                    )
                }
                _ => {
                    let v = unsigned(w, idx.ints()[0]);
                    if v >= space[i] && !masked_outside {
                        return Err(self.error(
                            op,
                            ErrorKind::UndefinedBehavior,
                            format!(
                                "index {v} along dimension {i} is outside the index space of size {} (undefined behavior)",
                                space[i]
                            ),
                        ));
                    }
                    let step = match &view.kind {
                        ViewKind::Strided(s) => s[i],
                        _ => n,
                    };
                    Coords::Range {
                        origin: v * step,
                        n,
                        size,
                    }
                }
            };
            if c.all_out_of_bounds() && !masked_outside {
                return Err(self.error(
                    op,
                    ErrorKind::UndefinedBehavior,
                    format!("the tile is entirely out of bounds along dimension {i} (undefined behavior)"),
                ));
            }
            coords.push(c);
        }
        Ok(coords)
    }

    fn view_and_indices(&self, op: OpId, c: &CudaTileOp) -> R<(TileView, Vec<Tile>)> {
        let m = self.m();
        let ops = &m.ops[op].operands;
        let n = ops.len();
        let view_pos = c
            .schema()
            .operands
            .iter()
            .position(|o| o.name == "view")
            .unwrap_or(0);
        let view_i = c.operand_groups(n).map(|g| g[view_pos].start).unwrap_or(0);
        let Value::View(view) = self.get(op, ops[view_i])?.clone() else {
            return Err(self.error(op, ErrorKind::InvalidIr, "operand is not a tile view"));
        };
        let idx_r = c.group("index", n).ok_or_else(|| {
            self.error(
                op,
                ErrorKind::InvalidIr,
                "cannot split operands into groups",
            )
        })?;
        let idx = idx_r
            .map(|i| self.operand_tile(op, i).cloned())
            .collect::<R<Vec<_>>>()?;
        Ok((view, idx))
    }

    /// Element offsets (in elements from the tensor base) of every tile element, row-major;
    /// None when out of bounds.
    fn element_offsets(&self, view: &TileView, coords: &[Vec<Option<u64>>]) -> Vec<Option<u64>> {
        let shape: Vec<usize> = coords.iter().map(|c| c.len()).collect();
        let n: usize = shape.iter().product();
        let mut out = Vec::with_capacity(n);
        // Per-dimension contribution (stride × coordinate) of each position.
        let contrib: Vec<Vec<Option<u64>>> = coords
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let s = view.tensor.strides[view.dim_map[i]];
                c.iter().map(|x| x.map(|x| x * s)).collect()
            })
            .collect();
        let mut pos = vec![0usize; shape.len()];
        for _ in 0..n {
            let mut off = Some(0u64);
            for (d, &p) in pos.iter().enumerate() {
                off = match (off, contrib[d][p]) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                };
            }
            out.push(off);
            for d in (0..pos.len()).rev() {
                pos[d] += 1;
                if pos[d] < shape[d] {
                    break;
                }
                pos[d] = 0;
            }
        }
        out
    }

    /// Where the elements of the addressed tile of a view lie: the per-row offset
    /// contributions of the outer tile dimensions and the runs of the innermost one, so that
    /// loads and stores move whole runs at once instead of computing every element's offset.
    fn view_access(&self, op: OpId, c: &CudaTileOp) -> R<ViewAccess> {
        let m = self.m();
        let ops = &m.ops[op].operands;
        let n = ops.len();
        let view_pos = c
            .schema()
            .operands
            .iter()
            .position(|o| o.name == "view")
            .unwrap_or(0);
        let view_i = c.operand_groups(n).map(|g| g[view_pos].start).unwrap_or(0);
        let Value::View(view) = self.get(op, ops[view_i])? else {
            return Err(self.error(op, ErrorKind::InvalidIr, "operand is not a tile view"));
        };
        let idx_r = c.group("index", n).ok_or_else(|| {
            self.error(
                op,
                ErrorKind::InvalidIr,
                "cannot split operands into groups",
            )
        })?;
        let idx = idx_r
            .map(|i| self.operand_tile(op, i))
            .collect::<R<Vec<_>>>()?;
        self.tile_access(op, view, &idx, false)
    }

    /// [`Self::view_access`] of tile `idx` (one index tile per tile dimension) of `view`
    /// (`masked_outside`: see [`Self::view_coords`]).
    fn tile_access(&self, op: OpId, view: &TileView, idx: &[&Tile], masked_outside: bool) -> R<ViewAccess> {
        let mut coords = self.view_coords(op, view, idx, masked_outside)?;
        let stride = |i: usize| view.tensor.strides[view.dim_map[i]];
        let inner_dim = coords.len().checked_sub(1);
        let last = coords.pop();
        // Offset contribution (stride × coordinate) of each position along each outer
        // dimension.
        let outer: Vec<Vec<Option<u64>>> = coords
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let s = stride(i);
                c.into_list()
                    .into_iter()
                    .map(|x| x.map(|x| x.wrapping_mul(s)))
                    .collect()
            })
            .collect();
        let (inner, s) = match (last, inner_dim) {
            (Some(c), Some(d)) => (c, stride(d)),
            // A rank-0 tile is one element at offset 0.
            _ => (Coords::List(vec![Some(0)]), 1),
        };
        let inner_len = inner.len();
        // The common case, a unit-stride range, is one run (plus an out-of-bounds tail)
        // without visiting its elements.
        if let (Coords::Range { origin, n, size }, 1) = (&inner, s) {
            let in_bounds = size.saturating_sub(*origin).min(*n) as usize;
            let mut runs = vec![Run {
                start: 0,
                len: in_bounds,
                first: Some(*origin),
            }];
            if in_bounds < inner_len {
                runs.push(Run {
                    start: in_bounds,
                    len: inner_len - in_bounds,
                    first: None,
                });
            }
            return Ok(ViewAccess {
                base: view.tensor.base,
                elem: view.tensor.elem,
                padding: view.padding,
                outer,
                runs,
                inner_len,
            });
        }
        let inner: Vec<Option<u64>> = inner
            .into_list()
            .into_iter()
            .map(|x| x.map(|x| x.wrapping_mul(s)))
            .collect();
        let mut runs: Vec<Run> = Vec::new();
        for (p, &o) in inner.iter().enumerate() {
            match runs.last_mut() {
                Some(r) if r.first.is_none() && o.is_none() => r.len += 1,
                Some(Run {
                    first: Some(f),
                    len,
                    ..
                }) if o == Some(f.wrapping_add(*len as u64)) => *len += 1,
                _ => runs.push(Run {
                    start: p,
                    len: 1,
                    first: o,
                }),
            }
        }
        Ok(ViewAccess {
            base: view.tensor.base,
            elem: view.tensor.elem,
            padding: view.padding,
            outer,
            runs,
            inner_len,
        })
    }

    fn load_view(&mut self, op: OpId, c: &CudaTileOp) -> R<Tile> {
        let acc = self.view_access(op, c)?;
        self.load_access(op, acc)
    }

    /// Reads the tile `acc` places (out-of-bounds elements read the padding value); its shape
    /// and element type are those of result 0 of `op`.
    fn load_access(&mut self, op: OpId, acc: ViewAccess) -> R<Tile> {
        let (shape, elem) = self.result_tile_type(op, 0)?;
        if elem != TileElem::Num(acc.elem)
            || shape.iter().product::<usize>() != acc.rows() * acc.inner_len
        {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!(
                    "result {} does not match the {} tile of {} elements the access reads",
                    self.m()
                        .types
                        .display(self.m().value_type(self.m().ops[op].results[0]), true),
                    acc.elem,
                    acc.rows() * acc.inner_len
                ),
            ));
        }
        let t = acc.elem;
        let pad = Tile::padding_bits(t, acc.padding);
        let pad_tile = Tile::from_bits(vec![1], TileElem::Num(t), [pad]);
        let mut data = Data::with_capacity(elem, acc.rows() * acc.inner_len);
        let esize = t.storage_bytes() as usize;
        let bytewise = t.bit_width() >= 8;
        let mut scratch = Vec::new();
        let mut rows = acc.row_offsets();
        while let Some(row) = rows.next_row() {
            let Some(row) = row else {
                data.extend_repeat(&pad_tile.data, acc.inner_len);
                continue;
            };
            for run in &acc.runs {
                let Some(first) = run.first else {
                    data.extend_repeat(&pad_tile.data, run.len);
                    continue;
                };
                let start = row.wrapping_add(first);
                if bytewise {
                    // One read per run. A whole contiguous row faults as one access; a run
                    // inside a row is re-read element by element on a fault, so that the error
                    // names the first element that faults.
                    let addr = acc.base.wrapping_add(start.wrapping_mul(esize as u64));
                    match self
                        .mem
                        .read_with(addr, run.len * esize, &mut scratch, |b| {
                            decode_bytes(t, b, &mut data)
                        }) {
                        Ok(()) => continue,
                        Err(e) if acc.runs.len() == 1 || run.len == 1 => {
                            return Err(self.mem_error(op, e))
                        }
                        Err(_) => {}
                    }
                }
                for k in 0..run.len as u64 {
                    let bits = self.read_elem(op, t, acc.base, start.wrapping_add(k), false)?;
                    let one = Tile::from_bits(vec![1], TileElem::Num(t), [bits]);
                    data.extend_from(&one.data, 0..1);
                }
            }
        }
        Ok(Tile { shape, elem, data })
    }

    fn store_view(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let acc = self.view_access(op, c)?;
        let value = self.m().ops[op].operands[0];
        self.store_access(op, acc, value)
    }

    /// Writes tile `value` to the elements `acc` places (out-of-bounds ones are skipped).
    fn store_access(&mut self, op: OpId, acc: ViewAccess, value: ValueId) -> R<()> {
        let t = acc.elem;
        let n = acc.rows() * acc.inner_len;
        let esize = t.storage_bytes() as usize;
        let bytewise = t.bit_width() >= 8;
        // Bit patterns for the element-by-element path of sub-byte types.
        let bits = {
            let tile = self.tile(op, value)?;
            if tile.elem != TileElem::Num(t) {
                return Err(self.error(
                    op,
                    ErrorKind::InvalidIr,
                    format!("stores a tile of {:?} into memory of {t}", tile.elem),
                ));
            }
            if tile.len() != n {
                return Err(self.error(
                    op,
                    ErrorKind::InvalidIr,
                    format!("tile has {} elements, view tile {n}", tile.len()),
                ));
            }
            if bytewise {
                Vec::new()
            } else {
                tile.to_bits()
            }
        };
        let mut rows = acc.row_offsets();
        let mut r = 0usize;
        while let Some(row) = rows.next_row() {
            let row_start = r * acc.inner_len;
            r += 1;
            let Some(row) = row else { continue };
            for run in &acc.runs {
                let Some(first) = run.first else { continue };
                let start = row.wrapping_add(first);
                let k0 = row_start + run.start;
                if bytewise {
                    // One write per run, encoded straight into memory; see load_view for how
                    // faults are reported.
                    let addr = acc.base.wrapping_add(start.wrapping_mul(esize as u64));
                    let Some(Value::Tile(tile)) = &self.env[value.index()] else {
                        unreachable!("checked above")
                    };
                    match self.mem.write_with(addr, run.len * esize, |dst| {
                        encode_into(tile, k0..k0 + run.len, dst)
                    }) {
                        Ok(()) => continue,
                        Err(e) if acc.runs.len() == 1 || run.len == 1 => {
                            return Err(self.mem_error(op, e))
                        }
                        Err(_) => {}
                    }
                }
                for k in 0..run.len {
                    let b = if bytewise {
                        self.tile(op, value)?.bits_at(k0 + k)
                    } else {
                        bits[k0 + k]
                    };
                    self.write_elem(op, t, acc.base, start.wrapping_add(k as u64), b, false)?;
                }
            }
        }
        Ok(())
    }

    fn mem_error(&self, op: OpId, e: MemError) -> InterpError {
        let (k, m) = mem_err(e);
        self.error(op, k, m)
    }

    /// Reads element `index` (in elements) of an array of `t` at `base` (4-bit types packed
    /// two per byte, the lower index in the low nibble; `base` may then address a high nibble,
    /// see [`SubBytePtr`]). Atomic reads are not plain reads for race detection.
    fn read_elem(&mut self, op: OpId, t: NumType, base: u64, index: u64, atomic: bool) -> R<u64> {
        if is_sub_byte(t) {
            let p = SubBytePtr::from_nibble_index(
                SubBytePtr::decode(base).nibble_index().wrapping_add(index),
            );
            let mut b = [0u8];
            self.mem
                .read(p.byte, &mut b, atomic)
                .map_err(|e| self.mem_error(op, e))?;
            return Ok(((b[0] >> (4 * p.high as u32)) & 0xf) as u64);
        }
        let size = t.storage_bytes() as usize;
        let mut b = [0u8; 8];
        self.mem
            .read(
                base.wrapping_add(index.wrapping_mul(size as u64)),
                &mut b[..size],
                atomic,
            )
            .map_err(|e| self.mem_error(op, e))?;
        let v = u64::from_le_bytes(b);
        Ok(if t == NumType::I1 { (v != 0) as u64 } else { v })
    }

    fn write_elem(
        &mut self,
        op: OpId,
        t: NumType,
        base: u64,
        index: u64,
        bits: u64,
        atomic: bool,
    ) -> R<()> {
        if is_sub_byte(t) {
            // A 4-bit store rewrites its whole byte (memory is byte-addressed), so it counts
            // as a write of that byte: two blocks storing the two halves of one byte race.
            let p = SubBytePtr::from_nibble_index(
                SubBytePtr::decode(base).nibble_index().wrapping_add(index),
            );
            let mut b = [0u8];
            self.mem
                .peek(p.byte, &mut b)
                .map_err(|e| self.mem_error(op, e))?;
            let sh = 4 * p.high as u32;
            b[0] = (b[0] & !(0xf << sh)) | (((bits & 0xf) as u8) << sh);
            return self
                .mem
                .write(p.byte, &b, atomic)
                .map_err(|e| self.mem_error(op, e));
        }
        let size = t.storage_bytes() as usize;
        let b = bits.to_le_bytes();
        self.mem
            .write(
                base.wrapping_add(index.wrapping_mul(size as u64)),
                &b[..size],
                atomic,
            )
            .map_err(|e| self.mem_error(op, e))
    }

    /// Reports pointers of `a` (a tile of pointers to a 4-bit type) that address the high
    /// nibble of a byte: they have no byte address, so `what` cannot be done with them.
    fn check_whole_bytes(&self, op: OpId, a: &Tile, what: &str) -> R<()> {
        let Data::Ptr(p) = &a.data else { return Ok(()) };
        if let Some(i) = p.iter().position(|&v| SubBytePtr::decode(v).high) {
            let b = SubBytePtr::decode(p[i]);
            return Err(self.error(
                op,
                ErrorKind::UndefinedBehavior,
                format!(
                    "pointer {:?} addresses the high nibble (odd {} element) of byte {:#x} and {what} (undefined behavior)",
                    unravel(i, &a.shape),
                    a.num(),
                    b.byte
                ),
            ));
        }
        Ok(())
    }

    /// Rejects integer addresses that collide with the high-nibble flag of 4-bit pointers.
    fn check_byte_addresses(&self, op: OpId, it: impl Iterator<Item = u64>) -> R<()> {
        for v in it {
            if v & SubBytePtr::HIGH != 0 {
                return Err(self.error(
                    op,
                    ErrorKind::Unsupported,
                    format!(
                        "address {v:#x} is outside the 63-bit address space the interpreter models for pointers to 4-bit elements"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The layout rules of tensor views of 4-bit elements (checked at run time because shapes,
    /// strides and the base may be dynamic): the base starts on a byte, some dimension has
    /// stride 1, and every stride-1 dimension has an even size (so rows start on bytes).
    fn check_sub_byte_view(
        &self,
        op: OpId,
        elem: NumType,
        base: u64,
        shape: &[u64],
        strides: &[u64],
    ) -> R<()> {
        let b = SubBytePtr::decode(base);
        if b.high {
            return Err(self.error(
                op,
                ErrorKind::UndefinedBehavior,
                format!(
                    "the base pointer addresses the high nibble (odd element) of byte {:#x}; a tensor_view of {elem} must start on a byte boundary (undefined behavior)",
                    b.byte
                ),
            ));
        }
        if shape.is_empty() {
            return Ok(());
        }
        if !strides.contains(&1) {
            return Err(self.error(
                op,
                ErrorKind::UndefinedBehavior,
                format!(
                    "{elem} views must have at least one dimension with stride = 1, got strides {strides:?} (undefined behavior)"
                ),
            ));
        }
        if let Some(d) = (0..shape.len()).find(|&d| strides[d] == 1 && shape[d] % 2 != 0) {
            return Err(self.error(
                op,
                ErrorKind::UndefinedBehavior,
                format!(
                    "{elem} view dimensions with stride = 1 must have an even size, dimension {d} has size {} (undefined behavior)",
                    shape[d]
                ),
            ));
        }
        Ok(())
    }

    fn optional_operand(&self, op: OpId, c: &CudaTileOp, name: &str) -> R<Option<Tile>> {
        let n = self.m().ops[op].operands.len();
        match c.group(name, n) {
            Some(r) if !r.is_empty() => Ok(Some(self.operand_tile(op, r.start)?.clone())),
            _ => Ok(None),
        }
    }

    fn pointers(&self, op: OpId, i: usize) -> R<(Vec<u64>, NumType, Vec<usize>)> {
        let p = self.operand_tile(op, i)?;
        let Data::Ptr(v) = &p.data else {
            return Err(self.error(op, ErrorKind::InvalidIr, "expected a pointer tile"));
        };
        Ok((v.clone(), p.num(), p.shape.clone()))
    }

    fn load_ptr(&mut self, op: OpId, c: &CudaTileOp) -> R<Tile> {
        let (ptrs, t, shape) = self.pointers(op, 0)?;
        let mask = self.optional_operand(op, c, "mask")?;
        let pad = self.optional_operand(op, c, "paddingValue")?;
        let mut bits = Vec::with_capacity(ptrs.len());
        for (i, &p) in ptrs.iter().enumerate() {
            let on = mask
                .as_ref()
                .is_none_or(|m| m.ints()[if m.len() == 1 { 0 } else { i }] != 0);
            if on {
                bits.push(self.read_elem(op, t, p, 0, false)?);
            } else {
                // Masked lanes read the padding value (zero when none is given: the spec
                // leaves them undefined).
                bits.push(
                    pad.as_ref()
                        .map(|pt| pt.bits_at(if pt.len() == 1 { 0 } else { i }))
                        .unwrap_or(0),
                );
            }
        }
        Ok(Tile::from_bits(shape, TileElem::Num(t), bits))
    }

    fn store_ptr(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let (ptrs, t, _) = self.pointers(op, 0)?;
        let value = self.operand_tile(op, 1)?.clone();
        let mask = self.optional_operand(op, c, "mask")?;
        for (i, &p) in ptrs.iter().enumerate() {
            let on = mask
                .as_ref()
                .is_none_or(|m| m.ints()[if m.len() == 1 { 0 } else { i }] != 0);
            if on {
                let v = value.bits_at(if value.len() == 1 { 0 } else { i });
                self.write_elem(op, t, p, 0, v, false)?;
            }
        }
        Ok(())
    }

    /// `atomic_cas_tko` / `atomic_rmw_tko`, lanes in row-major order, one after another.
    fn atomic_ptr(&mut self, op: OpId, c: &CudaTileOp) -> R<Tile> {
        let (ptrs, t, shape) = self.pointers(op, 0)?;
        let mask = self.optional_operand(op, c, "mask")?;
        let (cmp, arg) = if c.op == CtOp::AtomicCasTko {
            (
                Some(self.operand_tile(op, 1)?.clone()),
                self.operand_tile(op, 2)?.clone(),
            )
        } else {
            (None, self.operand_tile(op, 1)?.clone())
        };
        let mode = if c.op == CtOp::AtomicRmwTko {
            Some(self.enum_attr::<AtomicRmwMode>(op, "mode")?)
        } else {
            None
        };
        let mut out = Vec::with_capacity(ptrs.len());
        for (i, &p) in ptrs.iter().enumerate() {
            let on = mask
                .as_ref()
                .is_none_or(|m| m.ints()[if m.len() == 1 { 0 } else { i }] != 0);
            let a = arg.bits_at(if arg.len() == 1 { 0 } else { i });
            if !on {
                // Masked CAS lanes return `cmp`; masked RMW lanes are implementation defined
                // (zero here).
                out.push(
                    cmp.as_ref()
                        .map(|ct| ct.bits_at(if ct.len() == 1 { 0 } else { i }))
                        .unwrap_or(0),
                );
                continue;
            }
            let old = self.read_elem(op, t, p, 0, true)?;
            let new = match (&cmp, mode) {
                (Some(ct), _) => {
                    if old == ct.bits_at(if ct.len() == 1 { 0 } else { i }) {
                        Some(a)
                    } else {
                        None
                    }
                }
                (None, Some(mode)) => Some(self.lift(op, rmw(mode, t, old, a))?),
                _ => None,
            };
            if let Some(new) = new {
                self.write_elem(op, t, p, 0, new, true)?;
            }
            out.push(old);
        }
        Ok(Tile::from_bits(shape, TileElem::Num(t), out))
    }

    fn atomic_red_view(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let (view, idx) = self.view_and_indices(op, c)?;
        let n = self.m().ops[op].operands.len();
        let vi = c
            .group("value", n)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, "missing value operand"))?
            .start;
        let value = self.operand_tile(op, vi)?.clone();
        let mode = self.enum_attr::<AtomicRmwMode>(op, "mode")?;
        let idx_refs: Vec<&Tile> = idx.iter().collect();
        let coords: Vec<Vec<Option<u64>>> = self
            .view_coords(op, &view, &idx_refs, false)?
            .into_iter()
            .map(Coords::into_list)
            .collect();
        let offs = self.element_offsets(&view, &coords);
        let t = view.tensor.elem;
        for (i, o) in offs.iter().enumerate() {
            if let Some(o) = o {
                let old = self.read_elem(op, t, view.tensor.base, *o, true)?;
                let new = self.lift(op, rmw(mode, t, old, value.bits_at(i)))?;
                self.write_elem(op, t, view.tensor.base, *o, new, true)?;
            }
        }
        Ok(())
    }
}

/// The new value of an atomic read-modify-write (bit patterns of type `t`).
fn rmw(mode: AtomicRmwMode, t: NumType, old: u64, arg: u64) -> Result<u64, String> {
    let w = t.bit_width();
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let s = |x: u64| canon(w, x as i64);
    Ok(match mode {
        AtomicRmwMode::And => old & arg,
        AtomicRmwMode::Or => old | arg,
        AtomicRmwMode::Xor => old ^ arg,
        AtomicRmwMode::Add => old.wrapping_add(arg) & mask,
        AtomicRmwMode::Max => s(old).max(s(arg)) as u64 & mask,
        AtomicRmwMode::Min => s(old).min(s(arg)) as u64 & mask,
        AtomicRmwMode::UMax => old.max(arg),
        AtomicRmwMode::UMin => old.min(arg),
        AtomicRmwMode::Xchg => arg,
        AtomicRmwMode::AddF => {
            let a = Tile::from_bits(vec![], TileElem::Num(t), [old]);
            let b = Tile::from_bits(vec![], TileElem::Num(t), [arg]);
            arith::float_binary(FBin::Add, &a, &b, RoundingMode::NearestEven, false)?.bits_at(0)
        }
    })
}

/// Appends the elements encoded in `bytes` (contiguous, little-endian, ≥ 8-bit types).
pub(crate) fn decode_bytes(t: NumType, bytes: &[u8], out: &mut Data) {
    match (t, out) {
        (NumType::I1, Data::Int(v)) => v.extend(bytes.iter().map(|&b| -((b != 0) as i64))),
        (NumType::I8, Data::Int(v)) => v.extend(bytes.iter().map(|&b| b as i8 as i64)),
        (NumType::I16, Data::Int(v)) => v.extend(
            bytes
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]) as i64),
        ),
        (NumType::I32, Data::Int(v)) => v.extend(
            bytes
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64),
        ),
        (NumType::I64, Data::Int(v)) => v.extend(
            bytes
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap())),
        ),
        (NumType::F32 | NumType::TF32, Data::F32(v)) => v.extend(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        ),
        (NumType::F16, Data::F32(v)) => v.extend(
            bytes
                .chunks_exact(2)
                .map(|c| crate::float::f16_to_f32(u16::from_le_bytes([c[0], c[1]]))),
        ),
        (NumType::BF16, Data::F32(v)) => v.extend(
            bytes
                .chunks_exact(2)
                .map(|c| crate::float::bf16_to_f32(u16::from_le_bytes([c[0], c[1]]))),
        ),
        (NumType::F64, Data::F64(v)) => v.extend(
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap())),
        ),
        (t, Data::F32(v)) => v.extend(
            bytes
                .iter()
                .map(|&b| crate::float::bits_to_f32_storage(t, b as u64)),
        ),
        _ => unreachable!("storage class follows the element type"),
    }
}

/// The memory bytes of a tile (i1 as one byte 0/1; 4-bit types packed two per byte, the
/// lower index in the low nibble, an odd last element padded with a zero nibble).
pub(crate) fn encode_tile_bytes(t: &Tile) -> Result<Vec<u8>, String> {
    let nt = t.num();
    if is_sub_byte(nt) {
        let mut out = vec![0u8; t.len().div_ceil(2)];
        for i in 0..t.len() {
            out[i / 2] |= ((t.bits_at(i) & 0xf) as u8) << (4 * (i % 2));
        }
        return Ok(out);
    }
    if nt.bit_width() < 8 && nt != NumType::I1 {
        return Err(format!("{nt} elements are not byte-addressable"));
    }
    let mut out = vec![0u8; t.len() * nt.storage_bytes() as usize];
    encode_into(t, 0..t.len(), &mut out);
    Ok(out)
}

/// Writes the memory bytes of elements `range` of `t` (a ≥ 8-bit element type, or i1 as one
/// byte 0/1) into `dst`, which holds exactly that many elements.
pub(crate) fn encode_into(t: &Tile, range: std::ops::Range<usize>, dst: &mut [u8]) {
    let nt = t.num();
    let size = nt.storage_bytes() as usize;
    match (&t.data, nt) {
        (Data::F32(v), NumType::F32 | NumType::TF32) => {
            for (d, x) in dst.chunks_exact_mut(4).zip(&v[range]) {
                d.copy_from_slice(&x.to_le_bytes());
            }
        }
        (Data::F64(v), _) => {
            for (d, x) in dst.chunks_exact_mut(8).zip(&v[range]) {
                d.copy_from_slice(&x.to_le_bytes());
            }
        }
        _ => {
            for (d, i) in dst.chunks_exact_mut(size).zip(range) {
                d.copy_from_slice(&t.bits_at(i).to_le_bytes()[..size]);
            }
        }
    }
}

/// The tensor coordinates of the positions along one tile dimension.
enum Coords {
    /// `origin + t` for `t` in `0..n`, out of bounds from `size` on.
    Range { origin: u64, n: u64, size: u64 },
    /// One entry per position (gather dimensions); None when out of bounds.
    List(Vec<Option<u64>>),
}

impl Coords {
    fn len(&self) -> usize {
        match self {
            Coords::Range { n, .. } => *n as usize,
            Coords::List(v) => v.len(),
        }
    }

    fn all_out_of_bounds(&self) -> bool {
        match self {
            Coords::Range { origin, n, size } => *n == 0 || origin >= size,
            Coords::List(v) => v.iter().all(|x| x.is_none()),
        }
    }

    fn into_list(self) -> Vec<Option<u64>> {
        match self {
            Coords::Range { origin, n, size } => (0..n)
                .map(|t| Some(origin + t).filter(|&r| r < size))
                .collect(),
            Coords::List(v) => v,
        }
    }
}

/// A maximal stretch of the innermost tile dimension whose elements are either all out of
/// bounds or consecutive in memory.
struct Run {
    /// First position along the innermost dimension.
    start: usize,
    /// Number of positions.
    len: usize,
    /// Element offset (within the row) of the first position; None when out of bounds.
    first: Option<u64>,
}

/// The memory placement of one tile of a view (see `BlockExec::view_access`).
struct ViewAccess {
    base: u64,
    elem: NumType,
    padding: Option<tileir_ir::PaddingValue>,
    /// Per outer tile dimension, the offset contribution of each position (None: out of
    /// bounds).
    outer: Vec<Vec<Option<u64>>>,
    runs: Vec<Run>,
    inner_len: usize,
}

impl ViewAccess {
    /// Number of rows (product of the outer dimensions).
    fn rows(&self) -> usize {
        self.outer.iter().map(|c| c.len()).product()
    }

    fn row_offsets(&self) -> RowOffsets<'_> {
        RowOffsets {
            outer: &self.outer,
            pos: vec![0; self.outer.len()],
            left: self.rows(),
        }
    }
}

/// Iterates over the rows of a view tile in row-major order, yielding each row's element
/// offset (None when any outer coordinate is out of bounds).
struct RowOffsets<'a> {
    outer: &'a [Vec<Option<u64>>],
    pos: Vec<usize>,
    left: usize,
}

impl RowOffsets<'_> {
    fn next_row(&mut self) -> Option<Option<u64>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let mut off = Some(0u64);
        for (d, &p) in self.pos.iter().enumerate() {
            off = match (off, self.outer[d][p]) {
                (Some(a), Some(b)) => Some(a.wrapping_add(b)),
                _ => None,
            };
        }
        for d in (0..self.pos.len()).rev() {
            self.pos[d] += 1;
            if self.pos[d] < self.outer[d].len() {
                break;
            }
            self.pos[d] = 0;
        }
        Some(off)
    }
}

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

pub(crate) fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Tile(_) => "a tile",
        Value::Token => "a token",
        Value::TensorView(_) => "a tensor_view",
        Value::View(_) => "a tile view",
        Value::MemRef(_) => "a memref",
        Value::Async(_) => "an async pipeline value",
        Value::Smem(_) => "a shared-memory buffer",
    }
}

/// Checks an `assume` predicate on a tile; Some(reason) when violated.
fn check_assume(p: &AssumePredicate, t: &Tile) -> Option<String> {
    // Pointers to 4-bit elements are compared in half bytes (every bound and divisor
    // doubled), so that one addressing the middle of a byte is not a multiple of anything.
    let half_bytes = matches!(t.data, Data::Ptr(_)) && is_sub_byte(t.num());
    let scale: i128 = if half_bytes { 2 } else { 1 };
    let vals: Vec<i128> = match &t.data {
        Data::Int(v) => v.iter().map(|&x| x as i128).collect(),
        Data::Ptr(v) if half_bytes => v
            .iter()
            .map(|&x| SubBytePtr::decode(x).nibble_index() as i128)
            .collect(),
        Data::Ptr(v) => v.iter().map(|&x| x as i128).collect(),
        _ => return None,
    };
    let shown = |v: i128| -> String {
        if half_bytes {
            format!("{}{}", v / 2, if v % 2 == 1 { ".5" } else { "" })
        } else {
            v.to_string()
        }
    };
    match p {
        AssumePredicate::DivBy {
            divisor,
            every_along,
        } => {
            let d = *divisor as i128 * scale;
            let check = |i: usize| -> bool {
                match every_along {
                    None => true,
                    Some((every, along)) => {
                        let idx = unravel(i, &t.shape);
                        *every > 0
                            && idx
                                .get(*along as usize)
                                .is_some_and(|x| *x as i64 % every == 0)
                    }
                }
            };
            let bad = vals
                .iter()
                .enumerate()
                .find(|(i, v)| check(*i) && d != 0 && **v % d != 0)?;
            Some(format!(
                "element {:?} = {} is not a multiple of {}",
                unravel(bad.0, &t.shape),
                shown(*bad.1),
                d / scale
            ))
        }
        AssumePredicate::Bounded(lb, ub) => {
            let bad = vals.iter().enumerate().find(|(_, &v)| {
                lb.is_some_and(|l| v < l as i128 * scale)
                    || ub.is_some_and(|u| v > u as i128 * scale)
            })?;
            Some(format!(
                "element {:?} = {} is out of bounds",
                unravel(bad.0, &t.shape),
                shown(*bad.1)
            ))
        }
        AssumePredicate::SameElements(groups) => {
            let st = shape::strides_of(&t.shape);
            for (i, v) in vals.iter().enumerate() {
                let idx = unravel(i, &t.shape);
                // The first element of this element's group.
                let g: usize = idx
                    .iter()
                    .enumerate()
                    .map(|(d, &x)| {
                        let n = groups.get(d).copied().unwrap_or(1).max(1) as usize;
                        (x / n * n) * st[d]
                    })
                    .sum();
                if vals[g] != *v {
                    return Some(format!(
                        "element {idx:?} = {} differs from the first element of its group ({})",
                        shown(*v),
                        shown(vals[g])
                    ));
                }
            }
            None
        }
    }
}
