//! Each committed schema is `json_schema(kind)`. (That every generated file is up to date is
//! tessera-server's `generated` test: `tessera-gen` lives there, with every crate's types.)

use tessera_protocol::generate::{default_root, SCHEMAS_DIR};
use tessera_protocol::{json_schema, DocumentKind};

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
