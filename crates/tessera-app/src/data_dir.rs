//! Where Tessera keeps its data when no `--data-dir` is given: the platform's application data
//! folder named by the app's identifier, exactly where the desktop app's Tauri `app_data_dir`
//! points (`~/.local/share/dev.tessera.desktop` on Linux), so the CLI and the app share it.

use std::path::PathBuf;

/// The desktop app's bundle identifier (src-tauri/tauri.conf.json).
pub const APP_IDENTIFIER: &str = "dev.tessera.desktop";

pub fn default_data_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|dirs| dirs.data_dir().join(APP_IDENTIFIER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_identifier_matches_the_desktop_app() {
        let conf = include_str!("../../../src-tauri/tauri.conf.json");
        let conf: serde_json::Value = serde_json::from_str(conf).unwrap();
        assert_eq!(conf["identifier"], APP_IDENTIFIER);
    }
}
