//! A model family's chat format: its template rendered with the conversation and its tools,
//! and the tool calls it writes parsed back.
//!
//! - [`ChatTemplate`] renders a GGUF's Jinja chat template the way Hugging Face does.
//! - [`ToolFamily`] names the call format the template shows the model.
//! - [`ToolCallParser`] reads calls out of the streamed output of that family.
//! - [`tool_call_grammar`] describes one call as JSON Schema plus the family's envelope, for
//!   the worker to turn into a llama.cpp grammar.

mod call_payload;
mod family;
mod grammar;
mod jinja_value;
mod json_scan;
mod messages;
mod parse;
mod py_json;
mod strftime;
mod template;

pub use family::ToolFamily;
pub use grammar::{
    tool_call_grammar, Activation, CallEnvelope, GrammarError, LazyTrigger, ToolCallGrammar,
    ToolChoice,
};
pub use parse::{ParseError, Parsed, ToolCallParser};
pub use template::{ChatTemplate, TemplateError};
