//! Asking providers what they serve, and finding local model servers.

use std::sync::Arc;

use tessera_providers::config::ModelSettings;
use tessera_providers::keys::{resolve_key, KeyStore};
use tessera_providers::models::{list_models, ModelInfo};
use tessera_providers::ProviderConfig;
use tessera_store::Store;

use super::{find_or_fail, Outcome};

/// The provider `name` and the models it says it serves, asked with its key.
pub async fn fetch_models(
    store: &Store,
    keyring: Arc<dyn KeyStore>,
    name: &str,
) -> Outcome<(ProviderConfig, Vec<ModelInfo>)> {
    let (config, _) = find_or_fail(store, name)?;
    let key = resolve_key(&config, keyring).await?;
    let models = list_models(&config, key.as_ref()).await?;
    Ok((config, models))
}

/// What the person configured wins; the detected values fill the gaps.
pub fn merge_settings(mine: ModelSettings, detected: ModelSettings) -> ModelSettings {
    ModelSettings {
        context_window: mine.context_window.or(detected.context_window),
        image_input: mine.image_input.or(detected.image_input),
        price: mine.price.or(detected.price),
        max_output_tokens: mine.max_output_tokens.or(detected.max_output_tokens),
        first_tool_choice: mine.first_tool_choice.or(detected.first_tool_choice),
    }
}
