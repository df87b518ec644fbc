//! `tessera provider list`: saved providers and presets, and where each one's key is found.

use std::io::Write;

use tessera_app::providers::listing::{summary, Listing, Row};
use tessera_app::views::providers::ProviderSummary;

use super::*;

pub(super) async fn list(providers: &Providers<'_>, as_json: bool) -> Outcome {
    let Listing {
        rows,
        default,
        keyring_error,
    } = providers.list().await?;
    let mut out = std::io::stdout().lock();
    let written = if as_json {
        let items: Vec<ProviderSummary> = rows
            .iter()
            .map(|row| summary(row, default.as_deref()))
            .collect();
        serde_json::to_string_pretty(&items)
            .map_err(std::io::Error::other)
            .and_then(|text| writeln!(out, "{text}"))
    } else {
        let header = ["NAME", "KIND", "SOURCE", "DEFAULT MODEL", "KEY", "BASE URL"];
        let mut table: Vec<[String; 6]> = vec![header.map(str::to_owned)];
        for Row {
            name,
            config,
            source,
            key,
        } in &rows
        {
            let mark = if default.as_deref() == Some(name.as_str()) {
                "*"
            } else {
                " "
            };
            table.push([
                format!("{mark} {name}"),
                config.kind.as_str().to_owned(),
                source.as_str().to_owned(),
                config.default_model.clone().unwrap_or_else(|| "-".into()),
                key.label(),
                tessera_protocol::secrets::redact_url_credentials(&config.base_url),
            ]);
        }
        table[0][0] = format!("  {}", table[0][0]);
        let widths: Vec<usize> = (0..6)
            .map(|i| {
                table
                    .iter()
                    .map(|r| r[i].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        table.iter().try_for_each(|row| {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i + 1 == row.len() {
                    line.push_str(cell);
                } else {
                    line.push_str(&format!("{cell:<w$}  ", w = widths[i]));
                }
            }
            writeln!(out, "{}", line.trim_end())
        })
    };
    written.map_err(|err| usage(format!("cannot write the list: {err}")))?;
    if let Some(reason) = keyring_error {
        eprintln!(
            "tessera provider list: the keyring could not be read, so keys kept there show as \
             unknown: {reason}"
        );
    }
    Ok(())
}
