//! The committed `schemas/` and `ui/src/generated/` match the Rust types, those of
//! tessera-protocol and those `ui_types` adds (what CI's `tessera-gen check` verifies).

use tessera_cli::ui_types::add_roots;
use tessera_protocol::generate::{check, default_root};

#[test]
fn committed_artefacts_are_up_to_date() {
    let drift = check(&default_root(), &add_roots).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        drift.is_empty(),
        "generated files are out of date (run `make gen`):\n{}",
        drift
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}
