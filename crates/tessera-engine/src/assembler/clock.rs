//! RFC 3339 timestamps as instants: enough to compare a block's `expires_at` with `now` and to
//! write `now` into the explanation, without a date-time dependency.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tessera_protocol::wire::is_rfc3339;

/// An instant as nanoseconds since the Unix epoch (negative before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct UtcNanos(pub(crate) i128);

impl UtcNanos {
    pub(crate) fn from_system_time(time: SystemTime) -> Self {
        match time.duration_since(UNIX_EPOCH) {
            Ok(after) => Self(after.as_nanos() as i128),
            Err(before) => Self(-(before.duration().as_nanos() as i128)),
        }
    }

    /// Parses an RFC 3339 date-time with an offset; `None` when it is not one.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        if !is_rfc3339(text) {
            return None;
        }
        let b = text.as_bytes();
        let num = |from: usize, to: usize| -> i64 {
            b[from..to]
                .iter()
                .fold(0i64, |n, c| n * 10 + i64::from(c - b'0'))
        };
        let days = days_from_civil(num(0, 4), num(5, 7), num(8, 10));
        // A leap second (:60) counts as the next second's start.
        let mut secs = days * 86_400 + num(11, 13) * 3_600 + num(14, 16) * 60 + num(17, 19);
        let mut i = 19;
        let mut nanos: i128 = 0;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let mut scale: i128 = 100_000_000;
            while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                nanos += i128::from(c - b'0') * scale;
                scale /= 10;
                i += 1;
            }
        }
        if let Some(sign @ (b'+' | b'-')) = b.get(i).copied() {
            let offset = num(i + 1, i + 3) * 3_600 + num(i + 4, i + 6) * 60;
            secs -= if sign == b'+' { offset } else { -offset };
        }
        Some(Self(i128::from(secs) * 1_000_000_000 + nanos))
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (milliseconds, UTC).
    pub(crate) fn to_rfc3339(self) -> String {
        let millis = self.0.div_euclid(1_000_000);
        let secs = millis.div_euclid(1_000) as i64;
        let ms = millis.rem_euclid(1_000);
        let days = secs.div_euclid(86_400);
        let rest = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
            rest / 3_600,
            (rest % 3_600) / 60,
            rest % 60
        )
    }
}

/// `SystemTime` from an RFC 3339 text (tests and callers holding a stored timestamp).
pub fn system_time_from_rfc3339(text: &str) -> Option<SystemTime> {
    let nanos = UtcNanos::parse(text)?.0;
    let magnitude = Duration::from_nanos(u64::try_from(nanos.unsigned_abs()).ok()?);
    if nanos >= 0 {
        UNIX_EPOCH.checked_add(magnitude)
    } else {
        UNIX_EPOCH.checked_sub(magnitude)
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn parses_offsets_and_fractions() {
        let z = UtcNanos::parse("2026-02-10T10:05:00Z").unwrap();
        let plus = UtcNanos::parse("2026-02-10T18:05:00+08:00").unwrap();
        let minus = UtcNanos::parse("2026-02-10T05:05:00-05:00").unwrap();
        assert_eq!(z, plus);
        assert_eq!(z, minus);
        let frac = UtcNanos::parse("2026-02-10T10:05:00.25Z").unwrap();
        assert_eq!(frac.0 - z.0, 250_000_000);
        assert_eq!(UtcNanos::parse("1970-01-01T00:00:00Z").unwrap().0, 0);
        assert!(UtcNanos::parse("1969-12-31T23:59:59Z").unwrap().0 < 0);
        assert!(UtcNanos::parse("yesterday").is_none());
    }

    #[test]
    fn formats_round_trip() {
        for text in [
            "2026-02-10T10:05:00.123Z",
            "2000-02-29T23:59:59.000Z",
            "1969-07-20T20:17:40.000Z",
        ] {
            assert_eq!(UtcNanos::parse(text).unwrap().to_rfc3339(), text);
        }
        let t = system_time_from_rfc3339("2026-02-10T10:05:00.5Z").unwrap();
        assert_eq!(
            UtcNanos::from_system_time(t).to_rfc3339(),
            "2026-02-10T10:05:00.500Z"
        );
    }
}
