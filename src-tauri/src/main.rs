// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

//! The desktop shell: hosts the engine in process and carries the HTTP API's router over IPC
//! (DESIGN.md), so the window runs exactly what `tessera serve` serves to a browser. The shell
//! decides nothing itself.

mod cli;
mod diagnostics;
mod engine_host;
mod export;
mod ipc;
mod logs;
mod native;
mod webview_tuning;

use tauri::{Manager, RunEvent};
use tessera_server::data_dir::default_data_dir;

/// When the process started, for the start-up figure.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// The webview has painted its first screen with data from the engine: the window is usable.
/// `TESSERA_REPORT_READY=1` prints it on stdout, for `scripts/figures.mjs`.
#[tauri::command]
fn ui_ready() {
    let ms = STARTED
        .get()
        .map(|t| t.elapsed().as_millis())
        .unwrap_or_default();
    tracing::info!(ms, "the window is interactive");
    if std::env::var_os("TESSERA_REPORT_READY").is_some() {
        println!("tessera-desktop: interactive after {ms} ms");
    }
}

fn main() {
    let _ = STARTED.set(std::time::Instant::now());
    webview_tuning::before_webkit();
    let cli = match cli::parse(
        std::env::args_os().skip(1),
        std::env::var_os("TESSERA_DATA_DIR"),
    ) {
        Ok(cli::Parsed::Run(args)) => args,
        Ok(cli::Parsed::Print(text)) => {
            print!("{text}");
            return;
        }
        Err(message) => {
            eprintln!("tessera-desktop: error: {message}");
            std::process::exit(2);
        }
    };
    let Some(data_dir) = cli.data_dir.clone().or_else(default_data_dir) else {
        eprintln!("tessera-desktop: no home folder to keep data in; pass --data-dir DIR");
        std::process::exit(2);
    };
    let _log_flush = logs::init(&data_dir);
    tracing::info!(version = env!("CARGO_PKG_VERSION"), data = %data_dir.display(), "starting");

    let app_slot = native::AppSlot::default();
    let dialog = native::file_dialog(app_slot.clone());
    let host = tauri::async_runtime::block_on(engine_host::EngineHost::open(
        &data_dir,
        cli.model,
        native::tools(dialog.clone()),
    ));
    let mut builder = tauri::Builder::default();
    // With the usual data folder, a second start hands over to the window already open. An
    // app started on a folder of its own (--data-dir, TESSERA_DATA_DIR) runs beside it: the
    // folder's lock still keeps two engines off one folder, with a message naming the owner.
    if cli.data_dir.is_none() {
        builder = builder.plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| {
            if let Some(window) = app.get_webview_window("main") {
                let _ = window.unminimize();
                let _ = window.show();
                let _ = window.set_focus();
            }
        }));
    }
    let app = builder
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            let _ = app_slot.set(app.handle().clone());
            webview_tuning::tune(app);
            Ok(())
        })
        .manage(host)
        .manage(ipc::Pumps::default())
        .manage(diagnostics::DataDir(data_dir))
        .manage(native::Dialogs(dialog))
        .invoke_handler(tauri::generate_handler![
            ipc::api_request,
            ipc::api_abort,
            diagnostics::diagnostics,
            export::save_export,
            ui_ready
        ])
        .build(tauri::generate_context!());
    let app = match app {
        Ok(app) => app,
        Err(err) => {
            tracing::error!(%err, "the window could not start");
            eprintln!("Tessera could not start its window: {err}");
            std::process::exit(1);
        }
    };
    app.run(|app, event| {
        if let RunEvent::ExitRequested { .. } = event {
            app.state::<ipc::Pumps>().stop_all();
            app.state::<engine_host::EngineHost>().shut_down();
            tracing::info!("quitting");
        }
    });
}
