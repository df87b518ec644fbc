//! The HTTP API over the application core: the router and its authentication, the SSE streams,
//! the in-process caller the desktop shell carries the same router over, and `serve`, which
//! binds it to a port. No argument parser: the command line is tessera-cli's.

pub mod api;
pub mod auth;
pub mod in_process;
pub mod router;
pub mod serve;
