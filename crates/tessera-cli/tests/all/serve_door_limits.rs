//! The door of `tessera serve` against clients that hold it open without a token: half-sent
//! requests are dropped after the header timeout, and more idle connections than the
//! descriptor limit allows leave `/healthz` and the API answering. A real process on loopback,
//! its descriptor limit set as a shell's `ulimit` sets it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use tessera_testkit::{http::request, server::RunningServer};

use crate::support;

/// `cmd` run by `sh` after `ulimit ULIMIT` (the program, its arguments and its environment
/// changes kept).
pub fn under_ulimit(cmd: &Command, ulimit: &str) -> Command {
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(format!("ulimit {ulimit} && exec \"$0\" \"$@\""))
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (name, value) in cmd.get_envs() {
        match value {
            Some(value) => shell.env(name, value),
            None => shell.env_remove(name),
        };
    }
    shell
}

/// The soft and hard "Max open files" of process `pid`.
pub fn open_files_limit(pid: u32) -> (String, String) {
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

/// Whether the peer closed `stream` within `limit` (end of file or a reset), and when.
pub fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
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

fn serve(data: &Path, ulimit: Option<&str>) -> RunningServer {
    let mut cmd = support::tessera_std(data);
    cmd.args(["serve", "--port", "0"]);
    if let Some(ulimit) = ulimit {
        cmd = under_ulimit(&cmd, ulimit);
    }
    RunningServer::spawn(cmd).unwrap()
}

#[test]
fn a_half_sent_request_is_dropped_after_the_header_timeout() {
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), None);
    let mut slow = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    slow.write_all(b"GET /healthz HT").unwrap();
    let mut silent = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let closed = closed_within(&mut slow, Duration::from_secs(30))
        .expect("a request line sent by half was held open for 30 s");
    assert!(
        closed >= Duration::from_secs(5),
        "closed after {closed:?}: too soon for a slow but honest client"
    );
    assert!(
        closed_within(&mut silent, Duration::from_secs(5)).is_some(),
        "a connection that sent nothing is dropped as well"
    );
    let health = request(server.port, "GET", "/healthz", &[]).unwrap();
    assert_eq!(health.status, 200);
}

#[test]
fn more_idle_connections_than_descriptors_leave_healthz_and_the_api_answering() {
    let data = tempfile::tempdir().unwrap();
    // 300 descriptors, hard limit too: what the server cannot raise.
    let server = serve(data.path(), Some("-n 300"));
    assert_eq!(open_files_limit(server.pid()).0, "300");
    let mut held = Vec::new();
    for i in 0..400 {
        let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        if i % 2 == 0 {
            stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0")
                .unwrap();
        }
        held.push(stream);
    }
    let started = Instant::now();
    let health = request(server.port, "GET", "/healthz", &[]);
    assert!(
        matches!(&health, Ok(answer) if answer.status == 200),
        "/healthz with 400 connections open: {health:?} after {:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "answered only after {:?}",
        started.elapsed()
    );
    // The API still opens what it needs (the database) with the connections held.
    let bearer = format!("Bearer {}", server.token);
    let version = request(
        server.port,
        "GET",
        "/api/v1/version",
        &[("Authorization", bearer.as_str())],
    )
    .unwrap();
    assert_eq!(version.status, 200, "{}", version.body);
    drop(held);
}

#[test]
fn serve_raises_its_open_files_limit_to_the_hard_limit() {
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), Some("-S -n 256"));
    let (soft, hard) = open_files_limit(server.pid());
    assert_ne!(hard, "256", "the test needs a hard limit above 256");
    assert_eq!(soft, hard, "the soft limit was left at 256");
}

#[tokio::test]
async fn an_event_stream_quiet_for_longer_than_the_header_timeout_goes_on() {
    use tessera_testkit::scripted::{Reply, ScriptedProvider};
    let provider = ScriptedProvider::start().await.unwrap();
    // Nothing on the stream for 12 s (the keep-alive comment comes after 15): longer than a
    // client may take to send its headers.
    provider
        .push(Reply::openai_text("m", &["late ", "but whole"]).with_delay(Duration::from_secs(12)));
    let data = tempfile::tempdir().unwrap();
    let server =
        RunningServer::spawn(support::serve_scripted(data.path(), &provider, false)).unwrap();
    let mut stream = support::stream::Stream::post(&server, "ctx_quiet", "Take your time").await;
    stream.read_to_done().await;
    assert!(
        stream.text().contains("late but whole"),
        "{}",
        stream.text()
    );
}
