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

/// A PDF of `pages`, each a line of Helvetica text, written by hand (offsets computed).
fn pdf(pages: &[&str]) -> Vec<u8> {
    let mut objects: Vec<String> = Vec::new();
    let n = pages.len();
    // 1 catalog, 2 pages, 3 font, then per page: page object, content stream.
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".into());
    objects.push(format!(
        "<< /Type /Pages /Kids [{}] /Count {n} >>",
        kids.join(" ")
    ));
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into());
    for (i, text) in pages.iter().enumerate() {
        let content = format!("BT /F1 12 Tf 72 712 Td ({text}) Tj ET");
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            5 + 2 * i
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ));
    }
    let mut out = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.push_str(&format!("{} 0 obj\n{body}\nendobj\n", i + 1));
    }
    let xref = out.len();
    out.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for offset in offsets {
        out.push_str(&format!("{offset:010} 00000 n \n"));
    }
    out.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    out.into_bytes()
}

/// A zip of `members` (name, text), as DOCX and ODT are.
fn zipped(members: &[(&str, &str)]) -> Vec<u8> {
    use std::io::Write;
    let mut cursor = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut cursor);
        for (name, text) in members {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap();
    }
    cursor.into_inner()
}

#[test]
fn every_format_gives_its_needle_with_its_span() {
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("paper.pdf"),
        pdf(&[
            "An introduction.",
            "Nothing here.",
            "The gannet colony grows.",
        ]),
    )
    .unwrap();
    let docx_body = r#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Minutes</w:t></w:r></w:p><w:p><w:r><w:t>The tapir budget was approved.</w:t></w:r></w:p><w:p><w:r><w:t>包周期续订已批准</w:t></w:r></w:p></w:body></w:document>"#;
    std::fs::write(
        root.join("minutes.docx"),
        zipped(&[
            ("[Content_Types].xml", r#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#),
            ("word/document.xml", docx_body),
        ]),
    )
    .unwrap();
    let odt_body = r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:h>Plan</text:h><text:p>The ocelot survey starts in May.</text:p></office:text></office:body></office:document-content>"#;
    std::fs::write(
        root.join("plan.odt"),
        zipped(&[
            ("mimetype", "application/vnd.oasis.opendocument.text"),
            ("content.xml", odt_body),
        ]),
    )
    .unwrap();
    std::fs::write(
        root.join("page.html"),
        "<html><body>\n<h1>Notes</h1>\n<p>The <b>kestrel</b> nests are on the roof.</p>\n</body></html>\n",
    )
    .unwrap();
    std::fs::write(
        root.join("table.csv"),
        "name,species\nAda,wombat\nBo,quoll\n",
    )
    .unwrap();
    let k = open(data.path());
    k.queue_scan("p", root);
    assert!(k.wait_idle(Duration::from_secs(30)));
    let status = k.status(Some("p")).unwrap();
    assert_eq!(status.indexed_files, 5, "{status:?}");

    let top = |query: &str| {
        let hits = k.search("p", query, 3).unwrap();
        assert!(!hits.is_empty(), "{query} not found");
        hits.into_iter().next().unwrap()
    };
    let gannet = top("gannet");
    assert!(gannet.path.ends_with("paper.pdf"));
    assert_eq!(gannet.page, Some(3));
    assert_eq!(gannet.citation(), format!("{}#page=3", gannet.path));
    let tapir = top("tapir budget");
    assert!(tapir.path.ends_with("minutes.docx"));
    assert!(
        tapir.lines[0] <= 2 && 2 <= tapir.lines[1],
        "{:?}",
        tapir.lines
    );
    assert!(top("续订").path.ends_with("minutes.docx"));
    let ocelot = top("ocelot survey");
    assert!(ocelot.path.ends_with("plan.odt"));
    let kestrel = top("kestrel");
    assert!(kestrel.path.ends_with("page.html"));
    assert!(
        kestrel.lines[0] <= 3 && 3 <= kestrel.lines[1],
        "{:?}",
        kestrel.lines
    );
    assert!(!kestrel.text.contains("<b>"), "{}", kestrel.text);
    let quoll = top("quoll");
    assert!(quoll.path.ends_with("table.csv"));
    assert_eq!(quoll.heading.as_deref(), Some("name,species"));
}
