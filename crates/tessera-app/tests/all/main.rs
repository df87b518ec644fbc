//! The application core's own suite: `App` opened over a real data folder (a tempdir), the
//! scripted provider as its model (the real OpenAI wire on 127.0.0.1), and the core's public
//! operations called as the HTTP API calls them. One test binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

mod support;

mod branches;
mod failures;
mod forms;
mod messages;
mod requests;
mod settings;
mod tools;
