//! `tessera provider default` and `limits`.

use serde_json::Value;
use tessera_providers::cost::limits::format_usd;
use tessera_providers::cost::{day_start, SpendingLimits, SPENDING_LIMITS_SETTING};
use tessera_providers::ProviderError;
use tessera_store::Store;

use super::*;

pub(super) fn default(store: &Store, name: Option<&str>) -> Outcome {
    let Some(name) = name else {
        match default_provider(store)? {
            Some(name) => println!("{name}"),
            None => println!("(none: `tessera provider default NAME` sets one)"),
        }
        return Ok(());
    };
    set_default(store, name)?;
    println!("default provider: {name}");
    Ok(())
}

/// Makes `name` (saved or a preset) the provider used when none is named.
pub(crate) fn set_default(store: &Store, name: &str) -> Outcome {
    find_or_fail(store, name)?;
    store.set_app_setting(DEFAULT_PROVIDER_SETTING, Value::String(name.to_owned()))?;
    Ok(())
}

/// No default provider any more; whether there was one.
pub(crate) fn clear_default(store: &Store) -> Outcome<bool> {
    Ok(store.delete_app_setting(DEFAULT_PROVIDER_SETTING)?)
}

/// `5`, `$5`, `0.5` → Some; `none` → None.
pub(crate) fn parse_limit(flag: &str, text: &str) -> Outcome<Option<f64>> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let value: f64 = text.trim_start_matches('$').trim().parse().map_err(|_| {
        usage(format!(
            "{flag} `{text}`: expected an amount in USD, or `none`"
        ))
    })?;
    check_limit(flag, text, value)?;
    Ok(Some(value))
}

/// A limit of `value` USD (as `text` gave it) is usable: 0 or more, a finite amount.
pub(crate) fn check_limit(flag: &str, text: &str, value: f64) -> Outcome {
    let probe = SpendingLimits {
        per_day_usd: Some(value),
        per_conversation_usd: None,
    };
    probe.validate().map_err(|err| match err {
        ProviderError::Config(_) => usage(format!(
            "{flag} `{text}`: a limit is an amount of 0 USD or more"
        )),
        other => usage(format!("{flag}: {other}")),
    })
}

/// The spending limits as saved (none when never set).
pub(crate) fn read_limits(store: &Store) -> Outcome<SpendingLimits> {
    match store.app_setting(SPENDING_LIMITS_SETTING)? {
        Some(value) => serde_json::from_value(value).map_err(|err| {
            usage(format!(
                "the saved spending limits are not readable ({err}); set both again"
            ))
        }),
        None => Ok(SpendingLimits::default()),
    }
}

/// Saves the spending limits, checked first.
pub(crate) fn write_limits(store: &Store, limits: SpendingLimits) -> Outcome {
    limits.validate()?;
    let value = serde_json::to_value(limits)
        .map_err(|err| usage(format!("cannot encode the limits: {err}")))?;
    store.set_app_setting(SPENDING_LIMITS_SETTING, value)?;
    Ok(())
}

/// What was spent since local midnight (estimated), if it can be added up.
pub(crate) fn spent_today(store: &Store) -> Option<f64> {
    let now = jiff::Zoned::now();
    day_start(&now)
        .ok()
        .and_then(|start| store.spend_since(&start.to_string()).ok())
}

pub(super) fn limits(
    store: &Store,
    per_day: Option<&str>,
    per_conversation: Option<&str>,
) -> Outcome {
    let mut limits = read_limits(store)?;
    if per_day.is_some() || per_conversation.is_some() {
        if let Some(text) = per_day {
            limits.per_day_usd = parse_limit("--per-day", text)?;
        }
        if let Some(text) = per_conversation {
            limits.per_conversation_usd = parse_limit("--per-conversation", text)?;
        }
        write_limits(store, limits)?;
    }
    let spent_today = spent_today(store);
    let show = |limit: Option<f64>| limit.map_or_else(|| "none".to_owned(), format_usd);
    println!("per day:          {}", show(limits.per_day_usd));
    println!("per conversation: {}", show(limits.per_conversation_usd));
    if let Some(spent) = spent_today {
        println!("spent today:      {} (estimated)", format_usd(spent));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_model_equals_in_slash_out() {
        let (model, price) = parse_price("gpt-4o=2.5/10").unwrap_or_else(|_| panic!("parses"));
        assert_eq!(model, "gpt-4o");
        assert_eq!(price.input_per_mtok, 2.5);
        assert_eq!(price.output_per_mtok, 10.0);
        assert_eq!(price.cached_input_per_mtok, None);
        let (_, price) = parse_price("m=$1/$2/0.1").unwrap_or_else(|_| panic!("parses"));
        assert_eq!(price.cached_input_per_mtok, Some(0.1));
        for bad in [
            "gpt-4o",
            "=1/2",
            "m=1",
            "m=a/b",
            "m=-1/2",
            "m=1/2/3/4",
            "m=inf/1",
        ] {
            assert!(parse_price(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn limits_are_amounts_or_none() {
        assert!(matches!(parse_limit("--per-day", "none"), Ok(None)));
        assert!(matches!(parse_limit("--per-day", "$5"), Ok(Some(v)) if v == 5.0));
        assert!(matches!(parse_limit("--per-day", "0"), Ok(Some(v)) if v == 0.0));
        for bad in ["-1", "five", "NaN", ""] {
            assert!(parse_limit("--per-day", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_are_plain() {
        for good in ["openai", "my-vllm", "local_2", "a.b"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "has space", "ü", "a/b"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
