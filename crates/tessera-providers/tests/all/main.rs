//! Every integration test of the provider layer in one test binary (one link instead of one per
//! file); each module is one area, named as its file was. `keyring::` needs a Secret Service
//! (`make test-keyring` runs it under one).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

mod common;

mod faults;
mod keyring;
mod network;
mod requests;
mod vectors;
