//! Anthropic Messages.

mod decode;
mod encode;

pub use decode::{decode_response, finish_reason, Decoder};
pub use encode::{encode_request, ANTHROPIC_VERSION};
