//! `tessera provider default` and `limits`.

use tessera_app::providers::config::format_usd;
use tessera_app::providers::settings::parse_limit;

use super::*;

pub(super) fn default(providers: &Providers<'_>, name: Option<&str>) -> Outcome {
    let Some(name) = name else {
        match providers.default()? {
            Some(name) => println!("{name}"),
            None => println!("(none: `tessera provider default NAME` sets one)"),
        }
        return Ok(());
    };
    providers.set_default(name)?;
    println!("default provider: {name}");
    Ok(())
}

pub(super) fn limits(
    providers: &Providers<'_>,
    per_day: Option<&str>,
    per_conversation: Option<&str>,
) -> Outcome {
    let mut limits = providers.limits()?;
    if per_day.is_some() || per_conversation.is_some() {
        if let Some(text) = per_day {
            limits.per_day_usd = parse_limit("--per-day", text)?;
        }
        if let Some(text) = per_conversation {
            limits.per_conversation_usd = parse_limit("--per-conversation", text)?;
        }
        providers.set_limits(limits)?;
    }
    let spent_today = providers.spent_today();
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
