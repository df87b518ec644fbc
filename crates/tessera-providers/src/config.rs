//! A provider as a person configures it: where it is, which models it serves, what they cost,
//! how patient to be with it. Stored as JSON in the provider settings table; never holds a key.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Which wire format a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum WireKind {
    /// OpenAI-compatible Chat Completions (OpenAI, DeepSeek, Qwen, Moonshot, Ollama, vLLM…).
    Openai,
    /// Anthropic Messages.
    Anthropic,
}

impl WireKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
        }
    }

    /// The base URL used when a provider of this kind names none.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Openai => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com",
        }
    }
}

impl std::str::FromStr for WireKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "openai" => Ok(Self::Openai),
            "anthropic" => Ok(Self::Anthropic),
            other => Err(format!(
                "unknown provider kind `{other}` (expected openai or anthropic)"
            )),
        }
    }
}

/// Prices of one model in US dollars per million tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct ModelPrice {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    /// Price of input tokens served from the provider's prompt cache, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_per_mtok: Option<f64>,
}

/// What a model can take in and how much of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct ModelSettings {
    /// Context window in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Whether the model accepts images (None: guessed from its name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_input: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<ModelPrice>,
    /// The longest answer to ask for (Anthropic requires one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// The `tool_choice` of the first model call of each run: `auto`, `required`, `none` or a
    /// tool's name (for a small model that never calls a tool of its own accord). Later calls
    /// of the run choose freely, so a run still ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_tool_choice: Option<String>,
}

/// Timeouts of one provider, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Timeouts {
    /// Establishing the TCP/TLS connection.
    pub connect_ms: u64,
    /// From sending the request to the first byte of the answer.
    pub first_byte_ms: u64,
    /// The longest silence allowed between two chunks of a stream.
    pub idle_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect_ms: 10_000,
            first_byte_ms: 120_000,
            idle_ms: 90_000,
        }
    }
}

impl Timeouts {
    pub fn connect(&self) -> Duration {
        Duration::from_millis(self.connect_ms)
    }
    pub fn first_byte(&self) -> Duration {
        Duration::from_millis(self.first_byte_ms)
    }
    pub fn idle(&self) -> Duration {
        Duration::from_millis(self.idle_ms)
    }
}

/// How often and how patiently to retry a call that failed before any output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct RetryPolicy {
    /// Retries after the first attempt: one unless a provider's settings ask for more (seed
    /// 001 §9.1/§9.3: a rate-limited call is retried once with backoff, `maxRetries = 1`).
    pub max_retries: u32,
    /// The first backoff; each retry doubles it (with jitter).
    pub base_delay_ms: u64,
    /// No single wait is longer than this, Retry-After included.
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 1,
            base_delay_ms: 500,
            max_delay_ms: 30_000,
        }
    }
}

/// One configured provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct ProviderConfig {
    /// The name people and the keyring know it by (`openai`, `deepseek`, `my-vllm`).
    pub name: String,
    pub kind: WireKind,
    /// Up to and including the API version path for OpenAI-compatible servers
    /// (`https://api.deepseek.com/v1`), the host for Anthropic.
    pub base_url: String,
    /// Models offered, with what is known of each.
    #[serde(default)]
    pub models: BTreeMap<String, ModelSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    /// Used instead when the provider says it is overloaded (HTTP 529, `overloaded_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_model: Option<String>,
    /// Whether this provider needs an API key (a local Ollama does not).
    #[serde(default = "yes")]
    pub requires_key: bool,
    /// A proxy for this provider only (`http://…`, `socks5://…` is not supported); `"none"`
    /// bypasses the system proxy. Without it the system settings (HTTP(S)_PROXY, NO_PROXY) apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<String>,
    /// PEM files of extra certificate authorities to trust.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<PathBuf>>")]
    pub extra_ca_certs: Vec<PathBuf>,
    #[serde(default)]
    pub timeouts: Timeouts,
    #[serde(default)]
    pub retry: RetryPolicy,
    /// Send earlier reasoning back as `reasoning_content` on tool-call turns (DeepSeek requires
    /// it). None: on for DeepSeek models and hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_reasoning: Option<bool>,
}

fn yes() -> bool {
    true
}

impl ProviderConfig {
    /// A provider of `kind` at `base_url` with nothing else configured.
    pub fn new(name: impl Into<String>, kind: WireKind, base_url: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind,
            base_url: base_url.into(),
            models: BTreeMap::new(),
            default_model: None,
            fallback_model: None,
            requires_key: true,
            proxy: None,
            extra_ca_certs: Vec::new(),
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
            replay_reasoning: None,
        }
    }

    /// The settings of `model`, if any were configured.
    pub fn model(&self, model: &str) -> Option<&ModelSettings> {
        self.models.get(model)
    }

    /// Whether `model` takes images: as configured, else guessed from well-known names.
    pub fn accepts_images(&self, model: &str) -> bool {
        if let Some(known) = self.model(model).and_then(|m| m.image_input) {
            return known;
        }
        crate::capabilities::guess_image_input(self.kind, model)
    }

    /// Whether DeepSeek-style `reasoning_content` must be sent back on tool-call turns.
    pub fn replays_reasoning(&self, model: &str) -> bool {
        self.replay_reasoning.unwrap_or_else(|| {
            model.to_ascii_lowercase().contains("deepseek")
                || self.base_url.to_ascii_lowercase().contains("deepseek")
        })
    }

    /// The `tool_choice` the first call of a run with `model` makes, when one is set.
    pub fn first_tool_choice(&self, model: &str) -> Option<crate::ToolChoice> {
        let choice = self.model(model)?.first_tool_choice.as_deref()?.trim();
        (!choice.is_empty()).then(|| match choice.parse() {
            Ok(parsed) => parsed,
            Err(never) => match never {},
        })
    }

    /// The largest answer to request.
    pub fn max_output_tokens(&self, model: &str) -> u32 {
        self.model(model)
            .and_then(|m| m.max_output_tokens)
            .unwrap_or(8192)
    }
}
