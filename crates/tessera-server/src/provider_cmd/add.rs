//! `tessera provider add`: every flag checked before anything is saved.

use tessera_providers::config::ModelPrice;
use tessera_providers::http::{
    build_client, has_userinfo, redact_userinfo, PROXY_CREDENTIALS_ADVICE,
};
use tessera_providers::keys::{env_key, env_var_names};
use tessera_providers::{presets, ProviderConfig, ProviderError, ProviderKind};
use tessera_store::Store;

use super::*;

pub(super) fn check_name(name: &str) -> Outcome {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(usage(format!(
            "`{name}` cannot be a provider name: use letters, digits, `-`, `_` or `.` \
             (at most 64)"
        )))
    }
}

pub(super) fn check_base_url(url: &str) -> Outcome<String> {
    let url = url.trim();
    let parsed = url::Url::parse(url)
        .map_err(|err| usage(format!("--base-url `{url}` is not a URL: {err}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(usage(format!(
            "--base-url `{url}` must start with http:// or https://"
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(usage(format!("--base-url `{url}` names no host")));
    }
    Ok(url.to_owned())
}

pub(super) fn check_model(flag: &str, model: &str) -> Outcome<String> {
    let model = model.trim();
    if model.is_empty() {
        return Err(usage(format!("{flag} needs a model name")));
    }
    Ok(model.to_owned())
}

/// `MODEL=IN/OUT[/CACHED]`, USD per million tokens.
pub(super) fn parse_price(text: &str) -> Outcome<(String, ModelPrice)> {
    let bad = |why: &str| {
        usage(format!(
            "--price `{text}`: {why}; expected MODEL=IN/OUT in USD per million input/output \
             tokens, e.g. gpt-4o=2.5/10 (optionally /CACHED_IN)"
        ))
    };
    let (model, amounts) = text.rsplit_once('=').ok_or_else(|| bad("no `=`"))?;
    let model = model.trim();
    if model.is_empty() {
        return Err(bad("no model name"));
    }
    let numbers = amounts
        .split('/')
        .map(|n| {
            let n = n.trim().trim_start_matches('$');
            match n.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                _ => Err(bad(&format!("`{n}` is not a price (a number, 0 or more)"))),
            }
        })
        .collect::<Outcome<Vec<f64>>>()?;
    let price = match numbers.as_slice() {
        [input, output] => ModelPrice {
            input_per_mtok: *input,
            output_per_mtok: *output,
            cached_input_per_mtok: None,
        },
        [input, output, cached] => ModelPrice {
            input_per_mtok: *input,
            output_per_mtok: *output,
            cached_input_per_mtok: Some(*cached),
        },
        _ => return Err(bad("two or three amounts are needed")),
    };
    Ok((model.to_owned(), price))
}

/// A client built with only `probe`'s network settings: the check that a proxy URL is usable
/// and a CA file holds PEM certificates.
pub(super) fn check_network(
    flag: &str,
    name: &str,
    apply: impl FnOnce(&mut ProviderConfig),
) -> Outcome {
    let mut probe = ProviderConfig::new(name, ProviderKind::Openai, "http://127.0.0.1/");
    apply(&mut probe);
    build_client(&probe).map(|_| ()).map_err(|err| match err {
        ProviderError::Config(message) => usage(format!("{flag}: {message}")),
        other => usage(format!("{flag}: {other}")),
    })
}

pub(super) fn add(store: &Store, args: AddArgs) -> Outcome {
    let name = args.name.trim().to_owned();
    check_name(&name)?;
    let (mut config, existed) = match saved(store, &name)? {
        Some(config) => (config, true),
        None => match (presets::preset(&name), args.kind) {
            (Some(preset), None) => (preset, false),
            (Some(preset), Some(kind)) if preset.kind == kind => (preset, false),
            (_, Some(kind)) => (
                ProviderConfig::new(name.clone(), kind, kind.default_base_url()),
                false,
            ),
            (None, None) => {
                return Err(usage(format!(
                    "--kind openai|anthropic is needed for a new provider ({name} is neither \
                     saved nor a preset)"
                )))
            }
        },
    };
    if let Some(kind) = args.kind {
        if kind != config.kind && args.base_url.is_none() {
            config.base_url = kind.default_base_url().to_owned();
        }
        config.kind = kind;
    }
    if let Some(url) = &args.base_url {
        config.base_url = check_base_url(url)?;
    }

    // The models this command names: --context-window applies to them.
    let mut named = Vec::new();
    for model in &args.models {
        named.push(check_model("--model", model)?);
    }
    if let Some(model) = &args.default_model {
        let model = check_model("--default-model", model)?;
        config.default_model = Some(model.clone());
        named.push(model);
    }
    if let Some(model) = &args.fallback_model {
        let model = check_model("--fallback-model", model)?;
        config.fallback_model = Some(model.clone());
        named.push(model);
    }
    for text in &args.prices {
        let (model, price) = parse_price(text)?;
        config.models.entry(model.clone()).or_default().price = Some(price);
        named.push(model);
    }
    for model in &named {
        config.models.entry(model.clone()).or_default();
    }
    if let Some(window) = args.context_window {
        if window == 0 {
            return Err(usage("--context-window must be a number of tokens above 0"));
        }
        let targets: Vec<String> = if named.is_empty() {
            config.models.keys().cloned().collect()
        } else {
            named.clone()
        };
        if targets.is_empty() {
            return Err(usage(
                "--context-window is set per model: name one with --model M",
            ));
        }
        for model in targets {
            config.models.entry(model).or_default().context_window = Some(window);
        }
    }

    if let Some(proxy) = &args.proxy {
        let proxy = proxy.trim();
        match proxy {
            "system" | "" => config.proxy = None,
            "none" => config.proxy = Some("none".into()),
            url => {
                // Secrets never enter the database, and the URL is not repeated back.
                if has_userinfo(url) {
                    return Err(usage(format!(
                        "--proxy `{}`: a user name or password is never saved; \
                         {PROXY_CREDENTIALS_ADVICE}",
                        redact_userinfo(url)
                    )));
                }
                if let Ok(parsed) = url::Url::parse(url) {
                    if !matches!(parsed.scheme(), "http" | "https") {
                        return Err(usage(format!(
                            "--proxy `{url}`: only http:// and https:// proxies are supported"
                        )));
                    }
                }
                check_network("--proxy", &name, |p| p.proxy = Some(url.to_owned()))?;
                config.proxy = Some(url.to_owned());
            }
        }
    }
    for path in &args.ca_certs {
        let absolute = std::fs::canonicalize(path).map_err(|err| {
            usage(format!(
                "--ca-cert {}: cannot read it: {err}",
                path.display()
            ))
        })?;
        check_network("--ca-cert", &name, |p| {
            p.extra_ca_certs = vec![absolute.clone()]
        })?;
        if !config.extra_ca_certs.contains(&absolute) {
            config.extra_ca_certs.push(absolute);
        }
    }
    if args.no_key {
        config.requires_key = false;
    }
    if args.requires_key {
        config.requires_key = true;
    }
    // Everything together (the same checks, once more, as the engine will make them).
    build_client(&config).map_err(|err| usage(err.to_string()))?;
    save(store, &config)?;

    println!(
        "{} provider {name}: {}, {}, default model {}",
        if existed { "updated" } else { "saved" },
        config.kind.as_str(),
        config.base_url,
        config.default_model.as_deref().unwrap_or("(none)")
    );
    if config.requires_key && env_key(&config, |var| std::env::var(var).ok()).is_none() {
        println!(
            "its API key: `tessera provider set-key {name}` (stored in the OS keyring), or set {}",
            env_var_names(&config).join(" or ")
        );
    }
    Ok(())
}
