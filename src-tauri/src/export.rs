//! Exports and downloads in the desktop app go where the person says: a save dialog (the
//! window's, or the program `TESSERA_FILE_DIALOG` names in the tests), then the file is written
//! and its path handed back for the app to show. The webview alone would write a download into
//! the process's working folder without a word.

use tauri::State;
use tessera_native::SaveRequest;

use crate::native::Dialogs;

/// Asks where to save `text` (offering `suggested_name`) and writes it there; the path, or
/// None when the person cancelled.
#[tauri::command]
pub async fn save_export(
    dialogs: State<'_, Dialogs>,
    suggested_name: String,
    text: String,
) -> Result<Option<String>, String> {
    let chosen = dialogs
        .0
        .save(SaveRequest {
            title: Some("Export the conversation".into()),
            suggested_name,
        })
        .await
        .map_err(|error| error.to_string())?;
    let Some(path) = chosen else {
        return Ok(None);
    };
    let target = path.clone();
    tauri::async_runtime::spawn_blocking(move || std::fs::write(&target, text.as_bytes()))
        .await
        .map_err(|error| error.to_string())?
        .map_err(|error| format!("{} could not be written: {error}", path.display()))?;
    tracing::info!(path = %path.display(), "export saved");
    Ok(Some(path.display().to_string()))
}
