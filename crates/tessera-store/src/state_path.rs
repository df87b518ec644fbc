//! Setting a value at a dotted path in a JSON object (`userPreferences.language`), creating the
//! objects on the way; a path through anything but an object is an error, never a silent
//! overwrite.

use serde_json::{Map, Value};

/// Why a path cannot be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StatePathError {
    #[error("the path is empty or has an empty segment")]
    Malformed,
    #[error("{at:?} is {found}, not an object, so the path cannot go through it")]
    ThroughNonObject { at: String, found: &'static str },
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Sets `path` in `root` to `value`.
pub fn set(root: &mut Map<String, Value>, path: &str, value: Value) -> Result<(), StatePathError> {
    let segments: Vec<&str> = path.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(StatePathError::Malformed);
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
}
