//! Diagnostics: located messages with a severity, collected rather than thrown, so one
//! run reports every problem it finds.

use crate::location::Location;
use std::fmt;

/// How bad a diagnostic is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Informational.
    Remark,
    /// Attached to another diagnostic.
    Note,
    /// Suspicious but accepted.
    Warning,
    /// Rejected.
    Error,
}

impl Severity {
    /// MLIR's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Remark => "remark",
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One message with its location and attached notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// The message, naming the entity and both sides of a mismatch.
    pub message: String,
    /// Where (resolved, so the diagnostic outlives its module).
    pub loc: Location,
    /// Further explanations (`note:` lines).
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// An error at `loc`.
    pub fn error(loc: Location, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, message: message.into(), loc, notes: Vec::new() }
    }
    /// A warning at `loc`.
    pub fn warning(loc: Location, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, message: message.into(), loc, notes: Vec::new() }
    }
    /// A remark at `loc` (informational: a recoverable missed optimization, say).
    pub fn remark(loc: Location, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Remark, message: message.into(), loc, notes: Vec::new() }
    }
    /// Attaches a note.
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Self {
        self.notes.push(Diagnostic { severity: Severity::Note, message: message.into(), loc, notes: Vec::new() });
        self
    }
}

impl fmt::Display for Diagnostic {
    /// MLIR style: `file:line:col: error: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.loc.file_line_col() {
            Some((file, line, col)) => write!(f, "{file}:{line}:{col}: ")?,
            None => f.write_str("<unknown>:0:0: ")?,
        }
        write!(f, "{}: {}", self.severity.as_str(), self.message)?;
        for n in &self.notes {
            write!(f, "\n{n}")?;
        }
        Ok(())
    }
}

/// A list of diagnostics that contains at least one error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Wraps one diagnostic.
    pub fn one(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
    /// True if any is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
