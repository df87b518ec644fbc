//! The person's choice of where secrets live. Tessera's key file's presence is the choice:
//! while `secrets.json` (carrying the key file's format marker) exists every secret is read
//! from and written to it, and the keyring is not touched (it may be the thing that hangs);
//! otherwise the OS keyring is used. Recording the choice as the file itself keeps it true for
//! every process that opens the data folder (the desktop app, `tessera serve`, the CLI) without
//! a database, and means a secret is never looked for in a store that was not chosen. A
//! `secrets.json` Tessera did not write is not the choice: it is left alone and named in
//! [`SecretStore::warnings`].
//!
//! A move and the reads and writes of single secrets are ordered by a [`Gate`]: a secret
//! stored while a move runs waits for it and then goes to the store chosen, so a key answered
//! as stored is never left behind in the store being emptied.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::blocking::{keyring_health, run_blocking, KEYRING_TIMEOUT, PROBE_TIMEOUT};
use crate::{
    KeyFile, KeyFileState, KeyStore, KeyringHealth, OsKeyring, Result, Secret, SecretBackend,
    SecretError, SecretNotMoved, SecretStoreMoved,
};

/// The key file's name in the data folder.
pub const KEY_FILE_NAME: &str = "secrets.json";

/// Tessera's secret store over one data folder: the keyring or the key file, as chosen.
pub struct SecretStore {
    key_file: Arc<KeyFile>,
    keyring: Arc<dyn KeyStore>,
    gate: Arc<Gate>,
}

impl std::fmt::Debug for SecretStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretStore")
            .field("store", &self.backend())
            .field("key_file", &self.key_file.path())
            .finish()
    }
}

/// Many reads and writes of single secrets at a time, or one move, never both. A move waiting
/// keeps new uses out, so a steady stream of them cannot hold it off.
#[derive(Default)]
struct Gate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    using: usize,
    moving: bool,
    moves_waiting: usize,
}

/// One read or write of a secret going on.
struct Using<'a>(&'a Gate);

/// The move going on; the gate opens again when it is dropped (on whichever thread).
struct Moving(Arc<Gate>);

impl Gate {
    fn state(&self) -> MutexGuard<'_, GateState> {
        // Every change of the state is one field at a time: a panic cannot leave it half-done.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn wait<'a>(&self, state: MutexGuard<'a, GateState>) -> MutexGuard<'a, GateState> {
        self.changed
            .wait(state)
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Blocks while a move runs or waits.
    fn enter(&self) -> Using<'_> {
        let mut state = self.state();
        while state.moving || state.moves_waiting > 0 {
            state = self.wait(state);
        }
        state.using += 1;
        Using(self)
    }

    /// Blocks until no other move runs and no secret is being read or written, or until
    /// `patience` has passed for the latter: a keyring call hung on a prompt nobody answers
    /// would otherwise keep the person from moving to the key file for good, and its caller
    /// was answered with a timeout (never `stored`) by then.
    fn close(self: &Arc<Self>, patience: Duration) -> Moving {
        let mut state = self.state();
        state.moves_waiting += 1;
        while state.moving {
            state = self.wait(state);
        }
        let deadline = Instant::now() + patience;
        while state.using > 0 && !state.moving {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                tracing::warn!(
                    calls = state.using,
                    "secret store calls still hang; the move goes ahead without them"
                );
                break;
            }
            state = self
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        // Another move that was waiting too may have gone first meanwhile.
        while state.moving {
            state = self.wait(state);
        }
        state.moves_waiting -= 1;
        state.moving = true;
        Moving(Arc::clone(self))
    }
}

impl Drop for Using<'_> {
    fn drop(&mut self) {
        self.0.state().using -= 1;
        self.0.changed.notify_all();
    }
}

impl Drop for Moving {
    fn drop(&mut self) {
        self.0.state().moving = false;
        self.0.changed.notify_all();
    }
}

impl SecretStore {
    /// The store of `data_dir`, over the OS keyring.
    pub fn open(data_dir: &Path) -> Self {
        Self::with_keyring(data_dir, Arc::new(OsKeyring::new()))
    }

    /// The store of `data_dir` over another keyring (tests).
    pub fn with_keyring(data_dir: &Path, keyring: Arc<dyn KeyStore>) -> Self {
        let store = Self {
            key_file: Arc::new(KeyFile::new(data_dir.join(KEY_FILE_NAME))),
            keyring,
            gate: Arc::default(),
        };
        if let Ok(KeyFileState::NotOurs(reason)) = store.key_file.state() {
            tracing::warn!(
                path = %store.key_file.path().display(),
                %reason,
                "a secrets.json Tessera did not write is in the data folder; it is not used"
            );
        }
        store
    }

    /// Where secrets are kept now: the key file only while Tessera's own is there (one that
    /// cannot be read counts as chosen, so that its secrets are not looked for elsewhere).
    pub fn backend(&self) -> SecretBackend {
        match self.key_file.state() {
            Ok(KeyFileState::Ours) | Err(_) => SecretBackend::File,
            Ok(KeyFileState::Absent | KeyFileState::NotOurs(_)) => SecretBackend::Keyring,
        }
    }

    /// What the person should know about the key file: someone else's file at its path, modes
    /// found loosened and tightened again.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Ok(KeyFileState::NotOurs(reason)) = self.key_file.state() {
            out.push(format!(
                "{} is not Tessera's key file ({reason}); it is not used, and choosing the key \
                 file is refused while it is there",
                self.key_file.path().display()
            ));
        }
        out.extend(self.key_file.notices());
        out
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
        let gate = Arc::clone(&self.gate);
        // Held to the end: secrets stored meanwhile wait, then go to the store chosen.
        let _moving = run_blocking(
            "waiting for the secrets being stored",
            KEYRING_TIMEOUT + PROBE_TIMEOUT,
            move || Ok(gate.close(KEYRING_TIMEOUT)),
        )
        .await?;
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
        let _using = self.gate.enter();
        self.current().get(account)
    }
    fn set(&self, account: &str, secret: &Secret) -> Result<()> {
        self.set_where(account, secret).map(|_| ())
    }
    fn delete(&self, account: &str) -> Result<bool> {
        let _using = self.gate.enter();
        self.current().delete(account)
    }
    fn kept_in(&self) -> SecretBackend {
        self.backend()
    }
    fn set_where(&self, account: &str, secret: &Secret) -> Result<SecretBackend> {
        let _using = self.gate.enter();
        let store = self.current();
        store.set(account, secret)?;
        Ok(store.kept_in())
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

    /// The memory keyring with a Secret Service's pace: each call takes a moment.
    struct Slow(MemoryKeyStore);
    impl KeyStore for Slow {
        fn get(&self, account: &str) -> Result<Option<Secret>> {
            std::thread::sleep(std::time::Duration::from_millis(1));
            self.0.get(account)
        }
        fn set(&self, account: &str, secret: &Secret) -> Result<()> {
            std::thread::sleep(std::time::Duration::from_millis(1));
            self.0.set(account, secret)
        }
        fn delete(&self, account: &str) -> Result<bool> {
            std::thread::sleep(std::time::Duration::from_millis(1));
            self.0.delete(account)
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_secret_stored_during_a_move_is_never_lost_either_way() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SecretStore::with_keyring(
            dir.path(),
            Arc::new(Slow(MemoryKeyStore::new())),
        ));
        let accounts: Vec<String> = (0..4)
            .flat_map(|t| (0..30).map(move |i| format!("p{t}-{i}")))
            .collect();
        let writers: Vec<_> = (0..4)
            .map(|t| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    let mut stored = Vec::new();
                    for i in 0..30 {
                        let (account, value) = (format!("p{t}-{i}"), format!("sk-{t}-{i}"));
                        let place = store.set_where(&account, &Secret::new(&value)).unwrap();
                        stored.push((account, value, place));
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    stored
                })
            })
            .collect();
        let mut to = SecretBackend::File;
        while !writers.iter().all(|w| w.is_finished()) {
            let moved = store.switch(to, &accounts).await.unwrap();
            assert_eq!(moved.store, to);
            to = match to {
                SecretBackend::File => SecretBackend::Keyring,
                SecretBackend::Keyring => SecretBackend::File,
            };
        }
        for writer in writers {
            for (account, value, _) in writer.join().unwrap() {
                assert_eq!(
                    store.get(&account).unwrap(),
                    Some(Secret::new(value)),
                    "{account} was answered as stored and then lost"
                );
            }
        }
    }

    #[test]
    fn a_call_hung_past_its_timeout_does_not_keep_a_move_out_for_good() {
        let gate = Arc::new(Gate::default());
        let (held, release) = std::sync::mpsc::channel::<()>();
        let hung = {
            let gate = Arc::clone(&gate);
            std::thread::spawn(move || {
                let _using = gate.enter();
                let _ = release.recv();
            })
        };
        while gate.state().using == 0 {
            std::thread::yield_now();
        }
        let started = Instant::now();
        let moving = gate.close(Duration::from_millis(100));
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert!(gate.state().moving);
        drop(moving);
        drop(held);
        hung.join().unwrap();
        assert_eq!(gate.state().using, 0);
        // Nothing in flight: at once.
        let started = Instant::now();
        drop(gate.close(Duration::from_secs(30)));
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[tokio::test]
    async fn a_secrets_json_tessera_did_not_write_is_not_the_choice_and_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEY_FILE_NAME);
        let theirs = r#"{"secrets": {"openai": "sk-theirs"}, "notes": "my own vault"}"#;
        std::fs::write(&path, theirs).unwrap();
        let ring = Arc::new(MemoryKeyStore::new());
        let store = SecretStore::with_keyring(dir.path(), ring.clone());
        assert_eq!(store.backend(), SecretBackend::Keyring);
        assert_eq!(
            store.get("openai").unwrap(),
            None,
            "its map was read as keys"
        );
        assert_eq!(
            store.set_where("qwen", &Secret::new("sk-q")).unwrap(),
            SecretBackend::Keyring
        );
        let warnings = store.warnings();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("not Tessera's key file"),
            "{warnings:?}"
        );
        let err = store
            .switch(SecretBackend::File, &["qwen".to_owned()])
            .await
            .unwrap_err();
        assert!(matches!(err, SecretError::NotKeyFile { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
        assert_eq!(store.backend(), SecretBackend::Keyring);
        assert_eq!(
            ring.get("qwen").unwrap(),
            Some(Secret::new("sk-q")),
            "nothing lost"
        );
    }
}
