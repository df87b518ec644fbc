//! `tessera check-condition` with a condition nested far too deeply: a syntax error with its
//! column and exit code 1, never a stack overflow that aborts the process.
#![allow(clippy::unwrap_used)] // a test may panic on what it set up itself

use std::process::Command;

#[test]
fn ten_thousand_nots_or_parentheses_are_a_syntax_error() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = dir.path().join("ctx.json");
    std::fs::write(&ctx, "{}").unwrap();
    let cases = [
        ("NOT ".repeat(10_000) + "true", 257),
        ("(".repeat(10_000) + "true" + &")".repeat(10_000), 65),
    ];
    for (expr, column) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(["check-condition", &expr, "--context", ctx.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("syntax error at column {column}: nested too deeply (more than 64 levels)\n")
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args([
            "check-condition",
            &("NOT ".repeat(64) + "true"),
            "--context",
            ctx.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "true\n");
}
