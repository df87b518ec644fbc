//! The `specialists` app setting: a JSON array of specialist declarations. One named like a
//! built-in replaces it; others are added. Checked whole before it is saved, so a bad entry
//! never reaches a run.

use std::collections::HashSet;

use serde_json::Value;
use tessera_store::{Store, StoreError};
use thiserror::Error;

use super::spec::{SpecialistSpec, MAX_TURNS_LIMIT};
use super::{planner, researcher};

/// The app setting that holds them.
pub const SETTING_KEY: &str = "specialists";

#[derive(Debug, Error)]
pub enum SpecialistsError {
    #[error("the `specialists` setting is not a list of specialists: {0}")]
    Shape(String),
    #[error("specialist {index} ({name}): {message}")]
    Invalid {
        index: usize,
        name: String,
        message: String,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The specialists that ship.
pub fn builtin() -> Vec<SpecialistSpec> {
    vec![researcher::spec(), planner::spec()]
}

/// The specialists in force: the built-ins with the setting's over them.
pub fn load(store: &Store) -> Result<Vec<SpecialistSpec>, SpecialistsError> {
    match store.app_setting(SETTING_KEY)? {
        None => Ok(builtin()),
        Some(value) => merge(parse(&value)?),
    }
}

/// Checks `value` and saves it.
pub fn save(store: &Store, value: &Value) -> Result<Vec<SpecialistSpec>, SpecialistsError> {
    let specs = merge(parse(value)?)?;
    store.set_app_setting(SETTING_KEY, value.clone())?;
    Ok(specs)
}

fn parse(value: &Value) -> Result<Vec<SpecialistSpec>, SpecialistsError> {
    let specs: Vec<SpecialistSpec> = serde_json::from_value(value.clone())
        .map_err(|e| SpecialistsError::Shape(e.to_string()))?;
    let mut names = HashSet::new();
    for (index, spec) in specs.iter().enumerate() {
        let invalid = |message: String| SpecialistsError::Invalid {
            index,
            name: spec.name.clone(),
            message,
        };
        let name_ok = !spec.name.is_empty()
            && spec.name.len() <= 40
            && spec
                .name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !name_ok {
            return Err(invalid(
                "name: 1 to 40 characters of a-z, 0-9 and _".to_owned(),
            ));
        }
        if !names.insert(spec.name.clone()) {
            return Err(invalid("name: used twice".to_owned()));
        }
        if spec.max_turns == 0 || spec.max_turns > MAX_TURNS_LIMIT {
            return Err(invalid(format!(
                "max_turns: between 1 and {MAX_TURNS_LIMIT}"
            )));
        }
        if spec.title.trim().is_empty() || spec.description.trim().is_empty() {
            return Err(invalid("title and description: required".to_owned()));
        }
        if spec.tools.iter().any(|t| t.starts_with(super::TOOL_PREFIX)) {
            return Err(invalid(
                "tools: a specialist cannot call another specialist".to_owned(),
            ));
        }
    }
    Ok(specs)
}

fn merge(own: Vec<SpecialistSpec>) -> Result<Vec<SpecialistSpec>, SpecialistsError> {
    let mut all = builtin();
    for spec in own {
        match all.iter_mut().find(|s| s.name == spec.name) {
            Some(slot) => *slot = spec,
            None => all.push(spec),
        }
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_bad_entry_is_named() {
        let err = parse(
            &json!([{"name": "Bad Name", "title": "t", "description": "d", "system_prompt": "s"}]),
        )
        .expect_err("refused");
        assert!(
            err.to_string().contains("specialist 0 (Bad Name): name"),
            "{err}"
        );
        let err = parse(&json!([{"name": "a", "title": "t", "description": "d", "system_prompt": "s", "max_turns": 0}]))
            .expect_err("refused");
        assert!(err.to_string().contains("max_turns"), "{err}");
    }

    #[test]
    fn one_named_like_a_builtin_replaces_it() {
        let specs = merge(
            parse(&json!([{"name": "researcher", "title": "R", "description": "d", "system_prompt": "s", "max_turns": 2}]))
                .expect("valid"),
        )
        .expect("merged");
        let r = specs.iter().find(|s| s.name == "researcher").expect("kept");
        assert_eq!((r.title.as_str(), r.max_turns), ("R", 2));
        assert!(specs.iter().any(|s| s.name == "planner"));
    }
}
