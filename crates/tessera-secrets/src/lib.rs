//! The one secret store of Tessera: API keys and MCP servers' secret arguments, headers and
//! URLs all go through [`KeyStore`], by account name (`openai`, `mcp/github/env/GITHUB_TOKEN`).
//!
//! Where they are kept is the person's choice ([`SecretStore`]): the OS keyring (Secret
//! Service on Linux, Keychain on macOS, Credential Manager on Windows), or — where no keyring
//! can be reached — `secrets.json` in the data folder, owner-only and never in backups or
//! exports, as the GitHub CLI and Goose fall back to a file. A secret is held in a [`Secret`],
//! which never prints its value; nothing here logs one.
//!
//! Keyring calls block (Secret Service is a D-Bus round trip, and an unlock prompt may wait
//! for a person), so async code goes through [`get_secret`], [`set_secret`] and
//! [`delete_secret`], which run them off the runtime with a timeout.

mod blocking;
mod chosen;
mod error;
mod key_file;
mod memory;
mod os_keyring;
mod secret;

pub use blocking::{
    delete_secret, get_secret, keyring_health, run_blocking, set_secret, KEYRING_TIMEOUT,
    PROBE_TIMEOUT,
};
pub use chosen::{SecretStore, KEY_FILE_NAME};
pub use error::{Result, SecretError};
pub use key_file::{KeyFile, KeyFileState, FORMAT as KEY_FILE_FORMAT};
pub use memory::MemoryKeyStore;
pub use os_keyring::{OsKeyring, KEYRING_SERVICE};
pub use secret::Secret;
pub use tessera_protocol::settings_api::{
    KeyringHealth, SecretBackend, SecretNotMoved, SecretStoreMoved,
};

/// Where secrets are kept, by account name. Calls may block: use the async helpers from async
/// code.
pub trait KeyStore: Send + Sync {
    /// The secret of `account`, if one is stored.
    fn get(&self, account: &str) -> Result<Option<Secret>>;
    /// Stores (or replaces) the secret of `account`.
    fn set(&self, account: &str, secret: &Secret) -> Result<()>;
    /// Removes the secret of `account`; returns whether there was one.
    fn delete(&self, account: &str) -> Result<bool>;
    /// Where secrets go now.
    fn kept_in(&self) -> SecretBackend {
        SecretBackend::Keyring
    }
    /// Stores the secret of `account` and says where it went: a store that moves between the
    /// keyring and the key file knows it only as it stores.
    fn set_where(&self, account: &str, secret: &Secret) -> Result<SecretBackend> {
        self.set(account, secret)?;
        Ok(self.kept_in())
    }
}

pub(crate) fn check_account(account: &str) -> Result<()> {
    if account.trim().is_empty() {
        return Err(SecretError::NoAccount);
    }
    Ok(())
}
