//! How the window's webview is set up beyond what Tauri's configuration says.
//!
//! - One page, no navigation: WebKit's document-viewer cache model keeps no back/forward
//!   pages and a small memory cache (the default model is a web browser's).
//! - Without a GPU (no DRM render node: a virtual machine, Xvfb, a remote session) WebKitGTK
//!   would composite through Mesa's software GL (llvmpipe), which costs ~75 MB of memory and
//!   CPU time for nothing; its CPU renderer draws the same page directly. `TESSERA_GPU=on` or
//!   `off` overrides the guess.

use tauri::{Manager, Runtime};

/// Whether the webview should composite on the GPU.
fn use_gpu() -> bool {
    match std::env::var("TESSERA_GPU").ok().as_deref() {
        Some("on") => true,
        Some("off") => false,
        _ => has_render_node(),
    }
}

/// A DRM render node (`/dev/dri/renderD*`) means a GPU the webview can use.
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Settings GTK and WebKitGTK read from the environment when they start; without a GPU, none of
/// them may load Mesa's software GL: its driver links LLVM, whose relocated tables cost ~20 MB
/// of memory in each process that loads it, for nothing (nothing here draws with GL). So:
/// - no DMA-BUF renderer (it would load Mesa in this process too);
/// - GTK does not probe GLX when it opens the display (`GDK_GL=disable`);
/// - WebKit does not open an EGL display in this process to find the web process's render
///   device (`WEBKIT_WEB_RENDER_DEVICE_FILE`: none usable, so the web process takes its
///   surfaceless display, the one it uses anyway without a GPU).
///
/// Figures (`make figures`, idle): 248 MB for the three processes, 228 MB with these.
/// Each is left alone when already set. Call first thing in `main`, before any thread is started.
pub fn before_webkit() {
    keyboard_input_without_an_input_method();
    if use_gpu() {
        return;
    }
    for (name, value) in [
        ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
        ("GDK_GL", "disable"),
        ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/null"),
    ] {
        if std::env::var_os(name).is_none() {
            std::env::set_var(name, value);
        }
    }
}

/// Tunes the main window's webview; a failure only leaves WebKit's defaults (logged).
pub fn tune<R: Runtime>(app: &tauri::App<R>) {
    let Some(window) = app.get_webview_window("main") else {
        tracing::warn!("no main window to tune");
        return;
    };
    let gpu = use_gpu();
    let tuned = window.with_webview(move |webview| {
        #[cfg(target_os = "linux")]
        {
            use webkit2gtk::{
                CacheModel, HardwareAccelerationPolicy, SettingsExt, WebContextExt, WebViewExt,
            };
            let view = webview.inner();
            if let Some(context) = view.context() {
                context.set_cache_model(CacheModel::DocumentViewer);
            }
            if !gpu {
                if let Some(settings) = WebViewExt::settings(&view) {
                    settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (webview, gpu);
    });
    match tuned {
        Ok(()) => tracing::info!(gpu, "webview tuned"),
        Err(err) => tracing::warn!(%err, "cannot tune the webview"),
    }
}

/// In a Chinese, Japanese, Korean or Thai locale GTK 3 picks its XIM input module by default;
/// with no input method running (no `XMODIFIERS` naming one) the webview then stops drawing as
/// soon as a text field takes the focus: in `zh_CN` the window stayed on its first frame
/// ("connecting…", no first-run panel) while the page went on. A person who runs an input
/// method (IBus, Fcitx) names it in `GTK_IM_MODULE` or `XMODIFIERS`, and it is left alone; without
/// one, GTK's own module (dead keys, compose, Ctrl+Shift+U) is what they can type with anyway.
fn keyboard_input_without_an_input_method() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("GTK_IM_MODULE").is_none() && std::env::var_os("XMODIFIERS").is_none() {
        std::env::set_var("GTK_IM_MODULE", "gtk-im-context-simple");
    }
}
