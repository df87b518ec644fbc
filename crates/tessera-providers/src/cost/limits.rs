//! Spending limits: per local day and per conversation. Once what was spent reaches a limit,
//! new model calls are refused with a message saying which limit, how much, and when it resets.

use jiff::{Timestamp, Zoned};
use serde::{Deserialize, Serialize};

use crate::error::{ProviderError, Result};

/// The app setting (`Store::app_setting`) the limits are kept under, as JSON.
pub const SPENDING_LIMITS_SETTING: &str = "spending_limits";

/// Optional limits in USD. Estimates only count what has a known price.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpendingLimits {
    /// Across all conversations, since local midnight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_day_usd: Option<f64>,
    /// Within one conversation, over its whole life.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_conversation_usd: Option<f64>,
}

/// What has been spent, as the store adds it up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spent {
    /// Since local midnight ([`day_start`]), all conversations.
    pub today_usd: f64,
    /// In the conversation about to call a model.
    pub conversation_usd: f64,
}

impl SpendingLimits {
    pub fn is_unlimited(&self) -> bool {
        self.per_day_usd.is_none() && self.per_conversation_usd.is_none()
    }

    /// Refuses limits that are negative or not numbers (a limit of 0 allows no paid call).
    pub fn validate(&self) -> Result<()> {
        for (name, limit) in [
            ("daily", self.per_day_usd),
            ("per-conversation", self.per_conversation_usd),
        ] {
            if let Some(v) = limit {
                if !v.is_finite() || v < 0.0 {
                    return Err(ProviderError::Config(format!(
                        "the {name} spending limit must be a positive amount in USD, not {v}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Whether a new model call may start, given what was spent and the local time now. The
    /// daily limit is reported first: a new conversation would not get past it.
    pub fn check(&self, spent: Spent, now: &Zoned) -> Result<()> {
        if let Some(limit) = self.per_day_usd {
            if spent.today_usd >= limit {
                let reset = next_reset(now)?;
                return Err(ProviderError::SpendingLimit(format!(
                    "{} spent today of the {} daily limit; new model calls resume at local \
                     midnight ({}), or raise the limit in Settings",
                    format_usd(spent.today_usd),
                    format_usd(limit),
                    reset.strftime("%Y-%m-%d %H:%M %:z")
                )));
            }
        }
        if let Some(limit) = self.per_conversation_usd {
            if spent.conversation_usd >= limit {
                return Err(ProviderError::SpendingLimit(format!(
                    "{} spent in this conversation of its {} limit; it does not reset: raise \
                     the limit in Settings or continue in a new conversation",
                    format_usd(spent.conversation_usd),
                    format_usd(limit)
                )));
            }
        }
        Ok(())
    }
}

/// The start of `now`'s local day: what `Store::spend_since` is asked for the daily total.
pub fn day_start(now: &Zoned) -> Result<Timestamp> {
    now.start_of_day()
        .map(|z| z.timestamp())
        .map_err(|err| ProviderError::Config(format!("cannot find local midnight: {err}")))
}

/// When the daily limit resets: the next local midnight.
pub fn next_reset(now: &Zoned) -> Result<Zoned> {
    now.tomorrow()
        .and_then(|t| t.start_of_day())
        .map_err(|err| ProviderError::Config(format!("cannot find the next midnight: {err}")))
}

/// `$5.00`, `$0.0042`: cents unless that would show a small amount as zero.
pub fn format_usd(amount: f64) -> String {
    if amount != 0.0 && amount.abs() < 0.01 {
        format!("${amount:.4}")
    } else {
        format!("${amount:.2}")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn shanghai(text: &str) -> Zoned {
        format!("{text}[Asia/Shanghai]").parse().unwrap()
    }

    #[test]
    fn the_day_is_the_local_one() {
        let now = shanghai("2026-01-20T07:30:00+08:00");
        assert_eq!(day_start(&now).unwrap().to_string(), "2026-01-19T16:00:00Z");
        assert_eq!(
            next_reset(&now).unwrap().to_string(),
            "2026-01-21T00:00:00+08:00[Asia/Shanghai]"
        );
    }

    #[test]
    fn the_daily_limit_names_what_was_spent_and_when_it_resets() {
        let limits = SpendingLimits {
            per_day_usd: Some(5.0),
            per_conversation_usd: Some(1.0),
        };
        let now = shanghai("2026-01-20T23:59:00+08:00");
        let under = Spent {
            today_usd: 4.99,
            conversation_usd: 0.5,
        };
        assert!(limits.check(under, &now).is_ok());
        let err = limits
            .check(
                Spent {
                    today_usd: 5.031,
                    conversation_usd: 3.0,
                },
                &now,
            )
            .unwrap_err();
        assert_eq!(err.code(), "spending_limit");
        assert_eq!(
            err.to_string(),
            "spending limit reached: $5.03 spent today of the $5.00 daily limit; new model \
             calls resume at local midnight (2026-01-21 00:00 +08:00), or raise the limit in \
             Settings"
        );
    }

    #[test]
    fn the_conversation_limit_does_not_reset() {
        let limits = SpendingLimits {
            per_day_usd: None,
            per_conversation_usd: Some(0.5),
        };
        let now = shanghai("2026-01-20T12:00:00+08:00");
        let err = limits
            .check(
                Spent {
                    today_usd: 100.0,
                    conversation_usd: 0.5,
                },
                &now,
            )
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "spending limit reached: $0.50 spent in this conversation of its $0.50 limit; it \
             does not reset: raise the limit in Settings or continue in a new conversation"
        );
        assert!(SpendingLimits::default()
            .check(
                Spent {
                    today_usd: 1e9,
                    conversation_usd: 1e9
                },
                &now
            )
            .is_ok());
    }

    #[test]
    fn limits_are_stored_as_plain_json_and_validated() {
        let limits: SpendingLimits = serde_json::from_str(r#"{"per_day_usd": 2.5}"#).unwrap();
        assert_eq!(limits.per_day_usd, Some(2.5));
        assert_eq!(limits.per_conversation_usd, None);
        assert_eq!(
            serde_json::to_string(&limits).unwrap(),
            r#"{"per_day_usd":2.5}"#
        );
        assert!(SpendingLimits::default().is_unlimited());
        assert!(limits.validate().is_ok());
        let bad = SpendingLimits {
            per_day_usd: None,
            per_conversation_usd: Some(-1.0),
        };
        assert_eq!(bad.validate().unwrap_err().code(), "config_error");
        assert_eq!(format_usd(0.0042), "$0.0042");
        assert_eq!(format_usd(0.0), "$0.00");
    }
}
