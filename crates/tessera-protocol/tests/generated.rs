//! The committed `schemas/` and `ui/src/generated/` match the Rust types (what CI's
//! `tessera-gen check` verifies), and each committed schema is `json_schema(kind)`.

use tessera_protocol::generate::{check, default_root, SCHEMAS_DIR};
use tessera_protocol::{json_schema, DocumentKind};

#[test]
fn committed_artefacts_are_up_to_date() {
    let drift = check(&default_root()).unwrap();
    assert!(
        drift.is_empty(),
        "generated files are out of date (run `cargo run -p tessera-protocol --bin tessera-gen -- write`):\n{}",
        drift
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn committed_schemas_are_the_ones_validate_uses() {
    for kind in DocumentKind::ALL {
        let path = default_root()
            .join(SCHEMAS_DIR)
            .join(format!("{}.schema.json", kind.as_str()));
        let text = std::fs::read_to_string(&path).unwrap();
        let committed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(committed, json_schema(kind), "{}", path.display());
    }
}
