use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard};

use crate::{check_account, KeyStore, Result, Secret};

/// Secrets in memory (tests, and runs that must not touch the person's keyring).
#[derive(Default)]
pub struct MemoryKeyStore {
    secrets: Mutex<HashMap<String, Secret>>,
}

impl MemoryKeyStore {
    pub fn new() -> Self {
        Self::default()
    }

    // A panic while the map was held cannot leave it half-written (every change is one
    // insert or remove), so a poisoned lock is taken over.
    fn secrets(&self) -> MutexGuard<'_, HashMap<String, Secret>> {
        self.secrets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl fmt::Debug for MemoryKeyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryKeyStore")
            .field("secrets", &self.secrets().len())
            .finish()
    }
}

impl KeyStore for MemoryKeyStore {
    fn get(&self, account: &str) -> Result<Option<Secret>> {
        check_account(account)?;
        Ok(self.secrets().get(account).cloned())
    }
    fn set(&self, account: &str, secret: &Secret) -> Result<()> {
        check_account(account)?;
        self.secrets().insert(account.to_owned(), secret.clone());
        Ok(())
    }
    fn delete(&self, account: &str) -> Result<bool> {
        check_account(account)?;
        Ok(self.secrets().remove(account).is_some())
    }
}
