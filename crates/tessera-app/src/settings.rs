//! The app settings a person may change, one key at a time: the spending limits (checked as
//! `tessera provider limits` checks them), the default provider, where model downloads come
//! from (a mirror, a proxy; checked as `tessera local hub` checks them) and the model that
//! embeds a project's files. Anything else is refused. Adding one is a key here, its place in
//! [`SettingValues`], and an arm of [`App::change_setting`].

use serde_json::Value;
use tessera_protocol::settings_api::{SettingValues, SettingsView};

use crate::local_models::{LocalModelsError, HUB_ADDRESS_SETTING, HUB_PROXY_SETTING};
use crate::providers::settings::{check_limit, parse_limit};
use crate::providers::ProvidersError;
use crate::{error_chain, App, CoreError};
use tessera_protocol::wire::kind_of;

const PER_DAY: &str = "spending_limit_per_day_usd";
const PER_CONVERSATION: &str = "spending_limit_per_conversation_usd";
const DEFAULT_PROVIDER: &str = "default_provider";
const EMBEDDING: &str = crate::embedding::SETTING;
/// Every key a person may set, as the API names them.
pub const KEYS: [&str; 6] = [
    PER_DAY,
    PER_CONVERSATION,
    DEFAULT_PROVIDER,
    HUB_ADDRESS_SETTING,
    HUB_PROXY_SETTING,
    EMBEDDING,
];

/// A value the person got wrong names the setting (`INVALID_VALUE`); a provider or the store
/// that failed stays what it is.
fn invalid(err: ProvidersError) -> CoreError {
    if err.is_remote() || matches!(err, ProvidersError::Store(_)) {
        CoreError::Providers(err)
    } else {
        CoreError::BadSetting(error_chain(&err))
    }
}

/// A hub address or proxy the person got wrong names it and what was wrong.
fn hub_invalid(err: LocalModelsError) -> CoreError {
    if err.is_bad_request() {
        CoreError::BadSetting(error_chain(&err))
    } else {
        CoreError::LocalModels(err)
    }
}

impl App {
    /// The settings by key (null: not set), what was spent today (estimated; read-only), and
    /// the model new runs use (the cheap way to ask "is a model set up?").
    pub fn settings(&self) -> Result<SettingsView, CoreError> {
        Ok(SettingsView {
            model: Some(self.model_status()),
            ..self.setting_values()?
        })
    }

    fn setting_values(&self) -> Result<SettingsView, CoreError> {
        let providers = self.providers();
        let limits = providers.limits()?;
        let default = providers.default()?;
        let hub = self.local_models().hub_settings().map_err(hub_invalid)?;
        Ok(SettingsView {
            settings: SettingValues {
                spending_limit_per_day_usd: limits.per_day_usd,
                spending_limit_per_conversation_usd: limits.per_conversation_usd,
                default_provider: default,
                model_hub_address: hub.address,
                model_hub_proxy: hub.proxy,
                knowledge_embedding: self.knowledge_embedding(),
            },
            spent_today_usd: providers.spent_today(),
            model: None,
        })
    }

    /// Sets `key` to `value`: a limit is an amount in USD (a number, or text as the command
    /// line takes it: `5`, `$5`, `none`) or null for none; the default provider is a provider's
    /// name, or null for none (the model is rebuilt, and the answer says how it went); the model
    /// hub's address and proxy are web addresses, or null (or blank) for none; the embedding
    /// model is `{"provider", "model"}` or null. Answers with all the settings. Blocks on the
    /// store and the knowledge index briefly.
    pub async fn change_setting(&self, key: &str, value: Value) -> Result<SettingsView, CoreError> {
        let wrong = |what: &str| {
            CoreError::WrongShape(format!("{key} must be {what}, not {}", kind_of(&value)))
        };
        match key {
            HUB_ADDRESS_SETTING | HUB_PROXY_SETTING => {
                let text = match &value {
                    Value::Null => None,
                    Value::String(text) => Some(text.as_str()),
                    _ => return Err(wrong("a web address (text) or null")),
                };
                let local = self.local_models();
                if key == HUB_ADDRESS_SETTING {
                    local.set_hub_address(text).map_err(hub_invalid)?;
                } else {
                    local.set_hub_proxy(text).map_err(hub_invalid)?;
                }
                self.setting_values()
            }
            EMBEDDING => {
                let choice: Option<crate::embedding::EmbeddingChoice> =
                    serde_json::from_value(value).map_err(|err| {
                        CoreError::WrongShape(format!(
                            "{key} must be {{\"provider\": NAME, \"model\": M}} or null: {err}"
                        ))
                    })?;
                let app = self.clone();
                tokio::task::spawn_blocking(move || app.set_knowledge_embedding(choice.as_ref()))
                    .await
                    .map_err(|err| CoreError::Internal(err.to_string()))??;
                self.setting_values()
            }
            DEFAULT_PROVIDER => {
                let name = match &value {
                    Value::Null => None,
                    Value::String(name) => Some(name.trim()),
                    _ => return Err(wrong("a provider's name or null")),
                };
                let changed = self.set_default_provider(name).await.map_err(invalid)?;
                Ok(SettingsView {
                    model: Some(changed.model),
                    ..self.setting_values()?
                })
            }
            PER_DAY | PER_CONVERSATION => {
                let limit = match &value {
                    Value::Null => None,
                    Value::Number(n) => {
                        let amount = n.as_f64().unwrap_or(f64::NAN);
                        check_limit(key, &n.to_string(), amount).map_err(invalid)?;
                        Some(amount)
                    }
                    Value::String(text) => parse_limit(key, text).map_err(invalid)?,
                    _ => return Err(wrong("an amount in USD or null")),
                };
                let providers = self.providers();
                let mut limits = providers.limits()?;
                if key == PER_DAY {
                    limits.per_day_usd = limit;
                } else {
                    limits.per_conversation_usd = limit;
                }
                providers.set_limits(limits).map_err(invalid)?;
                self.setting_values()
            }
            _ => Err(CoreError::WrongShape(format!(
                "no setting named `{key}`: the settings are {}",
                KEYS.join(", ")
            ))),
        }
    }
}
