//! New ids: UUID v7, so ids made later sort later and index inserts stay local.

/// A new unique id.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
