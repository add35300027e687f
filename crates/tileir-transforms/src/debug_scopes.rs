//! `synthesize-debug-info-scopes`: gives every function of each `cuda_tile.module` a
//! `di_subprogram` scope, for front ends that emit plain file locations only.
//!
//! Per module, a `di_compile_unit` is made whose `di_file` comes from the module's file
//! location (`"<unknown>" in ""` without one). Each function whose location holds no
//! `di_loc` anywhere gets a `di_subprogram` (name and linkage name = the symbol name; file
//! and line from the function's file location, else the compile unit's file and line 1;
//! scope line = line), and the function and every op inside it get the location
//! `di_loc<their file location, or the function's, in the subprogram>`. File locations are
//! looked for through name locations. Functions that already carry a scope are left alone.
//! Plain file locations do not survive bytecode; `di_loc`s do, and the debug-info verifier
//! rules (§4.5) hold afterwards.

use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::location::{DiCompileUnit, DiFile, DiScope, DiSubprogram};
use tileir_ir::{CtOp, Diagnostics, Location, Module, OpId};
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

/// The file position of `loc`, looking through name locations (MLIR's `extractFileLoc`:
/// fused, call-site and debug locations give none).
fn file_loc(loc: &Location) -> Option<(String, u32, u32)> {
    match loc {
        Location::FileLineCol { file, line, col } => Some((file.clone(), *line, *col)),
        Location::Name {
            child: Some(child), ..
        } => file_loc(child),
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
