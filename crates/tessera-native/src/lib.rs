//! The native tools the desktop app adds to the engine: screen_capture, file_picker, save_file,
//! clipboard_read, clipboard_write, notification and local_image_resize. They are plain engine
//! tools (so consent, the scheduler, evidences and the event stream treat them like any other);
//! what only the shell can do (a file dialog with the window as parent) comes in through
//! [`dialog::FileDialog`]. Only what this machine can really do is registered: without an X
//! display there is no screen_capture, and the model is never offered it.

// Handlers answer with the engine's ToolFailure, as the engine's own tools do.
#![allow(clippy::result_large_err)]

pub mod clipboard;
pub mod dialog;
pub mod files;
pub mod image_resize;
pub mod images;
pub mod not_here;
pub mod notification;
pub mod own_windows;
pub mod portal;
pub mod screen;

use std::sync::Arc;

use tessera_engine::tools::{RegistryError, ToolRegistry};
use tessera_store::Store;

pub use dialog::{CommandDialog, FileDialog, FileFilter, PickRequest, SaveRequest};
pub use not_here::{LeftOut, NotHere};
pub use own_windows::{HiddenWindows, NoWindows, OwnWindows};

/// What the native tools need from the app around them.
#[derive(Clone)]
pub struct NativeEnv {
    pub store: Arc<Store>,
    pub dialog: Arc<dyn FileDialog>,
    /// The app's windows, hidden while the screen is captured.
    pub windows: Arc<dyn OwnWindows>,
}

/// Which native tools this machine can run, and why the others cannot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Availability {
    pub available: Vec<&'static str>,
    /// `(tool, reason)` for each tool left out.
    pub unavailable: Vec<(&'static str, NotHere)>,
}

/// Registers every native tool this machine can run; returns what was left out and why.
pub fn register_native_tools(
    tools: &mut ToolRegistry,
    env: &NativeEnv,
) -> Result<Availability, RegistryError> {
    let mut out = Availability::default();
    match screen::probe() {
        Ok(()) => {
            tools.register(
                screen::spec(),
                screen::handler(env.store.clone(), env.windows.clone()),
            )?;
            out.available.push(screen::NAME);
        }
        Err(reason) => out.unavailable.push((screen::NAME, reason)),
    }
    tools.register(files::spec(), files::handler(env.clone()))?;
    out.available.push(files::NAME);
    tools.register(files::save_spec(), files::save_handler(env.clone()))?;
    out.available.push(files::SAVE_NAME);
    tools.register(
        image_resize::spec(),
        image_resize::handler(env.store.clone()),
    )?;
    out.available.push(image_resize::NAME);
    match clipboard::probe() {
        Ok(()) => {
            tools.register(clipboard::read_spec(), clipboard::read_handler())?;
            tools.register(clipboard::write_spec(), clipboard::write_handler())?;
            out.available
                .extend([clipboard::READ_NAME, clipboard::WRITE_NAME]);
        }
        Err(reason) => {
            out.unavailable.push((clipboard::READ_NAME, reason.clone()));
            out.unavailable.push((clipboard::WRITE_NAME, reason));
        }
    }
    tools.register(notification::spec(), notification::handler())?;
    out.available.push(notification::NAME);
    Ok(out)
}
