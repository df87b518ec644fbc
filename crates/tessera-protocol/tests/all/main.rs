//! Every integration test of the protocol crate in one test binary (one link instead of one per
//! file); each module is one area, named as its file was.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

mod common;

mod generated;
mod round_trip;
mod rules;
mod rules_documents;
mod rules_easyflow;
mod rules_mcp_cp;
