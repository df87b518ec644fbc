//! Model providers: OpenAI-compatible Chat Completions and Anthropic Messages behind one
//! interface, the normalised stream, retries and fallback, usage and cost, API keys in the OS
//! keyring. No Tauri, no store: the engine records what these return.
//!
//! - [`request`]: one model call, independent of the wire.
//! - [`stream`]: the normalised items every provider produces, and the [`stream::Accumulator`].
//! - [`openai`], [`anthropic`]: encoding requests and decoding answers, one wire each.
//! - [`client`]: the HTTP side: streaming, retries, timeouts, cancellation.
//! - [`keys`]: the keyring trait, the OS keyring, environment overrides.
//! - [`cost`]: prices, estimated cost, per-agent summaries, spending limits.
//! - [`models`]: listing a provider's models; finding a local Ollama.

pub mod anthropic;
pub mod cancel_flag;
pub mod capabilities;
pub mod client;
pub mod config;
pub mod cost;
pub mod embeddings;
pub mod endpoint;
pub mod error;
pub mod http;
mod item_queue;
pub mod keys;
pub mod limits;
pub mod models;
pub mod openai;
pub mod presets;
pub mod request;
mod retry;
pub mod sse;
pub mod stream;
mod wake_flag;

pub use client::{ProviderClient, ResponseStream};
pub use config::{ProviderConfig, WireKind};
pub use error::{ProviderError, ProviderFailureCode, Result};
pub use request::{ChatMessage, ChatRequest, Part, Role, ToolChoice, ToolSpec};
pub use stream::{Accumulator, Response, StreamItem, Usage};
