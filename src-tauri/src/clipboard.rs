//! The clipboard for the page: WebKitGTK's clipboard API neither copies (the Copy buttons said
//! "copied" and nothing was there) nor hands over a pasted picture. Both go through the
//! clipboard tessera-native keeps for the process (what it copies stays pasteable on X11
//! without a clipboard manager).

use tauri::ipc::Response;

/// Copies `text` for the person.
#[tauri::command]
pub async fn copy_text(text: String) -> Result<(), String> {
    tauri::async_runtime::spawn_blocking(move || {
        tessera_native::clipboard::write_text(text).map_err(|failure| failure.message)
    })
    .await
    .map_err(|error| error.to_string())?
}

/// The picture the person copied, as PNG bytes (empty when the clipboard holds none): asked
/// when they paste into the composer.
#[tauri::command]
pub async fn pasted_image() -> Result<Response, String> {
    let png = tauri::async_runtime::spawn_blocking(|| {
        tessera_native::clipboard::read_image_png().map_err(|failure| failure.message)
    })
    .await
    .map_err(|error| error.to_string())??;
    Ok(Response::new(png.unwrap_or_default()))
}
