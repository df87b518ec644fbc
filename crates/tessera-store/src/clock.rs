//! Timestamps as the protocol writes them (RFC 3339, UTC, milliseconds) and their instants.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use tessera_protocol::wire::Timestamp;

/// Now, as `2026-01-20T10:00:00.123Z`.
pub fn now() -> Timestamp {
    // A stream stamps dozens of events within one millisecond: the text of the last one is
    // reused instead of formatted again (formatting cost as much as serialising the event).
    thread_local! {
        static LAST: std::cell::RefCell<(i64, String)> = const {
            std::cell::RefCell::new((i64::MIN, String::new()))
        };
    }
    let millis = now_millis();
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if last.0 != millis {
            *last = (millis, format_millis(millis));
        }
        Timestamp::new(last.1.clone())
    })
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    let now = OffsetDateTime::now_utc();
    i64::try_from(now.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

/// Milliseconds since the Unix epoch as an RFC 3339 UTC timestamp.
pub fn format_millis(millis: i64) -> String {
    let nanos = i128::from(millis) * 1_000_000;
    match OffsetDateTime::from_unix_timestamp_nanos(nanos) {
        Ok(at) => {
            let (y, mo, d) = (at.year(), u8::from(at.month()), at.day());
            let (h, mi, s) = (at.hour(), at.minute(), at.second());
            format!(
                "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
                at.millisecond()
            )
        }
        Err(_) => "1970-01-01T00:00:00.000Z".to_owned(),
    }
}

/// An RFC 3339 timestamp as people read it, in UTC to the minute (`2026-01-20 10:00 UTC`);
/// the text as it is when it is not one.
pub fn readable(text: &str) -> String {
    match OffsetDateTime::parse(&tessera_protocol::wire::with_utc_offset(text), &Rfc3339) {
        Ok(at) => {
            let at = at.to_offset(time::UtcOffset::UTC);
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02} UTC",
                at.year(),
                u8::from(at.month()),
                at.day(),
                at.hour(),
                at.minute()
            )
        }
        Err(_) => text.to_owned(),
    }
}

/// The instant of an RFC 3339 timestamp, in milliseconds since the epoch; `None` when the text
/// is not one.
pub fn parse_millis(text: &str) -> Option<i64> {
    let at =
        OffsetDateTime::parse(&tessera_protocol::wire::with_utc_offset(text), &Rfc3339).ok()?;
    i64::try_from(at.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
}

/// A compact UTC stamp for file names: `20260120T100000Z`.
pub fn file_stamp() -> String {
    let at = OffsetDateTime::now_utc();
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_is_valid_and_parses_back() {
        let stamp = now();
        assert!(stamp.is_valid(), "{stamp}");
        assert!(parse_millis(stamp.as_str()).is_some());
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            parse_millis("2025-12-01T10:00:00+08:00"),
            parse_millis("2025-12-01T02:00:00Z")
        );
        assert_eq!(parse_millis("yesterday"), None);
    }
}
