//! Answers of the `/v1` endpoints the settings page reads that are plain JSON rather than
//! protocol messages: the model new runs use, a provider's connection check, the app settings.
//! Typed here so the UI's types are generated from the server's (`ui/src/generated`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The model new runs use, as the answers of the settings endpoints report it (`model`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct ModelStatus {
    pub ready: bool,
    /// The provider's name, when ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why there is none, when the rebuild after a change failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Why a provider's connection check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CheckProblem {
    /// No key in the keyring nor in the provider's variable.
    MissingKey,
    /// The provider refused the key (HTTP 401 or 403).
    AuthFailed,
    /// No connection (refused, DNS, TLS, connect timeout).
    Unreachable,
    /// Connected, but no answer in time.
    Timeout,
    /// The provider does not list the model checked.
    UnknownModel,
    /// Another HTTP error.
    HttpError,
    /// An answer that could not be read.
    BadAnswer,
    Failed,
}

/// `POST /v1/providers/{name}/check`: whether the provider answers with the key it would use
/// and serves the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderCheck {
    pub provider: String,
    pub ok: bool,
    /// The model checked: the one asked for, else the provider's default.
    pub model: Option<String>,
    /// How long the provider took to answer (none when it was never asked).
    pub latency_ms: Option<u64>,
    /// How many models it listed.
    pub models: Option<u64>,
    pub problem: Option<CheckProblem>,
    /// Why, for people; never holds the key.
    pub message: Option<String>,
}

/// The settings the UI may change, by key (null: not set).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct SettingValues {
    pub spending_limit_per_day_usd: Option<f64>,
    pub spending_limit_per_conversation_usd: Option<f64>,
    pub default_provider: Option<String>,
    /// Where model downloads come from instead of Hugging Face (a mirror such as
    /// `https://hf-mirror.com`); null: `HF_ENDPOINT`, or Hugging Face.
    #[serde(default)]
    pub model_hub_address: Option<String>,
    /// The proxy model downloads go through (`http://host:port`); null: the on-device
    /// provider's proxy, or the system's.
    #[serde(default)]
    pub model_hub_proxy: Option<String>,
    /// The model that embeds projects' files for search by meaning; null: search by words.
    #[serde(default)]
    pub knowledge_embedding: Option<KnowledgeEmbedding>,
}

/// A provider (saved, or a preset) and one of its embedding models, served at its
/// OpenAI-compatible `/v1/embeddings` (Ollama's `bge-m3`, OpenAI's `text-embedding-3-small`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeEmbedding {
    pub provider: String,
    pub model: String,
}

/// `GET /v1/settings` and the answer of `PUT /v1/settings/{key}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct SettingsView {
    pub settings: SettingValues,
    /// Estimated cost of today's model calls in USD (null: cannot be told).
    pub spent_today_usd: Option<f64>,
    /// After a change of the default provider: the model new runs use now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<ModelStatus>,
}

/// Where Tessera keeps secrets (API keys, MCP servers' secret arguments, headers and URLs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SecretBackend {
    /// The operating system's keyring (Secret Service, Keychain, Credential Manager).
    Keyring,
    /// `secrets.json` in the data folder (owner-only, never in backups or exports): less safe
    /// (any program running as the person can read it), chosen by the person where no keyring
    /// can be reached.
    File,
}

impl SecretBackend {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Keyring => "keyring",
            Self::File => "file",
        }
    }
}

/// Whether the OS keyring answered a probe just now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct KeyringHealth {
    pub reachable: bool,
    /// Why not, in words for a person (no Secret Service, locked, no answer in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `GET /v1/secrets/store`: where secrets are kept now, and whether the keyring can be used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SecretStoreView {
    pub store: SecretBackend,
    /// The key file's path (it exists only while `store` is `file`).
    pub key_file: String,
    pub keyring: KeyringHealth,
    /// What the person should know about the key file, in words: a `secrets.json` Tessera did
    /// not write at its path (not used), its mode or its folder's found open to other users
    /// and set back to owner-only.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// `PUT /v1/secrets/store`'s body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SecretStoreChoice {
    pub store: SecretBackend,
}

/// A secret that stayed where it was when the store changed, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SecretNotMoved {
    /// Its name: a provider's, or `mcp/<server>/…` for an MCP server's.
    pub account: String,
    pub reason: String,
}

/// `PUT /v1/secrets/store`'s answer: the store now, and what moved to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SecretStoreMoved {
    pub store: SecretBackend,
    pub key_file: String,
    /// The secrets now in the chosen store.
    pub moved: Vec<String>,
    /// Secrets the old store could not give (an unreachable keyring): enter them again.
    pub not_moved: Vec<SecretNotMoved>,
}
