//! What models cost: a built-in table of list prices for well-known models, overridden per
//! model by the provider's settings, and nothing for models served from this machine.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{ModelPrice, ProviderConfig};

/// List prices in USD per million tokens: (model or model prefix, input, output, cached input).
/// Taken from the providers' pricing pages (2025); people correct them per model in Settings.
const BUILTIN: &[(&str, f64, f64, Option<f64>)] = &[
    // OpenAI
    ("gpt-4o", 2.50, 10.00, Some(1.25)),
    ("gpt-4o-mini", 0.15, 0.60, Some(0.075)),
    ("gpt-4.1", 2.00, 8.00, Some(0.50)),
    ("gpt-4.1-mini", 0.40, 1.60, Some(0.10)),
    ("gpt-4.1-nano", 0.10, 0.40, Some(0.025)),
    ("gpt-5", 1.25, 10.00, Some(0.125)),
    ("gpt-5-mini", 0.25, 2.00, Some(0.025)),
    ("gpt-5-nano", 0.05, 0.40, Some(0.005)),
    ("o1", 15.00, 60.00, Some(7.50)),
    ("o1-mini", 1.10, 4.40, Some(0.55)),
    ("o3", 2.00, 8.00, Some(0.50)),
    ("o3-pro", 20.00, 80.00, None),
    ("o3-mini", 1.10, 4.40, Some(0.55)),
    ("o4-mini", 1.10, 4.40, Some(0.275)),
    // Anthropic (cached = cache reads)
    ("claude-opus-4", 15.00, 75.00, Some(1.50)),
    ("claude-opus-4-1", 15.00, 75.00, Some(1.50)),
    ("claude-opus-4-5", 5.00, 25.00, Some(0.50)),
    ("claude-sonnet-4", 3.00, 15.00, Some(0.30)),
    ("claude-sonnet-4-5", 3.00, 15.00, Some(0.30)),
    ("claude-haiku-4-5", 1.00, 5.00, Some(0.10)),
    ("claude-3-7-sonnet", 3.00, 15.00, Some(0.30)),
    ("claude-3-5-sonnet", 3.00, 15.00, Some(0.30)),
    ("claude-3-5-haiku", 0.80, 4.00, Some(0.08)),
    ("claude-3-opus", 15.00, 75.00, Some(1.50)),
    ("claude-3-haiku", 0.25, 1.25, Some(0.03)),
    // DeepSeek (V3.2: both names, cached = cache hits)
    ("deepseek-chat", 0.28, 0.42, Some(0.028)),
    ("deepseek-reasoner", 0.28, 0.42, Some(0.028)),
    // Qwen (DashScope international)
    ("qwen-max", 1.60, 6.40, None),
    ("qwen-plus", 0.40, 1.20, None),
    ("qwen-turbo", 0.05, 0.20, None),
    ("qwen-flash", 0.05, 0.40, None),
    ("qwen3-max", 1.20, 6.00, None),
    // Moonshot / Kimi
    ("moonshot-v1-8k", 0.20, 2.00, None),
    ("moonshot-v1-32k", 1.00, 3.00, None),
    ("moonshot-v1-128k", 2.00, 5.00, None),
    ("kimi-k2", 0.60, 2.50, Some(0.15)),
    ("kimi-k2-turbo", 1.15, 8.00, Some(0.15)),
];

/// Model names to prices. Looked up exactly, then by the longest entry that is a prefix of the
/// name ending at a separator (`gpt-4o-2024-08-06` → `gpt-4o`, but `gpt-4.1` is not `gpt-4`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable {
    prices: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// No prices at all.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The built-in list prices.
    pub fn builtin() -> Self {
        let prices = BUILTIN
            .iter()
            .map(|&(model, input, output, cached)| {
                (
                    model.to_owned(),
                    ModelPrice {
                        input_per_mtok: input,
                        output_per_mtok: output,
                        cached_input_per_mtok: cached,
                    },
                )
            })
            .collect();
        Self { prices }
    }

    /// Sets (or replaces) the price of a model or model family.
    pub fn set(&mut self, model: impl Into<String>, price: ModelPrice) {
        self.prices.insert(model.into().to_ascii_lowercase(), price);
    }

    pub fn remove(&mut self, model: &str) -> Option<ModelPrice> {
        self.prices.remove(&model.to_ascii_lowercase())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &ModelPrice)> {
        self.prices.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The price of `model`: exact (case-insensitive), else the longest matching prefix; a name
    /// routed through a gateway (`openai/gpt-4o`) is also tried without its route.
    pub fn lookup(&self, model: &str) -> Option<ModelPrice> {
        let name = model.trim().to_ascii_lowercase();
        self.lookup_name(&name).or_else(|| {
            let (_, bare) = name.rsplit_once('/')?;
            self.lookup_name(bare)
        })
    }

    fn lookup_name(&self, name: &str) -> Option<ModelPrice> {
        if let Some(price) = self.prices.get(name) {
            return Some(*price);
        }
        self.prices
            .iter()
            .filter(|(prefix, _)| {
                name.strip_prefix(prefix.as_str())
                    .and_then(|rest| rest.chars().next())
                    .is_some_and(|c| matches!(c, '-' | '_' | ':' | '@'))
            })
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, price)| *price)
    }

    /// What `model` costs at `config`'s provider: the price set in its settings, else nothing
    /// when the provider runs on this machine (a local Ollama, vLLM, LM Studio), else the
    /// table's. `None`: unknown, so no cost is estimated.
    pub fn price_for(&self, config: &ProviderConfig, model: &str) -> Option<ModelPrice> {
        if let Some(price) = config.model(model).and_then(|m| m.price) {
            return Some(price);
        }
        if is_local(config) {
            return Some(ModelPrice::default());
        }
        self.lookup(model)
    }
}

/// Whether the provider's server is on this machine (loopback), so its tokens cost nothing.
pub fn is_local(config: &ProviderConfig) -> bool {
    let Ok(url) = reqwest::Url::parse(config.base_url.trim()) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::config::{ModelSettings, WireKind};

    fn price(input: f64, output: f64) -> ModelPrice {
        ModelPrice {
            input_per_mtok: input,
            output_per_mtok: output,
            cached_input_per_mtok: None,
        }
    }

    #[test]
    fn dated_and_routed_names_find_their_family() {
        let table = PriceTable::builtin();
        let input = |m: &str| table.lookup(m).map(|p| p.input_per_mtok);
        assert_eq!(input("gpt-4o"), Some(2.50));
        assert_eq!(input("gpt-4o-2024-08-06"), Some(2.50));
        assert_eq!(input("gpt-4o-mini-2024-07-18"), Some(0.15));
        assert_eq!(input("GPT-4.1-mini"), Some(0.40));
        assert_eq!(input("o3-mini-2025-01-31"), Some(1.10));
        assert_eq!(input("o3-2025-04-16"), Some(2.00));
        assert_eq!(input("claude-sonnet-4-5-20250929"), Some(3.00));
        assert_eq!(input("claude-opus-4-1-20250805"), Some(15.00));
        assert_eq!(input("claude-opus-4-5"), Some(5.00));
        assert_eq!(input("claude-3-5-haiku-latest"), Some(0.80));
        assert_eq!(input("kimi-k2-0905-preview"), Some(0.60));
        assert_eq!(input("kimi-k2-turbo-preview"), Some(1.15));
        assert_eq!(input("qwen-plus-2025-07-28"), Some(0.40));
        assert_eq!(input("openai/gpt-4o-mini"), Some(0.15));
        assert_eq!(input("deepseek-reasoner"), Some(0.28));
        // A prefix must end at a separator: these are other models.
        assert_eq!(input("gpt-4"), None);
        assert_eq!(input("o30"), None);
        assert_eq!(input("llama3.1:8b"), None);
    }

    #[test]
    fn settings_override_the_table_and_local_servers_are_free() {
        let table = PriceTable::builtin();
        let mut deepseek =
            ProviderConfig::new("deepseek", WireKind::Openai, "https://api.deepseek.com/v1");
        assert_eq!(
            table
                .price_for(&deepseek, "deepseek-chat")
                .unwrap()
                .output_per_mtok,
            0.42
        );
        deepseek.models.insert(
            "deepseek-chat".into(),
            ModelSettings {
                price: Some(price(0.27, 1.10)),
                ..ModelSettings::default()
            },
        );
        assert_eq!(
            table.price_for(&deepseek, "deepseek-chat"),
            Some(price(0.27, 1.10))
        );
        assert_eq!(table.price_for(&deepseek, "my-finetune"), None);

        for base in [
            "http://127.0.0.1:11434/v1",
            "http://localhost:8000/v1",
            "http://[::1]:1234/v1",
        ] {
            let local = ProviderConfig::new("local", WireKind::Openai, base);
            assert!(is_local(&local), "{base}");
            // Even a model named like a paid one costs nothing when served locally.
            assert_eq!(
                table.price_for(&local, "gpt-4o"),
                Some(ModelPrice::default())
            );
        }
        let remote = ProviderConfig::new("r", WireKind::Openai, "https://10.0.0.5/v1");
        assert!(!is_local(&remote));
    }

    #[test]
    fn the_table_is_editable_and_serialises_as_a_map() {
        let mut table = PriceTable::empty();
        table.set("My-Model", price(1.0, 2.0));
        assert_eq!(table.lookup("my-model-v2"), Some(price(1.0, 2.0)));
        let json = serde_json::to_value(&table).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"my-model": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}})
        );
        let back: PriceTable = serde_json::from_value(json).unwrap();
        assert_eq!(back, table);
        assert_eq!(table.remove("MY-MODEL"), Some(price(1.0, 2.0)));
        assert_eq!(table.lookup("my-model"), None);
    }
}
