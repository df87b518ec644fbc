//! Provider settings (base URL, model, temperature…) as JSON. Secrets never go here: a key
//! named like an API key, token, secret or password is refused; those live in the OS keyring.

use rusqlite::params;
use serde_json::Value;

use crate::error::{Result, StoreError};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, rows, sql, Store};

pub(crate) const SCHEMA_V3: &str = "
CREATE TABLE provider_settings (
    provider_id   TEXT PRIMARY KEY NOT NULL,
    settings_json TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;
";

use tessera_protocol::secrets::is_secret_name;

/// The path of the first key in `value` that names a secret.
pub fn find_secret(value: &Value) -> Option<String> {
    fn walk(value: &Value, path: &str) -> Option<String> {
        match value {
            Value::Object(map) => map.iter().find_map(|(key, inner)| {
                let here = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if is_secret_name(key) {
                    Some(here)
                } else {
                    walk(inner, &here)
                }
            }),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, inner)| walk(inner, &format!("{path}[{i}]"))),
            _ => None,
        }
    }
    walk(value, "")
}

impl ReadTx<'_> {
    /// One provider's settings.
    pub fn provider_settings(&self, provider_id: &str) -> Result<Option<Value>> {
        let text: Option<String> = rows::optional(
            self.conn,
            "SELECT settings_json FROM provider_settings WHERE provider_id = ?1",
            [provider_id],
        )?;
        sql::opt_parse("provider settings", text)
    }

    /// Every provider's settings, by provider id.
    pub fn all_provider_settings(&self) -> Result<Vec<(String, Value)>> {
        let rows: Vec<(String, String)> = rows::all(
            self.conn,
            "SELECT provider_id, settings_json FROM provider_settings ORDER BY provider_id",
            [],
        )?;
        rows.into_iter()
            .map(|(id, text)| Ok((id, sql::parse("provider settings", &text)?)))
            .collect()
    }
}

impl WriteTx<'_> {
    /// Replaces a provider's settings; refused (nothing written) if any key names a secret.
    pub fn set_provider_settings(&mut self, provider_id: &str, settings: &Value) -> Result<()> {
        if let Some(path) = find_secret(settings) {
            return Err(StoreError::SecretInSettings { path });
        }
        self.conn
            .prepare_cached(
                "INSERT INTO provider_settings (provider_id, settings_json, updated_at)
                 VALUES (?1, ?2, ?3)
                 ON CONFLICT (provider_id) DO UPDATE SET settings_json = excluded.settings_json,
                     updated_at = excluded.updated_at",
            )?
            .execute(params![
                provider_id,
                sql::json("provider settings", settings)?,
                clock::now().as_str()
            ])?;
        Ok(())
    }

    /// Removes a provider's settings; returns whether there were any.
    pub fn delete_provider_settings(&mut self, provider_id: &str) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached("DELETE FROM provider_settings WHERE provider_id = ?1")?
            .execute([provider_id])?;
        Ok(n > 0)
    }
}

impl Store {
    /// Replaces a provider's settings; see [`WriteTx::set_provider_settings`].
    pub fn set_provider_settings(&self, provider_id: &str, settings: Value) -> Result<()> {
        let p = provider_id.to_owned();
        self.write(move |tx| tx.set_provider_settings(&p, &settings))
    }

    /// One provider's settings.
    pub fn provider_settings(&self, provider_id: &str) -> Result<Option<Value>> {
        self.read(|r| r.provider_settings(provider_id))
    }

    /// Removes a provider's settings.
    pub fn delete_provider_settings(&self, provider_id: &str) -> Result<bool> {
        let p = provider_id.to_owned();
        self.write(move |tx| tx.delete_provider_settings(&p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_secrets_are_found_with_their_path() {
        let settings =
            json!({"base_url": "http://x", "headers": [{"name": "a"}, {"X-Api-Key": "s"}]});
        assert_eq!(
            find_secret(&settings).as_deref(),
            Some("headers[1].X-Api-Key")
        );
        assert_eq!(find_secret(&json!({"max_tokens": 10})), None);
    }
}
