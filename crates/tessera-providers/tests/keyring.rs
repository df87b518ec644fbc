//! API keys in the real OS keyring: gnome-keyring's Secret Service in a private D-Bus session.
//!
//! Run through `make test-keyring` (`scripts/with-keyring.sh cargo test -p tessera-providers
//! --test keyring`). Anywhere else it skips, saying so on stderr: outside the script's session
//! it would be writing to the person's own keyring.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use tessera_providers::keys::{
    delete_key, get_key, resolve_key, set_key, KeyStore, OsKeyring, Secret, KEYRING_SERVICE,
};
use tessera_providers::{ProviderConfig, ProviderKind};

/// Whether the script set this session up; if it did, the Secret Service must be there.
fn in_keyring_session() -> bool {
    std::env::var_os("TESSERA_KEYRING_SESSION").is_some_and(|v| v == "1")
}

/// Whether something owns `org.freedesktop.secrets` on the session bus right now (a service
/// that is only activatable does not count: activating it here would ask for a password).
fn secret_service_on_bus() -> bool {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return false;
    }
    Command::new("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            "string:org.freedesktop.secrets",
        ])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("boolean true"))
}

/// Written straight to stderr, past the test harness's capture, so a skip is never silent.
fn skip(reason: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED: keyring tests: {reason}.\n*** Run them with `make test-keyring` \
         (scripts/with-keyring.sh: dbus-run-session + gnome-keyring).\n"
    );
}

fn should_run() -> bool {
    let session = in_keyring_session();
    let on_bus = secret_service_on_bus();
    match (session, on_bus) {
        (true, true) => true,
        (true, false) => panic!(
            "TESSERA_KEYRING_SESSION is set but no Secret Service owns org.freedesktop.secrets"
        ),
        (false, true) => {
            skip("a Secret Service is on the bus, but not the throwaway one of the script");
            false
        }
        (false, false) => {
            skip("no Secret Service on the session bus");
            false
        }
    }
}

/// `secret-tool lookup service dev.tessera.desktop username <provider>`: what another program
/// reading the keyring sees. keyring 3.6's Secret Service backend names its attributes
/// `service`, `username` and `target` (and `application`).
fn secret_tool_lookup(provider: &str) -> Option<String> {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", KEYRING_SERVICE, "username", provider])
        .output()
        .expect("secret-tool (libsecret-tools) is needed for the keyring tests");
    out.status
        .success()
        .then(|| String::from_utf8(out.stdout).expect("the key is text"))
}

fn secret_tool_store(provider: &str, key: &str) {
    let mut child = Command::new("secret-tool")
        .args([
            "store",
            "--label=stored by another program",
            "service",
            KEYRING_SERVICE,
            "username",
            provider,
        ])
        .stdin(Stdio::piped())
        .spawn()
        .expect("secret-tool (libsecret-tools) is needed for the keyring tests");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(key.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}

/// A provider name no other run uses.
fn provider_name(what: &str) -> String {
    format!("test-{what}-{}", std::process::id())
}

#[tokio::test]
async fn a_key_is_stored_read_replaced_and_removed_in_the_os_keyring() {
    if !should_run() {
        return;
    }
    let store: Arc<dyn KeyStore> = Arc::new(OsKeyring::new());
    let provider = provider_name("roundtrip");
    assert_eq!(get_key(&store, &provider).await.unwrap(), None);

    let key = format!("sk-tessera-{}-abcdef", std::process::id());
    set_key(&store, &provider, Secret::new(key.clone()))
        .await
        .unwrap();
    assert_eq!(
        get_key(&store, &provider).await.unwrap().unwrap().expose(),
        key
    );
    // Another program reading the keyring finds it under Tessera's service and the provider.
    assert_eq!(secret_tool_lookup(&provider).as_deref(), Some(key.as_str()));

    // A provider configured under that name gets it (no environment variable names it).
    let config = ProviderConfig::new(&provider, ProviderKind::Openai, "http://127.0.0.1:9/v1");
    let resolved = resolve_key(&config, Arc::clone(&store)).await.unwrap();
    assert_eq!(resolved.unwrap().expose(), key);

    // Setting it again replaces it rather than adding a second entry.
    let newer = format!("{key}-rotated");
    set_key(&store, &provider, Secret::new(newer.clone()))
        .await
        .unwrap();
    assert_eq!(
        get_key(&store, &provider).await.unwrap().unwrap().expose(),
        newer
    );
    assert_eq!(
        secret_tool_lookup(&provider).as_deref(),
        Some(newer.as_str())
    );

    assert!(delete_key(&store, &provider).await.unwrap());
    assert_eq!(get_key(&store, &provider).await.unwrap(), None);
    assert_eq!(secret_tool_lookup(&provider), None);
    assert!(!delete_key(&store, &provider).await.unwrap());

    // With no key anywhere the provider is told where to put one.
    let err = resolve_key(&config, store).await.unwrap_err();
    assert_eq!(err.code(), "missing_api_key");
}

#[tokio::test]
async fn a_key_put_in_by_another_program_is_found() {
    if !should_run() {
        return;
    }
    let store: Arc<dyn KeyStore> = Arc::new(OsKeyring::new());
    let provider = provider_name("external");
    secret_tool_store(&provider, "sk-from-the-keyring-manager");
    assert_eq!(
        get_key(&store, &provider).await.unwrap().unwrap().expose(),
        "sk-from-the-keyring-manager"
    );
    assert!(delete_key(&store, &provider).await.unwrap());
    assert_eq!(secret_tool_lookup(&provider), None);
}
