//! The Rust types the UI reads that live above tessera-protocol (whose own types are always
//! generated): `tessera-gen` adds these, so `ui/src/generated/` has every type once.

use tessera_protocol::generate::Collector;

/// Adds the engine's types and the answers this crate composes ([`crate::views`]).
pub fn add_roots(collector: &mut Collector<'_>) {
    // `GET /v1/runs/{id}/context`: `TurnContext.assembly` (typed there by name only, as the
    // protocol cannot see the engine).
    collector.add::<tessera_engine::assembler::Explanation>();
    // `/v1/profiles` and `/v1/specialists`.
    collector.add::<tessera_engine::profiles::AgentProfile>();
    collector.add::<tessera_engine::specialists::SpecialistSpec>();
    // Their errors' `details.problems`.
    collector.add::<crate::views::agents::AgentProblems>();
    // `/v1/conversations…`.
    collector.add::<crate::views::conversations::ConversationList>();
    collector.add::<crate::views::conversations::ConversationDetail>();
    collector.add::<crate::views::conversations::ConversationDeleted>();
    collector.add::<crate::views::conversations::ConversationImported>();
    collector.add::<crate::views::conversations::ConversationEdit>();
    // What a stored user message lists under `attachments`.
    collector.add::<tessera_engine::attachments::MessageAttachment>();
    collector.add::<crate::context_cmd::ExportFormat>();
    // `/v1/interactions…`, `/v1/forms`, and the answer the UI sends.
    collector.add::<crate::views::interactions::InteractionList>();
    collector.add::<crate::views::interactions::InteractionAnswered>();
    collector.add::<tessera_engine::interactions::Answer>();
    // `/v1/tools`.
    collector.add::<crate::views::tools::ToolList>();
    // `/v1/providers…`.
    collector.add::<crate::views::providers::ProviderList>();
    collector.add::<crate::views::providers::LocalProviders>();
    collector.add::<crate::views::providers::ProviderSaved>();
    collector.add::<crate::views::providers::ProviderRemoved>();
    collector.add::<crate::views::providers::KeyStored>();
    collector.add::<crate::views::providers::KeyRemoved>();
    collector.add::<crate::views::providers::DefaultProviderSet>();
    collector.add::<crate::views::providers::ProviderModels>();
}
