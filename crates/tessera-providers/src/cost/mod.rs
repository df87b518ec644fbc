//! Usage and cost: prices per model ([`prices`]), the estimated cost of a call, the seed-004
//! record of each call and per-agent summaries ([`record`]), spending limits ([`limits`]).

pub mod limits;
pub mod prices;
pub mod record;

pub use limits::{day_start, next_reset, SpendingLimits, Spent, SPENDING_LIMITS_SETTING};
pub use prices::{is_local, PriceTable};
pub use record::{agent_summaries, AgentCostSummary, CallRecord};

use crate::config::ModelPrice;
use crate::stream::Usage;

/// Anthropic bills writing to its prompt cache (5-minute entries) at 1.25× the input price.
const CACHE_WRITE_FACTOR: f64 = 1.25;

/// The estimated cost of a call in USD.
///
/// `usage.input_tokens` counts every input token; of those, `cached_input_tokens` are priced
/// at the cached price (the input price when the model has none) and
/// `cache_creation_input_tokens` at 1.25× the input price. Reasoning tokens are output tokens.
/// Rounded to a billionth of a dollar so sums stay readable.
pub fn estimate_cost(usage: &Usage, price: &ModelPrice) -> f64 {
    let input = usage.input_tokens;
    let cached = usage.cached_input_tokens.unwrap_or(0).min(input);
    let written = usage
        .cache_creation_input_tokens
        .unwrap_or(0)
        .min(input - cached);
    let plain = input - cached - written;
    let cached_price = price.cached_input_per_mtok.unwrap_or(price.input_per_mtok);
    let micro = plain as f64 * price.input_per_mtok
        + cached as f64 * cached_price
        + written as f64 * price.input_per_mtok * CACHE_WRITE_FACTOR
        + usage.output_tokens as f64 * price.output_per_mtok;
    round_usd(micro / 1_000_000.0)
}

/// An amount rounded to a billionth of a dollar.
pub fn round_usd(amount: f64) -> f64 {
    (amount * 1e9).round() / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_and_written_input_are_priced_apart() {
        let price = ModelPrice {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
            cached_input_per_mtok: Some(0.30),
        };
        let plain = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            ..Usage::default()
        };
        assert_eq!(estimate_cost(&plain, &price), 4.5);
        let cached = Usage {
            cached_input_tokens: Some(600_000),
            cache_creation_input_tokens: Some(200_000),
            ..plain
        };
        // 200k plain × 3 + 600k × 0.30 + 200k × 3.75 + 100k × 15, per million
        assert_eq!(
            estimate_cost(&cached, &price),
            round_usd(0.6 + 0.18 + 0.75 + 1.5)
        );
        // Without a cached price, cached input costs what input costs.
        let no_cache_price = ModelPrice {
            cached_input_per_mtok: None,
            ..price
        };
        let only_cached = Usage {
            cache_creation_input_tokens: None,
            ..cached
        };
        assert_eq!(estimate_cost(&only_cached, &no_cache_price), 4.5);
        // Counts that do not add up never produce a negative or inflated cost.
        let odd = Usage {
            input_tokens: 10,
            output_tokens: 0,
            cached_input_tokens: Some(50),
            ..Usage::default()
        };
        assert_eq!(estimate_cost(&odd, &price), round_usd(10.0 * 0.30 / 1e6));
        assert_eq!(estimate_cost(&Usage::default(), &price), 0.0);
    }
}
