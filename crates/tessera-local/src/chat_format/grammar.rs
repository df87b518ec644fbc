//! What the worker needs to constrain a model's tool calls with a llama.cpp grammar.
//!
//! Plain data only: the worker turns [`ToolCallGrammar::call_schema`] into GBNF with
//! llama.cpp's own `json_schema_to_grammar`, wraps it in the [`CallEnvelope`], and either
//! applies it from the first token ([`Activation::FromStart`]) or lazily, once a trigger
//! appears in free text ([`Activation::Lazy`]). The shapes follow the grammars llama.cpp's
//! `common/chat.cpp` builds for the same families.

use serde::Serialize;
use serde_json::{json, Value};

use super::family::{
    ToolFamily, HERMES_CLOSE, HERMES_OPEN, LLAMA_PYTHON_TAG, MISTRAL_ARGS, MISTRAL_CALL_ID,
    MISTRAL_TOOL_CALLS,
};

/// The request's `tool_choice`, for a request that offers tools. (`none` needs no grammar.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model may answer in text or call tools.
    Auto,
    /// The model must call at least one tool.
    Required,
    /// The model must call this function.
    Function(String),
}

/// Text around the JSON of the calls. With several calls allowed the grammar is
/// `open (call_prefix CALL call_suffix) (separator call_prefix CALL call_suffix)* close`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallEnvelope {
    /// Once, before the first call.
    pub open: String,
    /// Before each call's JSON.
    pub call_prefix: String,
    /// After each call's JSON.
    pub call_suffix: String,
    /// Between two calls.
    pub separator: String,
    /// Once, after the last call.
    pub close: String,
    /// Whether the format (and the template that renders it back) carries several calls
    /// in one turn. Llama 3.x templates raise on more than one.
    pub parallel: bool,
}

/// When the grammar starts to apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Activation {
    /// `tool_choice: auto`: free text until one of the triggers appears; from the trigger
    /// on, output must follow the envelope (which starts with the trigger text).
    Lazy {
        /// Any one of these starts the grammar.
        triggers: Vec<LazyTrigger>,
    },
    /// `tool_choice: required` or a named function: the envelope is forced from the first
    /// token.
    FromStart,
}

/// What starts a lazy grammar (llama.cpp's `common_grammar_trigger`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum LazyTrigger {
    /// This exact text (a special token in the families here).
    Word(String),
    /// A regular expression over the output so far, anchored with `^` where the call must
    /// open the answer; the grammar applies from the start of its first capture group.
    Pattern(String),
}

/// Grammar inputs for one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallGrammar {
    /// The family these inputs are for.
    pub family: ToolFamily,
    /// JSON Schema of ONE call: `oneOf` over the offered tools.
    pub call_schema: Value,
    /// Text around the calls.
    pub envelope: CallEnvelope,
    /// When the grammar applies.
    pub activation: Activation,
    /// Marker texts the worker should keep as special tokens when it tokenizes and let the
    /// grammar match (llama.cpp's `preserved_tokens`).
    pub preserved_tokens: Vec<String>,
    /// Extra stop texts for this family (Llama 3.x ends a call turn with `<|eom_id|>`).
    pub additional_stops: Vec<String>,
}

/// Why the tools cannot be turned into a grammar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrammarError {
    /// A grammar needs at least one tool.
    #[error("no tools were offered")]
    NoTools,
    /// A tool is not `{"type": "function", "function": {"name": …}}`.
    #[error("tool {index} is not a function tool with a name")]
    NotAFunction {
        /// Position in the tool list.
        index: usize,
    },
    /// A function's `parameters` is not a JSON Schema object.
    #[error("the parameters of {name} are not a JSON Schema object")]
    ParametersNotAnObject {
        /// The function.
        name: String,
    },
    /// `tool_choice` names a function that was not offered.
    #[error("tool_choice names {name}, which is not among the tools")]
    UnknownFunction {
        /// The name asked for.
        name: String,
    },
}

/// Builds the grammar inputs for `family` and OpenAI `tools` under `choice`.
pub fn tool_call_grammar(
    family: ToolFamily,
    tools: &[Value],
    choice: &ToolChoice,
) -> Result<ToolCallGrammar, GrammarError> {
    let mut functions = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        let function = tool
            .get("function")
            .filter(|_| tool.get("type").and_then(Value::as_str) == Some("function"))
            .ok_or(GrammarError::NotAFunction { index })?;
        let name = function
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or(GrammarError::NotAFunction { index })?;
        // OpenAI allows a function with no parameters; it takes an empty object.
        let parameters = match function.get("parameters") {
            None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
            Some(p @ Value::Object(_)) => p.clone(),
            Some(_) => {
                return Err(GrammarError::ParametersNotAnObject {
                    name: name.to_owned(),
                })
            }
        };
        functions.push((name.to_owned(), parameters));
    }
    if let ToolChoice::Function(wanted) = choice {
        functions.retain(|(name, _)| name == wanted);
        if functions.is_empty() {
            return Err(GrammarError::UnknownFunction {
                name: wanted.clone(),
            });
        }
    }
    if functions.is_empty() {
        return Err(GrammarError::NoTools);
    }

    let call_schemas: Vec<Value> = functions
        .iter()
        .map(|(name, parameters)| one_call_schema(family, name, parameters))
        .collect();
    let forced = !matches!(choice, ToolChoice::Auto);
    let activation = |triggers: Vec<LazyTrigger>| {
        if forced {
            Activation::FromStart
        } else {
            Activation::Lazy { triggers }
        }
    };

    let grammar = match family {
        ToolFamily::Hermes | ToolFamily::Generic => ToolCallGrammar {
            family,
            call_schema: json!({ "oneOf": call_schemas }),
            envelope: CallEnvelope {
                open: String::new(),
                call_prefix: format!("{HERMES_OPEN}\n"),
                call_suffix: format!("\n{HERMES_CLOSE}"),
                separator: "\n".to_owned(),
                close: String::new(),
                parallel: true,
            },
            activation: activation(vec![LazyTrigger::Word(HERMES_OPEN.to_owned())]),
            preserved_tokens: vec![HERMES_OPEN.to_owned(), HERMES_CLOSE.to_owned()],
            additional_stops: Vec::new(),
        },
        ToolFamily::Llama3 => ToolCallGrammar {
            family,
            call_schema: json!({ "oneOf": call_schemas }),
            envelope: CallEnvelope {
                open: String::new(),
                call_prefix: String::new(),
                call_suffix: String::new(),
                separator: String::new(),
                close: String::new(),
                parallel: false,
            },
            // Llama's call is a bare object opening the answer, so there is no marker word;
            // the grammar takes over from the `{`.
            activation: activation(vec![LazyTrigger::Pattern(
                r#"^\s*(?:<\|python_tag\|>\s*)?(\{\s*"name"\s*:)"#.to_owned(),
            )]),
            preserved_tokens: vec![LLAMA_PYTHON_TAG.to_owned()],
            additional_stops: vec!["<|eom_id|>".to_owned()],
        },
        ToolFamily::Mistral => ToolCallGrammar {
            family,
            call_schema: json!({ "oneOf": call_schemas }),
            // Nemo's list form, which every Mistral family tokenizer can express; the parser
            // also reads Small 3.2's `name[ARGS]{…}` when a model writes that unconstrained.
            envelope: CallEnvelope {
                open: format!("{MISTRAL_TOOL_CALLS}["),
                call_prefix: String::new(),
                call_suffix: String::new(),
                separator: ", ".to_owned(),
                close: "]".to_owned(),
                parallel: true,
            },
            activation: activation(vec![LazyTrigger::Word(MISTRAL_TOOL_CALLS.to_owned())]),
            preserved_tokens: vec![
                MISTRAL_TOOL_CALLS.to_owned(),
                MISTRAL_ARGS.to_owned(),
                MISTRAL_CALL_ID.to_owned(),
            ],
            additional_stops: Vec::new(),
        },
    };
    Ok(grammar)
}

/// `{"name": <const>, "<arguments key>": <parameters>}` in the key order the family writes,
/// since llama.cpp's schema converter emits properties in order.
fn one_call_schema(family: ToolFamily, name: &str, parameters: &Value) -> Value {
    match family {
        ToolFamily::Hermes | ToolFamily::Generic => json!({
            "type": "object",
            "properties": {
                "name": { "const": name },
                "arguments": parameters,
            },
            "required": ["name", "arguments"],
        }),
        ToolFamily::Llama3 => json!({
            "type": "object",
            "properties": {
                "name": { "const": name },
                "parameters": parameters,
            },
            "required": ["name", "parameters"],
        }),
        // Nemo's template sends ids back and insists on nine alphanumerics.
        ToolFamily::Mistral => json!({
            "type": "object",
            "properties": {
                "name": { "const": name },
                "arguments": parameters,
                "id": { "type": "string", "pattern": "^[a-zA-Z0-9]{9}$" },
            },
            "required": ["name", "arguments", "id"],
        }),
    }
}
