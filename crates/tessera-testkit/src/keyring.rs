//! The real keyring in tests: whether the throwaway Secret Service of
//! `scripts/with-keyring.sh` is there (skip loudly when it is not; fail when the script set a
//! session up and the service is missing), and `secret-tool` as another program reading it.

use std::io::Write;
use std::process::{Command, Stdio};

/// The service name Tessera stores keys under (the keyring's `service` attribute).
pub const SERVICE: &str = "dev.tessera.desktop";

/// Whether the script set this session up; if it did, the Secret Service must be there.
pub fn in_keyring_session() -> bool {
    std::env::var_os("TESSERA_KEYRING_SESSION").is_some_and(|v| v == "1")
}

/// Whether something owns `org.freedesktop.secrets` on the session bus right now (a service
/// that is only activatable does not count: activating it would ask for a password).
pub fn secret_service_on_bus() -> bool {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return false;
    }
    Command::new("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            "string:org.freedesktop.secrets",
        ])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("boolean true"))
}

/// Written straight to stderr, past the test harness's capture, so a skip is never silent.
pub fn skip(suite: &str, reason: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED: {suite}: {reason}.\n*** Run them with `make test-keyring` \
         (scripts/with-keyring.sh: dbus-run-session + gnome-keyring).\n"
    );
}

/// Whether a keyring test may run here. Panics when the script's session is broken.
pub fn should_run(suite: &str) -> bool {
    match (in_keyring_session(), secret_service_on_bus()) {
        (true, true) => true,
        (true, false) => panic!(
            "TESSERA_KEYRING_SESSION is set but no Secret Service owns org.freedesktop.secrets"
        ),
        (false, true) => {
            skip(
                suite,
                "a Secret Service is on the bus, but not the throwaway one of the script",
            );
            false
        }
        (false, false) => {
            skip(suite, "no Secret Service on the session bus");
            false
        }
    }
}

/// `secret-tool lookup service dev.tessera.desktop username <provider>`: what another program
/// reading the keyring sees (keyring 3.6's Secret Service backend names its attributes
/// `service`, `username`, `target` and `application`). None when absent or unreadable.
pub fn secret_tool_lookup(provider: &str) -> std::io::Result<Option<String>> {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", SERVICE, "username", provider])
        .output()?;
    Ok(out
        .status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// `secret-tool store`: a key written by another program.
pub fn secret_tool_store(provider: &str, key: &str) -> std::io::Result<bool> {
    let mut child = Command::new("secret-tool")
        .args([
            "store",
            "--label=stored by another program",
            "service",
            SERVICE,
            "username",
            provider,
        ])
        .stdin(Stdio::piped())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(key.as_bytes())?;
    }
    Ok(child.wait()?.success())
}
