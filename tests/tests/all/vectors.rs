//! Every protocol test vector (`tests/vectors/manifest.json`, produced by `extract.py`) against
//! `tessera_protocol::validate`: a valid document gives no problem; an invalid one gives at least
//! one problem at its `expect_path`. All failures are collected and reported together.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tessera_protocol::{validate, DocumentKind, Problem};

/// A manifest smaller than this cannot be the real one.
const MIN_ENTRIES: usize = 50;

struct Entry {
    file: String,
    kind: String,
    valid: bool,
    expect_path: Option<String>,
    source: String,
}

fn read_manifest(path: &Path) -> Result<Vec<Entry>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let manifest: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let vectors = manifest
        .get("vectors")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{}: no \"vectors\" array", path.display()))?;
    let text_field =
        |entry: &Value, key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
    vectors
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            Ok(Entry {
                file: text_field(entry, "file").ok_or(format!("vectors[{i}]: no file"))?,
                kind: text_field(entry, "kind").ok_or(format!("vectors[{i}]: no kind"))?,
                valid: entry
                    .get("valid")
                    .and_then(Value::as_bool)
                    .ok_or(format!("vectors[{i}]: no valid flag"))?,
                expect_path: text_field(entry, "expect_path"),
                source: text_field(entry, "source").unwrap_or_default(),
            })
        })
        .collect()
}

fn show(problems: &[Problem]) -> String {
    if problems.is_empty() {
        return "    (no problems)".to_owned();
    }
    problems
        .iter()
        .map(|p| format!("    {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks every entry; returns one report per failing entry.
fn run(dir: &Path, entries: &[Entry]) -> Vec<String> {
    let mut failures = Vec::new();
    for entry in entries {
        let head = format!("{} ({}, {})", entry.file, entry.kind, entry.source);
        let kind: DocumentKind = match entry.kind.parse() {
            Ok(kind) => kind,
            Err(e) => {
                failures.push(format!("{head}: {e}"));
                continue;
            }
        };
        let text = match std::fs::read_to_string(dir.join(&entry.file)) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{head}: cannot read: {e}"));
                continue;
            }
        };
        let problems = tessera_protocol::validate_str(kind, &text);
        if entry.valid {
            if !problems.is_empty() {
                failures.push(format!("{head}: valid, but got\n{}", show(&problems)));
            }
        } else {
            match &entry.expect_path {
                None => failures.push(format!("{head}: invalid entry without expect_path")),
                Some(expected) if !problems.iter().any(|p| &p.path == expected) => {
                    failures.push(format!(
                        "{head}: expected a problem at {expected}, got\n{}",
                        show(&problems)
                    ));
                }
                Some(_) => {}
            }
        }
    }
    failures
}

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

#[test]
fn every_vector_is_judged_as_the_manifest_says() {
    let dir = vectors_dir();
    let entries = read_manifest(&dir.join("manifest.json")).unwrap();
    assert!(
        entries.len() > MIN_ENTRIES,
        "the manifest lists only {} vectors (expected more than {MIN_ENTRIES})",
        entries.len()
    );
    assert!(entries.iter().any(|e| e.valid) && entries.iter().any(|e| !e.valid));
    let failures = run(&dir, &entries);
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
}

/// Every valid vector reads into its Rust type and writes back unchanged (unknown fields and
/// unknown extensible values included).
#[test]
fn every_valid_vector_round_trips_through_its_rust_type() {
    let dir = vectors_dir();
    let entries = read_manifest(&dir.join("manifest.json")).unwrap();
    let mut failures = Vec::new();
    for entry in entries.iter().filter(|e| e.valid) {
        let head = format!("{} ({})", entry.file, entry.kind);
        let kind: DocumentKind = entry.kind.parse().unwrap();
        let text = std::fs::read_to_string(dir.join(&entry.file)).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        match tessera_protocol::normalize(kind, &doc) {
            Ok(back) if back == doc => {}
            Ok(back) => failures.push(format!("{head}: changed on a round trip:\n    {back}")),
            Err(e) => failures.push(format!("{head}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_runner_reports_wrong_verdicts() {
    let dir = std::env::temp_dir().join(format!("tessera-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("ok.json"),
        r#"{"conversation_id": "c", "form_id": "f", "values": {}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("no-form.json"), r#"{"conversation_id": "c"}"#).unwrap();
    std::fs::write(dir.join("broken.json"), "{").unwrap();
    let entry = |file: &str, valid: bool, expect: Option<&str>| Entry {
        file: file.into(),
        kind: "form-submission".into(),
        valid,
        expect_path: expect.map(str::to_owned),
        source: "hand-made".into(),
    };
    let passing = [
        entry("ok.json", true, None),
        entry("no-form.json", false, Some("form_id")),
        entry("broken.json", false, Some("$")),
    ];
    assert!(run(&dir, &passing).is_empty(), "{:?}", run(&dir, &passing));
    let failing = [
        entry("no-form.json", true, None),
        entry("ok.json", false, Some("values")),
        entry("no-form.json", false, Some("conversation_id")),
        entry("absent.json", true, None),
    ];
    assert_eq!(run(&dir, &failing).len(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
    // Unused in the hand-made run, but keeps `validate` (the Value entry point) linked here too.
    assert!(validate(DocumentKind::FormSubmission, &serde_json::json!({})).len() >= 2);
}
