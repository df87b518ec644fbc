//! The open dialogs the page uses where it needs a full path: a GGUF model file (the settings
//! page's Browse) and a folder for a project (the Projects panel's Choose). The window's own
//! dialogs, or the program `TESSERA_FILE_DIALOG` names.

use tauri::State;
use tessera_native::{FileFilter, PickRequest};

use crate::native::Dialogs;

/// The chosen `.gguf` file's full path, or None when the person cancelled. `title` and
/// `filter_name` come from the page, in the person's language.
#[tauri::command]
pub async fn pick_gguf_file(
    dialogs: State<'_, Dialogs>,
    title: String,
    filter_name: String,
) -> Result<Option<String>, String> {
    let picked = dialogs
        .0
        .pick(PickRequest {
            title: Some(title),
            multiple: false,
            folder: false,
            filters: vec![FileFilter {
                name: filter_name,
                extensions: vec!["gguf".into()],
            }],
        })
        .await
        .map_err(|error| error.to_string())?;
    Ok(picked
        .into_iter()
        .next()
        .map(|path| path.display().to_string()))
}

/// The chosen folder's full path, or None when the person cancelled.
#[tauri::command]
pub async fn pick_folder(
    dialogs: State<'_, Dialogs>,
    title: String,
) -> Result<Option<String>, String> {
    let picked = dialogs
        .0
        .pick(PickRequest {
            title: Some(title),
            multiple: false,
            folder: true,
            filters: Vec::new(),
        })
        .await
        .map_err(|error| error.to_string())?;
    Ok(picked
        .into_iter()
        .next()
        .map(|path| path.display().to_string()))
}
