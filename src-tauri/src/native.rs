//! The native tools of tessera-native, given what only the shell has: file dialogs with the
//! window as parent. `TESSERA_FILE_DIALOG` replaces the dialogs with a program (how the desktop
//! suite picks files; see tessera-native's `CommandDialog`).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::DialogExt;
use tessera_app::ToolPlugin;
use tessera_native::dialog::{DialogError, DialogFuture};
use tessera_native::own_windows::WindowsFuture;
use tessera_native::{
    CommandDialog, FileDialog, HiddenWindows, NativeEnv, OwnWindows, PickRequest, SaveRequest,
};

/// The app handle, known once the window exists (the engine opens before it).
pub type AppSlot = Arc<OnceLock<AppHandle>>;

struct TauriDialog {
    app: AppSlot,
}

impl TauriDialog {
    fn app(&self) -> Result<AppHandle, DialogError> {
        self.app
            .get()
            .cloned()
            .ok_or_else(|| DialogError::Failed("the window is not open yet".into()))
    }
}

async fn off_main<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, DialogError> {
    // The blocking dialog calls wait for the main thread's event loop: never call them on it.
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| DialogError::Failed(e.to_string()))
}

impl FileDialog for TauriDialog {
    fn pick(&self, request: PickRequest) -> DialogFuture<Vec<PathBuf>> {
        let app = self.app();
        Box::pin(async move {
            let app = app?;
            off_main(move || {
                let mut dialog = app.dialog().file();
                if let Some(window) = app.get_webview_window("main") {
                    dialog = dialog.set_parent(&window);
                }
                if let Some(title) = &request.title {
                    dialog = dialog.set_title(title);
                }
                for filter in &request.filters {
                    let extensions: Vec<&str> =
                        filter.extensions.iter().map(String::as_str).collect();
                    dialog = dialog.add_filter(&filter.name, &extensions);
                }
                let picked = if request.folder {
                    dialog.blocking_pick_folder().into_iter().collect()
                } else if request.multiple {
                    dialog.blocking_pick_files().unwrap_or_default()
                } else {
                    dialog.blocking_pick_file().into_iter().collect()
                };
                picked
                    .into_iter()
                    .filter_map(|p| p.into_path().ok())
                    .collect()
            })
            .await
        })
    }

    fn save(&self, request: SaveRequest) -> DialogFuture<Option<PathBuf>> {
        let app = self.app();
        Box::pin(async move {
            let app = app?;
            off_main(move || {
                let mut dialog = app.dialog().file().set_file_name(&request.suggested_name);
                if let Some(window) = app.get_webview_window("main") {
                    dialog = dialog.set_parent(&window);
                }
                if let Some(title) = &request.title {
                    dialog = dialog.set_title(title);
                }
                dialog.blocking_save_file().and_then(|p| p.into_path().ok())
            })
            .await
        })
    }
}

/// The file dialogs of the app: the window's own, or the program `TESSERA_FILE_DIALOG` names.
pub fn file_dialog(app: AppSlot) -> Arc<dyn FileDialog> {
    match CommandDialog::from_env() {
        Some(command) => {
            tracing::info!(program = %command.program.display(), "file dialogs replaced by a program");
            Arc::new(command)
        }
        None => Arc::new(TauriDialog { app }),
    }
}

/// The app's windows, hidden while the screen is captured (tessera-native's `own_windows`).
struct TauriWindows {
    app: AppSlot,
}

/// A window taken off the screen, with what putting it back needs.
struct Taken {
    window: tauri::WebviewWindow,
    position: Option<tauri::PhysicalPosition<i32>>,
    focused: bool,
}

struct Hidden(Vec<Taken>);

impl OwnWindows for TauriWindows {
    fn hide(&self) -> WindowsFuture<Option<Box<dyn HiddenWindows>>> {
        let app = self.app.get().cloned();
        Box::pin(async move {
            let app = app?;
            let mut taken = Vec::new();
            for window in app.webview_windows().into_values() {
                let on_screen =
                    window.is_visible().unwrap_or(false) && !window.is_minimized().unwrap_or(false);
                if !on_screen {
                    continue;
                }
                let position = window.outer_position().ok();
                let focused = window.is_focused().unwrap_or(false);
                match window.hide() {
                    Ok(()) => taken.push(Taken {
                        window,
                        position,
                        focused,
                    }),
                    Err(error) => {
                        tracing::warn!(%error, "a window could not be hidden for a capture")
                    }
                }
            }
            if taken.is_empty() {
                None
            } else {
                Some(Box::new(Hidden(taken)) as Box<dyn HiddenWindows>)
            }
        })
    }
}

impl HiddenWindows for Hidden {
    fn restore(self: Box<Self>) -> WindowsFuture<()> {
        Box::pin(async move {
            for taken in self.0 {
                if let Err(error) = taken.window.show() {
                    tracing::warn!(%error, "a window hidden for a capture could not be shown again");
                    continue;
                }
                // A window manager may place a window shown again anew: back where it stood.
                if let Some(position) = taken.position {
                    let _ = taken.window.set_position(position);
                }
                if taken.focused {
                    let _ = taken.window.set_focus();
                }
            }
        })
    }
}

/// The app's windows as the native tools see them.
pub fn own_windows(app: AppSlot) -> Arc<dyn OwnWindows> {
    Arc::new(TauriWindows { app })
}

/// The app's file dialogs, for the shell's own commands (an export's save dialog).
pub struct Dialogs(pub Arc<dyn FileDialog>);

/// The registration the engine runs for every model it builds.
pub fn tools(dialog: Arc<dyn FileDialog>, windows: Arc<dyn OwnWindows>) -> ToolPlugin {
    Arc::new(move |registry, store| {
        let env = NativeEnv {
            store: store.clone(),
            dialog: dialog.clone(),
            windows: windows.clone(),
        };
        let availability = tessera_native::register_native_tools(registry, &env)?;
        for (tool, reason) in &availability.unavailable {
            tracing::warn!(tool, %reason, "a native tool is not available on this machine");
        }
        Ok(())
    })
}
