//! Opening a page in the person's browser (a URL elicitation they agreed to). Tests, and people
//! with an unusual desktop, name the program in `TESSERA_OPEN_URL`; it gets the URL as its one
//! argument.

use std::process::{Command, Stdio};

/// Starts the browser on `url` without waiting for it.
pub fn open_url(url: &str) -> std::io::Result<()> {
    let program = std::env::var("TESSERA_OPEN_URL")
        .ok()
        .filter(|p| !p.trim().is_empty());
    let mut command = match program {
        Some(program) => Command::new(program),
        None if cfg!(target_os = "macos") => Command::new("open"),
        None if cfg!(windows) => {
            let mut c = Command::new("rundll32");
            c.arg("url.dll,FileProtocolHandler");
            c
        }
        None => Command::new("xdg-open"),
    };
    command
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(drop)
}
