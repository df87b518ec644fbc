// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

//! The desktop shell: hosts the engine in process and carries the HTTP API's router over IPC
//! (docs/design.md), so the window runs exactly what `tessera serve` serves to a browser. The shell
//! decides nothing itself.

mod cli;
mod clipboard;
mod diagnostics;
mod drops;
mod engine_host;
mod export;
mod ipc;
mod links;
mod logs;
mod native;
mod one_window;
mod pick;
mod webview_tuning;

use tauri::{DragDropEvent, Manager, RunEvent, WindowEvent};
use tessera_app::data_dir::default_data_dir;

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
    if one_window::ask_the_open_one(&data_dir) {
        println!(
            "Tessera is already open on {}: its window was brought forward.",
            data_dir.display()
        );
        return;
    }
    let _log_flush = logs::init(&data_dir);
    tracing::info!(version = env!("CARGO_PKG_VERSION"), data = %data_dir.display(), "starting");

    let app_slot = native::AppSlot::default();
    let dialog = native::file_dialog(app_slot.clone());
    let host = tauri::async_runtime::block_on(engine_host::EngineHost::open(
        &data_dir,
        cli.model,
        native::tools(dialog.clone(), native::own_windows(app_slot.clone())),
    ));
    let engine_opened = matches!(host, engine_host::EngineHost::Ready { .. });
    let listen_dir = data_dir.clone();
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            let _ = app_slot.set(app.handle().clone());
            // Only the app that holds the folder answers later starts on it.
            if engine_opened {
                one_window::listen(&listen_dir, app.handle().clone());
            }
            webview_tuning::tune(app);
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::DragDrop(DragDropEvent::Drop { paths, .. }) = event {
                window.state::<drops::Drops>().record(paths);
            }
        })
        .manage(host)
        .manage(drops::Drops::default())
        .manage(ipc::Pumps::default())
        .manage(diagnostics::DataDir(data_dir))
        .manage(native::Dialogs(dialog))
        .invoke_handler(tauri::generate_handler![
            ipc::api_request,
            ipc::api_abort,
            diagnostics::diagnostics,
            export::save_export,
            pick::pick_gguf_file,
            pick::pick_folder,
            drops::dropped_files,
            drops::dropped_file,
            links::open_link,
            links::open_project_file,
            clipboard::copy_text,
            clipboard::pasted_image,
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
