//! `tessera-gen write|check [--root DIR]`: regenerates, or checks, the JSON Schemas in
//! `schemas/` and the TypeScript types in `ui/src/generated/` from the Rust types (those of
//! tessera-protocol and the ones [`tessera_cli::ui_types`] adds). `check` exits 1 listing
//! every stale, missing or extra file (CI runs it).

use std::path::PathBuf;
use std::process::ExitCode;

use tessera_cli::ui_types::add_roots;
use tessera_protocol::generate::{self, SCHEMAS_DIR, TYPESCRIPT_DIR};

const USAGE: &str = "usage: tessera-gen <write|check> [--root DIR]

  write   rewrite schemas/ and ui/src/generated/ from the Rust types (stale files removed)
  check   exit 1, listing each stale, missing or extra file, if the committed files differ
  --root  workspace root (default: the one around the current directory, else the one
          it was built in)";

fn main() -> ExitCode {
    let mut command = None;
    let mut root = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "write" | "check" if command.is_none() => command = Some(arg),
            "--root" => match args.next() {
                Some(dir) => root = Some(PathBuf::from(dir)),
                None => return usage("--root needs a directory"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unexpected argument {other:?}")),
        }
    }
    let root = root.unwrap_or_else(generate::default_root);
    match command.as_deref() {
        Some("write") => match generate::write(&root, &add_roots) {
            Ok(report) => {
                for path in &report.written {
                    println!("wrote {}", path.display());
                }
                for path in &report.removed {
                    println!("removed {}", path.display());
                }
                println!(
                    "{SCHEMAS_DIR}/ and {TYPESCRIPT_DIR}/ are up to date ({} written, {} removed)",
                    report.written.len(),
                    report.removed.len()
                );
                ExitCode::SUCCESS
            }
            Err(error) => fail(&error.to_string()),
        },
        Some("check") => match generate::check(&root, &add_roots) {
            Ok(drift) if drift.is_empty() => {
                println!("{SCHEMAS_DIR}/ and {TYPESCRIPT_DIR}/ are up to date");
                ExitCode::SUCCESS
            }
            Ok(drift) => {
                for item in &drift {
                    eprintln!("{item}");
                }
                eprintln!(
                    "{} generated file(s) out of date; run `make gen` (cargo run -p tessera-server --bin tessera-gen -- write)",
                    drift.len()
                );
                ExitCode::from(1)
            }
            Err(error) => fail(&error.to_string()),
        },
        _ => usage("missing command"),
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("tessera-gen: {problem}\n{USAGE}");
    ExitCode::from(2)
}

fn fail(problem: &str) -> ExitCode {
    eprintln!("tessera-gen: {problem}");
    ExitCode::from(2)
}
