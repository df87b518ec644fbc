//! Choosing the profile for a message: rules first, then the model, then the default. Routing
//! never fails a turn: whatever goes wrong with the model, the default profile answers and the
//! decision says why.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_protocol::context_doc::UsageStage;
use tessera_providers::{ChatMessage, ChatRequest, ProviderClient};
use tessera_store::{Store, StoreError};
use thiserror::Error;
use tokio_util::sync::CancellationToken;

use super::json_response::unfence;
use super::rules::{prefix_len, RuleMatch};
use super::side_call::call_recorded;
use super::{Profile, Profiles, RouteRule};

/// The classifier answers with a name; room to spare for a sentence around it.
const ROUTE_MAX_TOKENS: u32 = 256;
/// Enough of the message to tell its intent; a pasted document need not be paid for twice.
const MAX_MESSAGE_CHARS: usize = 4_000;

/// The message to route.
#[derive(Clone, Copy, Debug)]
pub struct RouteRequest<'a> {
    /// Where the classification's `model_usage` record goes.
    pub conversation_id: &'a str,
    /// The person's message.
    pub text: &'a str,
    /// The model that classifies when no rule decides (a small, fast one is enough).
    pub model: &'a str,
}

/// The profile chosen, and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteDecision {
    pub profile: Profile,
    pub by: RoutedBy,
}

/// How a profile was chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RoutedBy {
    /// A rule matched (no model was asked).
    Rule(RuleMatch),
    /// There is only one profile (no model was asked).
    OnlyProfile,
    /// The model named the profile; `answer` is what it said.
    Model { answer: String },
    /// The default profile, because nothing else could decide.
    Fallback { reason: FallbackReason },
}

/// Why routing fell back to the default profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FallbackReason {
    #[error("the message has no text to route by")]
    EmptyMessage,
    #[error("the model could not be asked ({code}: {message})")]
    Provider { code: String, message: String },
    #[error("the model's answer names no profile: {answer:?}")]
    Unusable { answer: String },
}

impl RouteDecision {
    /// `text` without the command a prefix rule matched (`/plan buy milk` → `buy milk`); other
    /// decisions leave it as it is.
    pub fn strip_prefix<'t>(&self, text: &'t str) -> &'t str {
        if let RoutedBy::Rule(RuleMatch {
            rule: RouteRule::Prefix { prefix },
            ..
        }) = &self.by
        {
            if let Some(len) = prefix_len(text, &prefix.trim().to_lowercase()) {
                return text.trim_start()[len..].trim_start();
            }
        }
        text
    }
}

/// Chooses the profile for `request.text`: the first profile (in order) with a matching rule;
/// else, when there is more than one profile, the one the model names (one call on `client`,
/// recorded as a `route` usage); else the default, with the reason. Only a failure of the store
/// is an error.
pub async fn route(
    profiles: &Profiles,
    store: &Store,
    client: &ProviderClient,
    request: RouteRequest<'_>,
    cancel: CancellationToken,
) -> Result<RouteDecision, StoreError> {
    let default = || profiles.default_profile().clone();
    let fallback = |reason| RouteDecision {
        profile: default(),
        by: RoutedBy::Fallback { reason },
    };
    if let Some(m) = profiles.match_rules(request.text) {
        return Ok(RouteDecision {
            profile: profiles.get(&m.profile).cloned().unwrap_or_else(default),
            by: RoutedBy::Rule(m),
        });
    }
    if profiles.all().len() == 1 {
        return Ok(RouteDecision {
            profile: default(),
            by: RoutedBy::OnlyProfile,
        });
    }
    if request.text.trim().is_empty() {
        return Ok(fallback(FallbackReason::EmptyMessage));
    }
    let call = call_recorded(
        store,
        client,
        request.conversation_id,
        UsageStage::Route,
        classification_request(profiles, request),
        cancel,
    )
    .await?;
    if let Some(err) = call.error {
        return Ok(fallback(FallbackReason::Provider {
            code: err.code().as_str().to_owned(),
            message: err.to_string(),
        }));
    }
    let answer = call.response.text.trim().to_owned();
    Ok(match parse_answer(&answer, profiles) {
        Some(profile) => RouteDecision {
            profile: profile.clone(),
            by: RoutedBy::Model { answer },
        },
        None => fallback(FallbackReason::Unusable { answer }),
    })
}

fn classification_request(profiles: &Profiles, request: RouteRequest<'_>) -> ChatRequest {
    let list: Vec<String> = profiles
        .all()
        .iter()
        .map(|p| format!("- `{}`: {}", p.name, one_line(&p.description)))
        .collect();
    let system = format!(
        "You choose which assistant profile answers the person's message. The profiles:\n\n{}\n\n\
         Answer with the name of the one profile that fits the message best, exactly as written \
         between the backticks, and nothing else. When none fits better than the others, \
         answer `{}`.",
        list.join("\n"),
        profiles.default_profile().name,
    );
    let text: String = request.text.chars().take(MAX_MESSAGE_CHARS).collect();
    let mut call = ChatRequest::new(request.model, vec![ChatMessage::user(text)]);
    call.system = Some(system);
    call.max_tokens = Some(ROUTE_MAX_TOKENS);
    call
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The profile an answer names. Accepted: the bare name in any case, quoted or in backticks,
/// a JSON string or `{"profile": …}` (also fenced), after any `<think>…</think>`; failing
/// those, a sentence that mentions exactly one profile name as a word.
fn parse_answer<'p>(answer: &str, profiles: &'p Profiles) -> Option<&'p Profile> {
    let text = match answer.rfind("</think>") {
        Some(end) => &answer[end + "</think>".len()..],
        None => answer,
    };
    let text = unfence(text.trim());
    let by_name = |name: &str| {
        let name = name
            .trim_matches(|c: char| c.is_whitespace() || "`'\"“”‘’.。,，:：*".contains(c))
            .to_lowercase();
        profiles.all().iter().find(|p| p.name == name)
    };
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        match &value {
            Value::String(s) => return by_name(s),
            Value::Object(o) => {
                return ["profile", "name"]
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str))
                    .and_then(by_name)
            }
            // A bare number or `null`: read on as text (a profile may be named `2`).
            _ => {}
        }
    }
    if let Some(p) = by_name(text) {
        return Some(p);
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .collect();
    let mut named = profiles
        .all()
        .iter()
        .filter(|p| words.contains(&p.name.as_str()));
    match (named.next(), named.next()) {
        (Some(p), None) => Some(p),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    fn profiles() -> Profiles {
        let p = |name: &str, default: bool| {
            json!({"name": name, "title": name, "description": format!("{name} things"),
                   "default": default})
        };
        Profiles::from_value(&json!([
            p("default", true),
            p("coder", false),
            p("trip-planner", false)
        ]))
        .unwrap()
    }

    fn parsed(answer: &str) -> Option<String> {
        parse_answer(answer, &profiles()).map(|p| p.name.clone())
    }

    #[test]
    fn answers_are_read_robustly() {
        for answer in [
            "coder",
            "  Coder\n",
            "`coder`",
            "\"CODER\".",
            "{\"profile\": \"coder\"}",
            "```json\n{\"name\": \"coder\"}\n```",
            "<think>maybe default? no</think>coder",
            "The best profile is `coder`.",
        ] {
            assert_eq!(parsed(answer).as_deref(), Some("coder"), "{answer}");
        }
        assert_eq!(parsed("trip-planner").as_deref(), Some("trip-planner"));
        assert_eq!(parsed("coder or trip-planner"), None);
        assert_eq!(parsed("I cannot decide"), None);
        assert_eq!(parsed("{\"profile\": 3}"), None);
        assert_eq!(parsed(""), None);
    }

    #[test]
    fn the_prompt_lists_every_profile_and_the_default() {
        let request = classification_request(
            &profiles(),
            RouteRequest {
                conversation_id: "c",
                text: "fix my code",
                model: "m",
            },
        );
        let system = request.system.unwrap();
        assert!(system.contains("- `coder`: coder things"), "{system}");
        assert!(system.contains("answer `default`"), "{system}");
        assert_eq!(request.messages.len(), 1);
    }
}
