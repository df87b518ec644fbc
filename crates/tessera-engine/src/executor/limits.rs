//! What one set of calls may make Tessera hold and store: a call's arguments after `${…}`
//! substitution, one result, and all of a set's arguments and results together. Without them
//! a 200 KB request whose calls each repeat the results before them grows into gigabytes.
//! The defaults leave a turn of hundreds of ordinary calls far below every limit.

use serde_json::Value;

/// The limits of one executor's sets ([`super::ExecutorOptions::limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// A call's arguments after substitution, as JSON bytes (default 1 MiB). A call over it is
    /// refused before it runs.
    pub arguments_bytes: usize,
    /// One call's result, as JSON bytes (default 4 MiB; images are attachments, not counted).
    /// A bigger result is an error and is not kept.
    pub result_bytes: usize,
    /// Every argument and result of one set together (default 64 MiB). Once it is reached the
    /// calls not yet started are refused; what ran is kept.
    pub set_bytes: usize,
    /// Every tool argument and result of one run — a model turn's rounds together, across
    /// suspensions — (default 256 MiB). A round's set gets what is left of it; a run that
    /// reaches it ends failed with `RUN_LIMIT_REACHED`, and what it stored stays readable.
    pub run_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            arguments_bytes: 1024 * 1024,
            result_bytes: 4 * 1024 * 1024,
            set_bytes: 64 * 1024 * 1024,
            run_bytes: 256 * 1024 * 1024,
        }
    }
}

/// Counts what `serde_json` would write, without keeping it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The length of `value` as compact JSON.
pub fn json_size(value: &Value) -> usize {
    let mut counter = Counter(0);
    // Writing to a counter cannot fail; a value serde cannot write counts as nothing.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// `n` bytes in words a person reads.
pub(crate) fn bytes(n: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if n >= MIB {
        format!("{:.1} MiB", n as f64 / MIB as f64)
    } else if n >= 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sizes_are_those_of_compact_json() {
        let v = json!({"a": [1, "x"], "b": null});
        assert_eq!(
            json_size(&v),
            serde_json::to_string(&v).map(|s| s.len()).unwrap_or(0)
        );
        assert_eq!(bytes(3 * 1024 * 1024 / 2), "1.5 MiB");
        assert_eq!(bytes(2048), "2.0 KiB");
    }
}
