//! The default provider and the spending limits.

use serde_json::Value;
use tessera_engine::provider_settings::DEFAULT_PROVIDER_SETTING;
use tessera_providers::cost::{day_start, SpendingLimits, SPENDING_LIMITS_SETTING};
use tessera_providers::ProviderError;
use tessera_store::Store;

use super::{find_or_fail, invalid, Outcome};

/// Makes `name` (saved or a preset) the provider used when none is named.
pub fn set_default(store: &Store, name: &str) -> Outcome {
    find_or_fail(store, name)?;
    store.set_app_setting(DEFAULT_PROVIDER_SETTING, Value::String(name.to_owned()))?;
    Ok(())
}

/// No default provider any more; whether there was one.
pub fn clear_default(store: &Store) -> Outcome<bool> {
    Ok(store.delete_app_setting(DEFAULT_PROVIDER_SETTING)?)
}

/// A limit as a person knows it: the API's setting keys by what they are (the settings page
/// shows these words), a command-line flag as typed.
fn limit_name(flag: &str) -> &str {
    match flag {
        "spending_limit_per_day_usd" => "The daily spending limit",
        "spending_limit_per_conversation_usd" => "The spending limit per conversation",
        other => other,
    }
}

/// `5`, `$5`, `0.5` → Some; `none` → None.
pub fn parse_limit(flag: &str, text: &str) -> Outcome<Option<f64>> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let value: f64 = text.trim_start_matches('$').trim().parse().map_err(|_| {
        invalid(format!(
            "{} must be an amount in US dollars, like 5 or 2.50 (or none for no limit), not “{text}”",
            limit_name(flag)
        ))
    })?;
    check_limit(flag, text, value)?;
    Ok(Some(value))
}

/// A limit of `value` USD (as `text` gave it) is usable: 0 or more, a finite amount.
pub fn check_limit(flag: &str, text: &str, value: f64) -> Outcome {
    let probe = SpendingLimits {
        per_day_usd: Some(value),
        per_conversation_usd: None,
    };
    probe.validate().map_err(|err| match err {
        ProviderError::Config(_) => invalid(format!(
            "{} must be an amount of 0 US dollars or more, like 5 or 2.50, not “{text}”",
            limit_name(flag)
        )),
        other => invalid(format!("{}: {other}", limit_name(flag))),
    })
}

/// The spending limits as saved (none when never set).
pub fn read_limits(store: &Store) -> Outcome<SpendingLimits> {
    match store.app_setting(SPENDING_LIMITS_SETTING)? {
        Some(value) => serde_json::from_value(value).map_err(|err| {
            invalid(format!(
                "the saved spending limits are not readable ({err}); set both again"
            ))
        }),
        None => Ok(SpendingLimits::default()),
    }
}

/// Saves the spending limits, checked first.
pub fn write_limits(store: &Store, limits: SpendingLimits) -> Outcome {
    limits.validate()?;
    let value = serde_json::to_value(limits)
        .map_err(|err| invalid(format!("cannot encode the limits: {err}")))?;
    store.set_app_setting(SPENDING_LIMITS_SETTING, value)?;
    Ok(())
}

/// What was spent since local midnight (estimated), if it can be added up.
pub fn spent_today(store: &Store) -> Option<f64> {
    let now = jiff::Zoned::now();
    day_start(&now)
        .ok()
        .and_then(|start| store.spend_since(&start.to_string()).ok())
}
