// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

//! The desktop shell. It hosts the web UI; later issues host the engine in process and carry the
//! HTTP API over IPC. The shell decides nothing itself.

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TESSERA_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    if let Err(err) = tauri::Builder::default().run(tauri::generate_context!()) {
        eprintln!("Tessera could not start its window: {err}");
        std::process::exit(1);
    }
}
