//! Scheduling strategies and options.

use std::fmt;
use std::str::FromStr;

/// How (and whether) to software-pipeline a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// No schedule: the loop stays synchronous.
    None,
    /// One-stage serial schedule: II is the length of a whole iteration, no overlap.
    Serial,
    /// Several candidate IIs are scheduled and the cheapest by estimated cycles is kept.
    CostBased,
    /// Iterative modulo scheduling, stopping at the first feasible II.
    Fast,
    /// [`Strategy::Serial`] before Hopper (sm < 90), [`Strategy::CostBased`] from sm 90 on.
    Default,
}

impl Strategy {
    /// Every strategy, in the order of their spellings in error messages.
    pub const ALL: [Strategy; 5] = [
        Strategy::None,
        Strategy::Serial,
        Strategy::CostBased,
        Strategy::Fast,
        Strategy::Default,
    ];

    /// Replaces [`Strategy::Default`] by what it means on compute capability `sm`; every other
    /// strategy is returned unchanged.
    pub fn resolve(self, sm: u32) -> Strategy {
        match self {
            Strategy::Default if sm >= 90 => Strategy::CostBased,
            Strategy::Default => Strategy::Serial,
            s => s,
        }
    }

    /// The canonical spelling (`none`, `serial`, `cost_based`, `fast`, `default`).
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::Serial => "serial",
            Strategy::CostBased => "cost_based",
            Strategy::Fast => "fast",
            Strategy::Default => "default",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no [`Strategy`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseStrategyError {
    /// The rejected input.
    pub input: String,
}

impl fmt::Display for ParseStrategyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let accepted: Vec<&str> = Strategy::ALL.iter().map(|s| s.as_str()).collect();
        write!(
            f,
            "unknown schedule strategy `{}`; expected one of {}",
            self.input,
            accepted.join(", ")
        )
    }
}

impl std::error::Error for ParseStrategyError {}

impl FromStr for Strategy {
    type Err = ParseStrategyError;

    /// Parses the exact (case-sensitive) spellings `none|serial|cost_based|fast|default`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| ParseStrategyError {
                input: s.to_string(),
            })
    }
}

/// Knobs of [`crate::schedule`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleOptions {
    /// Upper bound on the stage count (each stage costs a buffer set); `Some(0)` is read as
    /// `Some(1)` because every schedule has at least one stage. Honoured by FAST and
    /// COST_BASED; SERIAL always has one stage.
    pub max_stages: Option<u32>,
    /// Rau's budget ratio: an II attempt gives up after `budget_ratio * ops` placements
    /// (at least `ops`, so 0 behaves like 1).
    pub budget_ratio: u32,
    /// Known trip count, if any; COST_BASED assumes [`crate::DEFAULT_TRIP_COUNT`] otherwise.
    pub trip_count: Option<u64>,
}

impl Default for ScheduleOptions {
    fn default() -> Self {
        ScheduleOptions {
            max_stages: None,
            budget_ratio: 6,
            trip_count: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_display_round_trip() {
        for s in Strategy::ALL {
            assert_eq!(s.to_string().parse::<Strategy>(), Ok(s));
        }
        assert_eq!("cost_based".parse(), Ok(Strategy::CostBased));
        let err = "CostBased".parse::<Strategy>().unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("`CostBased`"), "{msg}");
        for spelling in ["none", "serial", "cost_based", "fast", "default"] {
            assert!(msg.contains(spelling), "{msg}");
        }
        assert!("".parse::<Strategy>().is_err());
    }

    #[test]
    fn default_resolves_by_architecture() {
        assert_eq!(Strategy::Default.resolve(80), Strategy::Serial);
        assert_eq!(Strategy::Default.resolve(89), Strategy::Serial);
        assert_eq!(Strategy::Default.resolve(90), Strategy::CostBased);
        assert_eq!(Strategy::Default.resolve(100), Strategy::CostBased);
        for s in [
            Strategy::None,
            Strategy::Serial,
            Strategy::CostBased,
            Strategy::Fast,
        ] {
            assert_eq!(s.resolve(80), s);
            assert_eq!(s.resolve(90), s);
        }
    }
}
