use crate::{KeyStore, Result, Secret};

/// The keyring service every Tessera secret is stored under; the user is the account name.
pub const KEYRING_SERVICE: &str = "dev.tessera.desktop";

/// The operating system's keyring.
#[derive(Clone, Debug)]
pub struct OsKeyring {
    service: String,
}

impl Default for OsKeyring {
    fn default() -> Self {
        Self::new()
    }
}

impl OsKeyring {
    /// The keyring under [`KEYRING_SERVICE`].
    pub fn new() -> Self {
        Self::with_service(KEYRING_SERVICE)
    }

    /// The keyring under another service name (tests that must not touch real secrets).
    pub fn with_service(service: impl Into<String>) -> Self {
        Self {
            service: service.into(),
        }
    }

    pub fn service(&self) -> &str {
        &self.service
    }
}

#[cfg(any(target_os = "linux", target_os = "macos", target_os = "windows"))]
mod os {
    use super::OsKeyring;
    use crate::{check_account, Result, Secret, SecretError};

    fn entry(ring: &OsKeyring, account: &str) -> Result<keyring::Entry> {
        check_account(account)?;
        keyring::Entry::new(&ring.service, account).map_err(|err| failure(account, &err))
    }

    /// The keyring's error, worded for a person. keyring's own messages never contain the
    /// secret (a badly encoded one is described, not shown).
    fn failure(account: &str, err: &keyring::Error) -> SecretError {
        let reason = match err {
            keyring::Error::NoStorageAccess(inner) => {
                format!("the keyring is locked or refused access ({inner})")
            }
            keyring::Error::PlatformFailure(inner) => {
                format!("the system keyring is not available ({inner})")
            }
            keyring::Error::BadEncoding(_) => "the stored secret is not text".to_owned(),
            keyring::Error::Ambiguous(items) => format!(
                "{} keyring entries match; remove the extra ones in your keyring manager",
                items.len()
            ),
            other => other.to_string(),
        };
        SecretError::Keyring(format!("the secret `{account}`: {reason}"))
    }

    pub(super) fn get(ring: &OsKeyring, account: &str) -> Result<Option<Secret>> {
        match entry(ring, account)?.get_password() {
            Ok(value) => Ok(Some(Secret::new(value))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(err) => Err(failure(account, &err)),
        }
    }

    pub(super) fn set(ring: &OsKeyring, account: &str, secret: &Secret) -> Result<()> {
        entry(ring, account)?
            .set_password(secret.expose())
            .map_err(|err| failure(account, &err))
    }

    pub(super) fn delete(ring: &OsKeyring, account: &str) -> Result<bool> {
        match entry(ring, account)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(err) => Err(failure(account, &err)),
        }
    }
}

// Without a store feature the keyring crate silently keeps secrets in memory; on a platform
// we have not chosen a store for, say so instead.
#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
mod os {
    use super::OsKeyring;
    use crate::{Result, Secret, SecretError};

    fn unsupported() -> SecretError {
        SecretError::Keyring("this platform has no supported keyring".into())
    }
    pub(super) fn get(_: &OsKeyring, _: &str) -> Result<Option<Secret>> {
        Err(unsupported())
    }
    pub(super) fn set(_: &OsKeyring, _: &str, _: &Secret) -> Result<()> {
        Err(unsupported())
    }
    pub(super) fn delete(_: &OsKeyring, _: &str) -> Result<bool> {
        Err(unsupported())
    }
}

impl KeyStore for OsKeyring {
    fn get(&self, account: &str) -> Result<Option<Secret>> {
        os::get(self, account)
    }
    fn set(&self, account: &str, secret: &Secret) -> Result<()> {
        os::set(self, account, secret)
    }
    fn delete(&self, account: &str) -> Result<bool> {
        os::delete(self, account)
    }
}
