//! How long to wait before trying a failed call again (seed 001 section 9.3): what the
//! provider asked for (Retry-After, retry-after-ms), else exponential backoff with jitter.

use std::time::{Duration, SystemTime};

use rand::Rng;
use reqwest::header::HeaderMap;

use crate::config::RetryPolicy;

/// The wait before retry number `retry` (0 for the first retry).
pub(crate) fn backoff(policy: &RetryPolicy, retry: u32, asked: Option<Duration>) -> Duration {
    let cap = Duration::from_millis(policy.max_delay_ms);
    if let Some(asked) = asked {
        return asked.min(cap);
    }
    let exp = policy
        .base_delay_ms
        .saturating_mul(1u64 << retry.min(20))
        .min(policy.max_delay_ms);
    // "Equal jitter": at least half the step, so retries never bunch up at zero.
    let half = exp / 2;
    let jitter = if half > 0 {
        rand::rng().random_range(0..=half)
    } else {
        0
    };
    Duration::from_millis(half + jitter).min(cap)
}

/// The wait a response asks for: `retry-after-ms`, then `Retry-After` as seconds or a date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        // try_from: a server may send any number; an absurd one must not panic.
        if let Ok(d) = Duration::try_from_secs_f64(ms / 1000.0) {
            return Some(d);
        }
    }
    let value = text("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_grows_and_stays_under_the_cap() {
        let policy = RetryPolicy {
            max_retries: 5,
            base_delay_ms: 100,
            max_delay_ms: 1_000,
        };
        for retry in 0..8 {
            let d = backoff(&policy, retry, None).as_millis() as u64;
            let step = (100u64 << retry).min(1_000);
            assert!(d >= step / 2 && d <= step, "retry {retry}: {d} ms");
        }
        assert_eq!(
            backoff(&policy, 0, Some(Duration::from_secs(60))),
            Duration::from_secs(1)
        );
        assert_eq!(
            backoff(&policy, 3, Some(Duration::from_millis(250))),
            Duration::from_millis(250)
        );
    }

    #[test]
    fn retry_after_reads_seconds_milliseconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1500)));
        let mut h = HeaderMap::new();
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        h.insert(
            "retry-after",
            HeaderValue::from_str(&later).unwrap_or(HeaderValue::from_static("")),
        );
        let d = retry_after(&h).unwrap_or_default();
        assert!(
            d > Duration::from_secs(25) && d <= Duration::from_secs(30),
            "{d:?}"
        );
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
        // Numbers no Duration can hold are ignored, never a panic.
        h.insert("retry-after", HeaderValue::from_static("1e30"));
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("-5"));
        assert_eq!(retry_after(&h), None);
    }
}
