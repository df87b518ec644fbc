//! The Rust types the UI reads that live above tessera-protocol (whose own types are always
//! generated): `tessera-gen` adds these, so `ui/src/generated/` has every type once.

use tessera_protocol::generate::Collector;

/// Adds the engine's (and, as they gain TypeScript exports, other crates') types.
pub fn add_roots(collector: &mut Collector<'_>) {
    // `GET /v1/runs/{id}/context`: `TurnContext.assembly` (typed there by name only, as the
    // protocol cannot see the engine).
    collector.add::<tessera_engine::assembler::Explanation>();
    // `/v1/profiles` and `/v1/specialists`.
    collector.add::<tessera_engine::profiles::AgentProfile>();
    collector.add::<tessera_engine::specialists::SpecialistSpec>();
}
