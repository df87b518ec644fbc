//! The person's choice of where secrets live. The key file's presence is the choice: while
//! `secrets.json` exists every secret is read from and written to it, and the keyring is not
//! touched (it may be the thing that hangs); otherwise the OS keyring is used. Recording the
//! choice as the file itself keeps it true for every process that opens the data folder (the
//! desktop app, `tessera serve`, the CLI) without a database, and means a secret is never
//! looked for in a store that was not chosen.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use crate::blocking::{keyring_health, run_blocking, KEYRING_TIMEOUT, PROBE_TIMEOUT};
use crate::{
    KeyFile, KeyStore, KeyringHealth, OsKeyring, Result, Secret, SecretBackend, SecretError,
    SecretNotMoved, SecretStoreMoved,
};

/// The key file's name in the data folder.
pub const KEY_FILE_NAME: &str = "secrets.json";

/// Tessera's secret store over one data folder: the keyring or the key file, as chosen.
pub struct SecretStore {
    key_file: Arc<KeyFile>,
    keyring: Arc<dyn KeyStore>,
}

impl std::fmt::Debug for SecretStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretStore")
            .field("store", &self.backend())
            .field("key_file", &self.key_file.path())
            .finish()
    }
}

impl SecretStore {
    /// The store of `data_dir`, over the OS keyring.
    pub fn open(data_dir: &Path) -> Self {
        Self::with_keyring(data_dir, Arc::new(OsKeyring::new()))
    }

    /// The store of `data_dir` over another keyring (tests).
    pub fn with_keyring(data_dir: &Path, keyring: Arc<dyn KeyStore>) -> Self {
        Self {
            key_file: Arc::new(KeyFile::new(data_dir.join(KEY_FILE_NAME))),
            keyring,
        }
    }

    /// Where secrets are kept now.
    pub fn backend(&self) -> SecretBackend {
        if self.key_file.exists() {
            SecretBackend::File
        } else {
            SecretBackend::Keyring
        }
    }

    pub fn key_file(&self) -> &Path {
        self.key_file.path()
    }

    /// Whether the keyring answers now (a read, within [`PROBE_TIMEOUT`]).
    pub async fn keyring_health(&self) -> KeyringHealth {
        keyring_health(&self.keyring, PROBE_TIMEOUT).await
    }

    fn current(&self) -> &dyn KeyStore {
        match self.backend() {
            SecretBackend::File => self.key_file.as_ref(),
            SecretBackend::Keyring => self.keyring.as_ref(),
        }
    }

    /// Moves to `to`, carrying the secrets along: `accounts` names those the keyring may hold
    /// (it cannot list them); the key file's own are all carried. Nothing is removed from the
    /// old store before the new one holds it; when the new store cannot take them all, the
    /// choice stays as it was and the error says why.
    pub async fn switch(&self, to: SecretBackend, accounts: &[String]) -> Result<SecretStoreMoved> {
        let moved = match (self.backend(), to) {
            (SecretBackend::Keyring, SecretBackend::File) => self.to_file(accounts).await?,
            (SecretBackend::File, SecretBackend::Keyring) => self.to_keyring().await?,
            // Already there: nothing moves.
            (_, _) => (Vec::new(), Vec::new()),
        };
        tracing::info!(
            store = to.as_str(),
            moved = moved.0.len(),
            "secret store chosen"
        );
        Ok(SecretStoreMoved {
            store: self.backend(),
            key_file: self.key_file.path().display().to_string(),
            moved: moved.0,
            not_moved: moved.1,
        })
    }

    async fn to_file(&self, accounts: &[String]) -> Result<(Vec<String>, Vec<SecretNotMoved>)> {
        let accounts: BTreeSet<String> = accounts.iter().cloned().collect();
        let mut found: Vec<(String, Secret)> = Vec::new();
        let mut not_moved = Vec::new();
        let health = self.keyring_health().await;
        if health.reachable {
            for account in accounts {
                let ring = Arc::clone(&self.keyring);
                let name = account.clone();
                let what = format!("reading the secret `{account}`");
                match run_blocking(&what, KEYRING_TIMEOUT, move || ring.get(&name)).await {
                    Ok(Some(secret)) => found.push((account, secret)),
                    Ok(None) => {}
                    Err(error) => not_moved.push(SecretNotMoved {
                        account,
                        reason: error.to_string(),
                    }),
                }
            }
        } else {
            let reason = health
                .reason
                .unwrap_or_else(|| "the keyring cannot be reached".into());
            not_moved.extend(accounts.into_iter().map(|account| SecretNotMoved {
                account,
                reason: format!("the keyring cannot be reached ({reason})"),
            }));
        }
        let file = Arc::clone(&self.key_file);
        let all = found.clone();
        run_blocking("writing the key file", KEYRING_TIMEOUT, move || {
            file.set_all(&all)
        })
        .await?;
        // The file holds them now: the keyring's copies would only go stale.
        for (account, _) in &found {
            let ring = Arc::clone(&self.keyring);
            let name = account.clone();
            let what = format!("removing the secret `{account}` from the keyring");
            if let Err(error) =
                run_blocking(&what, KEYRING_TIMEOUT, move || ring.delete(&name)).await
            {
                tracing::warn!(%error, "a moved secret stays in the keyring too");
            }
        }
        Ok((found.into_iter().map(|(a, _)| a).collect(), not_moved))
    }

    async fn to_keyring(&self) -> Result<(Vec<String>, Vec<SecretNotMoved>)> {
        let health = self.keyring_health().await;
        if !health.reachable {
            return Err(SecretError::Keyring(format!(
                "the keyring cannot be reached ({}); the secrets stay in the key file",
                health.reason.unwrap_or_default()
            )));
        }
        let file = Arc::clone(&self.key_file);
        let secrets = run_blocking("reading the key file", KEYRING_TIMEOUT, move || {
            let accounts = file.accounts()?;
            accounts
                .into_iter()
                .map(|a| Ok((a.clone(), file.get(&a)?.unwrap_or_else(|| Secret::new("")))))
                .collect::<Result<Vec<_>>>()
        })
        .await?;
        let mut stored: Vec<String> = Vec::new();
        for (account, secret) in &secrets {
            let ring = Arc::clone(&self.keyring);
            let (name, value) = (account.clone(), secret.clone());
            let what = format!("storing the secret `{account}` in the keyring");
            if let Err(error) =
                run_blocking(&what, KEYRING_TIMEOUT, move || ring.set(&name, &value)).await
            {
                // All or none: take back what was stored; the key file still holds them all.
                for done in &stored {
                    let ring = Arc::clone(&self.keyring);
                    let name = done.clone();
                    let _ = run_blocking("undoing a move", KEYRING_TIMEOUT, move || {
                        ring.delete(&name)
                    })
                    .await;
                }
                return Err(error);
            }
            stored.push(account.clone());
        }
        let file = Arc::clone(&self.key_file);
        run_blocking("removing the key file", KEYRING_TIMEOUT, move || {
            file.remove()
        })
        .await?;
        Ok((stored, Vec::new()))
    }
}

impl KeyStore for SecretStore {
    fn get(&self, account: &str) -> Result<Option<Secret>> {
        self.current().get(account)
    }
    fn set(&self, account: &str, secret: &Secret) -> Result<()> {
        self.current().set(account, secret)
    }
    fn delete(&self, account: &str) -> Result<bool> {
        self.current().delete(account)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::MemoryKeyStore;

    /// A keyring that refuses everything, like a session with no Secret Service.
    struct Absent;
    impl KeyStore for Absent {
        fn get(&self, _: &str) -> Result<Option<Secret>> {
            Err(SecretError::Keyring("no Secret Service".into()))
        }
        fn set(&self, _: &str, _: &Secret) -> Result<()> {
            Err(SecretError::Keyring("no Secret Service".into()))
        }
        fn delete(&self, _: &str) -> Result<bool> {
            Err(SecretError::Keyring("no Secret Service".into()))
        }
    }

    #[tokio::test]
    async fn secrets_move_to_the_file_and_back_without_loss() {
        let dir = tempfile::tempdir().unwrap();
        let ring = Arc::new(MemoryKeyStore::new());
        ring.set("openai", &Secret::new("sk-1")).unwrap();
        ring.set("mcp/gh/env/GITHUB_TOKEN", &Secret::new("ghp_1"))
            .unwrap();
        let store = SecretStore::with_keyring(dir.path(), ring.clone());
        assert_eq!(store.backend(), SecretBackend::Keyring);
        let accounts = [
            "openai".to_owned(),
            "mcp/gh/env/GITHUB_TOKEN".to_owned(),
            "never-stored".to_owned(),
        ];
        let moved = store.switch(SecretBackend::File, &accounts).await.unwrap();
        assert_eq!(moved.store, SecretBackend::File);
        assert_eq!(moved.moved, ["mcp/gh/env/GITHUB_TOKEN", "openai"]);
        assert!(moved.not_moved.is_empty());
        assert_eq!(ring.get("openai").unwrap(), None, "not left behind");
        assert_eq!(store.get("openai").unwrap(), Some(Secret::new("sk-1")));
        // A new key goes to the file.
        store.set("qwen", &Secret::new("sk-q")).unwrap();
        assert_eq!(ring.get("qwen").unwrap(), None);
        // Another process opening the folder sees the same choice.
        let again = SecretStore::with_keyring(dir.path(), Arc::new(Absent));
        assert_eq!(again.backend(), SecretBackend::File);
        assert_eq!(again.get("qwen").unwrap(), Some(Secret::new("sk-q")));

        let back = store.switch(SecretBackend::Keyring, &[]).await.unwrap();
        assert_eq!(back.store, SecretBackend::Keyring);
        assert_eq!(back.moved.len(), 3);
        assert!(!store.key_file().exists());
        assert_eq!(ring.get("qwen").unwrap(), Some(Secret::new("sk-q")));
        assert_eq!(store.get("openai").unwrap(), Some(Secret::new("sk-1")));
    }

    #[tokio::test]
    async fn without_a_keyring_the_file_is_chosen_and_nothing_is_lost_going_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = SecretStore::with_keyring(dir.path(), Arc::new(Absent));
        assert!(!store.keyring_health().await.reachable);
        assert!(store.set("openai", &Secret::new("sk")).is_err());
        let moved = store
            .switch(SecretBackend::File, &["openai".to_owned()])
            .await
            .unwrap();
        assert_eq!(moved.store, SecretBackend::File);
        assert_eq!(moved.not_moved.len(), 1);
        assert!(moved.not_moved[0].reason.contains("no Secret Service"));
        store.set("openai", &Secret::new("sk")).unwrap();
        // Back to a keyring that is not there: refused, the file keeps everything.
        let err = store.switch(SecretBackend::Keyring, &[]).await.unwrap_err();
        assert!(err.to_string().contains("stay in the key file"), "{err}");
        assert_eq!(store.backend(), SecretBackend::File);
        assert_eq!(store.get("openai").unwrap(), Some(Secret::new("sk")));
    }
}
