//! `synthesize-debug-info-scopes`: gives every function of each `cuda_tile.module` a
//! `di_subprogram` scope, for front ends that emit plain file locations only.
//!
//! Per module, a `di_compile_unit` is made whose `di_file` comes from the module's file
//! location (`"<unknown>" in ""` without one). Each function whose location holds no
//! `di_loc` anywhere gets a `di_subprogram` (name and linkage name = the symbol name; file
//! and line from the function's file location, else the compile unit's file and line 1;
//! scope line = line), and the function and every op inside it get the location
//! `di_loc<their file location, or the function's, in the subprogram>`. File locations are
//! looked for through name, fused and call-site locations. Functions that already carry a
//! scope are left alone.
//! Plain file locations do not survive bytecode; `di_loc`s do, and the debug-info verifier
//! rules (§4.5) hold afterwards.

use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::location::{DiCompileUnit, DiFile, DiScope, DiSubprogram};
use tileir_ir::{CtOp, Diagnostics, Location, Module, OpId, OpKind};
use tileir_pass::{pass_options, Pass};

/// Registered name.
pub const NAME: &str = "synthesize-debug-info-scopes";

pass_options! {
    /// `synthesize-debug-info-scopes` has no options.
    pub struct SynthesizeDebugInfoScopesOptions {}
}

/// The pass.
pub struct SynthesizeDebugInfoScopes {
    /// Its options.
    pub options: SynthesizeDebugInfoScopesOptions,
}

impl Pass for SynthesizeDebugInfoScopes {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        synthesize(module);
        Ok(())
    }
}

/// The file position of `loc`: the first file location found inside it, looking
/// through name locations, fused locations (in order) and call sites (callee, then
/// caller), as NVIDIA 13.3's pass does; debug locations give none.
fn file_loc(loc: &Location) -> Option<(String, u32, u32)> {
    match loc {
        Location::FileLineCol { file, line, col } => Some((file.clone(), *line, *col)),
        Location::Name {
            child: Some(child), ..
        } => file_loc(child),
        Location::Fused(parts) => parts.iter().find_map(file_loc),
        Location::CallSite { callee, caller } => file_loc(callee).or_else(|| file_loc(caller)),
        _ => None,
    }
}

/// Whether `loc` contains a `di_loc` anywhere.
fn has_di_loc(loc: &Location) -> bool {
    match loc {
        Location::DiLoc { .. } => true,
        Location::Fused(parts) => parts.iter().any(has_di_loc),
        Location::Name { child, .. } => child.as_deref().is_some_and(has_di_loc),
        Location::CallSite { callee, caller } => has_di_loc(callee) || has_di_loc(caller),
        Location::Unknown | Location::FileLineCol { .. } => false,
    }
}

/// `di_file` of a path: its last component in its parent directory.
fn file_for(path: &str) -> DiFile {
    match path.rfind('/') {
        Some(i) => DiFile {
            name: path[i + 1..].to_string(),
            directory: path[..i].to_string(),
        },
        None => DiFile {
            name: path.to_string(),
            directory: String::new(),
        },
    }
}

/// Runs the pass on every `cuda_tile.module` in `m`; returns how many functions got a scope.
pub fn synthesize(m: &mut Module) -> usize {
    let modules: Vec<OpId> = m.blocks[m.body]
        .ops
        .iter()
        .copied()
        .filter(|&o| m.ops[o].kind.ct() == Some(CtOp::Module))
        .collect();
    let mut count = 0;
    for module in modules {
        let file = match file_loc(m.locs.get(m.ops[module].loc)) {
            Some((path, ..)) => file_for(&path),
            None => DiFile {
                name: "<unknown>".into(),
                directory: String::new(),
            },
        };
        let unit = DiCompileUnit { file };
        let Some(body) = m.entry_block(module, 0) else {
            continue;
        };
        for func in m.blocks[body].ops.clone() {
            if synthesize_function(m, func, &unit) {
                count += 1;
            }
        }
    }
    count
}

/// Gives `func` a subprogram scope; false if it is not a function or already has a scope.
fn synthesize_function(m: &mut Module, func: OpId, unit: &DiCompileUnit) -> bool {
    let Some(kind) = m.ops[func].kind.cuda_tile() else {
        return false;
    };
    if !kind.schema().has(traits::FUNCTION) {
        return false;
    }
    let Some(name) = kind.str("sym_name").map(str::to_string) else {
        return false;
    };
    let loc = m.locs.get(m.ops[func].loc).clone();
    if has_di_loc(&loc) {
        return false;
    }
    let (file, line, func_pos) = match file_loc(&loc) {
        Some((path, line, col)) => (file_for(&path), line, (path, line, col)),
        None => (unit.file.clone(), 1, (unit.file.name.clone(), 1, 1)),
    };
    let scope = DiScope::Subprogram(Box::new(DiSubprogram {
        file,
        line,
        name: name.clone(),
        linkage_name: name,
        compile_unit: unit.clone(),
        scope_line: Some(line),
    }));
    let mut ops = vec![func];
    let mut i = 0;
    while i < ops.len() {
        let op = ops[i];
        i += 1;
        for &r in &m.ops[op].regions {
            for &b in &m.regions[r].blocks {
                ops.extend(m.blocks[b].ops.iter().copied());
            }
        }
    }
    for op in ops {
        let (file, line, col) =
            file_loc(m.locs.get(m.ops[op].loc)).unwrap_or_else(|| func_pos.clone());
        let di = Location::DiLoc {
            loc: Box::new(Location::FileLineCol { file, line, col }),
            scope: scope.clone(),
        };
        m.ops[op].loc = m.locs.intern(di);
    }
    true
}

/// Renames the symbol op at `symbol` (a nested path, `kernels::test_func`) to `new_name`,
/// and updates the `linkageName` of the `di_subprogram`s that name it in the locations of
/// the ops inside `scope` (a nested path; the whole file when `None`), as NVIDIA's
/// `updateSymbolName` debug-info utility does. With `update_uses`, symbol references to it
/// inside the scope are renamed too. The scope must enclose the symbol.
pub fn update_symbol_name(
    m: &mut Module,
    symbol: &[&str],
    scope: Option<&[&str]>,
    new_name: &str,
    update_uses: bool,
) -> Result<(), Diagnostics> {
    use tileir_ir::{Attr, Diagnostic};
    let fail = |m: &Module, op: Option<OpId>, msg: String| {
        let loc = op.map_or(Location::Unknown, |o| m.op_location(o));
        Diagnostics::one(Diagnostic::error(loc, msg))
    };
    let Some(target) = lookup_symbol(m, symbol) else {
        return Err(fail(m, None, format!("could not find symbol op with name '@{}'", symbol.join("::@"))));
    };
    let scope_op = match scope {
        Some(path) => match lookup_symbol(m, path) {
            Some(op) => Some(op),
            None => {
                return Err(fail(m, None, format!("could not find symbol op with name '@{}'", path.join("::@"))))
            }
        },
        None => None,
    };
    if let Some(s) = scope_op {
        let mut cur = Some(target);
        while let Some(o) = cur {
            if o == s {
                break;
            }
            cur = m.parent_op(o);
        }
        if cur.is_none() {
            let d = Diagnostic::error(
                m.op_location(target),
                "attempted to update symbol names in a scope that did not enclose the symbol itself",
            )
            .with_note(m.op_location(s), "scope defined here");
            return Err(Diagnostics::one(d));
        }
    }
    let Some(old) = m.ops[target].kind.cuda_tile().and_then(|k| k.str("sym_name")).map(str::to_string)
    else {
        return Err(fail(m, Some(target), "the symbol op has no 'sym_name'".into()));
    };
    if let OpKind::CudaTile(k) = &mut m.ops[target].kind {
        k.set("sym_name", Attr::Str(new_name.to_string()));
    }
    // Every op of the scope (or of the file), the scope op included.
    let mut ops: Vec<OpId> = match scope_op {
        Some(s) => vec![s],
        None => m.blocks[m.body].ops.clone(),
    };
    let mut i = 0;
    while i < ops.len() {
        let op = ops[i];
        i += 1;
        for &r in &m.ops[op].regions {
            for &b in &m.regions[r].blocks {
                ops.extend(m.blocks[b].ops.iter().copied());
            }
        }
    }
    for op in ops {
        let loc = m.locs.get(m.ops[op].loc).clone();
        let renamed = rename_linkage(&loc, &old, new_name);
        if renamed != loc {
            m.ops[op].loc = m.locs.intern(renamed);
        }
        if update_uses && op != target {
            if let OpKind::CudaTile(k) = &mut m.ops[op].kind {
                let names: Vec<&'static str> = k
                    .schema()
                    .attrs
                    .iter()
                    .zip(k.attr_values())
                    .filter(|(_, v)| matches!(v, Some(Attr::Symbol(s)) if *s == old))
                    .map(|(a, _)| a.name)
                    .collect();
                for n in names {
                    k.set(n, Attr::Symbol(new_name.to_string()));
                }
            }
        }
    }
    Ok(())
}

/// The op at a nested symbol path, starting from the top level of the file.
fn lookup_symbol(m: &Module, path: &[&str]) -> Option<OpId> {
    let mut block = Some(m.body);
    let mut found = None;
    for name in path {
        let b = block?;
        let op = m.blocks[b].ops.iter().copied().find(|&o| {
            m.ops[o].kind.cuda_tile().and_then(|k| k.str("sym_name")) == Some(*name)
        })?;
        found = Some(op);
        block = m.entry_block(op, 0);
    }
    found
}

/// `loc` with the linkage name `old` of its subprograms replaced by `new`.
fn rename_linkage(loc: &Location, old: &str, new: &str) -> Location {
    fn scope(s: &DiScope, old: &str, new: &str) -> DiScope {
        match s {
            DiScope::Subprogram(sp) => {
                let mut sp = sp.clone();
                if sp.linkage_name == old {
                    sp.linkage_name = new.to_string();
                }
                DiScope::Subprogram(sp)
            }
            DiScope::LexicalBlock(b) => {
                let mut b = b.clone();
                b.scope = scope(&b.scope, old, new);
                DiScope::LexicalBlock(b)
            }
        }
    }
    match loc {
        Location::DiLoc { loc: l, scope: s } => Location::DiLoc {
            loc: l.clone(),
            scope: scope(s, old, new),
        },
        Location::CallSite { callee, caller } => Location::CallSite {
            callee: Box::new(rename_linkage(callee, old, new)),
            caller: Box::new(rename_linkage(caller, old, new)),
        },
        Location::Fused(parts) => {
            Location::Fused(parts.iter().map(|p| rename_linkage(p, old, new)).collect())
        }
        Location::Name { name, child } => Location::Name {
            name: name.clone(),
            child: child.as_ref().map(|c| Box::new(rename_linkage(c, old, new))),
        },
        other => other.clone(),
    }
}
