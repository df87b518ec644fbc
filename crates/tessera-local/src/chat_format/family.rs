//! Which tool-call format a model writes, read off its chat template.
//!
//! The template is the only description of the format a GGUF carries, so the family is
//! recognised by the markers the template itself prints, in the order llama.cpp's
//! `common/chat.cpp` checks them (a Hermes-3-on-Llama template holds both `<tool_call>` and
//! `<|start_header_id|>`, and it writes Hermes calls, so `<tool_call>` must win).

use serde::Serialize;

/// Opening tag of a Hermes / Qwen call.
pub const HERMES_OPEN: &str = "<tool_call>";
/// Closing tag of a Hermes / Qwen call.
pub const HERMES_CLOSE: &str = "</tool_call>";
/// Llama 3.x writes this before a call when it is in "ipython" mode.
pub const LLAMA_PYTHON_TAG: &str = "<|python_tag|>";
/// Mistral's call marker, in both the Nemo and the Small 3.2 form.
pub const MISTRAL_TOOL_CALLS: &str = "[TOOL_CALLS]";
/// Mistral Small 3.2 / Devstral: `[TOOL_CALLS]name[ARGS]{...}`.
pub const MISTRAL_ARGS: &str = "[ARGS]";
/// Mistral Small 3.2 when it echoes an id: `[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}`.
pub const MISTRAL_CALL_ID: &str = "[CALL_ID]";

/// The tool-call format of a model family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolFamily {
    /// Qwen 2.5 / Qwen 3, Hermes 2 Pro / Hermes 3: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`.
    Hermes,
    /// Llama 3.1 / 3.2 / 3.3: the answer is a bare `{"name": …, "parameters": …}` object,
    /// optionally after `<|python_tag|>`.
    Llama3,
    /// Mistral Nemo: `[TOOL_CALLS][{"name": …, "arguments": …, "id": "abc123XYZ"}]`; Mistral
    /// Small 3.2 / Devstral: `[TOOL_CALLS]name[ARGS]{…}`.
    Mistral,
    /// A template with no tool format we know. Tessera describes the tools itself in a system
    /// message and asks for Hermes-style `<tool_call>{json}</tool_call>` blocks, which the
    /// Hermes parser reads back; past calls and results are rewritten into plain assistant and
    /// user text so a template that knows nothing of tools can still render them.
    Generic,
}

impl ToolFamily {
    /// Recognises the family from a Jinja chat template's source.
    pub fn detect(template_source: &str) -> ToolFamily {
        if template_source.contains(HERMES_OPEN) {
            ToolFamily::Hermes
        } else if template_source.contains("<|start_header_id|>")
            && template_source.contains("ipython")
        {
            // Llama 3.0 templates share the header tokens but have no tool role; `ipython`
            // (the tool-result role) is what 3.1+ templates add.
            ToolFamily::Llama3
        } else if template_source.contains(MISTRAL_TOOL_CALLS) {
            ToolFamily::Mistral
        } else {
            ToolFamily::Generic
        }
    }

    /// The text that opens a call inside prose, which the streaming parser must not show
    /// before it knows whether a call follows.
    pub(crate) fn marker(self) -> &'static str {
        match self {
            ToolFamily::Hermes | ToolFamily::Generic => HERMES_OPEN,
            ToolFamily::Llama3 => LLAMA_PYTHON_TAG,
            ToolFamily::Mistral => MISTRAL_TOOL_CALLS,
        }
    }
}
