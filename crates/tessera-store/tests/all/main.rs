//! Every integration test of the store in one test binary (one link instead of one per file);
//! each module is one area, named as its file was.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

mod common;

mod app_state;
mod context_state;
mod crash_safety;
mod delta_rows;
mod entities;
mod event_log;
mod import_export;
mod message_tree;
mod open_and_migrate;
mod roundtrip_property;
mod search_and_delete;
mod search_backlog;
mod shared_commits;
mod spending;
