//! The worker's door against clients on this machine that hold it open without the token:
//! half-sent requests are dropped after the header timeout, and more idle connections than the
//! descriptor limit allows leave `/health` answering. The built worker on the suite's model
//! (TESSERA_TEST_GGUF), its descriptor limit set as a shell's `ulimit` sets it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "test-token-0123456789";

struct Worker {
    child: Child,
    port: u16,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The worker on the suite's model, run by `sh` after `ulimit ULIMIT` when given, once ready.
fn start(ulimit: Option<&str>) -> Worker {
    let model = std::env::var("TESSERA_TEST_GGUF")
        .expect("TESSERA_TEST_GGUF names the test model (make test-llama makes it)");
    let worker = env!("CARGO_BIN_EXE_tessera-llama");
    let args = [model.as_str(), "--ctx", "512", "--threads", "1"];
    let mut cmd = match ulimit {
        Some(ulimit) => {
            let mut shell = Command::new("sh");
            shell
                .arg("-c")
                .arg(format!("ulimit {ulimit} && exec \"$0\" \"$@\""))
                .arg(worker)
                .args(args);
            shell
        }
        None => {
            let mut direct = Command::new(worker);
            direct.args(args);
            direct
        }
    };
    let mut child = cmd
        .env("TESSERA_LLAMA_TOKEN", TOKEN)
        .env_remove("TESSERA_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let ready: serde_json::Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("ready line {line:?}: {e}"));
    Worker {
        port: u16::try_from(ready["port"].as_u64().unwrap()).unwrap(),
        child,
    }
}

/// The soft and hard "Max open files" of process `pid`.
fn open_files_limit(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let mut numbers = line.split_whitespace().skip(3);
    (
        numbers.next().unwrap().to_owned(),
        numbers.next().unwrap().to_owned(),
    )
}

/// When the peer closed `stream` (end of file or a reset), if it did within `limit`.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    stream
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0u8; 1024];
    while started.elapsed() < limit {
        match stream.read(&mut buf) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => {}
            Err(err)
                if matches!(
                    err.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return Some(started.elapsed()),
        }
    }
    None
}

/// `GET /health` with the token on a fresh connection: the status line's code.
fn health(port: u16) -> std::io::Result<u16> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        stream,
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP answer: {answer:?}")))
}

#[test]
fn a_half_sent_request_is_dropped_after_the_header_timeout() {
    let worker = start(None);
    let mut slow = TcpStream::connect(("127.0.0.1", worker.port)).unwrap();
    slow.write_all(b"POST /v1/chat/completions HT").unwrap();
    let closed = closed_within(&mut slow, Duration::from_secs(30))
        .expect("a request line sent by half was held open for 30 s");
    assert!(closed >= Duration::from_secs(5), "closed after {closed:?}");
    assert_eq!(health(worker.port).unwrap(), 200);
}

#[test]
fn more_idle_connections_than_descriptors_leave_health_answering() {
    // 128 descriptors, hard limit too: what the worker cannot raise.
    let worker = start(Some("-n 128"));
    assert_eq!(open_files_limit(worker.child.id()).0, "128");
    let mut held = Vec::new();
    for i in 0..200 {
        let mut stream = TcpStream::connect(("127.0.0.1", worker.port)).unwrap();
        if i % 2 == 0 {
            stream
                .write_all(b"GET /health HTTP/1.1\r\nHost: 12")
                .unwrap();
        }
        held.push(stream);
    }
    let started = Instant::now();
    let answer = health(worker.port);
    assert!(
        matches!(answer, Ok(200)),
        "/health with 200 connections open: {answer:?} after {:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "answered only after {:?}",
        started.elapsed()
    );
    drop(held);
}

#[test]
fn the_worker_raises_its_open_files_limit_to_the_hard_limit() {
    let worker = start(Some("-S -n 100"));
    let (soft, hard) = open_files_limit(worker.child.id());
    assert_ne!(hard, "100", "the test needs a hard limit above 100");
    assert_eq!(soft, hard, "the soft limit was left at 100");
}
