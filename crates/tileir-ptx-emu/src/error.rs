//! Errors: every failure names the PTX line it happened at (0 when there is none).

use std::fmt;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The PTX text could not be parsed.
    Parse,
    /// The PTX parsed but uses something the emulator does not support, or is ill-formed
    /// (unknown register, label, type mismatch).
    Decode,
    /// The launch itself is wrong (argument count, block size, unknown kernel).
    Launch,
    /// A memory access outside every buffer, or misaligned.
    Memory,
    /// Every live warp waits and none can proceed.
    Deadlock,
    /// Undefined behaviour other than memory (divergent collective, exited lane in a
    /// member mask, shared-memory race, mbarrier misuse).
    Undefined,
    /// `trap`, `brkpt` or `__assertfail`.
    Trap,
    /// The instruction budget of the launch ran out (a livelock or a very long kernel).
    StepLimit,
}

/// An emulator error with the PTX line (1-based, 0 if unknown) it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmuError {
    /// The category.
    pub kind: ErrorKind,
    /// 1-based line in the PTX text (0: no single line).
    pub line: u32,
    /// Full description.
    pub message: String,
}

impl EmuError {
    /// A new error.
    pub fn new(kind: ErrorKind, line: u32, message: impl Into<String>) -> Self {
        EmuError { kind, line, message: message.into() }
    }
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ErrorKind::Parse => "PTX parse error",
            ErrorKind::Decode => "PTX decode error",
            ErrorKind::Launch => "launch error",
            ErrorKind::Memory => "memory error",
            ErrorKind::Deadlock => "deadlock",
            ErrorKind::Undefined => "undefined behaviour",
            ErrorKind::Trap => "trap",
            ErrorKind::StepLimit => "step limit exceeded",
        };
        if self.line > 0 {
            write!(f, "{kind} at PTX line {}: {}", self.line, self.message)
        } else {
            write!(f, "{kind}: {}", self.message)
        }
    }
}

impl std::error::Error for EmuError {}

/// Result alias.
pub type Result<T> = std::result::Result<T, EmuError>;

/// Shorthand for a parse error.
pub(crate) fn parse_err(line: u32, msg: impl Into<String>) -> EmuError {
    EmuError::new(ErrorKind::Parse, line, msg)
}

/// Shorthand for a decode error.
pub(crate) fn decode_err(line: u32, msg: impl Into<String>) -> EmuError {
    EmuError::new(ErrorKind::Decode, line, msg)
}
