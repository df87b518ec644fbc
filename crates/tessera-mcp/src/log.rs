//! A server's log: what it wrote to stderr, and what happened to it (started, failed, why),
//! kept in memory for the settings page and appended to `logs/mcp/<server>.log` in the data
//! folder. Never holds the server's secrets: they go to the child in its environment only.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use tessera_engine::sync::lock;

/// Lines kept in memory per server.
const KEPT_LINES: usize = 400;
/// A line longer than this is cut (a server that prints a whole file on one line).
const LINE_CHARS: usize = 2_000;
/// The file is started afresh beyond this size.
const FILE_BYTES: u64 = 2 * 1024 * 1024;

/// One server's log.
pub struct ServerLog {
    lines: Mutex<VecDeque<String>>,
    file: Option<PathBuf>,
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
        }
    }

    /// A line the server wrote.
    pub fn server_line(&self, line: &str) {
        self.push(line.to_owned());
    }

    /// What Tessera did or saw (started, stopped, failed and why).
    pub fn note(&self, what: &str) {
        self.push(format!("[tessera] {what}"));
    }

    fn push(&self, mut line: String) {
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
}
