//! Settings of the app as a whole (spending limits, …), one JSON value per key. Like provider
//! settings they never hold a secret: a value with a key named like one is refused.

use rusqlite::params;
use serde_json::Value;

use crate::error::{Result, StoreError};
use crate::provider_settings::find_secret;
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, rows, sql, Store};
use tessera_protocol::secrets::is_secret_name;

pub(crate) const SCHEMA_V4: &str = "
CREATE TABLE app_settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value_json TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;
";

impl ReadTx<'_> {
    /// The value of an app setting, if it was ever set.
    pub fn app_setting(&self, key: &str) -> Result<Option<Value>> {
        let text: Option<String> = rows::optional(
            self.conn,
            "SELECT value_json FROM app_settings WHERE key = ?1",
            [key],
        )?;
        sql::opt_parse("app setting", text)
    }
}

impl WriteTx<'_> {
    /// Sets an app setting; refused (nothing written) if it names or holds a secret.
    pub fn set_app_setting(&mut self, key: &str, value: &Value) -> Result<()> {
        if is_secret_name(key) {
            return Err(StoreError::SecretInSettings { path: key.into() });
        }
        if let Some(path) = find_secret(value) {
            return Err(StoreError::SecretInSettings {
                path: format!("{key}.{path}"),
            });
        }
        self.conn
            .prepare_cached(
                "INSERT INTO app_settings (key, value_json, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json,
                     updated_at = excluded.updated_at",
            )?
            .execute(params![
                key,
                sql::json("app setting", value)?,
                clock::now().as_str()
            ])?;
        Ok(())
    }

    /// Removes an app setting; returns whether it was set.
    pub fn delete_app_setting(&mut self, key: &str) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached("DELETE FROM app_settings WHERE key = ?1")?
            .execute([key])?;
        Ok(n > 0)
    }
}

impl Store {
    /// The value of an app setting; see [`ReadTx::app_setting`].
    pub fn app_setting(&self, key: &str) -> Result<Option<Value>> {
        self.read(|r| r.app_setting(key))
    }

    /// Sets an app setting; see [`WriteTx::set_app_setting`].
    pub fn set_app_setting(&self, key: &str, value: Value) -> Result<()> {
        let key = key.to_owned();
        self.write(move |tx| tx.set_app_setting(&key, &value))
    }

    /// Removes an app setting; see [`WriteTx::delete_app_setting`].
    pub fn delete_app_setting(&self, key: &str) -> Result<bool> {
        let key = key.to_owned();
        self.write(move |tx| tx.delete_app_setting(&key))
    }
}
