//! Every fuzz corpus file (fuzz/corpus/<target>/) run through its target's entry point on
//! stable: what the fuzzer found once, and the seeds, stay fixed. The fuzzing itself is
//! `make fuzz`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

#[test]
fn every_corpus_replays_without_a_crash() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut total = 0;
    for (name, entry) in tessera_fuzz::TARGETS {
        let dir = root.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "the corpus of {name} is empty");
        for file in &files {
            let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            entry(&data);
        }
        total += files.len();
        eprintln!("{name}: {} inputs", files.len());
    }
    eprintln!("{total} inputs replayed");
}
