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

/// `GET`, `PUT` and `DELETE /v1/profiles`: the profiles in force.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ProfilesView {
    pub profiles: Vec<tessera_engine::profiles::Profile>,
    /// Whether they are the person's own (else the built-in one).
    pub custom: bool,
}

/// `GET`, `PUT` and `DELETE /v1/specialists`: the specialists in force.
#[derive(Clone, Debug, Serialize, TS)]
pub struct SpecialistsView {
    pub specialists: Vec<tessera_engine::specialists::SpecialistSpec>,
    /// Whether the person saved their own.
    pub custom: bool,
    /// The names of the built-in ones: saving a list without one keeps it, so the settings
    /// page offers no Delete for them.
    pub builtin: Vec<String>,
    /// After a change: the model new runs use, rebuilt with the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<tessera_protocol::settings_api::ModelStatus>,
}
