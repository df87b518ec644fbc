//! JSON values handed to minijinja with their key order intact.
//!
//! minijinja's own maps are `BTreeMap`s unless its `preserve_order` feature is on (it is not
//! here), so `tool | tojson` would print `{"function": …, "type": "function"}` where Python
//! prints `{"type": "function", "function": …}`. Models were trained on Python's order, so
//! objects are wrapped in [`OrderedMap`], which enumerates keys as the JSON had them.

use std::collections::HashMap;
use std::sync::Arc;

use minijinja::value::{Enumerator, Object, ObjectRepr};
use minijinja::Value;

/// Deeper JSON than this is refused before it reaches the template: serde_json's own parser
/// stops at 128 levels, so only a value built in code could get here, and walking it
/// recursively could overflow the stack.
pub(crate) const MAX_JSON_DEPTH: usize = 128;

/// A JSON object as a minijinja map that keeps insertion order.
#[derive(Debug)]
pub(crate) struct OrderedMap {
    keys: Vec<Arc<str>>,
    values: HashMap<Arc<str>, Value>,
}

impl Object for OrderedMap {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.values.get(key.as_str()?).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.keys.iter().map(|k| Value::from(k.clone())).collect())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.keys.len())
    }
}

/// The JSON was nested more than [`MAX_JSON_DEPTH`] levels.
#[derive(Debug)]
pub(crate) struct TooDeep;

/// Converts a JSON value into a template value, objects as [`OrderedMap`]s.
pub(crate) fn to_template_value(json: &serde_json::Value) -> Result<Value, TooDeep> {
    convert(json, 0)
}

/// Converts a list of JSON values (messages, tools) into a template list.
pub(crate) fn to_template_list(items: &[serde_json::Value]) -> Result<Value, TooDeep> {
    Ok(Value::from(
        items
            .iter()
            .map(|item| convert(item, 1))
            .collect::<Result<Vec<_>, _>>()?,
    ))
}

fn convert(json: &serde_json::Value, depth: usize) -> Result<Value, TooDeep> {
    if depth > MAX_JSON_DEPTH {
        return Err(TooDeep);
    }
    Ok(match json {
        serde_json::Value::Null => Value::from(()),
        serde_json::Value::Bool(b) => Value::from(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                Value::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(items) => Value::from(
            items
                .iter()
                .map(|item| convert(item, depth + 1))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        serde_json::Value::Object(map) => {
            let mut keys = Vec::with_capacity(map.len());
            let mut values = HashMap::with_capacity(map.len());
            for (key, value) in map {
                let key: Arc<str> = Arc::from(key.as_str());
                keys.push(key.clone());
                values.insert(key, convert(value, depth + 1)?);
            }
            Value::from_object(OrderedMap { keys, values })
        }
    })
}
