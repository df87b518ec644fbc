//! `strftime_now(fmt)`, the one clock function Hugging Face exposes to chat templates
//! (Llama 3.2 prints "Today Date: 26 Jul 2024", Mistral Small 3.2 "2025-06-20").
//!
//! The date is computed from `SystemTime` in UTC with a civil-calendar conversion rather than
//! libc, so it needs no unsafe code and gives the same answer on every platform. Templates
//! only print dates, so UTC (not local time) is a day off at most near midnight.

use std::time::{SystemTime, UNIX_EPOCH};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Seconds since the Unix epoch now; a clock before 1970 reads as the epoch.
pub(crate) fn now_unix_seconds() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(elapsed) => i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX),
        Err(_) => 0,
    }
}

/// Formats `unix_seconds` (UTC) with the subset of C `strftime` that chat templates use:
/// `%Y %y %m %d %e %B %b %h %A %a %H %M %S %j %%`. Anything else is copied through as written.
pub(crate) fn format_utc(unix_seconds: i64, format: &str) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let second_of_day = unix_seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    // 1970-01-01 was a Thursday (index 4 with Sunday as 0).
    let weekday = (days + 4).rem_euclid(7) as usize;
    let month_name = MONTHS[(month - 1) as usize];
    let weekday_name = WEEKDAYS[weekday];

    let mut out = String::with_capacity(format.len() + 16);
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('Y') => out.push_str(&year.to_string()),
            Some('y') => out.push_str(&format!("{:02}", year.rem_euclid(100))),
            Some('m') => out.push_str(&format!("{month:02}")),
            Some('d') => out.push_str(&format!("{day:02}")),
            Some('e') => out.push_str(&format!("{day:>2}")),
            Some('B') => out.push_str(month_name),
            Some('b') | Some('h') => out.push_str(&month_name[..3]),
            Some('A') => out.push_str(weekday_name),
            Some('a') => out.push_str(&weekday_name[..3]),
            Some('H') => out.push_str(&format!("{:02}", second_of_day / 3600)),
            Some('M') => out.push_str(&format!("{:02}", second_of_day / 60 % 60)),
            Some('S') => out.push_str(&format!("{:02}", second_of_day % 60)),
            Some('j') => out.push_str(&format!("{:03}", day_of_year(year, month, day))),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

/// Howard Hinnant's `civil_from_days`: proleptic Gregorian (year, month 1-12, day 1-31)
/// for a count of days since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn day_of_year(year: i64, month: u32, day: u32) -> u32 {
    const BEFORE_MONTH: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    BEFORE_MONTH[(month - 1) as usize] + day + u32::from(leap && month > 2)
}

#[cfg(test)]
mod tests {
    use super::format_utc;

    #[test]
    fn formats_known_dates() {
        // 2024-07-26 00:00:00 UTC, the date Llama 3.1's template hard-codes.
        assert_eq!(format_utc(1_721_952_000, "%d %b %Y"), "26 Jul 2024");
        assert_eq!(format_utc(1_721_952_000, "%Y-%m-%d"), "2024-07-26");
        assert_eq!(format_utc(1_721_952_000, "%A %B %e"), "Friday July 26");
        assert_eq!(
            format_utc(0, "%Y-%m-%d %H:%M:%S %j"),
            "1970-01-01 00:00:00 001"
        );
        // Leap day and the end of a leap year.
        assert_eq!(format_utc(951_782_400, "%Y-%m-%d %a"), "2000-02-29 Tue");
        assert_eq!(format_utc(1_735_603_200, "%j %%"), "366 %");
        // Before the epoch.
        assert_eq!(format_utc(-86_400, "%Y-%m-%d"), "1969-12-31");
        assert_eq!(format_utc(0, "%Q%"), "%Q%");
    }
}
