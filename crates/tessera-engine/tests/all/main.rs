//! Every integration test of the engine in one test binary (one link instead of one per file);
//! each module is one area, named as its file was.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

mod builtin_support;
mod common;
mod exec_support;
mod run_support;

mod assembler;
mod assembler_byte_bounds;
mod assembler_props;
mod builtin_tools;
mod engine;
mod executor;
mod executor_modes;
mod forms;
mod instructions;
mod interactions;
mod local_models;
mod profile_runs;
mod profiles;
mod specialists;
mod summary;
mod turn;
mod turn_context;
