//! `tessera local list|pull|rm` as a person runs them, the hub a real HTTP server on 127.0.0.1
//! (`tessera_testkit::hub`) named by HF_ENDPOINT.

use std::path::Path;
use std::process::Output;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tessera_testkit::hub::{serve, sha, Hosted};

async fn tessera(data: &Path, endpoint: &str, args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("HF_ENDPOINT", endpoint)
        .env_remove("HTTPS_PROXY")
        .env_remove("HTTP_PROXY")
        .env_remove("ALL_PROXY")
        .output()
        .await
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn pull_downloads_resumes_lists_and_removes_a_model() {
    let content: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
    let hosted = Arc::new(Hosted {
        content: content.clone(),
        ..Hosted::default()
    });
    *hosted.cut_after.lock().unwrap() = Some(1_000_000);
    let endpoint = serve(hosted.clone()).await.unwrap();
    let data = tempfile::tempdir().unwrap();

    let listed = tessera(data.path(), &endpoint, &["local", "list"]).await;
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let out = text(&listed.stdout);
    assert!(out.contains("qwen2.5-1.5b-instruct"), "{out}");
    assert!(out.contains("<- for this machine"), "{out}");
    assert!(out.contains("nothing yet"), "{out}");

    let pulled = tessera(
        data.path(),
        &endpoint,
        &["local", "pull", "tessera/tiny-GGUF:tiny-q8_0.gguf"],
    )
    .await;
    let (out, err) = (text(&pulled.stdout), text(&pulled.stderr));
    assert!(pulled.status.success(), "{out}{err}");
    assert!(out.contains(&format!("SHA-256 {}", sha(&content))), "{out}");
    assert!(err.contains("3.0 MB"), "the size is said first: {err}");
    assert!(err.contains("(100 %)"), "progress reaches the end: {err}");
    let saved = data.path().join("models/tiny-q8_0.gguf");
    assert_eq!(std::fs::read(&saved).unwrap(), content);
    assert_eq!(
        hosted.ranges_asked.lock().unwrap().len(),
        1,
        "the cut connection was resumed with a range"
    );

    let again = tessera(
        data.path(),
        &endpoint,
        &["local", "pull", "tessera/tiny-GGUF:tiny-q8_0.gguf"],
    )
    .await;
    assert!(text(&again.stdout).contains("downloaded already"));
    assert_eq!(
        hosted.gets.load(Ordering::SeqCst),
        2,
        "nothing fetched again"
    );

    let listed = text(
        &tessera(data.path(), &endpoint, &["local", "list"])
            .await
            .stdout,
    );
    assert!(
        listed.contains("tiny-q8_0.gguf") && listed.contains("3.0 MB"),
        "{listed}"
    );

    let removed = tessera(data.path(), &endpoint, &["local", "rm", "tiny-q8_0.gguf"]).await;
    assert!(removed.status.success(), "{}", text(&removed.stderr));
    assert!(!saved.exists());
}

#[tokio::test]
async fn a_wrong_model_or_checksum_says_what_was_wrong() {
    let hosted = Arc::new(Hosted {
        content: vec![7u8; 100_000],
        ..Hosted::default()
    });
    hosted.corrupt.store(true, Ordering::SeqCst);
    let endpoint = serve(hosted).await.unwrap();
    let data = tempfile::tempdir().unwrap();

    let unknown = tessera(data.path(), &endpoint, &["local", "pull", "no-such-model"]).await;
    assert_eq!(unknown.status.code(), Some(1));
    let err = text(&unknown.stderr);
    assert!(
        err.contains("no-such-model") && err.contains("qwen2.5-7b-instruct"),
        "{err}"
    );

    let corrupt = tessera(
        data.path(),
        &endpoint,
        &["local", "pull", "tessera/tiny-GGUF:t.gguf"],
    )
    .await;
    assert_eq!(corrupt.status.code(), Some(1));
    let err = text(&corrupt.stderr);
    assert!(err.contains("SHA-256"), "{err}");
    let models: Vec<_> = std::fs::read_dir(data.path().join("models"))
        .unwrap()
        .collect();
    assert!(models.is_empty(), "nothing of the refused file is kept");
}

#[tokio::test]
async fn serve_names_a_missing_model_or_worker() {
    let data = tempfile::tempdir().unwrap();
    let missing = tessera(
        data.path(),
        "http://127.0.0.1:9",
        &["local", "serve", "nothing.gguf"],
    )
    .await;
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing.stderr).contains("no model file nothing.gguf"),
        "{}",
        text(&missing.stderr)
    );

    let model = data.path().join("m.gguf");
    std::fs::write(&model, b"GGUF").unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["local", "serve"])
        .arg(&model)
        .env("TESSERA_LLAMA_BIN", data.path().join("no-such-worker"))
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot start the local-model worker") && err.contains("make llama-worker"),
        "{err}"
    );
}

#[tokio::test]
async fn hub_sets_the_apps_mirror_and_proxy_and_pull_takes_a_hub() {
    let content: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let hosted = Arc::new(Hosted {
        content: content.clone(),
        ..Hosted::default()
    });
    let mirror = serve(hosted.clone()).await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let nowhere = "http://127.0.0.1:9";

    let shown = tessera(data.path(), nowhere, &["local", "hub"]).await;
    let out = text(&shown.stdout);
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    assert!(
        out.contains("hub address: none (downloads come from http://127.0.0.1:9)"),
        "{out}"
    );

    let refused = tessera(
        data.path(),
        nowhere,
        &["local", "hub", "--address", "hf-mirror.com"],
    )
    .await;
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("`hf-mirror.com` is not a web address"),
        "{}",
        text(&refused.stderr)
    );

    let set = tessera(
        data.path(),
        nowhere,
        &[
            "local",
            "hub",
            "--address",
            "https://hf-mirror.com/",
            "--proxy",
            "http://127.0.0.1:7890",
        ],
    )
    .await;
    let out = text(&set.stdout);
    assert!(set.status.success(), "{}", text(&set.stderr));
    assert!(
        out.contains("hub address: https://hf-mirror.com\n"),
        "{out}"
    );
    assert!(out.contains("proxy:       http://127.0.0.1:7890"), "{out}");
    let cleared = tessera(data.path(), nowhere, &["local", "hub", "--proxy", "none"]).await;
    assert!(
        text(&cleared.stdout).contains("proxy:       none"),
        "{}",
        text(&cleared.stdout)
    );

    // `pull --hub` downloads from the hub named, whatever HF_ENDPOINT says.
    let pulled = tessera(
        data.path(),
        nowhere,
        &[
            "local",
            "pull",
            "tessera/tiny-GGUF:tiny-q8_0.gguf",
            "--hub",
            &mirror,
        ],
    )
    .await;
    assert!(pulled.status.success(), "{}", text(&pulled.stderr));
    assert_eq!(
        std::fs::read(data.path().join("models/tiny-q8_0.gguf")).unwrap(),
        content
    );
}

/// `tessera local pull` with a deadline: a download that never ends fails the test instead of
/// holding it.
async fn pull_within(data: &Path, endpoint: &str, spec: &str, limit: Duration) -> Option<Output> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"));
    cmd.arg("--data-dir")
        .arg(data)
        .args(["local", "pull", spec])
        .env("HF_ENDPOINT", endpoint)
        .env_remove("HTTPS_PROXY")
        .env_remove("HTTP_PROXY")
        .env_remove("ALL_PROXY")
        .kill_on_drop(true);
    tokio::time::timeout(limit, cmd.output())
        .await
        .ok()
        .map(Result::unwrap)
}

fn files_under(dir: &Path) -> Vec<String> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[tokio::test]
async fn pull_writes_nothing_past_the_size_the_hub_announced() {
    // 64 KiB announced, 48 MiB sent without a length, the first 8 MiB at once, then nothing:
    // a downloader that reads past the announced size waits there with 8 MiB written.
    let hosted = Arc::new(Hosted {
        content: vec![1u8; 48 << 20],
        claimed_size: Some(64 << 10),
        without_length: true,
        ..Hosted::default()
    });
    *hosted.stall_after.lock().unwrap() = Some(8 << 20);
    let endpoint = serve(hosted).await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = pull_within(
        data.path(),
        &endpoint,
        "tessera/tiny-GGUF:big.gguf",
        Duration::from_secs(30),
    )
    .await
    .expect("the download went on reading past the 64 KiB the hub announced");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("sent more than the 65536 bytes it announced"),
        "{err}"
    );
    assert_eq!(
        files_under(&data.path().join("models")),
        Vec::<String>::new(),
        "what the refused download wrote is removed"
    );
}

#[tokio::test]
async fn pull_refuses_a_file_the_hub_gives_no_sha256_for() {
    let hosted = Arc::new(Hosted {
        content: vec![3u8; 100_000],
        without_sha256: true,
        ..Hosted::default()
    });
    let endpoint = serve(hosted.clone()).await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = pull_within(
        data.path(),
        &endpoint,
        "tessera/tiny-GGUF:unchecked.gguf",
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no SHA-256 for unchecked.gguf") && err.contains("`models` folder"),
        "the refusal names the file and how to go on: {err}"
    );
    assert_eq!(hosted.gets.load(Ordering::SeqCst), 0, "nothing was fetched");
    assert_eq!(
        files_under(&data.path().join("models")),
        Vec::<String>::new()
    );
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[tokio::test]
async fn pull_makes_the_data_folder_as_private_as_every_other_command() {
    let hosted = Arc::new(Hosted {
        content: vec![5u8; 50_000],
        ..Hosted::default()
    });
    let endpoint = serve(hosted).await.unwrap();
    let parent = tempfile::tempdir().unwrap();
    let data = parent.path().join("data");
    let out = pull_within(
        &data,
        &endpoint,
        "tessera/tiny-GGUF:tiny.gguf",
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(mode(&data), 0o700, "the data folder");
    assert_eq!(mode(&data.join("models")), 0o700, "the models folder");
    assert_eq!(
        mode(&data.join("models/tiny.gguf")),
        0o600,
        "the model file"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_data_folder_an_earlier_pull_left_open_is_tightened_when_opened() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let data = parent.path().join("data");
    std::fs::create_dir_all(data.join("models")).unwrap();
    std::fs::write(data.join("models/old.gguf"), b"GGUF").unwrap();
    for (path, mode) in [
        (data.clone(), 0o755),
        (data.join("models"), 0o755),
        (data.join("models/old.gguf"), 0o644),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = tessera(&data, "http://127.0.0.1:9", &["provider", "list"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(mode(&data), 0o700, "the data folder");
    assert_eq!(mode(&data.join("models")), 0o700, "the models folder");
    assert_eq!(mode(&data.join("models/old.gguf")), 0o600, "the model file");
}

#[tokio::test]
async fn a_pinned_catalogue_model_comes_from_its_commit_with_its_hash() {
    let model = tessera_local::catalogue::find("qwen2.5-1.5b-instruct").unwrap();
    let pin = model.pin.expect("the small model is pinned");
    // This hub's file is not the real one: its hash is not the pinned hash.
    let hosted = Arc::new(Hosted {
        content: vec![9u8; 100_000],
        ..Hosted::default()
    });
    let endpoint = serve(hosted.clone()).await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = pull_within(
        data.path(),
        &endpoint,
        "qwen2.5-1.5b-instruct",
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("not the SHA-256 {} expected", pin.sha256)),
        "{err}"
    );
    assert_eq!(
        *hosted.revisions_asked.lock().unwrap(),
        vec![pin.revision.to_owned()],
        "asked at the pinned commit, not main"
    );
    assert_eq!(hosted.gets.load(Ordering::SeqCst), 0, "nothing was fetched");
}
