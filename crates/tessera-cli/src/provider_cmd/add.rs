//! `tessera provider add`: every flag checked before anything is saved.

use tessera_app::providers::config::{env_key, env_var_names, presets, ModelPrice, ProviderConfig};

use super::*;

/// `--base-url`: an http(s) URL with a host.
pub(super) fn check_base_url(url: &str) -> Outcome<String> {
    Ok(check_url("--base-url", url)?)
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
                Ok(v) if is_amount(v) => Ok(v),
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

pub(super) fn add(providers: &Providers<'_>, args: AddArgs) -> Outcome {
    let name = args.name.trim().to_owned();
    check_name(&name)?;
    let (mut config, existed) = match providers.saved(&name)? {
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
    // Settings per model: of the models this command names, else of all the provider's.
    let targets: Vec<String> = if named.is_empty() {
        config.models.keys().cloned().collect()
    } else {
        named.clone()
    };
    let per_model = |flag: &str| {
        if targets.is_empty() {
            Err(usage(format!(
                "{flag} is set per model: name one with --model M"
            )))
        } else {
            Ok(targets.clone())
        }
    };
    if let Some(window) = args.context_window {
        if window == 0 {
            return Err(usage("--context-window must be a number of tokens above 0"));
        }
        for model in per_model("--context-window")? {
            config.models.entry(model).or_default().context_window = Some(window);
        }
    }
    if let Some(max) = args.max_output_tokens {
        if max == 0 {
            return Err(usage(
                "--max-output-tokens must be a number of tokens above 0",
            ));
        }
        for model in per_model("--max-output-tokens")? {
            config.models.entry(model).or_default().max_output_tokens = Some(max);
        }
    }
    if let Some(choice) = &args.tool_choice {
        let choice = choice.trim();
        if choice.is_empty() {
            return Err(usage(
                "--tool-choice needs required, none, auto or a tool's name",
            ));
        }
        for model in per_model("--tool-choice")? {
            // `auto` is what a call does unasked: the setting goes.
            config.models.entry(model).or_default().first_tool_choice =
                (choice != "auto").then(|| choice.to_owned());
        }
    }

    if let Some(proxy) = &args.proxy {
        config.proxy = check_proxy("--proxy", &name, proxy)?;
    }
    for path in &args.ca_certs {
        let absolute = check_ca("--ca-cert", &name, path)?;
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
    // Everything together, by the rules the settings API applies too.
    check_config(&mut config)?;
    providers.save(&config)?;

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
