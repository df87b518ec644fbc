#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The downloader against a real HTTP server on 127.0.0.1 that answers as the hub does
//! (`tessera_testkit::hub`): it can cut a connection halfway, stall, ignore ranges, or serve a
//! byte that is not the hub's.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use tessera_local::download::{
    download, partial_size, remove_partial, DownloadError, Hub, HubFile, Phase, Progress,
};
use tessera_testkit::hub::{serve, sha, Hosted};
use tokio_util::sync::CancellationToken;

fn content(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

fn hub(endpoint: &str) -> Hub {
    Hub::new(endpoint, || {
        tessera_providers::http::network_builder(
            "downloads",
            Some("none"),
            &[],
            std::time::Duration::from_secs(5),
        )
    })
    .unwrap()
}

fn model() -> HubFile {
    HubFile {
        repo: "tessera/tiny-GGUF".into(),
        revision: "main".into(),
        file: "tiny-q8_0.gguf".into(),
    }
}

fn hosted(len: usize) -> Arc<Hosted> {
    Arc::new(Hosted {
        content: content(len),
        ..Hosted::default()
    })
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn the_hub_gives_size_and_hash_and_the_file_arrives_whole() {
    let hosted = hosted(3_000_000);
    let hub = hub(&serve(hosted.clone()).await.unwrap());
    let remote = hub.remote(&model()).await.unwrap();
    assert_eq!(remote.size, 3_000_000);
    assert_eq!(
        remote.sha256.as_deref(),
        Some(sha(&hosted.content).as_str())
    );

    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("models").join("tiny-q8_0.gguf");
    let mut seen: Vec<Progress> = Vec::new();
    let done = download(
        &hub,
        &model(),
        &target,
        None,
        &CancellationToken::new(),
        |p| seen.push(p),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), hosted.content);
    assert_eq!(done.sha256, sha(&hosted.content));
    assert_eq!(files_in(target.parent().unwrap()), ["tiny-q8_0.gguf"]);
    let last = seen
        .iter()
        .rfind(|p| p.phase == Phase::Downloading)
        .unwrap();
    assert_eq!((last.done, last.total), (3_000_000, 3_000_000));
    assert_eq!(seen.last().unwrap().phase, Phase::Verifying);
}

#[tokio::test]
async fn a_connection_cut_halfway_is_resumed_from_where_it_stopped() {
    let hosted = hosted(2_000_000);
    *hosted.cut_after.lock().unwrap() = Some(700_000);
    let hub = hub(&serve(hosted.clone()).await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("tiny-q8_0.gguf");
    download(
        &hub,
        &model(),
        &target,
        None,
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), hosted.content);
    let ranges = hosted.ranges_asked.lock().unwrap().clone();
    assert_eq!(ranges.len(), 1, "one resumed request: {ranges:?}");
    assert!(ranges[0] > 0 && ranges[0] <= 700_000, "{ranges:?}");
    assert!(
        hosted.served.load(Ordering::SeqCst) < 2 * 2_000_000,
        "the first part was not fetched again in full"
    );
}

#[tokio::test]
async fn a_paused_download_resumes_in_a_later_call_and_a_cancel_removes_it() {
    let hosted = hosted(1_500_000);
    *hosted.stall_after.lock().unwrap() = Some(600_000);
    let hub = hub(&serve(hosted.clone()).await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("tiny-q8_0.gguf");
    let stop = CancellationToken::new();
    let pause = {
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            stop.cancel();
        })
    };
    let err = download(&hub, &model(), &target, None, &stop, |_| {})
        .await
        .unwrap_err();
    pause.await.unwrap();
    assert!(matches!(err, DownloadError::Stopped), "{err}");
    assert!(!target.exists());
    assert_eq!(partial_size(&target), Some(600_000));

    // Resumed: what was kept is hashed again from disk, the rest asked for with a range.
    let mut phases = Vec::new();
    download(
        &hub,
        &model(),
        &target,
        None,
        &CancellationToken::new(),
        |p| phases.push(p.phase),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), hosted.content);
    assert_eq!(*hosted.ranges_asked.lock().unwrap(), [600_000]);
    assert_eq!(partial_size(&target), None);

    // A cancel of another download leaves nothing behind.
    let other = dir.path().join("other.gguf");
    *hosted.stall_after.lock().unwrap() = Some(100_000);
    let stop = CancellationToken::new();
    let cancel = {
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            stop.cancel();
        })
    };
    download(&hub, &model(), &other, None, &stop, |_| {})
        .await
        .unwrap_err();
    cancel.await.unwrap();
    remove_partial(&other).unwrap();
    assert_eq!(files_in(dir.path()), ["tiny-q8_0.gguf"]);
}

#[tokio::test]
async fn a_server_that_ignores_the_range_starts_the_file_over() {
    let hosted = hosted(1_000_000);
    *hosted.cut_after.lock().unwrap() = Some(400_000);
    hosted.ignore_ranges.store(true, Ordering::SeqCst);
    let hub = hub(&serve(hosted.clone()).await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("tiny-q8_0.gguf");
    download(
        &hub,
        &model(),
        &target,
        None,
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), hosted.content);
}

#[tokio::test]
async fn a_wrong_checksum_is_refused_and_nothing_is_kept() {
    let hosted = hosted(800_000);
    hosted.corrupt.store(true, Ordering::SeqCst);
    let hub = hub(&serve(hosted.clone()).await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("tiny-q8_0.gguf");
    let err = download(
        &hub,
        &model(),
        &target,
        None,
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap_err();
    match &err {
        DownloadError::ChecksumMismatch { expected, got } => {
            assert_eq!(*expected, sha(&hosted.content));
            assert_ne!(expected, got);
        }
        other => panic!("expected a checksum mismatch, got {other}"),
    }
    assert!(err.to_string().contains("SHA-256"), "{err}");
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}

#[tokio::test]
async fn not_enough_disk_is_refused_before_the_first_byte() {
    let hosted = Arc::new(Hosted {
        content: content(1000),
        claimed_size: Some(u64::MAX / 4),
        ..Hosted::default()
    });
    let hub = hub(&serve(hosted.clone()).await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("huge.gguf");
    let err = download(
        &hub,
        &model(),
        &target,
        None,
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap_err();
    assert!(matches!(err, DownloadError::NotEnoughSpace { .. }), "{err}");
    assert!(err.to_string().contains("not enough disk space"), "{err}");
    assert_eq!(hosted.gets.load(Ordering::SeqCst), 0, "nothing was fetched");
}

#[tokio::test]
async fn an_unknown_file_names_the_status_and_address() {
    let hosted = hosted(10);
    let endpoint = serve(hosted).await.unwrap();
    let hub = hub(&endpoint);
    let file = HubFile {
        repo: "tessera/missing".into(),
        revision: "main".into(),
        file: "no/such/thing.gguf".into(),
    };
    let err = hub.remote(&file).await.unwrap_err();
    assert!(
        matches!(err, DownloadError::Status { status: 404, .. }),
        "{err}"
    );
    assert!(err.to_string().contains(&endpoint), "{err}");
}

#[test]
fn hf_endpoint_overrides_the_hub() {
    // One test sets the variable: the others pass their endpoint explicitly.
    std::env::set_var("HF_ENDPOINT", "http://127.0.0.1:9/");
    assert_eq!(Hub::endpoint_from_env(), "http://127.0.0.1:9/");
    let hub = hub(&Hub::endpoint_from_env());
    assert_eq!(
        hub.url(&model()),
        "http://127.0.0.1:9/tessera/tiny-GGUF/resolve/main/tiny-q8_0.gguf"
    );
    std::env::set_var("HF_ENDPOINT", " ");
    assert_eq!(Hub::endpoint_from_env(), "https://huggingface.co");
    std::env::remove_var("HF_ENDPOINT");
}

#[tokio::test]
async fn a_second_download_of_the_same_file_is_refused_while_the_first_runs() {
    let hosted = hosted(1_000_000);
    *hosted.stall_after.lock().unwrap() = Some(200_000);
    let hub = hub(&serve(hosted.clone()).await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("tiny-q8_0.gguf");
    let stop = CancellationToken::new();
    let first = {
        let (hub, target, stop) = (hub.clone(), target.clone(), stop.clone());
        tokio::spawn(async move { download(&hub, &model(), &target, None, &stop, |_| {}).await })
    };
    while partial_size(&target).unwrap_or(0) < 200_000 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let err = download(
        &hub,
        &model(),
        &target,
        None,
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap_err();
    assert!(matches!(err, DownloadError::Busy(_)), "{err}");
    assert_eq!(
        partial_size(&target),
        Some(200_000),
        "the first one's bytes are untouched"
    );
    stop.cancel();
    assert!(matches!(first.await.unwrap(), Err(DownloadError::Stopped)));
}
