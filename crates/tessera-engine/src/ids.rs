//! New ids for what the engine makes (runs, messages, forms, interactions).

/// A new unique id (UUID v7, as the store makes them: ids made later sort later).
pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
