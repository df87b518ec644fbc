//! What the person said, as a run starts with it: the text, its attachments, the settings a
//! client's request gives the run, and where it goes in the conversation.

use crate::turn::{Said, TurnOptions};

/// What the person said, as a run starts with it.
#[derive(Clone, Debug, Default)]
pub struct UserMessage {
    pub text: String,
    /// Read and stored by `crate::attachments::ingest`.
    pub attachments: Vec<crate::attachments::MessageAttachment>,
    /// The id the message gets (a client's MCP-CP `messageId`, seed 000 §3.1); else a new one.
    pub id: Option<String>,
    /// The client asked for `debug/log` events of the run (seed 002 §5).
    pub debug: bool,
    /// What the client's request sets for this run only (seed 003 §1.2 `config`, system
    /// resources).
    pub overrides: RunOverrides,
}

/// A run's settings a client's request gives (seed 003 §1.2).
#[derive(Clone, Debug, Default)]
pub struct RunOverrides {
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u32>,
    /// `function_call: "none"`: the model is offered no tool.
    pub no_tools: bool,
    /// System text added after Tessera's own (the request's `system` resources, in order).
    pub system: Option<String>,
}

impl RunOverrides {
    pub(super) fn apply(&self, options: &mut TurnOptions) {
        if self.temperature.is_some() {
            options.temperature = self.temperature;
        }
        if self.top_p.is_some() {
            options.top_p = self.top_p;
        }
        if self.max_tokens.is_some() {
            options.max_tokens = self.max_tokens;
        }
        if let Some(extra) = &self.system {
            options.system = Some(match options.system.take() {
                Some(base) => format!("{base}\n\n{extra}"),
                None => extra.clone(),
            });
        }
        if self.no_tools {
            options.tools = None;
        }
    }
}

impl UserMessage {
    /// Text alone, under a new id.
    pub fn text(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            ..Self::default()
        }
    }
}

/// Where the message a run answers goes: [`Said`], owned for the run's task.
#[derive(Clone, Debug)]
pub(super) enum Placement {
    Next,
    After(Option<String>),
    Again(String),
}

impl Placement {
    pub(super) fn said(&self) -> Said<'_> {
        match self {
            Placement::Next => Said::Next,
            Placement::After(parent) => Said::After(parent.as_deref()),
            Placement::Again(id) => Said::Again(id),
        }
    }
}
