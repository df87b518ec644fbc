//! The OpenAI-compatible wire on loopback: `GET /health`, `GET /v1/models`,
//! `POST /v1/chat/completions` (streamed or not, with tools) and `POST /v1/embeddings`, every
//! route behind the bearer token the worker was started with.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use subtle::ConstantTimeEq;
use tessera_local::chat_format::{
    tool_call_grammar, Activation, ChatTemplate, LazyTrigger, ToolCallGrammar, ToolCallParser,
    ToolChoice,
};
use tokio::sync::{mpsc, oneshot};

use crate::answer::{stream, whole, Answer, CancelOnDrop};
use crate::embed::{EmbedFailure, EmbedJob, MAX_INPUTS};
use crate::engine::{Engine, Grammar, Job, Sampling};

pub struct Served {
    pub engine: Engine,
    pub template: ChatTemplate,
    pub token: String,
    pub model_id: String,
}

pub fn router(served: Arc<Served>) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/v1/models", get(models))
        .route("/v1/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings))
        .layer(middleware::from_fn_with_state(served.clone(), auth))
        .with_state(served)
}

async fn auth(State(served): State<Arc<Served>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !bool::from(given.as_bytes().ct_eq(served.token.as_bytes())) {
        return error(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "a bearer token is required: the one this worker was started with",
        );
    }
    next.run(request).await
}

pub fn error(status: StatusCode, kind: &str, message: &str) -> Response {
    (
        status,
        Json(json!({"error": {"message": message, "type": kind}})),
    )
        .into_response()
}

async fn health() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

async fn models(State(served): State<Arc<Served>>) -> Json<Value> {
    Json(json!({
        "object": "list",
        "data": [{
            "id": served.model_id,
            "object": "model",
            "owned_by": "local",
            "meta": {
                "n_ctx": served.engine.info.n_ctx,
                "n_ctx_train": served.engine.info.n_ctx_train,
                "n_ctx_embed": served.engine.info.embed_ctx,
            }
        }]
    }))
}

#[derive(Debug, Deserialize)]
struct ChatRequest {
    messages: Vec<Value>,
    #[serde(default)]
    tools: Option<Vec<Value>>,
    #[serde(default)]
    tool_choice: Option<Value>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    stream_options: Option<Value>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    max_completion_tokens: Option<u32>,
    #[serde(default)]
    temperature: Option<f32>,
    #[serde(default)]
    top_p: Option<f32>,
    #[serde(default)]
    seed: Option<u32>,
    #[serde(default)]
    parallel_tool_calls: Option<bool>,
}

/// The tool choice asked for; None when the tools are not to be used at all.
fn tool_choice(value: Option<&Value>) -> Result<Option<ToolChoice>, String> {
    match value {
        None => Ok(Some(ToolChoice::Auto)),
        Some(Value::String(s)) => match s.as_str() {
            "auto" => Ok(Some(ToolChoice::Auto)),
            "required" => Ok(Some(ToolChoice::Required)),
            "none" => Ok(None),
            other => Err(format!("tool_choice `{other}` is not auto, required or none")),
        },
        Some(Value::Object(o)) => o
            .get("function")
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .map(|name| Some(ToolChoice::Function(name.to_owned())))
            .ok_or_else(|| "tool_choice must name a function: {\"type\":\"function\",\"function\":{\"name\":…}}".into()),
        Some(_) => Err("tool_choice must be a string or an object".into()),
    }
}

async fn chat(State(served): State<Arc<Served>>, body: axum::body::Bytes) -> Response {
    let request: ChatRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(err) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                &format!("the request is not a chat completion request: {err}"),
            )
        }
    };
    let choice = match tool_choice(request.tool_choice.as_ref()) {
        Ok(c) => c,
        Err(message) => return error(StatusCode::BAD_REQUEST, "invalid_request_error", &message),
    };
    let tools: Option<&[Value]> = request
        .tools
        .as_deref()
        .filter(|t| !t.is_empty() && choice.is_some());
    let prompt = match served.template.render(&request.messages, tools, true) {
        Ok(p) => p,
        Err(err) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                &format!("the conversation cannot be put in this model's chat template: {err}"),
            )
        }
    };
    let family = served.template.family();
    let grammar = match (tools, &choice) {
        (Some(tools), Some(choice)) => match tool_call_grammar(family, tools, choice) {
            Ok(mut g) => {
                // A named function is one call of it; otherwise as many as the request allows.
                if request.parallel_tool_calls == Some(false)
                    || matches!(choice, ToolChoice::Function(_))
                {
                    g.envelope.parallel = false;
                }
                Some(g)
            }
            Err(err) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_request_error",
                    &err.to_string(),
                )
            }
        },
        _ => None,
    };
    let gbnf = match grammar.as_ref().map(gbnf_for).transpose() {
        Ok(g) => g,
        Err(err) => return error(StatusCode::BAD_REQUEST, "invalid_request_error", &err),
    };
    let max_tokens = request
        .max_completion_tokens
        .or(request.max_tokens)
        .unwrap_or(served.engine.info.n_ctx);
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let cancel = Arc::new(AtomicBool::new(false));
    let job = Job {
        prompt,
        max_tokens,
        sampling: Sampling {
            temperature: request.temperature,
            top_p: request.top_p,
            seed: request.seed,
            grammar: gbnf,
        },
        cancel: cancel.clone(),
        out: out_tx,
    };
    if let Err(err) = served.engine.submit(job) {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "server_error",
            &err.to_string(),
        );
    }
    let id = format!("chatcmpl-{}", now_nanos());
    let answer = Answer {
        id,
        created: now_secs(),
        model: served.model_id.clone(),
        parser: Some(ToolCallParser::new(family)),
        include_usage: request
            .stream_options
            .as_ref()
            .and_then(|o| o.get("include_usage"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
        prompt_tokens: 0,
        cached_tokens: 0,
        saw_call: false,
        _cancel_on_drop: CancelOnDrop(cancel),
    };
    if request.stream {
        stream(answer, out_rx).into_response()
    } else {
        whole(answer, out_rx).await
    }
}

#[derive(Debug, Deserialize)]
struct EmbeddingsRequest {
    input: Value,
    #[serde(default)]
    encoding_format: Option<String>,
}

/// The strings of an embeddings request's `input`: one string, or a list of 1 to
/// [`MAX_INPUTS`] non-empty strings.
fn embedding_inputs(input: Value) -> Result<Vec<String>, String> {
    let inputs = match input {
        Value::String(s) => vec![s],
        Value::Array(items) => {
            if items.is_empty() {
                return Err("input is an empty list: give at least one string".into());
            }
            if items.len() > MAX_INPUTS {
                return Err(format!(
                    "input holds {} strings, more than the {MAX_INPUTS} this worker embeds in one request: send them in several",
                    items.len()
                ));
            }
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => Ok(s),
                    _ => Err(format!(
                        "input {i} is not a string: input is a string or a list of strings (token lists are not taken)"
                    )),
                })
                .collect::<Result<_, _>>()?
        }
        _ => {
            return Err("input is a string or a list of strings (token lists are not taken)".into())
        }
    };
    if let Some(i) = inputs.iter().position(String::is_empty) {
        return Err(format!("input {i} is an empty string"));
    }
    Ok(inputs)
}

async fn embeddings(State(served): State<Arc<Served>>, body: axum::body::Bytes) -> Response {
    let invalid = |message: &str| error(StatusCode::BAD_REQUEST, "invalid_request_error", message);
    let request: EmbeddingsRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(err) => return invalid(&format!("the request is not an embeddings request: {err}")),
    };
    if let Some(format) = request.encoding_format.as_deref().filter(|f| *f != "float") {
        return invalid(&format!(
            "encoding_format `{format}` is not taken: this worker answers float"
        ));
    }
    let inputs = match embedding_inputs(request.input) {
        Ok(inputs) => inputs,
        Err(message) => return invalid(&message),
    };
    let (out, answer) = oneshot::channel();
    if let Err(err) = served.engine.embed(EmbedJob { inputs, out }) {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "server_error",
            &err.to_string(),
        );
    }
    match answer.await {
        Ok(Ok(embedded)) => Json(json!({
            "object": "list",
            "data": embedded.vectors.into_iter().enumerate().map(|(index, embedding)| json!({
                "object": "embedding",
                "index": index,
                "embedding": embedding,
            })).collect::<Vec<_>>(),
            "model": served.model_id,
            "usage": {
                "prompt_tokens": embedded.prompt_tokens,
                "total_tokens": embedded.prompt_tokens,
            },
        }))
        .into_response(),
        Ok(Err(EmbedFailure::Invalid(message))) => invalid(&message),
        Ok(Err(EmbedFailure::Failed(message))) => {
            error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", &message)
        }
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "server_error",
            "the embeddings thread stopped",
        ),
    }
}

/// The grammar of `grammar`: llama.cpp's grammar of the call schema, in the family's envelope,
/// applied from the first token or once a trigger appears.
fn gbnf_for(grammar: &ToolCallGrammar) -> Result<Grammar, String> {
    let mut schema = grammar.call_schema.clone();
    loosen(&mut schema, 0);
    let schema = serde_json::to_string(&schema).map_err(|e| e.to_string())?;
    let call = llama_cpp_2::json_schema_to_grammar(&schema)
        .map_err(|err| format!("the tools' parameters cannot be turned into a grammar: {err}"))?;
    // Its `root` becomes our call rule; the envelope is the new root.
    let call: String = call
        .lines()
        .map(|line| match line.strip_prefix("root ::=") {
            Some(rest) => format!("tessera-call ::={rest}"),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let env = &grammar.envelope;
    let item = format!(
        "tessera-item ::= {} tessera-call {}",
        literal(&env.call_prefix),
        literal(&env.call_suffix)
    );
    let root = if env.parallel {
        format!(
            "root ::= {} tessera-item ({} tessera-item)* {}",
            literal(&env.open),
            literal(&env.separator),
            literal(&env.close)
        )
    } else {
        format!(
            "root ::= {} tessera-item {}",
            literal(&env.open),
            literal(&env.close)
        )
    };
    let lazy_patterns = match &grammar.activation {
        Activation::FromStart => None,
        Activation::Lazy { triggers } => Some(
            triggers
                .iter()
                .map(|t| match t {
                    LazyTrigger::Pattern(p) => p.clone(),
                    // The word alone, found anywhere: llama.cpp matches each pattern against
                    // everything generated so far at every token, and the form it makes of a
                    // word (`[\s\S]*?(word)[\s\S]*`) backtracks over all of it, so a long
                    // answer with tools slowed to a token every half second.
                    LazyTrigger::Word(w) => format!("({})", regex_escape(w)),
                })
                .collect(),
        ),
    };
    Ok(Grammar {
        gbnf: format!("{root}\n{item}\n{call}\n"),
        lazy_patterns,
    })
}

/// Limits llama.cpp's grammars cannot hold are dropped (it refuses a repetition over 2,000,
/// and regular expressions it cannot translate): the tool's own schema still checks the call
/// before it runs. Depth is bounded: a schema nested deeper is left as it is.
fn loosen(schema: &mut Value, depth: usize) {
    const MOST: u64 = 1000;
    if depth > 64 {
        return;
    }
    match schema {
        Value::Object(map) => {
            for key in ["maxLength", "minLength", "maxItems", "minItems"] {
                if map
                    .get(key)
                    .and_then(Value::as_u64)
                    .is_some_and(|n| n > MOST)
                {
                    map.remove(key);
                }
            }
            // The keyword's value is a string; a property named `pattern` is an object.
            if map.get("pattern").is_some_and(Value::is_string) {
                map.remove("pattern");
            }
            for value in map.values_mut() {
                loosen(value, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                loosen(item, depth + 1);
            }
        }
        _ => {}
    }
}

fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` as a GBNF string literal (`""` matches nothing, which GBNF allows).
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn now_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}
