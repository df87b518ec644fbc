//! The index over a real folder: what is found, what is skipped and why, what a watcher sees.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use tessera_knowledge::{Knowledge, Limits};

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("notes/renewals.md"),
        "# 续订\n\n包周期续订的接口是 RenewOrder，需要先查询订单。\n\n# English\n\nThe quarterly zebrafish report is due on Friday.\n",
    )
    .unwrap();
    let mut code = String::new();
    for i in 0..40 {
        code.push_str(&format!("fn helper_{i}() -> u32 {{\n    {i}\n}}\n\n"));
    }
    code.push_str("fn compute_flux_capacitor() -> f64 {\n    1.21\n}\n");
    std::fs::write(root.join("src/lib.rs"), code).unwrap();
    std::fs::write(
        root.join(".env"),
        "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuv\n",
    )
    .unwrap();
    std::fs::write(
        root.join("deploy_notes.txt"),
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n",
    )
    .unwrap();
    std::fs::write(
        root.join("settings.toml"),
        "db_password = \"correct-horse-battery\"\n",
    )
    .unwrap();
    dir
}

fn open(data: &Path) -> Knowledge {
    Knowledge::open(data, Limits::default()).unwrap()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn needles_are_found_with_their_lines_and_secrets_and_links_are_skipped() {
    let data = tempfile::tempdir().unwrap();
    let files = folder();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("outside.md"),
        "the outside needle platypus",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), files.path().join("escape")).unwrap();
    let k = open(data.path());
    k.queue_scan("p1", files.path());
    assert!(k.wait_idle(Duration::from_secs(30)));

    let hits = k.search("p1", "续订", 5).unwrap();
    assert_eq!(
        hits[0].path,
        files.path().join("notes/renewals.md").to_string_lossy()
    );
    assert_eq!(hits[0].lines, [1, 3]);
    assert!(hits[0].text.contains("RenewOrder"));
    let hits = k
        .search("p1", "when is the zebrafish report due", 5)
        .unwrap();
    assert_eq!(hits[0].lines, [5, 7], "{hits:?}");
    assert_eq!(
        hits[0].citation(),
        format!("{}:5-7", files.path().join("notes/renewals.md").display())
    );
    let hits = k.search("p1", "compute_flux_capacitor", 5).unwrap();
    let lines = hits[0].lines;
    let source = std::fs::read_to_string(files.path().join("src/lib.rs")).unwrap();
    let cited: Vec<&str> = source
        .lines()
        .skip(lines[0] as usize - 1)
        .take((lines[1] - lines[0] + 1) as usize)
        .collect();
    assert!(
        cited.join("\n").contains("fn compute_flux_capacitor"),
        "{lines:?}"
    );
    // Another project sees none of it.
    assert!(k.search("p2", "续订", 5).unwrap().is_empty());

    for secret in ["sk-proj", "PRIVATE KEY", "correct-horse", "platypus"] {
        assert!(
            k.search("p1", secret, 5).unwrap().is_empty(),
            "{secret} was indexed"
        );
    }
    let status = k.status(Some("p1")).unwrap();
    assert!(status.idle);
    assert_eq!(status.indexed_files, 2, "{status:?}");
    let reason = |name: &str| {
        status
            .skipped
            .iter()
            .find(|s| s.path.ends_with(name))
            .map(|s| s.reason.clone())
            .unwrap_or_else(|| panic!("{name} not listed as skipped: {status:?}"))
    };
    assert!(reason(".env").contains("secrets file"));
    assert!(reason("deploy_notes.txt").contains("private key"));
    assert!(reason("settings.toml").contains("secret"));
    assert!(reason("escape").contains("symbolic link"));
    let evidence = k.search("p1", "zebrafish", 1).unwrap()[0].evidence("Thesis");
    let json = serde_json::to_value(&evidence).unwrap();
    assert_eq!(json["type"], "rag_doc");
    assert_eq!(json["source"]["kind"], "rag");
    assert_eq!(json["source"]["lines"], "5-7");
    assert_eq!(json["source"]["sha256"].as_str().unwrap().len(), 64);
}

#[test]
fn a_second_scan_reads_only_what_changed_and_forgets_what_went() {
    let data = tempfile::tempdir().unwrap();
    let files = folder();
    let k = open(data.path());
    k.queue_scan("p", files.path());
    assert!(k.wait_idle(Duration::from_secs(30)));
    std::fs::write(files.path().join("notes/new.txt"), "a brand new okapi fact").unwrap();
    std::fs::remove_file(files.path().join("src/lib.rs")).unwrap();
    k.queue_scan("p", files.path());
    assert!(k.wait_idle(Duration::from_secs(30)));
    assert_eq!(k.search("p", "okapi", 3).unwrap().len(), 1);
    assert!(k
        .search("p", "compute_flux_capacitor", 3)
        .unwrap()
        .is_empty());
    k.remove_source("p", files.path()).unwrap();
    assert!(k.search("p", "okapi", 3).unwrap().is_empty());
    assert_eq!(k.status(Some("p")).unwrap().indexed_files, 0);
}

#[test]
fn a_watched_folder_is_live_within_seconds() {
    let data = tempfile::tempdir().unwrap();
    let files = folder();
    let k = open(data.path());
    k.queue_scan("p", files.path());
    assert!(k.wait_idle(Duration::from_secs(30)));
    k.watch(vec![("p".into(), files.path().to_owned())]);
    let note = files.path().join("notes/live.md");
    std::fs::write(&note, "# Live\n\nThe narwhal meeting moved to Tuesday.\n").unwrap();
    wait_for("a new file to be found", || {
        !k.search("p", "narwhal", 3).unwrap().is_empty()
    });
    std::fs::write(&note, "# Live\n\nThe axolotl meeting moved to Tuesday.\n").unwrap();
    wait_for("an edit to be seen", || {
        !k.search("p", "axolotl", 3).unwrap().is_empty()
            && k.search("p", "narwhal", 3).unwrap().is_empty()
    });
    let moved = files.path().join("notes/moved.md");
    std::fs::rename(&note, &moved).unwrap();
    wait_for("a move to be seen", || {
        k.search("p", "axolotl", 3)
            .unwrap()
            .first()
            .is_some_and(|h| h.path == moved.to_string_lossy())
    });
    std::fs::remove_file(&moved).unwrap();
    wait_for("a deletion to be seen", || {
        k.search("p", "axolotl", 3).unwrap().is_empty()
    });
    // An ignored folder stays out even when a file is written into it.
    std::fs::create_dir_all(files.path().join("node_modules")).unwrap();
    std::fs::write(files.path().join("node_modules/x.md"), "quokka").unwrap();
    std::fs::write(files.path().join("notes/after.md"), "marker wombat").unwrap();
    wait_for("the marker", || {
        !k.search("p", "wombat", 3).unwrap().is_empty()
    });
    assert!(k.search("p", "quokka", 3).unwrap().is_empty());
}
