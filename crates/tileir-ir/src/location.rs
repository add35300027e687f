//! Source locations, interned per module. Every op carries one; passes keep them on
//! what they rewrite (a fused location when they merge ops).
//!
//! The kinds are MLIR's (`loc(unknown)`, `loc("f":1:2)`, `loc(fused[…])`, `loc("name"(…))`,
//! `loc(callsite(a at b))`) plus cuda_tile's debug-info location
//! `#cuda_tile.di_loc<loc("f":1:2) in #scope>` whose scope is a `di_subprogram` or a
//! `di_lexical_block` (dialect reference §2.2, §4.5).

use crate::entity::UniqueArena;
use crate::entity_id;
use std::fmt;

entity_id!(
    /// An interned [`Location`].
    LocId,
    "loc"
);

/// `#cuda_tile.di_file<"name" in "directory">`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DiFile {
    /// File name.
    pub name: String,
    /// Directory.
    pub directory: String,
}

/// `#cuda_tile.di_compile_unit<file = #di_file>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DiCompileUnit {
    /// The unit's main file.
    pub file: DiFile,
}

/// `#cuda_tile.di_subprogram<file = …, line = N, name = "…", linkageName = "…", compileUnit = …[, scopeLine = N]>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DiSubprogram {
    /// File of the function.
    pub file: DiFile,
    /// Line of the definition.
    pub line: u32,
    /// Source-level name.
    pub name: String,
    /// Symbol name (must equal the function's `sym_name`).
    pub linkage_name: String,
    /// Owning compile unit.
    pub compile_unit: DiCompileUnit,
    /// Line where the body's scope starts, if given.
    pub scope_line: Option<u32>,
}

/// `#cuda_tile.di_lexical_block<scope = …, file = …, line = N[, column = N]>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DiLexicalBlock {
    /// Enclosing scope.
    pub scope: DiScope,
    /// File.
    pub file: DiFile,
    /// Line.
    pub line: u32,
    /// Column, if given.
    pub column: Option<u32>,
}

/// A local debug scope: a subprogram or a lexical block inside one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DiScope {
    /// `#cuda_tile.di_subprogram<…>`.
    Subprogram(Box<DiSubprogram>),
    /// `#cuda_tile.di_lexical_block<…>`.
    LexicalBlock(Box<DiLexicalBlock>),
}

impl DiScope {
    /// The subprogram this scope resolves to (through lexical blocks).
    pub fn subprogram(&self) -> &DiSubprogram {
        match self {
            DiScope::Subprogram(s) => s,
            DiScope::LexicalBlock(b) => b.scope.subprogram(),
        }
    }
}

/// Where an op came from (MLIR's location kinds that tileir uses).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    /// No source position.
    Unknown,
    /// `loc("file":line:col)`.
    FileLineCol {
        /// File name as given by the front end.
        file: String,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
    },
    /// `loc(fused[a, b])`: an op made from several ops.
    Fused(Vec<Location>),
    /// `loc("name")` or `loc("name"(child))`: a named location.
    Name {
        /// The name.
        name: String,
        /// The wrapped location (`None` = unknown).
        child: Option<Box<Location>>,
    },
    /// `loc(callsite(callee at caller))`.
    CallSite {
        /// Where the code is.
        callee: Box<Location>,
        /// Where it was called from.
        caller: Box<Location>,
    },
    /// `#cuda_tile.di_loc<loc("f":1:2) in #scope>`: a file position inside a debug scope.
    DiLoc {
        /// The position (a `FileLineCol` in valid input).
        loc: Box<Location>,
        /// The local scope.
        scope: DiScope,
    },
}

impl Location {
    /// The first file position inside this location, if any (for diagnostics).
    pub fn file_line_col(&self) -> Option<(&str, u32, u32)> {
        match self {
            Location::Unknown => None,
            Location::FileLineCol { file, line, col } => Some((file, *line, *col)),
            Location::Fused(parts) => parts.iter().find_map(|p| p.file_line_col()),
            Location::Name { child, .. } => child.as_ref().and_then(|c| c.file_line_col()),
            Location::CallSite { callee, caller } => {
                callee.file_line_col().or_else(|| caller.file_line_col())
            }
            Location::DiLoc { loc, .. } => loc.file_line_col(),
        }
    }
}

impl fmt::Display for Location {
    /// MLIR's `loc(...)` syntax (debug-info locations print in their attribute form).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("loc(")?;
        write_inner(self, f)?;
        f.write_str(")")
    }
}

fn esc(s: &str) -> String {
    crate::print::escape_string(s)
}

/// The body of a location inside `loc(…)`.
fn write_inner(loc: &Location, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match loc {
        Location::Unknown => f.write_str("unknown"),
        Location::FileLineCol { file, line, col } => write!(f, "\"{}\":{line}:{col}", esc(file)),
        Location::Fused(parts) => {
            f.write_str("fused[")?;
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_inner(p, f)?;
            }
            f.write_str("]")
        }
        Location::Name { name, child } => {
            write!(f, "\"{}\"", esc(name))?;
            if let Some(c) = child {
                f.write_str("(")?;
                write_inner(c, f)?;
                f.write_str(")")?;
            }
            Ok(())
        }
        Location::CallSite { callee, caller } => {
            f.write_str("callsite(")?;
            write_inner(callee, f)?;
            f.write_str(" at ")?;
            write_inner(caller, f)?;
            f.write_str(")")
        }
        Location::DiLoc { loc, scope } => {
            write!(f, "#cuda_tile.di_loc<{loc} in {}>", DiScopeText(scope))
        }
    }
}

/// Inline (alias-free) text of a debug scope attribute.
struct DiScopeText<'a>(&'a DiScope);

impl fmt::Display for DiScopeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            DiScope::Subprogram(s) => write!(f, "{s}"),
            DiScope::LexicalBlock(b) => write!(f, "{b}"),
        }
    }
}

impl fmt::Display for DiFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#cuda_tile.di_file<\"{}\" in \"{}\">",
            esc(&self.name),
            esc(&self.directory)
        )
    }
}

impl fmt::Display for DiCompileUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#cuda_tile.di_compile_unit<file = {}>", self.file)
    }
}

impl fmt::Display for DiSubprogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#cuda_tile.di_subprogram<file = {}, line = {}, name = \"{}\", linkageName = \"{}\", compileUnit = {}",
            self.file,
            self.line,
            esc(&self.name),
            esc(&self.linkage_name),
            self.compile_unit
        )?;
        if let Some(s) = self.scope_line {
            write!(f, ", scopeLine = {s}")?;
        }
        f.write_str(">")
    }
}

impl fmt::Display for DiLexicalBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#cuda_tile.di_lexical_block<scope = {}, file = {}, line = {}",
            DiScopeText(&self.scope),
            self.file,
            self.line
        )?;
        if let Some(c) = self.column {
            write!(f, ", column = {c}")?;
        }
        f.write_str(">")
    }
}

/// The interner for locations of one module. Slot 0 is always `Unknown`.
#[derive(Clone)]
pub struct LocTable {
    arena: UniqueArena<LocId, Location>,
}

impl Default for LocTable {
    fn default() -> Self {
        let mut arena = UniqueArena::default();
        arena.intern(Location::Unknown);
        LocTable { arena }
    }
}

impl LocTable {
    /// The id of `Unknown`.
    pub fn unknown(&self) -> LocId {
        self.arena
            .lookup(&Location::Unknown)
            .expect("slot 0 is Unknown")
    }
    /// Interns a location.
    pub fn intern(&mut self, loc: Location) -> LocId {
        self.arena.intern(loc)
    }
    /// Interns `file:line:col`.
    pub fn file_line_col(&mut self, file: &str, line: u32, col: u32) -> LocId {
        self.intern(Location::FileLineCol {
            file: file.to_string(),
            line,
            col,
        })
    }
    /// Fuses several locations (dropping unknowns; one left is returned as is).
    pub fn fuse(&mut self, parts: &[LocId]) -> LocId {
        let mut locs: Vec<Location> = Vec::new();
        for &p in parts {
            let l = self.get(p).clone();
            if l != Location::Unknown && !locs.contains(&l) {
                locs.push(l);
            }
        }
        match locs.len() {
            0 => self.unknown(),
            1 => self.intern(locs.remove(0)),
            _ => self.intern(Location::Fused(locs)),
        }
    }
    /// Copies location `id` of `other` into this table.
    pub fn import(&mut self, other: &LocTable, id: LocId) -> LocId {
        self.intern(other.get(id).clone())
    }

    /// The location behind `id` (Unknown when out of range).
    pub fn get(&self, id: LocId) -> &Location {
        static UNKNOWN: Location = Location::Unknown;
        self.arena.get(id).unwrap_or(&UNKNOWN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_kinds_print_and_resolve_a_file_position() {
        let file = DiFile {
            name: "k.py".into(),
            directory: "/d".into(),
        };
        let sp = DiSubprogram {
            file: file.clone(),
            line: 1,
            name: "k".into(),
            linkage_name: "k".into(),
            compile_unit: DiCompileUnit { file },
            scope_line: None,
        };
        let inner = Location::FileLineCol {
            file: "k.py".into(),
            line: 3,
            col: 4,
        };
        let di = Location::DiLoc {
            loc: Box::new(inner.clone()),
            scope: DiScope::Subprogram(Box::new(sp)),
        };
        assert_eq!(di.file_line_col(), Some(("k.py", 3, 4)));
        assert!(di
            .to_string()
            .starts_with("loc(#cuda_tile.di_loc<loc(\"k.py\":3:4) in #cuda_tile.di_subprogram<"));
        let name = Location::Name {
            name: "n".into(),
            child: Some(Box::new(inner.clone())),
        };
        assert_eq!(name.to_string(), "loc(\"n\"(\"k.py\":3:4))");
        let cs = Location::CallSite {
            callee: Box::new(Location::Unknown),
            caller: Box::new(inner),
        };
        assert_eq!(cs.to_string(), "loc(callsite(unknown at \"k.py\":3:4))");
        assert_eq!(cs.file_line_col(), Some(("k.py", 3, 4)));
    }
}
