//! The recorded provider streams of `shared/vectors/providers`, rebuilt into the bytes the
//! provider sent (see that folder's README for the two file formats).

use std::path::PathBuf;

use serde_json::Value;

use super::reply::{Reply, Step};

/// The folder of recorded provider streams: `TESSERA_VECTORS_DIR`, else `../shared/vectors/
/// providers` next to the workspace. The workspace is found from the package under test (cargo
/// sets `CARGO_MANIFEST_DIR` when it runs a test), not from where this crate was compiled: one
/// build cache serves several checkouts, and a path baked in by another one names a folder
/// that may be gone.
pub fn vectors_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TESSERA_VECTORS_DIR") {
        return PathBuf::from(dir);
    }
    let package = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    let workspace = package
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(&package);
    workspace.join("../shared/vectors/providers")
}

/// Which wire a recording speaks, from its name.
pub fn is_anthropic_messages(name: &str) -> bool {
    // `anthropic-fallback-tool-call.sse` is Anthropic's OpenAI-compatible endpoint.
    name.starts_with("anthropic-") && name != "anthropic-fallback-tool-call.sse"
}

/// The recording `name` as the reply that replays it over HTTP, one SSE event per step.
pub fn vector_reply(name: &str) -> std::io::Result<Reply> {
    let text = std::fs::read_to_string(vectors_dir().join(name))?;
    Ok(Reply::sse(vector_steps(name, &text)))
}

/// The wire bytes of a recording, split into one step per event.
pub fn vector_steps(name: &str, text: &str) -> Vec<Step> {
    if name.ends_with(".sse") {
        // As sent: split after each blank line so events arrive one chunk at a time.
        let mut steps = Vec::new();
        let mut rest = text;
        while let Some(pos) = rest.find("\n\n") {
            steps.push(Step::Raw(rest[..pos + 2].to_owned()));
            rest = &rest[pos + 2..];
        }
        if !rest.is_empty() {
            steps.push(Step::Raw(rest.to_owned()));
        }
        return steps;
    }
    let anthropic = is_anthropic_messages(name);
    let mut steps: Vec<Step> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            if anthropic {
                let kind = serde_json::from_str::<Value>(line)
                    .ok()
                    .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_else(|| "message".into());
                Step::Raw(format!("event: {kind}\ndata: {line}\n\n"))
            } else {
                Step::Raw(format!("data: {line}\n\n"))
            }
        })
        .collect();
    if !anthropic {
        steps.push(Step::Raw("data: [DONE]\n\n".into()));
    }
    steps
}
