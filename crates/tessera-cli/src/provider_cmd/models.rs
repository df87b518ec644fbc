//! `tessera provider models` and `detect`: asking providers what they serve.

use std::io::Write;
use tessera_app::providers::config::ProviderConfig;
use tessera_app::providers::is_lmstudio;

use super::*;

pub(super) async fn models(providers: &Providers<'_>, name: &str, save_them: bool) -> Outcome {
    let (mut config, models) = providers.fetch_models(name).await?;
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
        providers.save(&config)?;
        eprintln!(
            "saved {} new model(s) to provider {name} ({} in all)",
            config.models.len() - before,
            config.models.len()
        );
    }
    Ok(())
}

pub(super) async fn detect(providers: &Providers<'_>, url: Option<&str>, save_it: bool) -> Outcome {
    let url = match url {
        Some(url) => Some(
            check_base_url(url)
                .map_err(|_| usage(format!("--url `{url}` is not an http:// or https:// URL")))?,
        ),
        None => None,
    };
    for found in providers.detect(url.as_deref(), DETECT_TIMEOUT).await? {
        describe_and_save(providers, found, save_it)?;
    }
    Ok(())
}

/// Prints what was found at a local server, and saves it under its name when asked.
fn describe_and_save(providers: &Providers<'_>, found: ProviderConfig, save_it: bool) -> Outcome {
    let what = if is_lmstudio(&found.name) {
        "LM Studio"
    } else {
        "Ollama"
    };
    let root = found.base_url.trim_end_matches("/v1");
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
    let saved = providers.save_detected(found)?;
    println!(
        "saved as provider {} (default model {})",
        saved.name,
        saved.default_model.as_deref().unwrap_or("(none)")
    );
    Ok(())
}
