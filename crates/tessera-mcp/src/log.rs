//! A server's log: what it wrote to stderr, and what happened to it (started, failed, why),
//! kept in memory for the settings page and appended to `logs/mcp/<server>.log` in the data
//! folder. Never holds the server's secrets: they go to the child in its environment only, and
//! every line (the server's own, Tessera's notes, the transport's errors quoted in them) passes
//! [`ServerLog::scrub`] on its way in.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use tessera_engine::sync::lock;
use tessera_protocol::secrets::{redact_text, REDACTED};

/// Lines kept in memory per server.
const KEPT_LINES: usize = 400;
/// A line longer than this is cut (a server that prints a whole file on one line).
const LINE_CHARS: usize = 2_000;
/// The file is started afresh beyond this size.
const FILE_BYTES: u64 = 2 * 1024 * 1024;
/// Secret values shorter than this are not searched for in text: replacing every `1` or `on`
/// would garble the log and protect nothing.
const SHORTEST_KEPT_OUT: usize = 4;

/// One server's log.
pub struct ServerLog {
    lines: Mutex<VecDeque<String>>,
    file: Option<PathBuf>,
    /// The secret values the server was last started with, longest first.
    kept_out: Mutex<Vec<String>>,
}

impl ServerLog {
    /// A log also written to `file` (its folder is made when needed).
    pub fn new(file: Option<PathBuf>) -> Self {
        if let Some(dir) = file.as_ref().and_then(|f| f.parent()) {
            let _ = tessera_store::file_modes::create_private_dir(dir);
        }
        Self {
            lines: Mutex::new(VecDeque::new()),
            file,
            kept_out: Mutex::new(Vec::new()),
        }
    }

    /// The secret values the server is started with (its secret env values, arguments,
    /// headers, URL and the URL's parts): never written here, nor in an error about it,
    /// whatever they look like.
    pub fn keep_out(&self, values: impl IntoIterator<Item = String>) {
        let mut values: Vec<String> = values
            .into_iter()
            .filter(|v| v.chars().count() >= SHORTEST_KEPT_OUT)
            .collect();
        // A secret that holds another is replaced whole first.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        *lock(&self.kept_out) = values;
    }

    /// `text` (a server's line, an error about it) as it may be logged or shown: the server's
    /// secret values and anything that looks like a credential (URL user info, secret query
    /// values, key-like words) redacted.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for value in lock(&self.kept_out).iter() {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), REDACTED);
            }
        }
        redact_text(&out)
    }

    /// A line the server wrote.
    pub fn server_line(&self, line: &str) {
        self.push(line.to_owned());
    }

    /// What Tessera did or saw (started, stopped, failed and why).
    pub fn note(&self, what: &str) {
        self.push(format!("[tessera] {what}"));
    }

    fn push(&self, line: String) {
        let mut line = self.scrub(&line);
        if line.chars().count() > LINE_CHARS {
            line = line.chars().take(LINE_CHARS).collect::<String>() + "…";
        }
        let stamped = format!(
            "{} {line}",
            jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        );
        if let Some(path) = &self.file {
            if std::fs::metadata(path).is_ok_and(|m| m.len() > FILE_BYTES) {
                let _ = std::fs::rename(path, path.with_extension("log.1"));
            }
            if let Ok(mut file) = tessera_store::file_modes::private_file()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = writeln!(file, "{stamped}");
            }
        }
        let mut lines = lock(&self.lines);
        if lines.len() == KEPT_LINES {
            lines.pop_front();
        }
        lines.push_back(stamped);
    }

    /// The last lines, oldest first.
    pub fn tail(&self, n: usize) -> Vec<String> {
        let lines = lock(&self.lines);
        lines
            .iter()
            .skip(lines.len().saturating_sub(n))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn lines_reach_the_file_and_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/mcp/a.log");
        let log = ServerLog::new(Some(path.clone()));
        log.server_line("hello");
        log.note("started");
        let tail = log.tail(10);
        assert_eq!(tail.len(), 2);
        assert!(tail[1].ends_with("[tessera] started"));
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains("hello") && text.contains("[tessera] started"));
    }

    #[test]
    fn secrets_never_reach_the_log_whatever_they_look_like() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/mcp/a.log");
        let log = ServerLog::new(Some(path.clone()));
        log.keep_out(["plainpw42".to_owned(), "on".to_owned()]);
        log.server_line("connecting with DB_PASS=plainpw42 on");
        log.note("failed: error sending request for url (http://me:pw9@h.example/mcp?key=k1)");
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            !text.contains("plainpw42") && !text.contains("pw9"),
            "{text}"
        );
        assert!(text.contains("DB_PASS=[redacted] on"), "{text}");
        assert!(
            text.contains("http://[redacted]@h.example/mcp?key=[redacted]"),
            "{text}"
        );
        assert_eq!(log.tail(2).len(), 2);
    }
}
