//! The coordinator: runs, the context assembler, specialists, built-in tools, interactions that
//! suspend and resume. Knows nothing of Tauri or HTTP. Filled in by the coordinator issue.
