//! Screen capture in a Wayland session: the desktop's screenshot portal
//! (org.freedesktop.portal.Screenshot over D-Bus). The portal asks the person itself (and lets
//! them pick a window or a region when `interactive`); a refusal is PERMISSION_DENIED and a
//! portal that never answers ends after [`PORTAL_TIMEOUT`], never a hang.

use std::time::Duration;

use ashpd::desktop::screenshot::Screenshot;
use ashpd::desktop::ResponseError;
use tessera_engine::tools::{ToolFailure, ToolFailureCode};

pub const PORTAL_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether this is a Wayland session, where X11 capture would miss the other windows.
pub fn wayland_session() -> bool {
    std::env::var_os("WAYLAND_DISPLAY").is_some()
        && std::env::var("XDG_SESSION_TYPE").is_ok_and(|t| t == "wayland")
}

/// Asks the portal for a screenshot; `connection` is the session bus (None: the default one).
pub async fn capture(
    interactive: bool,
    connection: Option<ashpd::zbus::Connection>,
    timeout: Duration,
) -> Result<image::RgbaImage, ToolFailure> {
    let asked = tokio::time::timeout(timeout, async {
        Screenshot::request()
            .interactive(interactive)
            .modal(true)
            .connection(connection)
            .send()
            .await?
            .response()
    })
    .await;
    let shot = match asked {
        Err(_) => {
            return Err(ToolFailure::new(
                ToolFailureCode::Timeout,
                format!(
                    "the screenshot portal did not answer within {} s",
                    timeout.as_secs()
                ),
            ))
        }
        Ok(Err(ashpd::Error::Response(ResponseError::Cancelled))) => {
            return Err(ToolFailure::new(
                ToolFailureCode::PermissionDenied,
                "the person declined the screenshot in the desktop's dialog",
            ))
        }
        Ok(Err(ashpd::Error::PortalNotFound(_))) => {
            return Err(ToolFailure::new(
                ToolFailureCode::Unavailable,
                "this desktop has no screenshot portal (install xdg-desktop-portal and its \
                 backend for your desktop)",
            ))
        }
        Ok(Err(other)) => {
            return Err(ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                format!("the screenshot portal failed: {other}"),
            ))
        }
        Ok(Ok(shot)) => shot,
    };
    let path = url::Url::parse(shot.uri().as_str())
        .ok()
        .and_then(|u| u.to_file_path().ok())
        .ok_or_else(|| {
            ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                format!("the portal gave no file: {}", shot.uri()),
            )
        })?;
    // A screenshot of the largest screens is tens of MB; the portal's file is not trusted
    // further than that.
    const MAX_SHOT_BYTES: u64 = 256 * 1024 * 1024;
    let bytes = crate::files::read_at_most(&path, MAX_SHOT_BYTES)
        .await
        .map_err(|e| {
            ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                format!("the screenshot file cannot be read: {e}"),
            )
        })?
        .ok_or_else(|| {
            ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                "the screenshot file is larger than any screen's (over 256 MB)",
            )
        })?;
    crate::images::decode_bounded(&bytes, "the screenshot")
        .map(|i| i.to_rgba8())
        .map_err(|why| ToolFailure::new(ToolFailureCode::CaptureFailed, why))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A private session bus with no portal on it: the capture says so at once.
    #[tokio::test]
    async fn without_a_portal_the_capture_fails_clearly_and_fast() {
        let Ok(mut daemon) = std::process::Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address"])
            .stdout(std::process::Stdio::piped())
            .spawn()
        else {
            eprintln!("skipped: no dbus-daemon here (make test installs it)");
            return;
        };
        let mut address = String::new();
        {
            use std::io::BufRead;
            let stdout = daemon.stdout.take().unwrap();
            std::io::BufReader::new(stdout)
                .read_line(&mut address)
                .unwrap();
        }
        let connection = ashpd::zbus::connection::Builder::address(address.trim())
            .unwrap()
            .build()
            .await
            .unwrap();
        let began = std::time::Instant::now();
        let failure = capture(false, Some(connection), Duration::from_secs(10))
            .await
            .unwrap_err();
        let _ = daemon.kill();
        let _ = daemon.wait();
        assert!(
            ["UNAVAILABLE", "CAPTURE_FAILED"].contains(&failure.code.as_str()),
            "{failure:?}"
        );
        assert!(failure.message.contains("portal"), "{failure:?}");
        assert!(
            began.elapsed() < Duration::from_secs(9),
            "no wait for the timeout"
        );
    }
}
