//! `tessera provider models` and `detect`: asking providers what they serve.

use std::io::Write;
use std::sync::Arc;

use anyhow::anyhow;
use tessera_providers::config::ModelSettings;
use tessera_providers::keys::{resolve_key, KeyStore};
use tessera_providers::models::{
    detect_at, detect_local, list_models, local_urls, ModelInfo, LMSTUDIO_PROVIDER,
};
use tessera_store::Store;

use super::*;

/// The provider `name` and the models it says it serves, asked with its key.
pub(crate) async fn fetch_models(
    store: &Store,
    keyring: Arc<dyn KeyStore>,
    name: &str,
) -> Outcome<(ProviderConfig, Vec<ModelInfo>)> {
    let (config, _) = find_or_fail(store, name)?;
    let key = resolve_key(&config, keyring).await?;
    let models = list_models(&config, key.as_ref()).await?;
    Ok((config, models))
}

pub(super) async fn models(
    store: &Store,
    keyring: Arc<dyn KeyStore>,
    name: &str,
    save_them: bool,
) -> Outcome {
    let (mut config, models) = fetch_models(store, keyring, name).await?;
    {
        let mut out = std::io::stdout().lock();
        for model in &models {
            writeln!(out, "{}", model.id)
                .map_err(|err| usage(format!("cannot write the list: {err}")))?;
        }
    }
    if save_them {
        let before = config.models.len();
        for model in &models {
            config.models.entry(model.id.clone()).or_default();
        }
        save(store, &config)?;
        eprintln!(
            "saved {} new model(s) to provider {name} ({} in all)",
            config.models.len() - before,
            config.models.len()
        );
    }
    Ok(())
}

pub(super) async fn detect(store: &Store, url: Option<&str>, save_it: bool) -> Outcome {
    let (found, looked) = match url {
        Some(url) => {
            let url = check_base_url(url)
                .map_err(|_| usage(format!("--url `{url}` is not an http:// or https:// URL")))?;
            (
                detect_at(&url, DETECT_TIMEOUT).await.into_iter().collect(),
                url,
            )
        }
        None => {
            let (ollama, lmstudio) = local_urls();
            (
                detect_local(DETECT_TIMEOUT).await,
                format!("{ollama} or {lmstudio}"),
            )
        }
    };
    if found.is_empty() {
        return Err(Failure::Remote(anyhow!(
            "no Ollama answered at {looked}, and no LM Studio either (is one running? \
             `ollama serve`, or LM Studio's local server)"
        )));
    }
    for found in found {
        describe_and_save(store, found, save_it)?;
    }
    Ok(())
}

/// Prints what was found at a local server, and saves it under its name when asked.
fn describe_and_save(store: &Store, mut found: ProviderConfig, save_it: bool) -> Outcome {
    let (what, root) = if found.name == LMSTUDIO_PROVIDER {
        ("LM Studio", found.base_url.trim_end_matches("/v1"))
    } else {
        ("Ollama", found.base_url.trim_end_matches("/v1"))
    };
    println!(
        "found {what} at {root}: base URL {}, no key needed, {} model(s)",
        found.base_url,
        found.models.len()
    );
    for model in found.models.keys() {
        println!("  {model}");
    }
    if !save_it {
        return Ok(());
    }
    let name = found.name.clone();
    if let Some(previous) = saved(store, &name)? {
        // Keep what the person set: settings of models still there, a default still
        // served, the network settings.
        for (model, settings) in previous.models {
            if let Some(current) = found.models.get_mut(&model) {
                *current = merge_settings(settings, current.clone());
            }
        }
        if let Some(model) = previous.default_model {
            if found.models.contains_key(&model) {
                found.default_model = Some(model);
            }
        }
        found.proxy = previous.proxy;
        found.extra_ca_certs = previous.extra_ca_certs;
        found.timeouts = previous.timeouts;
        found.retry = previous.retry;
    }
    save(store, &found)?;
    println!(
        "saved as provider {name} (default model {})",
        found.default_model.as_deref().unwrap_or("(none)")
    );
    Ok(())
}

/// What the person configured wins; the detected values fill the gaps.
pub(super) fn merge_settings(mine: ModelSettings, detected: ModelSettings) -> ModelSettings {
    ModelSettings {
        context_window: mine.context_window.or(detected.context_window),
        image_input: mine.image_input.or(detected.image_input),
        price: mine.price.or(detected.price),
        max_output_tokens: mine.max_output_tokens.or(detected.max_output_tokens),
    }
}
