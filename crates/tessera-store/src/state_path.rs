//! Setting a value at a dotted path in a JSON object (`userPreferences.language`), creating the
//! objects on the way; a path through anything but an object is an error, never a silent
//! overwrite.

use serde_json::{Map, Value};
use tessera_protocol::wire::kind_of;

/// Why a path cannot be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StatePathError {
    #[error("the path is empty or has an empty segment")]
    Malformed,
    #[error("{at:?} is {found}, not an object, so the path cannot go through it")]
    ThroughNonObject { at: String, found: &'static str },
    #[error("the path is {0} characters long; at most {MAX_PATH_CHARS}")]
    TooLong(usize),
    #[error(
        "the path has {segments} segments and the value nests {value_depth} levels: at most \
         {MAX_STATE_DEPTH} in all"
    )]
    TooDeep { segments: usize, value_depth: usize },
}

/// The longest state path taken.
pub const MAX_PATH_CHARS: usize = 512;
/// How deep the state may nest (path segments and the value's own levels together): well
/// below serde_json's recursion limit of 128, so whatever is stored can always be read back.
pub const MAX_STATE_DEPTH: usize = 64;

/// How many levels `value` nests (a scalar: 0), without recursion.
pub fn depth_of(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(d + 1);
        stack.extend(children.map(|c| (c, d + 1)));
    }
    deepest
}

/// Sets `path` in `root` to `value`.
pub fn set(root: &mut Map<String, Value>, path: &str, value: Value) -> Result<(), StatePathError> {
    let chars = path.chars().count();
    if chars > MAX_PATH_CHARS {
        return Err(StatePathError::TooLong(chars));
    }
    let segments: Vec<&str> = path.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(StatePathError::Malformed);
    }
    let value_depth = depth_of(&value);
    if segments.len() + value_depth > MAX_STATE_DEPTH {
        return Err(StatePathError::TooDeep {
            segments: segments.len(),
            value_depth,
        });
    }
    let Some((last, parents)) = segments.split_last() else {
        return Err(StatePathError::Malformed);
    };
    let mut object = root;
    for (i, segment) in parents.iter().enumerate() {
        let slot = object
            .entry((*segment).to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        let found = kind_of(slot);
        object = match slot {
            Value::Object(inner) => inner,
            _ => {
                return Err(StatePathError::ThroughNonObject {
                    at: segments[..=i].join("."),
                    found,
                })
            }
        };
    }
    object.insert((*last).to_owned(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn sets_nested_values_creating_objects() {
        let mut state = object(json!({"userPreferences": {"language": "中文"}}));
        set(&mut state, "userPreferences.language", json!("英文")).unwrap();
        set(&mut state, "customState.search.count", json!(3)).unwrap();
        set(&mut state, "currentTopic", Value::Null).unwrap();
        assert_eq!(
            Value::Object(state),
            json!({
                "userPreferences": {"language": "英文"},
                "customState": {"search": {"count": 3}},
                "currentTopic": null
            })
        );
    }

    #[test]
    fn refuses_paths_through_non_objects() {
        let mut state = object(json!({"activeTools": ["a"], "currentTopic": "x"}));
        let before = state.clone();
        assert_eq!(
            set(&mut state, "activeTools.first", json!(1)),
            Err(StatePathError::ThroughNonObject {
                at: "activeTools".into(),
                found: "an array"
            })
        );
        assert_eq!(
            set(&mut state, "currentTopic.a.b", json!(1)),
            Err(StatePathError::ThroughNonObject {
                at: "currentTopic".into(),
                found: "a string"
            })
        );
        assert_eq!(
            set(&mut state, "a..b", json!(1)),
            Err(StatePathError::Malformed)
        );
        assert_eq!(
            set(&mut state, "", json!(1)),
            Err(StatePathError::Malformed)
        );
        assert_eq!(state, before);
    }

    #[test]
    fn refuses_paths_too_long_or_too_deep_to_read_back() {
        let mut state = object(json!({}));
        let deep = vec!["a"; 5000].join(".");
        assert_eq!(
            set(&mut state, &deep, json!(1)),
            Err(StatePathError::TooLong(9999))
        );
        let many = vec!["a"; 200].join(".");
        assert!(matches!(
            set(&mut state, &many, json!(1)),
            Err(StatePathError::TooDeep { segments: 200, .. })
        ));
        // The value's own nesting counts too.
        let mut nested = json!(1);
        for _ in 0..40 {
            nested = json!([nested]);
        }
        let path = vec!["b"; 30].join(".");
        assert!(matches!(
            set(&mut state, &path, nested.clone()),
            Err(StatePathError::TooDeep {
                segments: 30,
                value_depth: 40
            })
        ));
        assert!(state.is_empty());
        set(&mut state, &vec!["b"; 20].join("."), nested).unwrap();
        // What was stored reads back.
        let text = serde_json::to_string(&state).unwrap();
        assert!(serde_json::from_str::<Value>(&text).is_ok());
    }
}
