//! Keys saved while the secret store moves between the keyring and the key file, with the real
//! OS keyring: gnome-keyring's Secret Service in the private D-Bus session of
//! `scripts/with-keyring.sh` (`make test-keyring`). Anywhere else it skips, saying so on stderr.
//!
//! Through the real `tessera serve`: keys are put one after another while
//! `PUT /v1/secrets/store` flips the store both ways; every key answered `stored: true` is
//! there at the end, with its value.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use support::api::Api;
use support::{has_key, tessera_std_with_keyring};
use tessera_testkit::keyring::should_run;

const SUITE: &str = "secret store move tests";
const KEYS: usize = 16;

#[tokio::test(flavor = "multi_thread")]
async fn a_key_saved_while_the_store_moves_is_never_lost() {
    if !should_run(SUITE) {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let mut cmd = tessera_std_with_keyring(data.path());
    cmd.args(["serve", "--port", "0"]);
    let api = Arc::new(Api::start(cmd));
    let pid = std::process::id();
    let names: Vec<String> = (0..KEYS).map(|i| format!("mv{pid}-{i}")).collect();
    for name in &names {
        let config = json!({"name": name, "kind": "openai", "base_url": "http://127.0.0.1:9/v1",
                            "default_model": "m", "proxy": "none"});
        api.post("/providers", &config).await.ok(201);
    }

    let done = Arc::new(AtomicBool::new(false));
    let moves = Arc::new(AtomicUsize::new(0));
    let flipper = {
        let (api, done, moves) = (Arc::clone(&api), Arc::clone(&done), Arc::clone(&moves));
        tokio::spawn(async move {
            let mut to = "file";
            while !done.load(Ordering::SeqCst) {
                let moved = api.put("/secrets/store", &json!({"store": to})).await;
                assert_eq!(moved.ok(200)["store"], to, "{}", moved.text);
                moves.fetch_add(1, Ordering::SeqCst);
                to = if to == "file" { "keyring" } else { "file" };
                // Room for a few keys between moves, as a person's clicks would leave.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        })
    };
    // Rounds of keys until the store has moved both ways a few times meanwhile.
    let mut stored: Vec<(String, String)> = Vec::new();
    let mut round = 0;
    while round < 2 || moves.load(Ordering::SeqCst) < 4 {
        stored.clear();
        for name in &names {
            let key = format!("sk-{name}-{round}-0123456789");
            let answer = api
                .put(&format!("/providers/{name}/key"), &json!({"key": key}))
                .await;
            assert_eq!(answer.ok(200)["stored"], true, "{}", answer.text);
            stored.push((name.clone(), key));
        }
        round += 1;
    }
    done.store(true, Ordering::SeqCst);
    flipper.await.unwrap();
    eprintln!(
        "{round} rounds of {KEYS} keys while the store moved {} times",
        moves.load(Ordering::SeqCst)
    );

    // Each shows a key, in whichever store is chosen now; in the key file, with its value.
    let list = api.get("/providers").await.ok(200).clone();
    for (name, _) in &stored {
        assert_eq!(has_key(&list, name), true, "{name} was lost");
    }
    api.put("/secrets/store", &json!({"store": "file"}))
        .await
        .ok(200);
    let file: Value =
        serde_json::from_slice(&std::fs::read(data.path().join("secrets.json")).unwrap()).unwrap();
    for (name, key) in &stored {
        assert_eq!(file["secrets"][name], key.as_str(), "{name}");
    }
    // Out of the person's keyring session again.
    api.put("/secrets/store", &json!({"store": "keyring"}))
        .await
        .ok(200);
    for name in &names {
        api.delete(&format!("/providers/{name}/key")).await.ok(200);
    }
}
