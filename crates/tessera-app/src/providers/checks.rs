//! The checks a provider configuration passes before it is saved, shared by `tessera provider
//! add` (flag by flag, naming the flag) and the settings page (a whole configuration at once,
//! naming the field): one set of rules whichever shell saves it.

use std::path::Path;

use tessera_providers::http::{
    build_client, has_userinfo, redact_userinfo, PROXY_CREDENTIALS_ADVICE,
};
use tessera_providers::{ProviderConfig, ProviderError, WireKind};

use super::{invalid, Outcome};

pub fn check_name(name: &str) -> Outcome {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(invalid(format!(
            "`{name}` cannot be a provider name: use letters, digits, `-`, `_` or `.` \
             (at most 64)"
        )))
    }
}

/// An http(s) URL with a host; `label` names the flag or field in the message.
pub fn check_url(label: &str, url: &str) -> Outcome<String> {
    let url = url.trim();
    let shown = tessera_protocol::secrets::redact_url_credentials(url);
    if shown != url {
        // Said without the credentials: the message is printed and may be logged.
        return Err(invalid(format!(
            "{label} `{shown}` holds credentials (a user name and password, or a key in its \
             query): give the URL without them and the key as the provider's API key"
        )));
    }
    let parsed = url::Url::parse(url)
        .map_err(|err| invalid(format!("{label} `{url}` is not a URL: {err}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "{label} `{url}` must start with http:// or https://"
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(invalid(format!("{label} `{url}` names no host")));
    }
    Ok(url.to_owned())
}

pub fn check_model(flag: &str, model: &str) -> Outcome<String> {
    let model = model.trim();
    if model.is_empty() {
        return Err(invalid(format!("{flag} needs a model name")));
    }
    Ok(model.to_owned())
}

/// A price or a limit: a finite amount of 0 or more.
pub fn is_amount(value: f64) -> bool {
    value.is_finite() && value >= 0.0
}

/// A client built with only `probe`'s network settings: the check that a proxy URL is usable
/// and a CA file holds PEM certificates.
pub fn check_network(flag: &str, name: &str, apply: impl FnOnce(&mut ProviderConfig)) -> Outcome {
    let mut probe = ProviderConfig::new(name, WireKind::Openai, "http://127.0.0.1/");
    apply(&mut probe);
    build_client(&probe).map(|_| ()).map_err(|err| match err {
        ProviderError::Config(message) => invalid(format!("{flag}: {message}")),
        other => invalid(format!("{flag}: {other}")),
    })
}

/// A proxy setting as saved: `system` (or nothing) → None, `none`, or an http(s) proxy URL
/// without credentials (secrets never enter the database, and the URL is not repeated back).
pub fn check_proxy(label: &str, name: &str, proxy: &str) -> Outcome<Option<String>> {
    match proxy.trim() {
        "system" | "" => Ok(None),
        "none" => Ok(Some("none".into())),
        url => {
            if has_userinfo(url) {
                return Err(invalid(format!(
                    "{label} `{}`: a user name or password is never saved; \
                     {PROXY_CREDENTIALS_ADVICE}",
                    redact_userinfo(url)
                )));
            }
            if let Ok(parsed) = url::Url::parse(url) {
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(invalid(format!(
                        "{label} `{url}`: only http:// and https:// proxies are supported"
                    )));
                }
            }
            check_network(label, name, |p| p.proxy = Some(url.to_owned()))?;
            Ok(Some(url.to_owned()))
        }
    }
}

/// A readable PEM file of certificate authorities, as the absolute path that is saved.
pub fn check_ca(label: &str, name: &str, path: &Path) -> Outcome<std::path::PathBuf> {
    let absolute = std::fs::canonicalize(path)
        .map_err(|err| invalid(format!("{label} {}: cannot read it: {err}", path.display())))?;
    check_network(label, name, |p| p.extra_ca_certs = vec![absolute.clone()])?;
    Ok(absolute)
}

/// A whole configuration, as the settings API receives it: every field checked with the rules
/// `add` applies to its flags, blanks trimmed, the default and fallback models added to the
/// models, CA paths made canonical. Nothing is saved here.
pub fn check_config(config: &mut ProviderConfig) -> Outcome {
    config.name = config.name.trim().to_owned();
    check_name(&config.name)?;
    config.base_url = check_url("base_url", &config.base_url)?;
    let mut models = std::collections::BTreeMap::new();
    for (model, settings) in std::mem::take(&mut config.models) {
        let model = check_model("models", &model)?;
        if settings.context_window == Some(0) {
            return Err(invalid(format!(
                "models.{model}.context_window must be a number of tokens above 0"
            )));
        }
        if settings.max_output_tokens == Some(0) {
            return Err(invalid(format!(
                "models.{model}.max_output_tokens must be a number of tokens above 0"
            )));
        }
        if settings
            .first_tool_choice
            .as_deref()
            .is_some_and(|choice| choice.trim().is_empty())
        {
            return Err(invalid(format!(
                "models.{model}.first_tool_choice must be auto, required, none or a tool's name"
            )));
        }
        if let Some(price) = &settings.price {
            let amounts = [
                Some(price.input_per_mtok),
                Some(price.output_per_mtok),
                price.cached_input_per_mtok,
            ];
            if !amounts.into_iter().flatten().all(is_amount) {
                return Err(invalid(format!(
                    "models.{model}.price: every amount is USD per million tokens, 0 or more"
                )));
            }
        }
        models.insert(model, settings);
    }
    config.models = models;
    for (label, slot) in [
        ("default_model", &mut config.default_model),
        ("fallback_model", &mut config.fallback_model),
    ] {
        if let Some(model) = slot.as_deref() {
            let model = check_model(label, model)?;
            config.models.entry(model.clone()).or_default();
            *slot = Some(model);
        }
    }
    let timeouts = &config.timeouts;
    if timeouts.connect_ms == 0 || timeouts.first_byte_ms == 0 || timeouts.idle_ms == 0 {
        return Err(invalid(
            "timeouts: connect_ms, first_byte_ms and idle_ms must each be above 0",
        ));
    }
    if let Some(proxy) = config.proxy.clone() {
        config.proxy = check_proxy("proxy", &config.name, &proxy)?;
    }
    let mut certs = Vec::new();
    for path in std::mem::take(&mut config.extra_ca_certs) {
        // The server's working folder means nothing to the person: only absolute paths.
        if !path.is_absolute() {
            return Err(invalid(format!(
                "extra_ca_certs: {} is not an absolute path",
                path.display()
            )));
        }
        let absolute = check_ca("extra_ca_certs", &config.name, &path)?;
        if !certs.contains(&absolute) {
            certs.push(absolute);
        }
    }
    config.extra_ca_certs = certs;
    // Everything together (the same checks, once more, as the engine will make them).
    build_client(config).map_err(|err| invalid(err.to_string()))?;
    Ok(())
}
