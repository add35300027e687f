//! `cuda_tile.alloca`: memory private to the tile block, living until its block ends.
//!
//! The memory comes from the CUDA device heap, as NVIDIA's own compiler does it: thread 0
//! calls the `malloc` system call (PTX ISA, "System calls"), checks for exhaustion, and
//! hands the pointer to the CTA through shared memory; when the block that holds the
//! `alloca` ends (its terminator, a `continue`/`break` leaving it from a nested `if`, or a
//! `return`), the CTA meets at a barrier and thread 0 calls `free`. The result is an
//! ordinary global-memory pointer (generic and global addresses of global memory are the
//! same numbers), so every pointer op reads and writes it as any other. `global` allocas
//! take the same path: heap memory is global memory either way.
//!
//! `malloc` returns 16-byte aligned memory; a larger `alignment` asks for that many bytes
//! more and rounds the pointer up. The heap's size is the CUDA context's
//! `cudaLimitMallocHeapSize` (8 MiB unless the application raises it); an exhausted heap
//! fails the launch through `__assertfail`, naming the op's source location.

use crate::lower_ct::R;
use crate::writer::{FuncWriter, Lowered};
use tileir_ir::{CudaTileOp, NumType, OpId, TileElem};

/// The alignment CUDA's device `malloc` guarantees.
const MALLOC_ALIGNMENT: u64 = 16;

impl FuncWriter<'_> {
    pub(crate) fn alloca_op(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let TileElem::Ptr(pointee) = self.val_ty(data.results[0]).elem else {
            return Err("alloca's result must be a tile of pointers".into());
        };
        let num_elem = c.int("num_elem").ok_or("alloca without num_elem")?;
        let alignment = c.int("alignment").ok_or("alloca without alignment")?;
        if num_elem < 0 || alignment <= 0 || (alignment as u64).count_ones() != 1 {
            return Err(format!("alloca needs num_elem >= 0 and a power-of-two alignment, got {num_elem} and {alignment}"));
        }
        let bytes = match pointee {
            // Two 4-bit elements to a byte, as everywhere in memory.
            NumType::F4E2M1FN | NumType::I4 => (num_elem as u64).div_ceil(2),
            NumType::I1 => num_elem as u64,
            n => num_elem as u64 * n.storage_bytes() as u64,
        };
        let alignment = alignment as u64;
        let pad = alignment.saturating_sub(MALLOC_ALIGNMENT);
        // At least one byte: a zero-byte request may come back null, which reads as an
        // exhausted heap.
        let request = (bytes + pad).max(1);

        self.declare("declare ptr @malloc(i64)");
        self.scratch(16);
        // Earlier readers of the scratch buffer are done before thread 0 writes it.
        self.barrier();
        self.in_thread_zero(("al0", "alloca", "allocaj"), |w| {
            let raw = w.emit("alr", format!("call ptr @malloc(i64 {request})"));
            let null = w.emit("aln", format!("icmp eq ptr {raw}, null"));
            let (oom, stash) = (w.new_label("allocaoom"), w.new_label("allocas"));
            w.line(&format!("br i1 {null}, label {oom}, label {stash}"));
            w.label(&oom);
            w.report_failure(
                op,
                &format!(
                    "cuda_tile.alloca: the device heap has no {request} bytes left (raise cudaLimitMallocHeapSize with cuCtxSetLimit)"
                ),
            );
            w.line(&format!("br label {stash}"));
            w.label(&stash);
            let raw_bits = w.emit("alr", format!("ptrtoint ptr {raw} to i64"));
            w.smem_store(TileElem::Num(NumType::I64), "0", &raw_bits)
        })?;
        self.barrier();
        let shared_raw = self.smem_load(TileElem::Num(NumType::I64), "0")?;
        let aligned = if alignment > MALLOC_ALIGNMENT {
            let up = self.emit("ala", format!("add i64 {shared_raw}, {}", alignment - 1));
            self.emit("ala", format!("and i64 {up}, {}", -(alignment as i64)))
        } else {
            shared_raw.clone()
        };
        let ptr = self.emit("alp", format!("inttoptr i64 {aligned} to ptr addrspace(1)"));
        match self.alloca_scopes.last_mut() {
            Some(scope) => scope.push(shared_raw),
            None => return Err("alloca outside any block".into()),
        }
        self.values.insert(data.results[0], Lowered::Scalar(ptr));
        Ok(())
    }

    /// Opens the alloca scope of a block being lowered.
    pub(crate) fn open_alloca_scope(&mut self) {
        self.alloca_scopes.push(Vec::new());
    }

    /// Closes the innermost alloca scope where its block ends, freeing what it holds.
    pub(crate) fn close_alloca_scope(&mut self) {
        if let Some(scope) = self.alloca_scopes.pop() {
            self.free_allocas(&scope);
        }
    }

    /// Frees the allocas of every scope from `depth` on (their blocks are being left by a
    /// `continue`, `break` or `return`); the scopes stay open for the code after.
    pub(crate) fn free_allocas_from(&mut self, depth: usize) {
        let live: Vec<String> = self.alloca_scopes.iter().skip(depth).flatten().cloned().collect();
        self.free_allocas(&live);
    }

    /// Current nesting depth of alloca scopes.
    pub(crate) fn alloca_depth(&self) -> usize {
        self.alloca_scopes.len()
    }

    /// Every thread is done with the memory at the barrier; thread 0 then frees it.
    fn free_allocas(&mut self, raws: &[String]) {
        if raws.is_empty() {
            return;
        }
        self.declare("declare void @free(ptr)");
        self.barrier();
        self.in_thread_zero(("af0", "afree", "afreej"), |w| {
            for raw in raws {
                let p = w.emit("afp", format!("inttoptr i64 {raw} to ptr"));
                w.line(&format!("call void @free(ptr {p})"));
            }
        });
    }

    /// Runs `body` in thread 0 only: `names` are the hints of the test, the branch's block
    /// and the join after it.
    pub(crate) fn in_thread_zero<T>(&mut self, names: (&str, &str, &str), body: impl FnOnce(&mut Self) -> T) -> T {
        let tid = self.thread_id();
        let is0 = self.emit(names.0, format!("icmp eq i32 {tid}, 0"));
        let (yes, join) = (self.new_label(names.1), self.new_label(names.2));
        self.line(&format!("br i1 {is0}, label {yes}, label {join}"));
        self.label(&yes);
        let out = body(self);
        self.line(&format!("br label {join}"));
        self.label(&join);
        out
    }
}
