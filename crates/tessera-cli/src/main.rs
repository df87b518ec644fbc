//! `tessera`: the headless server and command-line tools.

use std::process::ExitCode;

/// A streamed answer is thousands of small values made and dropped (SSE lines, JSON, events,
/// rows): with glibc's allocator, allocating and freeing was a sixth of `tessera chat`'s time
/// per delta.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    tessera_cli::main_with(Vec::new())
}
