//! `tessera provider remove`, `set-key`, `delete-key`: keys only ever in the OS keyring.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;

use anyhow::anyhow;
use tessera_providers::keys::{delete_key, env_key, set_key, KeyStore, Secret};
use tessera_providers::{presets, ProviderError};
use tessera_store::Store;

use super::*;

/// What removing a provider did.
pub(crate) struct Removal {
    /// Its saved settings were removed (false: only a key was found).
    pub settings: bool,
    /// Whether a key was removed from the keyring, or why it could not be looked for.
    pub key: Result<bool, ProviderError>,
    /// A preset of that name takes its place.
    pub preset_remains: bool,
    /// It was the default provider; there is none now.
    pub was_default: bool,
}

/// Forgets the saved provider `name` and its key. A keyring that cannot be reached does not
/// stop the settings from going; with no settings and no key there was nothing to remove.
pub(crate) async fn remove_provider(
    store: &Store,
    keyring: &Arc<dyn KeyStore>,
    name: &str,
) -> Outcome<Removal> {
    let settings = store.delete_provider_settings(name)?;
    let key = delete_key(keyring, name).await;
    let preset_remains = presets::preset(name).is_some();
    match (settings, &key) {
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
        _ => {}
    }
    let mut was_default = false;
    if settings && !preset_remains && default_provider(store)?.as_deref() == Some(name) {
        store.delete_app_setting(DEFAULT_PROVIDER_SETTING)?;
        was_default = true;
    }
    Ok(Removal {
        settings,
        key,
        preset_remains,
        was_default,
    })
}

pub(super) async fn remove(store: &Store, keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    let removal = remove_provider(store, keyring, name).await?;
    if !removal.settings {
        println!("removed the key of {name} from the keyring");
        return Ok(());
    }
    let preset_note = if removal.preset_remains {
        format!(" (the {name} preset remains available)")
    } else {
        String::new()
    };
    match removal.key {
        Ok(true) => println!("removed provider {name} and its key in the keyring{preset_note}"),
        Ok(false) => println!("removed provider {name}{preset_note}"),
        Err(err) => {
            println!("removed provider {name}{preset_note}");
            eprintln!(
                "tessera provider remove: warning: a key of {name} may remain in the \
                 keyring: {err}"
            );
        }
    }
    if removal.was_default {
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

/// What the person may want to know after a key was stored.
pub(crate) struct KeyNotes {
    /// This environment variable is set and wins over the keyring while it is.
    pub env_override: Option<String>,
    /// The provider is set up as needing no key, so this one is not used.
    pub not_required: bool,
}

/// Stores `key` as the key of the provider `name` (saved or a preset) in the keyring. The key
/// is never logged nor repeated in an error.
pub(crate) async fn save_key(
    store: &Store,
    keyring: &Arc<dyn KeyStore>,
    name: &str,
    key: &str,
) -> Outcome<KeyNotes> {
    let (config, _) = find_or_fail(store, name)?;
    let key = key.trim();
    if key.is_empty() {
        return Err(usage("the key is empty"));
    }
    if key.chars().any(char::is_control) {
        return Err(usage(
            "the key contains control characters; give it as one line",
        ));
    }
    set_key(keyring, name, Secret::new(key)).await?;
    Ok(KeyNotes {
        env_override: env_key(&config, |var| std::env::var(var).ok()).map(|(var, _)| var),
        not_required: !config.requires_key,
    })
}

pub(super) async fn store_key(store: &Store, keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    find_or_fail(store, name)?;
    let key = read_key_line(name)?;
    if key.is_empty() {
        return Err(usage(
            "no key on standard input: give it as one line, e.g. `printenv MY_KEY | tessera \
             provider set-key NAME`",
        ));
    }
    let notes = save_key(store, keyring, name, &key).await?;
    println!("stored the key of {name} in the keyring");
    if let Some(var) = notes.env_override {
        eprintln!("note: {var} is set and is used instead of the keyring while it is");
    }
    if notes.not_required {
        eprintln!(
            "note: {name} is set up as needing no key; `tessera provider add {name} \
             --requires-key` makes it use this one"
        );
    }
    Ok(())
}

/// Removes the key of `name` from the keyring; whether there was one.
pub(crate) async fn remove_key(keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome<bool> {
    Ok(delete_key(keyring, name).await?)
}

pub(super) async fn forget_key(keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    if remove_key(keyring, name).await? {
        println!("removed the key of {name} from the keyring");
    } else {
        println!("{name} had no key in the keyring");
    }
    Ok(())
}
