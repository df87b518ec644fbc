//! The workspace-wide tests (the fuzz corpora replayed, the recorded vectors) in one binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

mod fuzz_corpus;
mod vectors;
