//! The scripted model provider: a real HTTP server on 127.0.0.1 that answers OpenAI-compatible
//! (`POST /v1/chat/completions`, `GET /v1/models`) and Anthropic (`POST /v1/messages`) calls,
//! plus Ollama's `GET /api/tags`, by playing the replies a test queued, byte for byte, with
//! delays, gates the test opens, and faults (HTTP errors, an error event mid-stream, a
//! connection cut after N bytes, a stall). It records every request so a test can check what
//! was sent.

mod reply;
mod server;
pub mod vectors;

pub use reply::{
    anthropic_end, anthropic_start, openai_chunk, openai_usage, Body, Gate, Reply, Step,
};
pub use server::{RecordedRequest, ScriptedProvider, NOW_NS};
