//! The local context database (seed 004): migrations, sessions, the message tree, evidences,
//! context blocks, tool calls, model turns, usage, tasks, interactions, the event log, search and
//! attachments on disk. It owns the data folder; see issue "The local context database".
//!
//! At the foundation stage this crate holds only the data-folder lock, which every later piece
//! relies on: one process owns a data folder at a time.

pub mod lock;
