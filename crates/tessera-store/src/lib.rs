//! The local context database of Tessera (seed 004's context model and what the app needs
//! besides), in one data folder:
//!
//! ```text
//! <data>/tessera.lock        the owner's pid (one process per folder, see [`lock`])
//! <data>/tessera.sqlite      SQLite, WAL, foreign keys on, migrated from version 1
//! <data>/attachments/<sha256> attachment and screenshot files, content-addressed
//! <data>/backups/            a copy of the database taken before each migration
//! ```
//!
//! [`Store::open`] takes the lock, migrates and starts the one writer thread. Every write goes
//! through [`Store::write`] (a closure over a [`WriteTx`], committed before the call returns;
//! an event written in the same closure commits with the state change it reports); reads use
//! separate read-only connections through [`Store::read`] and a [`ReadTx`]. Each table module
//! adds its methods to `WriteTx`, `ReadTx` and, for single operations, `Store`.
//!
//! - [`conversations`]: the list (title, pinned, archived), delete everywhere.
//! - [`messages`]: the message tree, branches, the active leaf.
//! - [`evidences`], [`attachments`], [`blocks`], [`tasks`], [`tool_calls`], [`usage`],
//!   [`summary`]: the rest of seed 004.
//! - [`events`], [`event_folding`]: the event log with per-conversation seqs; folding deltas.
//! - [`search`] (with [`cjk_bigrams`]): full-text search, Chinese included.
//! - [`context_state`] (with [`state_path`]): MCP-CP context state and `CONTEXT_UPDATE`.
//! - [`model_turns`], [`interactions`], [`consents`], [`provider_settings`], [`app_settings`]: app
//!   state.
//! - [`export`], [`import`], [`mcp_messages`]: the seed-004 document and MCP-CP messages;
//!   [`markdown`]: a transcript to read.
//! - [`selector`]: evidence selectors (`lines:12-18,chars:120-260`, `field:a.b[0]`, `a.b`), the
//!   protocol crate's (the validator checks refs with them too).

pub mod app_settings;
pub mod attachments;
pub mod blocks;
mod checkpoint;
pub mod cjk_bigrams;
mod clock;
pub mod consents;
mod context_history;
pub mod context_state;
pub mod conversation_model;
pub mod conversations;
mod delta_batches;
pub mod error;
pub mod event_folding;
pub mod events;
pub mod evidences;
pub mod export;
pub mod file_modes;
pub mod history_clearing;
mod ids;
pub mod import;
pub mod interactions;
pub mod layout;
pub mod lock;
pub mod markdown;
pub mod mcp_messages;
pub mod memories;
pub mod messages;
pub mod migrate;
pub mod model_turns;
mod plain_text;
mod refs;
mod rows;
pub mod search;
mod search_backlog;
mod search_pieces;
pub use tessera_protocol::context_doc::selector;
pub mod projects;
pub mod provider_settings;
mod sql;
pub mod state_path;
mod store;
pub mod summary;
pub mod tasks;
pub mod tool_calls;
mod tx;
pub mod usage;
mod writer;

pub use attachments::{AttachmentInfo, AttachmentRef};
pub use consents::{ConsentGrant, ConsentScope};
pub use context_state::{ContextChange, ContextUpdateOutcome};
pub use conversations::{
    Conversation, ConversationFilter, ConversationPatch, DeleteReport, NewConversation,
};
pub use error::{Entity, Result, StoreError};
pub use events::{SeqRange, StoredEvent};
pub use evidences::StoredEvidence;
pub use import::ImportReport;
pub use interactions::{Interaction, InteractionKind, InteractionState, NewInteraction};
pub use layout::DataPaths;
pub use lock::{DataFolderLock, LockError};
pub use messages::{text_message, NewMessage, Parent, StoredMessage};
pub use migrate::SCHEMA_VERSION;
pub use model_turns::{ModelTurn, NewModelTurn};
pub use projects::{NewProject, Project, ProjectPatch, ProjectSource, ProjectSourceKind};
pub use search::{ConversationMatch, HitKind, MessageMatch, SearchHit, SearchOptions};
pub use selector::{Selector, SelectorError};
pub use store::Store;
pub use tool_calls::ToolCallRow;
pub use tx::{ReadTx, WriteTx};
