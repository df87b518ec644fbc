//! `tessera provider remove`, `set-key`, `delete-key`: keys only ever in the OS keyring.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;

use anyhow::anyhow;
use tessera_providers::keys::{delete_key, env_key, set_key, KeyStore, Secret};
use tessera_providers::presets;
use tessera_store::Store;

use super::*;

pub(super) async fn remove(store: &Store, keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    let removed = store.delete_provider_settings(name)?;
    let key = delete_key(keyring, name).await;
    let is_preset = presets::preset(name).is_some();
    match (removed, key) {
        (true, key) => {
            let preset_note = if is_preset {
                format!(" (the {name} preset remains available)")
            } else {
                String::new()
            };
            match key {
                Ok(true) => {
                    println!("removed provider {name} and its key in the keyring{preset_note}")
                }
                Ok(false) => println!("removed provider {name}{preset_note}"),
                Err(err) => {
                    println!("removed provider {name}{preset_note}");
                    eprintln!(
                        "tessera provider remove: warning: a key of {name} may remain in the \
                         keyring: {err}"
                    );
                }
            }
        }
        (false, Ok(true)) => println!("removed the key of {name} from the keyring"),
        (false, Ok(false)) => {
            return Err(usage(format!(
                "no saved provider named {name}, and no key of it in the keyring"
            )))
        }
        (false, Err(err)) => {
            return Err(Failure::Remote(anyhow!(
                "no saved provider named {name}; a key of it in the keyring could not be \
                 looked for: {err}"
            )))
        }
    }
    if !removed || is_preset {
        return Ok(());
    }
    if default_provider(store)?.as_deref() == Some(name) {
        store.delete_app_setting(DEFAULT_PROVIDER_SETTING)?;
        println!("{name} was the default provider; there is none now");
    }
    Ok(())
}

/// One line of standard input, without echo when it is a terminal.
pub(super) fn read_key_line(name: &str) -> Outcome<String> {
    let stdin = std::io::stdin();
    let terminal = stdin.is_terminal();
    let stty = |arg: &str| {
        std::process::Command::new("stty")
            .arg(arg)
            .stdin(std::process::Stdio::inherit())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut echo_off = false;
    if terminal {
        eprint!("API key of {name} (not shown; Enter to finish): ");
        let _ = std::io::stderr().flush();
        echo_off = stty("-echo");
    }
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    if echo_off {
        stty("echo");
        eprintln!();
    }
    read.map_err(|err| usage(format!("cannot read the key from standard input: {err}")))?;
    Ok(line.trim().to_owned())
}

pub(super) async fn store_key(store: &Store, keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    let (config, _) = find_or_fail(store, name)?;
    let key = read_key_line(name)?;
    if key.is_empty() {
        return Err(usage(
            "no key on standard input: give it as one line, e.g. `printenv MY_KEY | tessera \
             provider set-key NAME`",
        ));
    }
    if key.chars().any(char::is_control) {
        return Err(usage(
            "the key contains control characters; give it as one line",
        ));
    }
    set_key(keyring, name, Secret::new(key)).await?;
    println!("stored the key of {name} in the keyring");
    if let Some((var, _)) = env_key(&config, |var| std::env::var(var).ok()) {
        eprintln!("note: {var} is set and is used instead of the keyring while it is");
    }
    if !config.requires_key {
        eprintln!(
            "note: {name} is set up as needing no key; `tessera provider add {name} \
             --requires-key` makes it use this one"
        );
    }
    Ok(())
}

pub(super) async fn forget_key(keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    if delete_key(keyring, name).await? {
        println!("removed the key of {name} from the keyring");
    } else {
        println!("{name} had no key in the keyring");
    }
    Ok(())
}
