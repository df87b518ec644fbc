//! Tessera's own windows, which a screen capture must not show. The person allows a capture in
//! the app's consent dialog; captured at once, every screenshot showed that dialog over the app,
//! and that is what the model was sent. So the app's windows leave the screen for the capture
//! and come back after it, as screenshot tools do. Only the shell can hide its windows: it
//! brings an [`OwnWindows`]; a process without windows has [`NoWindows`].

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub type WindowsFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Where a window of the app stood before it was hidden, for putting it back.
pub trait HiddenWindows: Send {
    /// Puts back every window that was hidden, where it was, the focus as it was.
    fn restore(self: Box<Self>) -> WindowsFuture<()>;
}

pub trait OwnWindows: Send + Sync {
    /// Takes every visible window of the app off the screen; None when none was on it. The
    /// future resolves once the shell has asked for that; the capture still waits for the
    /// display to show it ([`crate::screen`] checks the X server).
    fn hide(&self) -> WindowsFuture<Option<Box<dyn HiddenWindows>>>;
}

/// No windows to hide (the headless server, the tests of the tools themselves).
pub struct NoWindows;

impl OwnWindows for NoWindows {
    fn hide(&self) -> WindowsFuture<Option<Box<dyn HiddenWindows>>> {
        Box::pin(async { None })
    }
}

/// How long a capture waits for the app's windows to leave the screen before it goes on (a
/// window manager that never unmaps them would otherwise hold the capture up to its timeout).
pub const GONE_TIMEOUT: Duration = Duration::from_millis(1_500);

/// After the app's windows are gone, the time the programs under them get to draw what they
/// uncovered (no X request tells when they have: screenshot tools wait a fixed while too).
pub const REPAINT: Duration = Duration::from_millis(150);
