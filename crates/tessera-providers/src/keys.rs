//! API keys: in Tessera's one secret store ([`tessera_secrets`]: the OS keyring, or the key
//! file the person chose), with environment variables on top for the command line and CI.
//!
//! A key is held in a [`Secret`], which never prints its value; nothing here logs one.

use std::sync::Arc;

pub use tessera_secrets::{
    run_blocking, KeyStore, MemoryKeyStore, OsKeyring, Secret, SecretError, SecretStore,
    KEYRING_SERVICE, KEYRING_TIMEOUT,
};

use crate::config::{ProviderConfig, WireKind};
use crate::error::{ProviderError, Result};

impl From<SecretError> for ProviderError {
    fn from(error: SecretError) -> Self {
        ProviderError::Keyring(error.to_string())
    }
}

/// The key of `provider` from `store`, within [`KEYRING_TIMEOUT`].
pub async fn get_key(store: &Arc<dyn KeyStore>, provider: &str) -> Result<Option<Secret>> {
    Ok(tessera_secrets::get_secret(store, provider).await?)
}

/// Stores the key of `provider`, within [`KEYRING_TIMEOUT`]; where it went.
pub async fn set_key(
    store: &Arc<dyn KeyStore>,
    provider: &str,
    key: Secret,
) -> Result<tessera_secrets::SecretBackend> {
    Ok(tessera_secrets::set_secret(store, provider, key).await?)
}

/// Removes the key of `provider`, within [`KEYRING_TIMEOUT`]; returns whether there was one.
pub async fn delete_key(store: &Arc<dyn KeyStore>, provider: &str) -> Result<bool> {
    Ok(tessera_secrets::delete_secret(store, provider).await?)
}

/// `TESSERA_<PROVIDER>_API_KEY`: the name upper-cased, anything not ASCII alphanumeric as `_`.
pub fn tessera_env_var(provider: &str) -> String {
    let name: String = provider
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("TESSERA_{name}_API_KEY")
}

/// The well-known variable of a provider, if it has one: `OPENAI_API_KEY` for `openai`, and so
/// on; an unnamed ad-hoc provider (`tessera chat --kind … --base-url …`) takes its kind's.
fn well_known_env_var(config: &ProviderConfig) -> Option<&'static str> {
    let name = config.name.trim().to_ascii_lowercase();
    match name.as_str() {
        "openai" => Some("OPENAI_API_KEY"),
        "anthropic" => Some("ANTHROPIC_API_KEY"),
        "deepseek" => Some("DEEPSEEK_API_KEY"),
        "" => Some(match config.kind {
            WireKind::Openai => "OPENAI_API_KEY",
            WireKind::Anthropic => "ANTHROPIC_API_KEY",
        }),
        _ => None,
    }
}

/// The environment variables that can hold this provider's key, in the order they are read.
pub fn env_var_names(config: &ProviderConfig) -> Vec<String> {
    let mut names = Vec::new();
    if !config.name.trim().is_empty() {
        names.push(tessera_env_var(&config.name));
    }
    if let Some(known) = well_known_env_var(config) {
        names.push(known.to_owned());
    }
    names
}

/// The key from the environment as `lookup` sees it (an empty variable counts as unset, as CI
/// systems often define secrets that were not provided as empty).
pub fn env_key(
    config: &ProviderConfig,
    lookup: impl Fn(&str) -> Option<String>,
) -> Option<(String, Secret)> {
    env_var_names(config).into_iter().find_map(|var| {
        let value = lookup(&var)?;
        let value = value.trim();
        (!value.is_empty()).then(|| (var, Secret::new(value)))
    })
}

/// The provider's key: from the environment first, then the keyring.
///
/// A provider that needs no key (a local Ollama) is given one only from the environment: its
/// calls should not wake the keyring, which may ask the person to unlock it. `MissingKey` when
/// a key is required and found nowhere.
pub async fn resolve_key(
    config: &ProviderConfig,
    store: Arc<dyn KeyStore>,
) -> Result<Option<Secret>> {
    resolve_key_with_env(config, store, |var| std::env::var(var).ok()).await
}

/// [`resolve_key`] with the environment read through `lookup` (tests).
pub async fn resolve_key_with_env(
    config: &ProviderConfig,
    store: Arc<dyn KeyStore>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<Secret>> {
    if let Some((var, key)) = env_key(config, lookup) {
        tracing::debug!(provider = %config.name, var, "API key taken from the environment");
        return Ok(Some(key));
    }
    if !config.requires_key {
        return Ok(None);
    }
    let hint = env_var_names(config).join(" or ");
    if config.name.trim().is_empty() {
        // An unnamed provider has no keyring entry to look in.
        return Err(ProviderError::MissingKey {
            provider: config.kind.as_str().to_owned(),
            env_hint: hint,
        });
    }
    match get_key(&store, &config.name).await {
        Ok(Some(key)) if !key.is_empty() => {
            tracing::debug!(provider = %config.name, "API key taken from the keyring");
            Ok(Some(key))
        }
        Ok(_) => Err(ProviderError::MissingKey {
            provider: config.name.clone(),
            env_hint: hint,
        }),
        Err(ProviderError::Keyring(reason)) => Err(ProviderError::Keyring(format!(
            "{reason}; set {hint} to give the key without the keyring"
        ))),
        Err(other) => Err(other),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::time::Duration;

    fn config(name: &str, kind: WireKind) -> ProviderConfig {
        ProviderConfig::new(name, kind, kind.default_base_url())
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    fn memory(entries: &[(&str, &str)]) -> Arc<dyn KeyStore> {
        let store = MemoryKeyStore::new();
        for (provider, key) in entries {
            store.set(provider, &Secret::new(*key)).unwrap();
        }
        Arc::new(store)
    }

    #[test]
    fn a_secret_never_prints_its_value() {
        let key = Secret::new("sk-live-123456");
        assert_eq!(format!("{key}"), "***");
        assert_eq!(format!("{key:?}"), "Secret(***)");
        assert_eq!(format!("{:?}", Some(&key)), "Some(Secret(***))");
        assert_eq!(key.expose(), "sk-live-123456");
        let store = MemoryKeyStore::new();
        store.set("openai", &key).unwrap();
        assert!(!format!("{store:?}").contains("sk-live"));
    }

    #[test]
    fn provider_names_become_variable_names() {
        assert_eq!(tessera_env_var("openai"), "TESSERA_OPENAI_API_KEY");
        assert_eq!(
            tessera_env_var("my-vllm.local"),
            "TESSERA_MY_VLLM_LOCAL_API_KEY"
        );
        assert_eq!(tessera_env_var("通义 qwen"), "TESSERA____QWEN_API_KEY");
        assert_eq!(
            env_var_names(&config("deepseek", WireKind::Openai)),
            ["TESSERA_DEEPSEEK_API_KEY", "DEEPSEEK_API_KEY"]
        );
        assert_eq!(
            env_var_names(&config("work", WireKind::Anthropic)),
            ["TESSERA_WORK_API_KEY"]
        );
        assert_eq!(
            env_var_names(&config("", WireKind::Anthropic)),
            ["ANTHROPIC_API_KEY"]
        );
    }

    #[tokio::test]
    async fn the_environment_wins_over_the_keyring() {
        let store = memory(&[("openai", "from-keyring")]);
        let cfg = config("openai", WireKind::Openai);
        let key = resolve_key_with_env(
            &cfg,
            store.clone(),
            env(&[("OPENAI_API_KEY", "well-known")]),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(key.expose(), "well-known");
        // The Tessera-specific variable is more specific than the well-known one.
        let key = resolve_key_with_env(
            &cfg,
            store.clone(),
            env(&[
                ("OPENAI_API_KEY", "well-known"),
                ("TESSERA_OPENAI_API_KEY", "mine"),
            ]),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(key.expose(), "mine");
        // An empty variable is as good as none: the keyring answers.
        let key = resolve_key_with_env(&cfg, store, env(&[("OPENAI_API_KEY", "  ")]))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(key.expose(), "from-keyring");
    }

    #[tokio::test]
    async fn a_missing_key_names_where_to_put_one() {
        let cfg = config("deepseek", WireKind::Openai);
        let err = resolve_key_with_env(&cfg, memory(&[("openai", "other")]), env(&[]))
            .await
            .unwrap_err();
        assert_eq!(err.code(), "missing_api_key");
        assert_eq!(
            err.to_string(),
            "no API key for deepseek: add one in Settings, or set \
             TESSERA_DEEPSEEK_API_KEY or DEEPSEEK_API_KEY"
        );
        let adhoc = config("", WireKind::Anthropic);
        let err = resolve_key_with_env(&adhoc, memory(&[]), env(&[]))
            .await
            .unwrap_err();
        assert_eq!(
            err,
            ProviderError::MissingKey {
                provider: "anthropic".into(),
                env_hint: "ANTHROPIC_API_KEY".into()
            }
        );
        let key = resolve_key_with_env(&adhoc, memory(&[]), env(&[("ANTHROPIC_API_KEY", "k")]))
            .await
            .unwrap();
        assert_eq!(key.map(|k| k.expose().to_owned()).as_deref(), Some("k"));
    }

    /// A store that would fail the test if it were asked anything.
    struct Untouchable;
    impl KeyStore for Untouchable {
        fn get(&self, _: &str) -> tessera_secrets::Result<Option<Secret>> {
            panic!("the keyring was consulted")
        }
        fn set(&self, _: &str, _: &Secret) -> tessera_secrets::Result<()> {
            panic!("the keyring was consulted")
        }
        fn delete(&self, _: &str) -> tessera_secrets::Result<bool> {
            panic!("the keyring was consulted")
        }
    }

    #[tokio::test]
    async fn a_provider_without_a_key_does_not_wake_the_keyring() {
        let mut cfg = config("ollama", WireKind::Openai);
        cfg.requires_key = false;
        let key = resolve_key_with_env(&cfg, Arc::new(Untouchable), env(&[]))
            .await
            .unwrap();
        assert!(key.is_none());
        let key = resolve_key_with_env(
            &cfg,
            Arc::new(Untouchable),
            env(&[("TESSERA_OLLAMA_API_KEY", "proxy-key")]),
        )
        .await
        .unwrap();
        assert_eq!(key.unwrap().expose(), "proxy-key");
    }

    /// A keyring that never answers, like a Secret Service waiting on a prompt nobody sees.
    struct Hung;
    impl KeyStore for Hung {
        fn get(&self, _: &str) -> tessera_secrets::Result<Option<Secret>> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(None)
        }
        fn set(&self, _: &str, _: &Secret) -> tessera_secrets::Result<()> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(())
        }
        fn delete(&self, _: &str) -> tessera_secrets::Result<bool> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(false)
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_hung_keyring_becomes_a_clear_error() {
        let store: Arc<dyn KeyStore> = Arc::new(Hung);
        let err = get_key(&store, "openai").await.unwrap_err();
        assert_eq!(err.code(), "keyring_error");
        let text = err.to_string();
        assert!(text.contains("reading the secret `openai`"), "{text}");
        assert!(text.contains("did not answer within 30 s"), "{text}");
        // Through resolve_key the message also says how to do without the keyring.
        let cfg = config("openai", WireKind::Openai);
        let err = resolve_key_with_env(&cfg, store, env(&[]))
            .await
            .unwrap_err();
        assert!(
            err.to_string().ends_with(
                "set TESSERA_OPENAI_API_KEY or OPENAI_API_KEY to give the key without the keyring"
            ),
            "{err}"
        );
    }

    #[tokio::test]
    async fn memory_store_round_trips_through_the_async_helpers() {
        let store: Arc<dyn KeyStore> = Arc::new(MemoryKeyStore::new());
        assert_eq!(get_key(&store, "qwen").await.unwrap(), None);
        set_key(&store, "qwen", Secret::new("sk-q")).await.unwrap();
        assert_eq!(
            get_key(&store, "qwen").await.unwrap(),
            Some(Secret::new("sk-q"))
        );
        assert!(delete_key(&store, "qwen").await.unwrap());
        assert!(!delete_key(&store, "qwen").await.unwrap());
        assert_eq!(get_key(&store, "qwen").await.unwrap(), None);
        let err = set_key(&store, " ", Secret::new("x")).await.unwrap_err();
        assert_eq!(err.code(), "keyring_error");
    }
}
