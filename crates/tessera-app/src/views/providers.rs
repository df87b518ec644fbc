//! What the provider endpoints answer (`/v1/providers…`) and `tessera provider list --json`
//! prints. A key is never part of any of them.

use std::path::PathBuf;

use serde::Serialize;
use tessera_engine::provider_settings::ProviderSource;
use tessera_protocol::settings_api::ModelStatus;
use tessera_providers::models::ModelInfo;
use tessera_providers::{ProviderConfig, WireKind};
use ts_rs::TS;

/// Where the key a provider would use is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum KeyPlace {
    /// An environment variable (`key_env_var` names it), which wins over the keyring.
    Env,
    Keyring,
    Missing,
    /// The provider is set up as needing none.
    NotNeeded,
    /// The keyring could not be read.
    Unknown,
}

/// A provider as `tessera provider list --json` prints it.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ProviderSummary {
    pub name: String,
    pub kind: WireKind,
    pub source: ProviderSource,
    /// Whether it is the one used when none is named.
    pub default: bool,
    pub base_url: String,
    pub default_model: Option<String>,
    pub fallback_model: Option<String>,
    /// The models configured for it (the provider may serve more: `…/models` asks it).
    pub models: Vec<String>,
    pub requires_key: bool,
    pub key: KeyPlace,
    pub key_env_var: Option<String>,
    /// The environment variables it reads a key from, in order.
    pub key_env_vars: Vec<String>,
    /// With any credentials in it hidden.
    pub proxy: Option<String>,
    pub extra_ca_certs: Vec<PathBuf>,
}

/// A row of `GET /v1/providers`: the list's row, whether a key is there (null: the keyring
/// could not be read), and the whole configuration (proxy credentials hidden).
#[derive(Clone, Debug, Serialize, TS)]
pub struct ProviderRow {
    #[serde(flatten)]
    pub summary: ProviderSummary,
    pub has_key: Option<bool>,
    pub config: ProviderConfig,
}

/// `GET /v1/providers`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ProviderList {
    pub providers: Vec<ProviderRow>,
    /// The provider used when none is named.
    pub default: Option<String>,
    /// Why the keyring could not be read, when it could not.
    pub keyring_error: Option<String>,
    /// The model new runs use.
    pub model: ModelStatus,
}

/// `GET /v1/local-providers`: model servers found running on this machine (Ollama, LM
/// Studio), each as the provider it would be saved as.
#[derive(Clone, Debug, Serialize, TS)]
pub struct LocalProviders {
    pub found: Vec<ProviderConfig>,
}

/// Where whether a model takes images comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ImageInputSource {
    /// The person said it does.
    On,
    /// The person said it does not.
    Off,
    /// Nobody said: guessed from the model's name.
    Guessed,
}

/// `GET /v1/providers/{name}/images?model=…`: whether the model takes images; a picture sent to
/// one that does not is replaced by a note saying it was left out.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ImageInput {
    pub provider: String,
    pub model: String,
    pub takes_images: bool,
    pub source: ImageInputSource,
}

/// `POST /v1/providers` (201 when new, 200 when it replaced one).
#[derive(Clone, Debug, Serialize, TS)]
pub struct ProviderSaved {
    pub name: String,
    pub replaced: bool,
    pub config: ProviderConfig,
    pub model: ModelStatus,
}

/// `DELETE /v1/providers/{name}`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ProviderRemoved {
    pub removed: String,
    /// Whether a key was removed from the keyring (null: the keyring could not be reached).
    pub key_removed: Option<bool>,
    pub keyring_warning: Option<String>,
    /// A preset of the same name is there again.
    pub preset_remains: bool,
    pub was_default: bool,
    pub model: ModelStatus,
}

/// `PUT /v1/providers/{name}/key`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct KeyStored {
    pub provider: String,
    pub stored: bool,
    /// This variable is set and is used instead of the keyring while it is.
    pub env_override: Option<String>,
    /// The provider is set up as needing no key, so this one is not sent.
    pub not_required: bool,
    pub model: ModelStatus,
}

/// `DELETE /v1/providers/{name}/key`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct KeyRemoved {
    pub provider: String,
    pub removed: bool,
    pub model: ModelStatus,
}

/// `POST /v1/providers/{name}/default`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct DefaultProviderSet {
    pub default: String,
    pub model: ModelStatus,
}

/// `GET /v1/providers/{name}/models`: what the provider itself says it serves.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ProviderModels {
    pub provider: String,
    pub models: Vec<ModelInfo>,
}
