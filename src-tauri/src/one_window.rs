//! One window per data folder. A second start on a folder whose app is open used to open a
//! second, empty window showing the folder's lock error in small print; it now asks the first
//! one to come forward and ends. The app that owns a folder listens on a socket in it (the
//! folder is the person's alone, 0700); the single-instance plugin this replaces knew only the
//! default folder and needed a session bus.

#[cfg(unix)]
mod unix {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use tauri::{AppHandle, Manager};

    const SOCKET: &str = "window.sock";
    const ASK: &str = "show\n";
    const SHOWN: &str = "shown\n";

    fn socket(data_dir: &Path) -> PathBuf {
        data_dir.join(SOCKET)
    }

    /// Asks the app that has `data_dir` open to bring its window forward; true when it did.
    pub fn ask_the_open_one(data_dir: &Path) -> bool {
        let Ok(mut stream) = UnixStream::connect(socket(data_dir)) else {
            return false;
        };
        let timeout = Some(Duration::from_secs(3));
        if stream.set_read_timeout(timeout).is_err() || stream.set_write_timeout(timeout).is_err() {
            return false;
        }
        if stream.write_all(ASK.as_bytes()).is_err() {
            return false;
        }
        let mut answer = String::new();
        BufReader::new(Read::take(&stream, 64))
            .read_line(&mut answer)
            .is_ok()
            && answer == SHOWN
    }

    /// Listens for later starts on the folder this app holds (its lock taken: a socket file
    /// left by an app that died is stale and replaced).
    pub fn listen(data_dir: &Path, app: AppHandle) {
        let path = socket(data_dir);
        let _ = std::fs::remove_file(&path);
        let listener = match UnixListener::bind(&path) {
            Ok(listener) => listener,
            Err(error) => {
                tracing::warn!(%error, "a second start on this folder will not find this window");
                return;
            }
        };
        let spawned = std::thread::Builder::new()
            .name("one-window".into())
            .spawn(move || {
                for stream in listener.incoming().flatten() {
                    answer(stream, &app);
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "a second start on this folder will not find this window");
        }
    }

    fn answer(stream: UnixStream, app: &AppHandle) {
        let timeout = Some(Duration::from_secs(2));
        if stream.set_read_timeout(timeout).is_err() {
            return;
        }
        let mut asked = String::new();
        if BufReader::new(Read::take(&stream, 64))
            .read_line(&mut asked)
            .is_err()
            || asked != ASK
        {
            return;
        }
        tracing::info!("another start on this folder: the window comes forward");
        if let Some(window) = app.get_webview_window("main") {
            let _ = window.unminimize();
            let _ = window.show();
            let _ = window.set_focus();
        }
        let _ = (&stream).write_all(SHOWN.as_bytes());
    }
}

#[cfg(unix)]
pub use unix::{ask_the_open_one, listen};

#[cfg(not(unix))]
pub fn ask_the_open_one(_data_dir: &std::path::Path) -> bool {
    false
}

#[cfg(not(unix))]
pub fn listen(_data_dir: &std::path::Path, _app: tauri::AppHandle) {}
