#![allow(clippy::unwrap_used, clippy::expect_used)]

use tessera_local::library::{hub_file_for, Library, LibraryError};

#[test]
fn the_folder_lists_whole_and_partial_models_and_removes_them() {
    let data = tempfile::tempdir().unwrap();
    let library = Library::new(data.path());
    assert!(library.list().unwrap().is_empty(), "no folder yet: nothing");
    std::fs::create_dir_all(library.dir()).unwrap();
    std::fs::write(
        library.dir().join("qwen2.5-1.5b-instruct-q4_k_m.gguf"),
        vec![0u8; 300],
    )
    .unwrap();
    std::fs::write(library.dir().join("mine.gguf.incomplete"), vec![0u8; 100]).unwrap();
    std::fs::write(library.dir().join("mine.gguf.incomplete.json"), b"{}").unwrap();
    std::fs::write(library.dir().join("notes.txt"), b"not a model").unwrap();
    let listed = library.list().unwrap();
    let summary: Vec<_> = listed
        .iter()
        .map(|m| (m.file.as_str(), m.bytes, m.partial, m.catalogue_id))
        .collect();
    assert_eq!(
        summary,
        [
            ("mine.gguf", 100, true, None),
            (
                "qwen2.5-1.5b-instruct-q4_k_m.gguf",
                300,
                false,
                Some("qwen2.5-1.5b-instruct")
            ),
        ]
    );
    assert_eq!(library.remove("mine.gguf").unwrap(), 100);
    assert_eq!(
        library.remove("qwen2.5-1.5b-instruct-q4_k_m.gguf").unwrap(),
        300
    );
    let mut left: Vec<_> = std::fs::read_dir(library.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["notes.txt"]);
    assert!(matches!(
        library.remove("mine.gguf"),
        Err(LibraryError::NotFound(_))
    ));
    assert!(matches!(
        library.remove("../x.gguf"),
        Err(LibraryError::BadName(_))
    ));
}

#[test]
fn pull_takes_a_catalogue_id_or_a_repo_and_file() {
    let file = hub_file_for("qwen2.5-1.5b-instruct", None).unwrap();
    assert_eq!(file.repo, "Qwen/Qwen2.5-1.5B-Instruct-GGUF");
    assert_ne!(
        file.revision, "main",
        "a catalogue model comes from its pinned commit"
    );
    let file = hub_file_for("qwen2.5-1.5b-instruct", Some("main")).unwrap();
    assert_eq!(
        file.revision, "main",
        "unless another revision is asked for"
    );
    let file = hub_file_for("someone/Some-GGUF:sub/model-Q4_K_M.gguf", None).unwrap();
    assert_eq!(file.revision, "main");
    let file = hub_file_for("someone/Some-GGUF:sub/model-Q4_K_M.gguf", Some("v2")).unwrap();
    assert_eq!(
        (
            file.repo.as_str(),
            file.file.as_str(),
            file.revision.as_str()
        ),
        ("someone/Some-GGUF", "sub/model-Q4_K_M.gguf", "v2")
    );
    assert_eq!(file.file_name(), "model-Q4_K_M.gguf");
    for bad in [
        "nothing",
        "a/b:c.bin",
        "a:b.gguf",
        "a/b/c:d.gguf",
        "a/b:../d.gguf",
        "a/b:",
    ] {
        let err = hub_file_for(bad, None).unwrap_err();
        assert!(err.to_string().contains("catalogue"), "{bad}: {err}");
    }
}
