use std::sync::Arc;
use std::time::Duration;

use crate::{KeyStore, KeyringHealth, Result, Secret, SecretBackend, SecretError};

/// How long a keyring call may take before it is reported as hung. Long enough for a person
/// to answer an unlock prompt, short enough that a dead Secret Service is not a silent hang.
pub const KEYRING_TIMEOUT: Duration = Duration::from_secs(30);

/// How long [`keyring_health`] waits: a probe asks nobody, so a keyring that takes longer is
/// waiting on a prompt or wedged.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The account a probe reads (never written).
const PROBE_ACCOUNT: &str = "tessera-probe";

/// Runs a blocking secret-store call on its own thread and waits for it at most `timeout`.
///
/// A plain thread rather than `spawn_blocking`: a Secret Service call can hang for good (a
/// prompt nobody answers, a wedged daemon), and a runtime waits for its blocking tasks when it
/// shuts down, so one stuck call would keep the app from quitting. A detached thread is simply
/// abandoned after the timeout and dies with the process.
pub async fn run_blocking<T, F>(what: &str, timeout: Duration, call: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("tessera-keyring".into())
        .spawn(move || {
            // The receiver may be gone (timed out); nothing to do then.
            let _ = tx.send(call());
        })
        .map_err(|err| SecretError::Internal(format!("{what}: cannot start a thread: {err}")))?;
    match tokio::time::timeout(timeout, rx).await {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => Err(SecretError::Internal(format!(
            "{what}: the keyring call ended without an answer"
        ))),
        Err(_) => {
            tracing::warn!(what, ?timeout, "keyring call timed out");
            Err(SecretError::Timeout {
                what: what.to_owned(),
                seconds: timeout.as_secs(),
            })
        }
    }
}

/// The secret of `account`, within [`KEYRING_TIMEOUT`].
pub async fn get_secret(store: &Arc<dyn KeyStore>, account: &str) -> Result<Option<Secret>> {
    let (store, name) = (Arc::clone(store), account.to_owned());
    run_blocking(
        &format!("reading the secret `{account}`"),
        KEYRING_TIMEOUT,
        move || store.get(&name),
    )
    .await
}

/// Stores the secret of `account`, within [`KEYRING_TIMEOUT`]; where it went.
pub async fn set_secret(
    store: &Arc<dyn KeyStore>,
    account: &str,
    secret: Secret,
) -> Result<SecretBackend> {
    let (store, name) = (Arc::clone(store), account.to_owned());
    run_blocking(
        &format!("storing the secret `{account}`"),
        KEYRING_TIMEOUT,
        move || store.set_where(&name, &secret),
    )
    .await
}

/// Removes the secret of `account`, within [`KEYRING_TIMEOUT`]; whether there was one.
pub async fn delete_secret(store: &Arc<dyn KeyStore>, account: &str) -> Result<bool> {
    let (store, name) = (Arc::clone(store), account.to_owned());
    run_blocking(
        &format!("removing the secret `{account}`"),
        KEYRING_TIMEOUT,
        move || store.delete(&name),
    )
    .await
}

/// Whether `keyring` answers a read within `timeout` (nothing is written).
pub async fn keyring_health(keyring: &Arc<dyn KeyStore>, timeout: Duration) -> KeyringHealth {
    let ring = Arc::clone(keyring);
    match run_blocking("asking the keyring", timeout, move || {
        ring.get(PROBE_ACCOUNT)
    })
    .await
    {
        Ok(_) => KeyringHealth {
            reachable: true,
            reason: None,
        },
        Err(error) => KeyringHealth {
            reachable: false,
            reason: Some(
                error
                    .to_string()
                    .replace(&format!("the secret `{PROBE_ACCOUNT}`: "), ""),
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::MemoryKeyStore;

    /// A keyring that never answers, like a Secret Service waiting on a prompt nobody sees.
    struct Hung;
    impl KeyStore for Hung {
        fn get(&self, _: &str) -> Result<Option<Secret>> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(None)
        }
        fn set(&self, _: &str, _: &Secret) -> Result<()> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(())
        }
        fn delete(&self, _: &str) -> Result<bool> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(false)
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_hung_keyring_is_reported_unreachable_by_the_probe() {
        let hung: Arc<dyn KeyStore> = Arc::new(Hung);
        let health = keyring_health(&hung, PROBE_TIMEOUT).await;
        assert!(!health.reachable);
        let reason = health.reason.unwrap_or_default();
        assert!(reason.contains("did not answer within 5 s"), "{reason}");
    }

    #[tokio::test]
    async fn a_keyring_that_answers_is_reachable() {
        let fine: Arc<dyn KeyStore> = Arc::new(MemoryKeyStore::new());
        assert_eq!(
            keyring_health(&fine, PROBE_TIMEOUT).await,
            KeyringHealth {
                reachable: true,
                reason: None
            }
        );
    }

    #[tokio::test]
    async fn memory_store_round_trips_through_the_async_helpers() {
        let store: Arc<dyn KeyStore> = Arc::new(MemoryKeyStore::new());
        assert_eq!(get_secret(&store, "qwen").await.unwrap(), None);
        set_secret(&store, "qwen", Secret::new("sk-q"))
            .await
            .unwrap();
        assert_eq!(
            get_secret(&store, "qwen").await.unwrap(),
            Some(Secret::new("sk-q"))
        );
        assert!(delete_secret(&store, "qwen").await.unwrap());
        assert!(!delete_secret(&store, "qwen").await.unwrap());
        let err = set_secret(&store, " ", Secret::new("x")).await.unwrap_err();
        assert_eq!(err, SecretError::NoAccount);
    }
}
