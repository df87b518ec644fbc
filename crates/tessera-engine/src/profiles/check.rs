//! The checks behind [`super::Profiles::new`] and [`super::Profiles::from_value`]: each
//! problem found is named with its profile and field, and checking goes on after one, so the
//! person sees every problem at once.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde_json::Value;
use tessera_store::provider_settings::find_secret;

use super::rules::Matcher;
use super::{Profile, ResponseFormat, RouteRule};

/// One thing wrong with a set of profiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileProblem {
    /// The profile's name (`#3` for the fourth entry when it has no usable name); None when the
    /// problem is the set's as a whole.
    pub profile: Option<String>,
    /// The field, with indexes (`rules[0].pattern`, `response_format.schema`); empty for the
    /// whole entry.
    pub field: String,
    pub message: String,
}

impl fmt::Display for ProfileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.profile, self.field.is_empty()) {
            (Some(p), false) => write!(f, "profile `{p}`, {}: {}", self.field, self.message),
            (Some(p), true) => write!(f, "profile `{p}`: {}", self.message),
            (None, false) => write!(f, "{}: {}", self.field, self.message),
            (None, true) => f.write_str(&self.message),
        }
    }
}

const MAX_NAME_CHARS: usize = 64;
/// Every description goes into every classification prompt.
const MAX_DESCRIPTION_CHARS: usize = 2_000;
const MAX_MODEL_CALLS: u32 = 100;

/// Checks one profile's own fields; returns its rules compiled (the valid ones).
pub(super) fn check_profile(i: usize, p: &Profile, out: &mut Vec<ProfileProblem>) -> Vec<Matcher> {
    let label = if valid_name(&p.name) {
        p.name.clone()
    } else {
        format!("#{i}")
    };
    let mut problem = |field: String, message: String| {
        out.push(ProfileProblem {
            profile: Some(label.clone()),
            field,
            message,
        });
    };
    if !valid_name(&p.name) {
        problem(
            "name".into(),
            format!(
                "`{}` must be 1 to {MAX_NAME_CHARS} of a-z, 0-9, _ and -",
                p.name
            ),
        );
    }
    if p.title.trim().is_empty() {
        problem("title".into(), "is blank".into());
    }
    if p.description.trim().is_empty() {
        problem(
            "description".into(),
            "is blank (the model choosing a profile reads it)".into(),
        );
    } else if p.description.chars().count() > MAX_DESCRIPTION_CHARS {
        problem(
            "description".into(),
            format!("is longer than {MAX_DESCRIPTION_CHARS} characters"),
        );
    }
    for (t, tool) in p.tools.iter().flatten().enumerate() {
        let earlier = p.tools.iter().flatten().take(t).any(|x| x == tool);
        if tool.trim().is_empty() {
            problem(format!("tools[{t}]"), "is blank".into());
        } else if earlier {
            problem(format!("tools[{t}]"), format!("`{tool}` is listed twice"));
        }
    }
    if let ResponseFormat::Json { schema } = &p.response_format {
        if let Err(e) = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
        {
            problem(
                "response_format.schema".into(),
                format!("is not a usable JSON Schema: {e}"),
            );
        }
    }
    if p.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
        problem(
            "model".into(),
            "is blank (leave it out to use the usual model)".into(),
        );
    }
    if let Some(n) = p
        .max_model_calls
        .filter(|n| !(1..=MAX_MODEL_CALLS).contains(n))
    {
        problem(
            "max_model_calls".into(),
            format!("{n} is not within 1 to {MAX_MODEL_CALLS}"),
        );
    }
    // The store refuses secrets in settings; saying which field here beats its generic error.
    if let Some(path) = serde_json::to_value(p).ok().as_ref().and_then(find_secret) {
        problem(
            path,
            "is named like a secret, and settings never hold secrets".into(),
        );
    }
    let mut matchers = Vec::with_capacity(p.rules.len());
    for (r, rule) in p.rules.iter().enumerate() {
        match Matcher::compile(rule) {
            Ok(m) => matchers.push(m),
            Err((field, message)) => problem(format!("rules[{r}].{field}"), message),
        }
    }
    matchers
}

/// Checks what concerns the set as a whole; returns the default's index when there is one.
pub(super) fn check_set(profiles: &[Profile], out: &mut Vec<ProfileProblem>) -> Option<usize> {
    if profiles.is_empty() {
        out.push(ProfileProblem {
            profile: None,
            field: String::new(),
            message: "there must be at least one profile".into(),
        });
        return None;
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, p) in profiles.iter().enumerate() {
        if let Some(first) = seen.insert(p.name.as_str(), i) {
            seen.insert(p.name.as_str(), first);
            out.push(ProfileProblem {
                profile: Some(p.name.clone()),
                field: "name".into(),
                message: format!("entries #{first} and #{i} have the same name"),
            });
        }
    }
    let defaults: Vec<usize> = (0..profiles.len())
        .filter(|&i| profiles[i].default)
        .collect();
    match defaults.as_slice() {
        [] => out.push(ProfileProblem {
            profile: None,
            field: "default".into(),
            message: "no profile is the default; mark exactly one with `default: true`".into(),
        }),
        [_] => {}
        [first, rest @ ..] => {
            for &i in rest {
                out.push(ProfileProblem {
                    profile: Some(profiles[i].name.clone()),
                    field: "default".into(),
                    message: format!(
                        "is marked as the default, and so is `{}`: only one may be",
                        profiles[*first].name
                    ),
                });
            }
        }
    }
    defaults.first().copied()
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// How an entry that could not be read is named: its name when it has a usable one.
pub(super) fn label_of(i: usize, item: &Value) -> String {
    match item.get("name").and_then(Value::as_str) {
        Some(name) if valid_name(name) => name.to_owned(),
        _ => format!("#{i}"),
    }
}

/// The field a deserialisation error is about: serde names missing and unknown fields in its
/// message; for a wrong value, each field is tried on its own to find the culprit.
pub(super) fn failing_field(item: &Value, message: &str) -> String {
    for lead in ["missing field `", "unknown field `"] {
        if let Some(rest) = message.strip_prefix(lead) {
            return rest.split('`').next().unwrap_or_default().to_owned();
        }
    }
    let Some(obj) = item.as_object() else {
        return String::new();
    };
    obj.iter()
        .find_map(|(key, value)| field_error(key, value))
        .unwrap_or_default()
}

fn field_error(key: &str, value: &Value) -> Option<String> {
    fn fails<T: for<'de> Deserialize<'de>>(value: &Value) -> bool {
        T::deserialize(value).is_err()
    }
    let bad = match key {
        "name" | "title" | "description" | "system_prompt" => fails::<String>(value),
        "tools" => fails::<Option<Vec<String>>>(value),
        "response_format" => fails::<ResponseFormat>(value),
        "model" => fails::<Option<String>>(value),
        "max_model_calls" => fails::<Option<u32>>(value),
        "default" => fails::<bool>(value),
        "rules" => {
            let Some(rules) = value.as_array() else {
                return Some("rules".into());
            };
            return rules
                .iter()
                .position(fails::<RouteRule>)
                .map(|r| format!("rules[{r}]"));
        }
        _ => true,
    };
    bad.then(|| key.to_owned())
}
