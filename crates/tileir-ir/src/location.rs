//! Source locations, interned per module. Every op carries one; passes keep them on
//! what they rewrite (a fused location when they merge ops).

use crate::entity::UniqueArena;
use crate::entity_id;
use std::fmt;

entity_id!(
    /// An interned [`Location`].
    LocId,
    "loc"
);

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
}

impl Location {
    /// The first file position inside this location, if any (for diagnostics).
    pub fn file_line_col(&self) -> Option<(&str, u32, u32)> {
        match self {
            Location::Unknown => None,
            Location::FileLineCol { file, line, col } => Some((file, *line, *col)),
            Location::Fused(parts) => parts.iter().find_map(|p| p.file_line_col()),
        }
    }
}

impl fmt::Display for Location {
    /// MLIR's `loc(...)` syntax.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("loc(")?;
        write_inner(self, f)?;
        f.write_str(")")
    }
}

fn write_inner(loc: &Location, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match loc {
        Location::Unknown => f.write_str("unknown"),
        Location::FileLineCol { file, line, col } => {
            write!(f, "\"{}\":{line}:{col}", crate::print::escape_string(file))
        }
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
        self.arena.lookup(&Location::Unknown).expect("slot 0 is Unknown")
    }
    /// Interns a location.
    pub fn intern(&mut self, loc: Location) -> LocId {
        self.arena.intern(loc)
    }
    /// Interns `file:line:col`.
    pub fn file_line_col(&mut self, file: &str, line: u32, col: u32) -> LocId {
        self.intern(Location::FileLineCol { file: file.to_string(), line, col })
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
