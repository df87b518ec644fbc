//! Local models (issue 28): what a person can download and run on their own machine with no
//! account, and what a llama.cpp worker needs to speak a model family's chat format.
//!
//! - [`chat_format`]: a model's chat template rendered with its tools, and the tool calls of
//!   its family (Qwen/Hermes, Llama 3.x, Mistral) parsed back out of the text it writes.
//!
//! - [`download`]: model files from Hugging Face (or `HF_ENDPOINT`), resumable and checked.
//! - [`hub_settings`]: a mirror and a proxy for downloads, checked before they are kept.
//! - [`catalogue`]: the recommended models, and which suits this machine.
//! - [`library`]: the models folder: what is on disk, whole or part way, and deleting.
//! - [`serve_limits`]: HTTP/1.1 served within limits (header timeout, a connection cap under
//!   the descriptor limit), for the worker and, beside it, `tessera serve`.
//!
//! Nothing here links llama.cpp: the engine and the server build without it, and the worker
//! binary (`tessera-llama`) is built on its own.

pub mod catalogue;
pub mod chat_format;
pub mod disk;
pub mod download;
pub mod hub_settings;
pub mod library;
pub mod runtime;
pub mod serve_limits;
pub mod worker;
