//! Providers people use most, ready by name: `tessera chat --provider deepseek` works with
//! only `DEEPSEEK_API_KEY` set. Settings saved under the same name take precedence.

use crate::config::{ProviderConfig, WireKind};

/// (name, kind, base URL, default model, needs a key)
const PRESETS: &[(&str, WireKind, &str, &str, bool)] = &[
    (
        "openai",
        WireKind::Openai,
        "https://api.openai.com/v1",
        "gpt-4o-mini",
        true,
    ),
    (
        "anthropic",
        WireKind::Anthropic,
        "https://api.anthropic.com",
        "claude-sonnet-4-5",
        true,
    ),
    (
        "deepseek",
        WireKind::Openai,
        "https://api.deepseek.com/v1",
        "deepseek-chat",
        true,
    ),
    (
        "qwen",
        WireKind::Openai,
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "qwen-plus",
        true,
    ),
    (
        "moonshot",
        WireKind::Openai,
        "https://api.moonshot.cn/v1",
        "kimi-k2-0905-preview",
        true,
    ),
    (
        "ollama",
        WireKind::Openai,
        "http://127.0.0.1:11434/v1",
        "",
        false,
    ),
    (
        "lmstudio",
        WireKind::Openai,
        "http://127.0.0.1:1234/v1",
        "",
        false,
    ),
    // Tessera's own local models: the model is a GGUF file of the data folder's `models`
    // folder (or a path); its worker is started on the first call, on a port of that start.
    ("on-device", WireKind::Openai, LOCAL_BASE_URL, "", false),
];

/// The `on-device` provider's base URL: it marks the provider, whose calls go to the local-model
/// worker wherever it listens at the time (never to this address).
pub const LOCAL_BASE_URL: &str = "http://127.0.0.1/tessera-local/v1";

/// Whether `config` is Tessera's own local-model provider.
pub fn is_local(config: &ProviderConfig) -> bool {
    config.kind == WireKind::Openai && config.base_url == LOCAL_BASE_URL
}

/// The preset called `name`, if there is one.
pub fn preset(name: &str) -> Option<ProviderConfig> {
    PRESETS
        .iter()
        .find(|p| p.0 == name)
        .map(|(name, kind, url, model, key)| {
            let mut config = ProviderConfig::new(*name, *kind, *url);
            config.default_model = (!model.is_empty()).then(|| (*model).to_owned());
            config.requires_key = *key;
            if *name == "anthropic" {
                config.fallback_model = Some("claude-haiku-4-5".into());
            }
            config
        })
}

/// Every preset's name.
pub fn preset_names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|p| p.0)
}
