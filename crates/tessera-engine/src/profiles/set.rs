//! The set of profiles: validated as a whole (every problem named with its profile and field),
//! kept in one app setting, the built-in set when that was never written.

use serde::Deserialize;
use serde_json::Value;
use tessera_store::{Store, StoreError};
use thiserror::Error;

use super::check::{check_profile, check_set, failing_field, label_of, ProfileProblem};
use super::rules::{Matcher, RuleMatch};
use super::{Profile, ResponseFormat};

/// The app setting holding the profiles: a JSON array of [`Profile`]s, in routing order.
pub const SETTING_KEY: &str = "agent_profiles";

/// Why a set of profiles could not be loaded or saved.
#[derive(Debug, Error)]
pub enum ProfilesError {
    #[error("the agent profiles are not valid: {}", join(.0))]
    Invalid(Vec<ProfileProblem>),
    #[error("the context database failed: {0}")]
    Store(#[from] StoreError),
}

fn join(problems: &[ProfileProblem]) -> String {
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    lines.join("; ")
}

/// A valid set of profiles: unique names, exactly one default, rules and schemas that compile.
#[derive(Clone, Debug)]
pub struct Profiles {
    profiles: Vec<Profile>,
    /// One per rule of each profile, in the same order.
    matchers: Vec<Vec<Matcher>>,
    default: usize,
}

impl Profiles {
    /// The set used until the person saves their own: one general assistant.
    pub fn builtin() -> Self {
        let general = Profile {
            name: "default".into(),
            title: "Assistant".into(),
            description: "General assistant: questions, explanations, writing, analysis and \
                          everyday tasks, using the available tools when they help."
                .into(),
            system_prompt: "You are Tessera, a helpful assistant on the person's computer. \
                Answer in the language the person writes in. Be accurate and concise; say so \
                when you are unsure. Use the available tools when they give a better answer \
                than guessing, and never invent a tool's result."
                .into(),
            tools: None,
            response_format: ResponseFormat::Text,
            rules: Vec::new(),
            model: None,
            max_model_calls: None,
            default: true,
        };
        Self {
            profiles: vec![general],
            matchers: vec![Vec::new()],
            default: 0,
        }
    }

    /// Validates `profiles` (in routing order).
    pub fn new(profiles: Vec<Profile>) -> Result<Self, ProfilesError> {
        let mut problems = Vec::new();
        let mut matchers = Vec::with_capacity(profiles.len());
        for (i, p) in profiles.iter().enumerate() {
            matchers.push(check_profile(i, p, &mut problems));
        }
        let default = check_set(&profiles, &mut problems);
        match default {
            Some(default) if problems.is_empty() => Ok(Self {
                profiles,
                matchers,
                default,
            }),
            _ => Err(ProfilesError::Invalid(problems)),
        }
    }

    /// Reads a set from its JSON (the setting's value, or what the settings page sends).
    pub fn from_value(value: &Value) -> Result<Self, ProfilesError> {
        let Some(items) = value.as_array() else {
            return Err(invalid(None, "", "must be a list of profiles"));
        };
        let mut problems = Vec::new();
        let mut profiles = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match Profile::deserialize(item) {
                Ok(p) => profiles.push(p),
                Err(e) => problems.push(ProfileProblem {
                    profile: Some(label_of(i, item)),
                    field: failing_field(item, &e.to_string()),
                    message: e.to_string(),
                }),
            }
        }
        if !problems.is_empty() {
            return Err(ProfilesError::Invalid(problems));
        }
        Self::new(profiles)
    }

    /// The set as stored.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(&self.profiles).unwrap_or_default()
    }

    /// The saved set, or [`Profiles::builtin`] when none was saved. A saved set that has become
    /// invalid is an error naming each problem, never silently replaced.
    pub fn load(store: &Store) -> Result<Self, ProfilesError> {
        match store.app_setting(SETTING_KEY)? {
            Some(value) => Self::from_value(&value),
            None => Ok(Self::builtin()),
        }
    }

    /// Saves this set.
    pub fn save(&self, store: &Store) -> Result<(), ProfilesError> {
        store.set_app_setting(SETTING_KEY, self.to_value())?;
        Ok(())
    }

    /// Validates `value` and saves it; nothing is written when anything is wrong.
    pub fn save_value(store: &Store, value: &Value) -> Result<Self, ProfilesError> {
        let profiles = Self::from_value(value)?;
        profiles.save(store)?;
        Ok(profiles)
    }

    /// Forgets the saved set: the built-in one applies again.
    pub fn reset(store: &Store) -> Result<(), ProfilesError> {
        store.delete_app_setting(SETTING_KEY)?;
        Ok(())
    }

    /// The profiles in routing order.
    pub fn all(&self) -> &[Profile] {
        &self.profiles
    }

    pub fn get(&self, name: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    pub fn default_profile(&self) -> &Profile {
        &self.profiles[self.default]
    }

    /// The first rule that matches `text`, profiles and rules in order.
    pub fn match_rules(&self, text: &str) -> Option<RuleMatch> {
        let lower = text.to_lowercase();
        self.profiles
            .iter()
            .zip(&self.matchers)
            .find_map(|(profile, matchers)| {
                profile.rules.iter().zip(matchers).enumerate().find_map(
                    |(rule_index, (rule, matcher))| {
                        matcher.find(rule, text, &lower).map(|matched| RuleMatch {
                            profile: profile.name.clone(),
                            rule_index,
                            rule: rule.clone(),
                            matched,
                        })
                    },
                )
            })
    }
}

fn invalid(profile: Option<String>, field: &str, message: &str) -> ProfilesError {
    ProfilesError::Invalid(vec![ProfileProblem {
        profile,
        field: field.to_owned(),
        message: message.to_owned(),
    }])
}

/// The profiles, to change and validate again with [`Profiles::new`].
impl From<Profiles> for Vec<Profile> {
    fn from(p: Profiles) -> Self {
        p.profiles
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn the_builtin_set_passes_its_own_checks() {
        let builtin = Profiles::builtin();
        let again = Profiles::from_value(&builtin.to_value()).unwrap();
        assert_eq!(again.all(), builtin.all());
        assert_eq!(again.default_profile().name, "default");
    }

    #[test]
    fn a_field_named_like_a_secret_is_named_before_the_store_refuses_it() {
        let value = json!([{"name": "a", "title": "A", "description": "d", "default": true,
            "response_format": {"type": "json", "schema": {"type": "object",
                "properties": {"api_key": {"type": "string"}}}}}]);
        let Err(ProfilesError::Invalid(problems)) = Profiles::from_value(&value) else {
            panic!("accepted")
        };
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].profile.as_deref(), Some("a"));
        assert_eq!(
            problems[0].field,
            "response_format.schema.properties.api_key"
        );
    }

    #[test]
    fn bad_names_and_empty_sets_are_named() {
        let value = json!([{"name": "Bad Name", "title": " ", "description": "d",
            "default": true}]);
        let Err(ProfilesError::Invalid(problems)) = Profiles::from_value(&value) else {
            panic!("accepted")
        };
        let fields: Vec<(Option<&str>, &str)> = problems
            .iter()
            .map(|p| (p.profile.as_deref(), p.field.as_str()))
            .collect();
        assert_eq!(fields, vec![(Some("#0"), "name"), (Some("#0"), "title")]);
        assert!(Profiles::new(Vec::new()).is_err());
    }
}
