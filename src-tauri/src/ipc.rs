//! The API over IPC: `api_request` runs one request through the in-process router and pumps its
//! body into a channel; `api_abort` stops a body the webview no longer reads (an aborted fetch),
//! which drops the event subscription behind it.

use std::collections::HashMap;
use std::sync::Mutex;
use tessera_app::sync::lock;

use tauri::ipc::Channel;
use tauri::State;
use tessera_server::in_process::{ApiRequest, ApiResponseHead, BodyFrame};

use crate::engine_host::EngineHost;

/// Bodies being pumped, by the id the webview gave the request.
#[derive(Default)]
pub struct Pumps(Mutex<HashMap<String, tauri::async_runtime::JoinHandle<()>>>);

impl Pumps {
    fn insert(&self, id: String, pump: tauri::async_runtime::JoinHandle<()>) {
        let mut pumps = lock(&self.0);
        pumps.retain(|_, pump| !pump.inner().is_finished());
        pumps.insert(id, pump);
    }

    fn stop(&self, id: &str) {
        let pump = lock(&self.0).remove(id);
        if let Some(pump) = pump {
            pump.abort();
        }
    }

    /// Stops every body still flowing (the app is quitting).
    pub fn stop_all(&self) {
        for (_, pump) in lock(&self.0).drain() {
            pump.abort();
        }
    }
}

#[tauri::command]
pub async fn api_request(
    host: State<'_, EngineHost>,
    pumps: State<'_, Pumps>,
    id: String,
    request: ApiRequest,
    on_body: Channel<BodyFrame>,
) -> Result<ApiResponseHead, String> {
    let (head, mut body) = host.call(request).await;
    let pump = tauri::async_runtime::spawn(async move {
        while let Some(frame) = body.next_frame().await {
            // The webview went away (reload, closed window): nobody reads on.
            if on_body.send(frame).is_err() {
                return;
            }
        }
        let _ = on_body.send(BodyFrame::End);
    });
    pumps.insert(id, pump);
    Ok(head)
}

#[tauri::command]
pub fn api_abort(pumps: State<'_, Pumps>, id: String) {
    pumps.stop(&id);
}
