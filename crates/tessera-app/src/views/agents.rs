//! The problems of a refused agent profile set or specialist list: the entries of
//! `details.problems` of an `INVALID_PROFILES` or `INVALID_SPECIALISTS` error, one per field, so
//! the settings page shows each next to its field.

use serde::Serialize;
use ts_rs::TS;

#[derive(Clone, Debug, Serialize, TS)]
pub struct AgentProblem {
    /// The profile it is about (`#3` for an entry without a usable name; null: the set as a
    /// whole). Only for profiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub profile: Option<Option<String>>,
    /// The specialist it is about, and its place in the list. Only for specialists.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub specialist: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub index: Option<usize>,
    /// The field, with indexes (`rules[0].pattern`); empty for the whole entry.
    pub field: String,
    pub message: String,
}

/// `details.problems` of the error.
#[derive(Clone, Debug, Serialize, TS)]
pub struct AgentProblems {
    pub problems: Vec<AgentProblem>,
}
