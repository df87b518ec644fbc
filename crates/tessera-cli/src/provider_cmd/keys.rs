//! `tessera provider remove`, `set-key`, `delete-key`: keys only ever in the secret store the
//! person chose (the OS keyring, or the key file), and the messages name the one used.

use std::io::{BufRead, IsTerminal, Write};

use tessera_protocol::settings_api::SecretBackend;

use super::*;

/// The store, in words: "the keyring", or "the key file <path>".
fn place(providers: &Providers<'_>, store: SecretBackend) -> String {
    match store {
        SecretBackend::Keyring => "the keyring".to_owned(),
        SecretBackend::File => format!("the key file {}", providers.key_file().display()),
    }
}

pub(super) async fn remove(providers: &Providers<'_>, name: &str) -> Outcome {
    let removal = providers.remove(name).await?;
    // Nothing else opens the data folder meanwhile (its lock): the store is the one used.
    let place = place(providers, providers.keys_kept_in());
    if !removal.settings {
        println!("removed the key of {name} from {place}");
        return Ok(());
    }
    let preset_note = if removal.preset_remains {
        format!(" (the {name} preset remains available)")
    } else {
        String::new()
    };
    match removal.key {
        Ok(true) => println!("removed provider {name} and its key in {place}{preset_note}"),
        Ok(false) => println!("removed provider {name}{preset_note}"),
        Err(err) => {
            println!("removed provider {name}{preset_note}");
            eprintln!(
                "tessera provider remove: warning: a key of {name} may remain in {place}: {err}"
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

pub(super) async fn store_key(providers: &Providers<'_>, name: &str) -> Outcome {
    providers.require(name)?;
    let key = read_key_line(name)?;
    if key.is_empty() {
        return Err(usage(
            "no key on standard input: give it as one line, e.g. `printenv MY_KEY | tessera \
             provider set-key NAME`",
        ));
    }
    let notes = providers.save_key(name, &key).await?;
    let place = place(providers, notes.store);
    println!("stored the key of {name} in {place}");
    if let Some(var) = notes.env_override {
        eprintln!("note: {var} is set and is used instead of {place} while it is");
    }
    if notes.not_required {
        eprintln!(
            "note: {name} is set up as needing no key; `tessera provider add {name} \
             --requires-key` makes it use this one"
        );
    }
    Ok(())
}

pub(super) async fn forget_key(providers: &Providers<'_>, name: &str) -> Outcome {
    let removed = providers.remove_key(name).await?;
    let place = place(providers, providers.keys_kept_in());
    if removed {
        println!("removed the key of {name} from {place}");
    } else {
        println!("{name} had no key in {place}");
    }
    Ok(())
}
