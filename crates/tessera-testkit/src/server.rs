//! Starts `tessera serve` as a child process, reads the URL it prints, and ends it by pid on drop.

use std::{
    io::{BufRead, BufReader, Read},
    path::Path,
    process::{Child, Command, Stdio},
    sync::{mpsc, Arc, Mutex},
    time::Duration,
};

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ServerError {
    #[error("cannot start {bin}: {source}")]
    Spawn { bin: String, source: std::io::Error },
    #[error("the server did not print its URL within {0:?} (stderr: {1})")]
    NoUrl(Duration, String),
    #[error("the server printed an unexpected line: {0}")]
    BadLine(String),
}

/// A running `tessera serve`.
#[derive(Debug)]
pub struct RunningServer {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    pub port: u16,
    pub token: String,
    /// What the server wrote to stderr so far (drained all along, so it never blocks on it).
    stderr: Arc<Mutex<String>>,
}

impl RunningServer {
    /// Runs `bin serve --port 0 <extra args>` and waits for its `Listening on` line.
    pub fn start(bin: &Path, extra: &[&str]) -> Result<Self, ServerError> {
        let mut cmd = Command::new(bin);
        cmd.arg("serve").args(["--port", "0"]).args(extra);
        Self::spawn(cmd)
    }

    /// Runs `cmd`, a `tessera … serve …` command line the caller set up (arguments,
    /// environment), and waits for its `Listening on` line.
    pub fn spawn(mut cmd: Command) -> Result<Self, ServerError> {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ServerError::Spawn {
                bin: cmd.get_program().to_string_lossy().into_owned(),
                source,
            })?;
        let stdout = child.stdout.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            if let Some(out) = stdout {
                let mut reader = BufReader::new(out);
                let mut line = String::new();
                let _ = reader.read_line(&mut line);
                let _ = tx.send(line);
                // Keep draining so the child never blocks on a full pipe.
                let mut sink = String::new();
                while reader.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
                    sink.clear();
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        if let Some(mut err) = child.stderr.take() {
            let stderr = stderr.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut text) = stderr.lock() {
                        text.push_str(&String::from_utf8_lossy(&buf[..n]));
                    }
                }
            });
        }
        let wait = Duration::from_secs(30);
        let line = match rx.recv_timeout(wait) {
            Ok(line) if !line.is_empty() => line,
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                // The drain thread ends with the pipe; give it a moment to take the rest.
                std::thread::sleep(Duration::from_millis(50));
                let stderr = stderr.lock().map(|s| s.clone()).unwrap_or_default();
                return Err(ServerError::NoUrl(wait, stderr));
            }
        };
        let parsed = parse_listening_line(line.trim());
        match parsed {
            Some((base, port, token)) => Ok(Self {
                child,
                base,
                port,
                token,
                stderr,
            }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(ServerError::BadLine(line))
            }
        }
    }

    /// What the server has written to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Whether stderr holds `needle` within `limit` (it is read on another thread, so a line
    /// written just before the URL may still be on its way).
    pub fn stderr_shows(&self, needle: &str, limit: Duration) -> bool {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if self.stderr().contains(needle) {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `limit` for the child to exit by itself and returns its exit code
    /// (`None` if it is still running, or ended by a signal).
    pub fn wait_for_exit(&mut self, limit: Duration) -> Option<i32> {
        let deadline = std::time::Instant::now() + limit;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `Listening on http://127.0.0.1:PORT/#token=TOKEN` → (base, port, token).
pub fn parse_listening_line(line: &str) -> Option<(String, u16, String)> {
    let url = line.strip_prefix("Listening on ")?;
    let (base, token) = url.split_once("/#token=")?;
    let port = base.rsplit_once(':')?.1.parse().ok()?;
    Some((base.to_string(), port, token.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_listening_line() {
        let (base, port, token) =
            parse_listening_line("Listening on http://127.0.0.1:4312/#token=ab12").unwrap();
        assert_eq!(base, "http://127.0.0.1:4312");
        assert_eq!(port, 4312);
        assert_eq!(token, "ab12");
        assert!(parse_listening_line("hello").is_none());
    }
}
