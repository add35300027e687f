//! The `tree` variant of `reduce`: registers first, then warp shuffles, then warps.
//!
//! cuda_tile leaves the combination order of `reduce` unspecified (only deterministic), so
//! partial results may be combined in any grouping. Along the reduced dimension `d` of a
//! blocked layout a thread's registers, the lanes of a warp and the warps of the CTA each
//! cover a separate range of coordinates:
//!
//! 1. in each thread, registers that differ only along `d` fold into one partial (starting
//!    from the identity);
//! 2. butterfly shuffles (`shfl.sync.bfly`) over the lane bits that move along `d` combine
//!    the partials of a warp; lanes that replicate others along `d` are left out;
//! 3. each warp's partials go to shared memory (one slot per warp position along `d`, written
//!    only by threads that own real elements), and each thread reads and combines the slots
//!    of the result elements its result layout gives it.
//!
//! Every step calls the op's own body, so any combiner works; the result is deterministic
//! because the grouping depends only on the layout.

use crate::lower_ct::{elem_llvm, reg_offsets, smem_elem_bytes};
use crate::writer::FuncWriter;
use std::collections::BTreeMap;
use tileir_ir::{Attr, CudaTileOp, Layout, NumType, OpId, TileElem};

type R<T> = Result<T, String>;

/// Why the tree variant cannot lower this reduce (None: it applies).
pub(crate) fn tree_rejects(w: &FuncWriter<'_>, op: OpId, _c: &CudaTileOp) -> Option<String> {
    for &v in &w.m.ops[op].operands {
        let t = w.val_ty(v);
        match t.elem {
            TileElem::Ptr(_) => return Some("pointer elements cannot be shuffled".into()),
            TileElem::Num(NumType::I4 | NumType::F4E2M1FN) => return Some("4-bit elements cannot be shuffled".into()),
            _ => {}
        }
        if t.layout.is_none() {
            return Some("the operand has no layout".into());
        }
    }
    None
}

impl FuncWriter<'_> {
    /// A value of LLVM type `lt` exchanged with lane `lane ^ mask` of the warp.
    fn shuffle_xor(&mut self, lt: &str, v: &str, mask: u32) -> String {
        self.declare("declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)");
        let shfl = |w: &mut Self, x: &str| w.emit("sh", format!("call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 {x}, i32 {mask}, i32 31)"));
        self.shuffle_words(lt, v, &shfl)
    }

    /// A value of LLVM type `lt` read from lane `lane` (an i32 value) of the warp.
    pub(crate) fn shuffle_from_lane(&mut self, lt: &str, v: &str, lane: &str) -> String {
        self.declare("declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)");
        let shfl = |w: &mut Self, x: &str| w.emit("sh", format!("call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 {x}, i32 {lane}, i32 31)"));
        self.shuffle_words(lt, v, &shfl)
    }

    /// `v` moved through a 32-bit shuffle `shfl` (two for 64-bit types).
    fn shuffle_words(&mut self, lt: &str, v: &str, shfl: &dyn Fn(&mut Self, &str) -> String) -> String {
        match lt {
            "i32" => shfl(self, v),
            "float" => {
                let b = self.emit("sb", format!("bitcast float {v} to i32"));
                let r = shfl(self, &b);
                self.emit("sb", format!("bitcast i32 {r} to float"))
            }
            "i64" | "double" => {
                let b = if lt == "double" { self.emit("sb", format!("bitcast double {v} to i64")) } else { v.to_string() };
                let lo = self.emit("sb", format!("trunc i64 {b} to i32"));
                let hi0 = self.emit("sb", format!("lshr i64 {b}, 32"));
                let hi = self.emit("sb", format!("trunc i64 {hi0} to i32"));
                let (rlo, rhi) = (shfl(self, &lo), shfl(self, &hi));
                let zl = self.emit("sb", format!("zext i32 {rlo} to i64"));
                let zh = self.emit("sb", format!("zext i32 {rhi} to i64"));
                let sh = self.emit("sb", format!("shl i64 {zh}, 32"));
                let r = self.emit("sb", format!("or i64 {sh}, {zl}"));
                if lt == "double" { self.emit("sb", format!("bitcast i64 {r} to double")) } else { r }
            }
            "half" | "bfloat" => {
                let b = self.emit("sb", format!("bitcast {lt} {v} to i16"));
                let z = self.emit("sb", format!("zext i16 {b} to i32"));
                let r = shfl(self, &z);
                let t = self.emit("sb", format!("trunc i32 {r} to i16"));
                self.emit("sb", format!("bitcast i16 {t} to {lt}"))
            }
            // i1, i8, i16
            other => {
                let z = self.emit("sb", format!("zext {other} {v} to i32"));
                let r = shfl(self, &z);
                self.emit("sb", format!("trunc i32 {r} to {other}"))
            }
        }
    }

    /// Applies the reduce body to (element, accumulator) pairs of every operand.
    fn combine(&mut self, body: tileir_ir::BlockId, elems: &[String], accs: &[String]) -> R<Vec<String>> {
        let mut args = Vec::new();
        for (e, a) in elems.iter().zip(accs) {
            args.push(vec![e.clone()]);
            args.push(vec![a.clone()]);
        }
        let (_, vals) = self.inline_block(body, &args)?.ok_or("reduction body without yield")?;
        vals.into_iter().map(|v| v.into_iter().next().ok_or_else(|| "reduction body yields too few values".to_string())).collect()
    }

    pub(crate) fn reduce_tree(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let m = self.m;
        let data = m.ops[op].clone();
        let d = c.int("dim").ok_or("missing dim")? as usize;
        let Some(Attr::Array(ids)) = c.get("identities") else { return Err("missing identities".into()) };
        let body = m.entry_block(op, 0).ok_or("missing body")?;
        let st = self.val_ty(data.operands[0]);
        let layout = st.layout.clone().ok_or("no layout")?;
        let shape = st.shape.clone();
        let elem_tys: Vec<TileElem> = data.operands.iter().map(|&v| self.val_ty(v).elem).collect();
        let lts: Vec<&'static str> = elem_tys.iter().map(|&e| elem_llvm(e)).collect::<R<_>>()?;
        let identities = self.identities(ids, &elem_tys)?;
        let mut inputs = Vec::new();
        for &v in &data.operands {
            inputs.push(self.elems(v)?);
        }

        // 1. In-thread: group registers by their offsets outside `d`.
        let offsets = reg_offsets(&layout, &shape);
        let mut groups: BTreeMap<Vec<i64>, Vec<usize>> = BTreeMap::new();
        for (r, off) in offsets.iter().enumerate() {
            let mut key = off.clone();
            key.remove(d);
            groups.entry(key).or_default().push(r);
        }
        let mut partials: Vec<(Vec<i64>, usize, Vec<String>)> = Vec::new(); // (key, first reg, accs)
        for (key, regs) in &groups {
            let mut accs = identities.clone();
            for &r in regs {
                let elems: Vec<String> = inputs.iter().map(|e| e[r].clone()).collect();
                accs = self.combine(body, &elems, &accs)?;
            }
            partials.push((key.clone(), regs[0], accs));
        }

        let Layout::Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, order } = &layout else {
            return self.reduce_fragments(op, d, &layout, &shape, body, &lts, partials);
        };
        // 2. Lanes: bits of the lane id that move along `d`, up to the tile's extent (lanes
        //    past it replicate others and are left out).
        let lane_div: u32 = order.iter().take_while(|&&o| o as usize != d).map(|&o| tpw[o as usize]).product();
        let real_lanes = (tpw[d] as i64).min((shape[d] / spt[d] as i64).max(1)) as u32;
        let mut masks = Vec::new();
        let mut bit = 1;
        while bit < real_lanes {
            masks.push(lane_div * bit);
            bit *= 2;
        }
        for mask in &masks {
            for p in partials.iter_mut().map(|p| &mut p.2) {
                let others: Vec<String> = p.iter().zip(&lts).map(|(v, lt)| self.shuffle_xor(lt, v, *mask)).collect::<Vec<_>>();
                *p = self.combine(body, &others, p)?;
            }
        }

        // 3. Warps: one shared-memory slot per warp position along `d`.
        let span = (spt[d] * tpw[d]) as i64;
        let slots = (wpc[d] as i64).min((shape[d] / span).max(1));
        let mut out_shape = shape.clone();
        out_shape.remove(d);
        let out_count: i64 = out_shape.iter().product::<i64>().max(1);
        let mut bases = Vec::new();
        let mut total = 0u64;
        for e in &elem_tys {
            bases.push(total);
            total += (slots as u64 * out_count as u64 * smem_elem_bytes(*e)).div_ceil(16) * 16;
        }
        self.scratch(total);
        self.barrier();
        let tc = self.thread_coords(&layout, &shape);
        let coords = self.reg_coords(&layout, &shape);
        // Writers: threads owning real elements, lane bits along `d` zero (the shuffles
        // left every lane of a group with the same value: one write is enough).
        let tid = self.thread_id();
        let mut writer = tc.valid.clone().unwrap_or_else(|| "true".into());
        if !masks.is_empty() {
            let all: u32 = masks.iter().fold(0, |a, m| a | m);
            let lane = self.emit("ln", format!("and i32 {tid}, 31"));
            let bits = self.emit("ln", format!("and i32 {lane}, {all}"));
            let z = self.emit("ln", format!("icmp eq i32 {bits}, 0"));
            writer = self.emit("ln", format!("and i1 {writer}, {z}"));
        }
        // The warp's slot: its coordinate along `d` divided by the warp's span.
        let slot = self.emit("slot", format!("udiv i32 {}.e, {span}", tc.base[d]));
        let (yes, join) = (self.new_label("rw"), self.new_label("rwj"));
        self.line(&format!("br i1 {writer}, label {yes}, label {join}"));
        self.label(&yes);
        for (_, first, accs) in &partials {
            let mut oc = coords[*first].clone();
            oc.remove(d);
            let lin = self.linear(&oc, &out_shape);
            let s = self.emit("sl", format!("mul i32 {slot}, {out_count}"));
            let idx = self.emit("sl", format!("add i32 {s}, {lin}"));
            for (i, a) in accs.iter().enumerate() {
                let off = self.emit("so", format!("mul i32 {idx}, {}", smem_elem_bytes(elem_tys[i])));
                let off = self.emit("so", format!("add i32 {off}, {}", bases[i]));
                self.smem_store(elem_tys[i], &off, a)?;
            }
        }
        self.line(&format!("br label {join}"));
        self.label(&join);
        self.barrier();
        let results = data.results.clone();
        let rcoords = self.result_coords(results[0]);
        let mut outs: Vec<Vec<String>> = vec![Vec::new(); results.len()];
        for rc in rcoords {
            let lin = self.linear(&rc, &out_shape);
            let mut accs: Option<Vec<String>> = None;
            for s in 0..slots {
                let idx = self.emit("rl", format!("add i32 {lin}, {}", s * out_count));
                let mut vals = Vec::new();
                for (i, e) in elem_tys.iter().enumerate() {
                    let off = self.emit("ro", format!("mul i32 {idx}, {}", smem_elem_bytes(*e)));
                    let off = self.emit("ro", format!("add i32 {off}, {}", bases[i]));
                    vals.push(self.smem_load(*e, &off)?);
                }
                accs = Some(match accs {
                    None => vals,
                    Some(a) => self.combine(body, &vals, &a)?,
                });
            }
            for (i, v) in accs.unwrap_or_default().into_iter().enumerate() {
                outs[i].push(v);
            }
        }
        for (i, &r) in results.iter().enumerate() {
            self.set_elems(r, std::mem::take(&mut outs[i]));
            // Every thread, replicas included, read the one slot row of a single-element result.
            if out_count == 1 && !out_shape.is_empty() {
                self.uniform_values.insert(r);
            }
        }
        Ok(())
    }

    /// Steps 2 and 3 of a reduce along the columns (dimension 1) of a fragment-layout
    /// (`Mma`) tile into its row `slice`: the lanes of a quad hold a row's columns (lane bits
    /// 0 and 1 step the column by 2 and 4), so two butterfly shuffles finish each row in
    /// every lane of its quad; warps hold separate rows and do not combine. The partials
    /// come in row order, the slice's register order.
    #[allow(clippy::type_complexity, clippy::too_many_arguments)]
    fn reduce_fragments(
        &mut self,
        op: OpId,
        d: usize,
        layout: &Layout,
        shape: &[i64],
        body: tileir_ir::BlockId,
        lts: &[&'static str],
        mut partials: Vec<(Vec<i64>, usize, Vec<String>)>,
    ) -> R<()> {
        let results = self.m.ops[op].results.clone();
        let want = Layout::Slice { dim: 1, parent: Box::new(layout.clone()) };
        if !matches!(layout, Layout::Mma { .. }) || d != 1 || shape.len() != 2 {
            return Err(format!("a reduce along dimension {d} of a tile in {layout:?} is not supported"));
        }
        if let Some(&r) = results.iter().find(|&&r| self.val_ty(r).layout.as_ref() != Some(&want)) {
            return Err(format!("a reduce of a fragment-layout tile must produce its row slice, got {:?}", self.val_ty(r).layout));
        }
        for mask in [1u32, 2] {
            // Lane bit `mask` moves the column by 2 * mask; past the tile's columns the lanes
            // hold copies.
            if 2 * mask as i64 >= shape[1] {
                break;
            }
            for p in partials.iter_mut().map(|p| &mut p.2) {
                let others: Vec<String> = p.iter().zip(lts).map(|(v, lt)| self.shuffle_xor(lt, v, mask)).collect::<Vec<_>>();
                *p = self.combine(body, &others, p)?;
            }
        }
        let mut outs: Vec<Vec<String>> = vec![Vec::new(); results.len()];
        for (_, _, accs) in partials {
            for (i, v) in accs.into_iter().enumerate() {
                outs[i].push(v);
            }
        }
        for (i, &r) in results.iter().enumerate() {
            self.set_elems(r, std::mem::take(&mut outs[i]));
        }
        Ok(())
    }
}
