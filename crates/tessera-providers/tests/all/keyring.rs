//! API keys in the real OS keyring: gnome-keyring's Secret Service in a private D-Bus session.
//!
//! Run through `make test-keyring` (`scripts/with-keyring.sh cargo test -p tessera-providers
//! --test keyring`). Anywhere else it skips, saying so on stderr: outside the script's session
//! it would be writing to the person's own keyring.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use tessera_providers::keys::{
    delete_key, get_key, resolve_key, set_key, KeyStore, OsKeyring, Secret, KEYRING_SERVICE,
};
use tessera_providers::{ProviderConfig, WireKind};

fn should_run() -> bool {
    // The helpers look keys up under the service name the app stores them under.
    assert_eq!(tessera_testkit::keyring::SERVICE, KEYRING_SERVICE);
    tessera_testkit::keyring::should_run("keyring tests")
}

fn secret_tool_lookup(provider: &str) -> Option<String> {
    tessera_testkit::keyring::secret_tool_lookup(provider)
        .expect("secret-tool (libsecret-tools) is needed for the keyring tests")
}

fn secret_tool_store(provider: &str, key: &str) {
    assert!(tessera_testkit::keyring::secret_tool_store(provider, key)
        .expect("secret-tool (libsecret-tools) is needed for the keyring tests"));
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
    let config = ProviderConfig::new(&provider, WireKind::Openai, "http://127.0.0.1:9/v1");
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
