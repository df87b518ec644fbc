//! Links in answers open in the person's default browser (the webview would open nothing: a
//! new window is not its to make). Only web and mail addresses: a model's answer must not be
//! able to start a program through a `file:` or custom-scheme link.

use url::Url;

/// Opens `address` with the desktop's handler for it; an error in words the page shows.
#[tauri::command]
pub async fn open_link(address: String) -> Result<(), String> {
    let url = openable(&address)?;
    // The scheme only: an address can carry a person's tokens in its query.
    let scheme = url.scheme().to_owned();
    tauri::async_runtime::spawn_blocking(move || open::that_detached(url.as_str()))
        .await
        .map_err(|error| error.to_string())?
        .map_err(|error| format!("no browser could be started for it: {error}"))?;
    tracing::info!(%scheme, "a link was opened");
    Ok(())
}

/// Opens a file a citation names in the desktop's app for it: only a document inside a
/// project's folders (the core says which), never a program.
#[tauri::command]
pub async fn open_project_file(
    host: tauri::State<'_, crate::engine_host::EngineHost>,
    path: String,
) -> Result<(), String> {
    let crate::engine_host::EngineHost::Ready { app, .. } = host.inner() else {
        return Err("the engine did not start".into());
    };
    let app = app.clone();
    let real =
        tauri::async_runtime::spawn_blocking(move || app.project_file(std::path::Path::new(&path)))
            .await
            .map_err(|error| error.to_string())?
            .map_err(|error| error.to_string())?;
    tauri::async_runtime::spawn_blocking(move || open::that_detached(&real))
        .await
        .map_err(|error| error.to_string())?
        .map_err(|error| format!("no app could be started for it: {error}"))?;
    tracing::info!("a cited file was opened");
    Ok(())
}

fn openable(address: &str) -> Result<Url, String> {
    let url = Url::parse(address).map_err(|error| format!("not a web address: {error}"))?;
    match url.scheme() {
        "http" | "https" | "mailto" => Ok(url),
        other => Err(format!(
            "only web and mail addresses open from an answer, not `{other}:`"
        )),
    }
}
