//! OpenAI-compatible Chat Completions: OpenAI, DeepSeek, Qwen/DashScope, Moonshot, Ollama, vLLM,
//! LM Studio, Groq, xAI… anything with a base URL.

mod decode;
mod encode;

pub(crate) use decode::synthetic_call_id;
pub use decode::{decode_response, error_fields as decode_error_fields, finish_reason, Decoder};
pub use encode::encode_request;
