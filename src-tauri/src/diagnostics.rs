//! "Copy diagnostics": what a bug report needs, without a secret. Versions, the platform, the
//! settings and providers as the API shows them (keys are never part of either), and the recent
//! warnings and errors of the log.

use std::path::PathBuf;

use serde_json::{json, Value};
use tauri::State;
use tessera_server::in_process::ApiRequest;

use crate::engine_host::EngineHost;

pub struct DataDir(pub PathBuf);

async fn api_json(host: &EngineHost, path: &str) -> Value {
    let (head, mut body) = host
        .call(ApiRequest {
            method: "GET".into(),
            path: path.into(),
            headers: vec![("accept".into(), "application/json".into())],
            body: None,
        })
        .await;
    let mut text = String::new();
    while let Some(Ok(chunk)) = body.next().await {
        text.push_str(&chunk);
    }
    serde_json::from_str(&text).unwrap_or_else(|_| json!({"status": head.status, "body": text}))
}

fn os_release() -> String {
    std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_owned())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_owned())
}

/// The diagnostics as text for the clipboard.
#[tauri::command]
pub async fn diagnostics(
    host: State<'_, EngineHost>,
    data_dir: State<'_, DataDir>,
) -> Result<String, String> {
    let settings = api_json(&host, "/v1/settings").await;
    let providers = api_json(&host, "/v1/providers").await;
    let report = json!({
        "app": {"name": "Tessera", "version": env!("CARGO_PKG_VERSION")},
        "tauri": tauri::VERSION,
        "webkit": tauri::webview_version().unwrap_or_default(),
        "platform": {"os": os_release(), "arch": std::env::consts::ARCH},
        "data_dir": data_dir.0.display().to_string(),
        "settings": settings,
        "providers": providers,
        "recent_problems": crate::logs::recent_problems(&data_dir.0, 50),
    });
    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())
}
