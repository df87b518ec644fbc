//! The JSON inside a call envelope turned into a name, arguments and id.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// A call read out of the model's text, before it gets its place in the stream.
#[derive(Debug)]
pub(crate) struct ParsedCall {
    pub(crate) id: Option<String>,
    pub(crate) name: String,
    /// Compact JSON text of an object.
    pub(crate) arguments: String,
}

/// One call written as an object: `{"name": …, "<argument key>": {…}}`. The first of
/// `argument_keys` present is used; Llama writes `parameters`, Hermes `arguments`, and
/// models drift between the two. Missing or `null` arguments mean `{}` (a tool with no
/// parameters); arguments given as a string holding a JSON object are accepted, since some
/// models stringify them as the OpenAI wire does.
pub(crate) fn object_call(json: &str, argument_keys: &[&str]) -> Option<ParsedCall> {
    // serde_json stops at 128 levels of nesting, so hostile depth is an error, not a crash.
    let value: Value = serde_json::from_str(json).ok()?;
    call_from_object(value.as_object()?, argument_keys)
}

/// Mistral Nemo's `[{"name": …, "arguments": …, "id": …}, …]`. All or nothing: a list with
/// one bad entry is not a list of calls.
pub(crate) fn array_calls(json: &str) -> Option<Vec<ParsedCall>> {
    let value: Value = serde_json::from_str(json).ok()?;
    let items = value.as_array()?;
    if items.is_empty() {
        return None;
    }
    items
        .iter()
        .map(|item| call_from_object(item.as_object()?, &["arguments", "parameters"]))
        .collect()
}

/// The arguments of Mistral Small 3.2's `name[ARGS]{…}` form.
pub(crate) fn arguments_object(json: &str) -> Option<String> {
    let value: Value = serde_json::from_str(json).ok()?;
    arguments_text(Some(&value))
}

fn call_from_object(object: &Map<String, Value>, argument_keys: &[&str]) -> Option<ParsedCall> {
    let name = object.get("name")?.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    let arguments = argument_keys.iter().find_map(|key| object.get(*key));
    let id = object
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    Some(ParsedCall {
        id,
        name: name.to_owned(),
        arguments: arguments_text(arguments)?,
    })
}

fn arguments_text(arguments: Option<&Value>) -> Option<String> {
    match arguments {
        None | Some(Value::Null) => Some("{}".to_owned()),
        Some(Value::Object(_)) => serde_json::to_string(arguments?).ok(),
        Some(Value::String(text)) => {
            let inner: Value = serde_json::from_str(text).ok()?;
            if inner.is_object() {
                serde_json::to_string(&inner).ok()
            } else {
                None
            }
        }
        Some(_) => None,
    }
}

/// `call_` and 24 letters and digits, unique within the process and unpredictable across
/// processes (std's `RandomState` is seeded from the OS).
pub(crate) fn generate_call_id() -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = RandomState::new();
    let mut id = String::with_capacity(29);
    id.push_str("call_");
    let mut round = 0u64;
    while id.len() < 29 {
        let mut hasher = seed.build_hasher();
        hasher.write_u64(count);
        hasher.write_u128(nanos);
        hasher.write_u64(round);
        let mut bits = hasher.finish();
        // 62^10 < 2^64, so ten characters per hash are all uniformly drawn.
        for _ in 0..10 {
            if id.len() == 29 {
                break;
            }
            id.push(ALPHABET[(bits % 62) as usize] as char);
            bits /= 62;
        }
        round += 1;
    }
    id
}
