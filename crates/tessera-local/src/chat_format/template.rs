//! A GGUF's `tokenizer.chat_template` compiled once and rendered per request.
//!
//! The environment is set up the way Hugging Face transformers sets up Jinja for chat
//! templates: `trim_blocks` and `lstrip_blocks` on, trailing newline dropped, no HTML
//! escaping, Python's string/dict methods (via minijinja-contrib's pycompat callback), and
//! the three globals HF adds: `raise_exception`, `strftime_now` and its own `tojson`.

use minijinja::{Environment, Error, ErrorKind, Value};
use serde_json::Value as Json;

use super::family::ToolFamily;
use super::jinja_value::to_template_list;
use super::messages::{fold_system_into_first_user, prepare};
use super::py_json::tojson_filter;
use super::strftime::{format_utc, now_unix_seconds};

const TEMPLATE_NAME: &str = "chat_template";
/// `raise_exception` errors carry this prefix so they can be told apart from minijinja's own
/// errors once rendering has unwound.
const RAISED_PREFIX: &str = "raise_exception: ";

/// Why a chat template could not be compiled or rendered.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// The template source is not Jinja minijinja can compile.
    #[error("the chat template does not compile: {0}")]
    Syntax(#[source] Error),
    /// The template called `raise_exception(message)`, usually to reject a conversation
    /// shape it does not support (roles not alternating, several calls at once, …).
    #[error("the chat template rejected the conversation: {message}")]
    Raised {
        /// The template's own message.
        message: String,
    },
    /// Rendering failed inside minijinja (an unknown filter, a type error, …).
    #[error("rendering the chat template failed: {0}")]
    Render(#[source] Error),
    /// A message is not shaped like an OpenAI chat message.
    #[error("message {index} cannot be rendered: {reason}")]
    InvalidMessage {
        /// Position of the message in the conversation.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A message or tool nests JSON deeper than any real conversation does.
    #[error("a message or tool is nested more than 128 levels deep")]
    TooDeep,
}

/// A compiled chat template and the special tokens it prints.
#[derive(Debug)]
pub struct ChatTemplate {
    env: Environment<'static>,
    family: ToolFamily,
    bos_token: String,
    eos_token: String,
}

impl ChatTemplate {
    /// Compiles `source` (a Hugging Face Jinja chat template). `bos_token` and `eos_token`
    /// are the texts templates print as `{{ bos_token }}` / `{{ eos_token }}`; pass an empty
    /// `bos_token` if the tokenizer already adds BOS when it encodes the prompt, or the
    /// prompt will start with two.
    pub fn new(source: &str, bos_token: &str, eos_token: &str) -> Result<Self, TemplateError> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_keep_trailing_newline(false);
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", tojson_filter);
        env.add_function("raise_exception", raise_exception);
        env.add_function("strftime_now", |format: String| {
            format_utc(now_unix_seconds(), &format)
        });
        env.add_template_owned(TEMPLATE_NAME, source.to_owned())
            .map_err(TemplateError::Syntax)?;
        Ok(ChatTemplate {
            env,
            family: ToolFamily::detect(source),
            bos_token: bos_token.to_owned(),
            eos_token: eos_token.to_owned(),
        })
    }

    /// Freezes the clock `strftime_now` reads (seconds since the Unix epoch, UTC), so a
    /// prompt can be reproduced exactly.
    pub fn with_fixed_time(mut self, unix_seconds: i64) -> Self {
        self.env
            .add_function("strftime_now", move |format: String| {
                format_utc(unix_seconds, &format)
            });
        self
    }

    /// The tool-call format this template's model writes.
    pub fn family(&self) -> ToolFamily {
        self.family
    }

    /// Renders a conversation of OpenAI chat messages (roles system / user / assistant /
    /// tool; assistant `tool_calls` with `function.arguments` as a JSON string; tool results
    /// with `tool_call_id` and `content`) and OpenAI tool objects into the model's prompt.
    /// `add_generation_prompt` appends the header that opens the assistant's next turn.
    pub fn render(
        &self,
        messages: &[Json],
        tools: Option<&[Json]>,
        add_generation_prompt: bool,
    ) -> Result<String, TemplateError> {
        let prepared = prepare(self.family, messages, tools)?;
        let first = self.render_prepared(
            &prepared.messages,
            prepared.tools.as_deref(),
            add_generation_prompt,
        );
        match first {
            Err(TemplateError::Raised { .. }) if self.family == ToolFamily::Generic => {
                // A template with no tool format may also refuse the system role; try again
                // with the system text folded into the first user turn before giving up.
                match fold_system_into_first_user(&prepared.messages) {
                    Some(folded) => self.render_prepared(&folded, None, add_generation_prompt),
                    None => first,
                }
            }
            other => other,
        }
    }

    fn render_prepared(
        &self,
        messages: &[Json],
        tools: Option<&[Json]>,
        add_generation_prompt: bool,
    ) -> Result<String, TemplateError> {
        let messages = to_template_list(messages).map_err(|_| TemplateError::TooDeep)?;
        // HF passes `tools=None` when there are none; templates test `tools is not none`.
        let tools = match tools {
            Some(tools) => to_template_list(tools).map_err(|_| TemplateError::TooDeep)?,
            None => Value::from(()),
        };
        let template = self
            .env
            .get_template(TEMPLATE_NAME)
            .map_err(TemplateError::Render)?;
        let context = minijinja::context! {
            messages => messages,
            tools => tools,
            add_generation_prompt => add_generation_prompt,
            bos_token => self.bos_token.as_str(),
            eos_token => self.eos_token.as_str(),
        };
        template.render(context).map_err(classify_render_error)
    }
}

fn raise_exception(message: Value) -> Result<Value, Error> {
    Err(Error::new(
        ErrorKind::InvalidOperation,
        format!("{RAISED_PREFIX}{message}"),
    ))
}

fn classify_render_error(err: Error) -> TemplateError {
    if err.kind() == ErrorKind::InvalidOperation {
        if let Some(message) = err.detail().and_then(|d| d.strip_prefix(RAISED_PREFIX)) {
            return TemplateError::Raised {
                message: message.to_owned(),
            };
        }
    }
    TemplateError::Render(err)
}
