//! What the desktop shell's own commands answer the page (they are not routes of the API: only
//! the shell has the window they are about).

use serde::Serialize;
use ts_rs::TS;

/// Why a dropped file is not attached: the composer's own reasons, in its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum DropRefusal {
    TooBig,
    TooMany,
    Unreadable,
}

/// One file of the last drop on the window (`dropped_files`), before the page reads it
/// (`dropped_file` with its index).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct DroppedFile {
    pub name: String,
    pub size: u64,
    /// Empty for a refused file.
    pub mime: String,
    pub refused: Option<DropRefusal>,
}
